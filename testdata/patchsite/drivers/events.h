/* SPDX-License-Identifier: GPL-2.0-only */
/* The test events (tests/patchsite/events.sh): included by several files, as a user would. */
#ifndef TEST_EVENTS_H
#define TEST_EVENTS_H

#include <stdint.h>

#include "patchsite_event.h"

PATCHSITE_EVENT(netsim, send, PATCHSITE_ARGS(int, len, const char *, host), "len=%d host=%s");
PATCHSITE_EVENT(netsim, poll, PATCHSITE_ARGS(unsigned, n), "n=%u");
PATCHSITE_EVENT(netsim, tick, PATCHSITE_ARGS(long, i, int, thread), "i=%ld thread=%d");
PATCHSITE_EVENT(types, all,
		PATCHSITE_ARGS(int8_t, s8, int16_t, s16, int64_t, s64, uint32_t, u32,
			       void *, ptr, double, dbl, const char *, str, patchsite_bytes(4), raw),
		"s8=%d s16=%d s64=%ld u32=%u ptr=%p dbl=%g str=%s raw=%s");

/* evlib.c, a library loaded with dlopen. */
PATCHSITE_EVENT(evlib, hello, PATCHSITE_ARGS(int, x), "x=%d");

#endif
