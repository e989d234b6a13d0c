// SPDX-License-Identifier: GPL-2.0-only
/*
 * An LTTng-UST tracepoint (liblttng-ust-dev), its provider built into
 * the program as LTTng's documentation shows (CREATE_PROBES and DEFINE in
 * one file).  Disabled unless an LTTng session enables bench:loop.
 * LINK: -llttng-ust -ldl
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng_tp.h"

#include "loop.h"

#define LTTNG_PROBE(i, v) lttng_ust_tracepoint(bench, loop, i, v)
LOOP(LTTNG_PROBE)
