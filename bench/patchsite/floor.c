// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time-stamp floor (bench/patchsite/compare.sh): CPU time of one
 * rdtsc, best of 5 loops of 10,000,000, each reading the TSC and using
 * the value as a trampoline does (so neither reads nor sums are dropped).
 * function_graph stamps every call twice (entry and exit), so per call it
 * cannot cost less than two of these.  Prints "rdtsc_ns X".
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(void)
{
	const long n = 10000000;
	double best = 1e30;
	volatile uint64_t sink = 0;

	for (int r = 0; r < 5; r++) {
		uint64_t s = 0;
		double t = cpu_ns();

		for (long i = 0; i < n; i++)
			s += __rdtsc();
		t = (cpu_ns() - t) / n;
		sink += s;
		if (t < best)
			best = t;
	}
	printf("rdtsc_ns %.2f\n", best);
	return 0;
}
