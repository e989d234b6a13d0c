// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost loop (issue 15) with a patchsite event that stays disabled: the
 * site is one 5-byte NOP and its arguments are not computed.  The harness
 * compares instructions per iteration with the same loop without a probe.
 */
#include "patchsite_event.h"

PATCHSITE_EVENT(bench, loop, PATCHSITE_ARGS(long, i, long, acc), "i=%ld acc=%ld");

volatile long probe_sink;

void probe_loop(long n)
{
	long acc = 0;

	for (long i = 0; i < n; i++) {
		acc += i ^ (acc >> 3);
		patchsite_trace(bench, loop, i, acc);
	}
	probe_sink = acc;
}
