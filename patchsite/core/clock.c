// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event clock.  Time stamps are the arch's counter (host.h: the TSC,
 * cntvct_el0; constant and non-stop on the machines we target), converted
 * to CLOCK_MONOTONIC at the rate the arch states (cntfrq_el0), else one
 * measured between start-up (ps_clock_init) and the first conversion.
 */
#include <time.h>

#include "host.h"
#include "core/core.h"

static uint64_t tsc0, ns0;
static double ns_per_tsc;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where conversions count from: both clocks read once, at start-up. */
void ps_clock_init(void)
{
	ns0 = mono_ns();
	tsc0 = ps_clock();
}

/* The time-stamp counter the events carry. */
uint64_t ps_tsc_now(void)
{
	return ps_clock();
}

/* CLOCK_MONOTONIC ns of a clock value; an unstated rate is measured over >= 20 ms once. */
uint64_t ps_tsc_to_ns(uint64_t tsc)
{
	if (!ns_per_tsc && ps_clock_hz())
		ns_per_tsc = 1e9 / (double)ps_clock_hz();
	if (!ns_per_tsc) {
		uint64_t ns = mono_ns(), t;

		while (ns - ns0 < 20000000) {
			struct timespec d = { 0, 20000000 - (long)(ns - ns0) };

			nanosleep(&d, NULL);
			ns = mono_ns();
		}
		t = ps_clock();
		ns_per_tsc = t > tsc0 ? (double)(ns - ns0) / (double)(t - tsc0) : 1.0;
	}
	return ns0 + (uint64_t)((double)(int64_t)(tsc - tsc0) * ns_per_tsc);
}

/* What ps_tsc_to_ns computes with: a reader's tsc0, ns0 and rate (record/output.c). */
void ps_clock_params(uint64_t *tsc, uint64_t *ns, double *rate)
{
	(void)ps_tsc_to_ns(tsc0);	/* the rate, measured if not stated */
	*tsc = tsc0;
	*ns = ns0;
	*rate = ns_per_tsc;
}
