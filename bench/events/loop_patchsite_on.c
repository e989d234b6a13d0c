// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost loop (issue 15) with the patchsite event enabled, two integer
 * fields, recorded into the thread's ring (no other consumer).  Link with
 * libpatchsite; probe_setup enables the event before the loop.
 */
#include <stdio.h>
#include <stdlib.h>

#include "patchsite.h"
#include "patchsite_event.h"

PATCHSITE_EVENT(bench, loop, PATCHSITE_ARGS(long, i, long, acc), "i=%ld acc=%ld");

volatile long probe_sink;

void probe_setup(void)
{
	if (patchsite_enable_event("bench:loop") || patchsite_event_is_enabled("bench:loop") != 1) {
		fprintf(stderr, "loop_patchsite_on: cannot enable bench:loop\n");
		exit(1);
	}
}

void probe_loop(long n)
{
	long acc = 0;

	for (long i = 0; i < n; i++) {
		acc += i ^ (acc >> 3);
		patchsite_trace(bench, loop, i, acc);
	}
	probe_sink = acc;
}
