// SPDX-License-Identifier: GPL-2.0-only
/*
 * The driver of one bench/events/loop_*.c:  main N count|time
 *   count: probe_setup() if the loop has one, then probe_loop(N) once
 *          (run under callgrind with --toggle-collect=probe_loop)
 *   time:  probe_setup(), one warm-up, then the best of 7 timed runs of
 *          probe_loop(N): nanoseconds per iteration on stdout
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void probe_loop(long n);
__attribute__((weak)) void probe_setup(void);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[1]) : 0;
	double best = 0;

	if (n <= 0 || (strcmp(argv[2], "count") && strcmp(argv[2], "time"))) {
		fprintf(stderr, "usage: %s N count|time\n", argv[0]);
		return 2;
	}
	if (probe_setup)
		probe_setup();
	if (!strcmp(argv[2], "count")) {
		probe_loop(n);
		return 0;
	}
	probe_loop(n);
	for (int k = 0; k < 7; k++) {
		double t0 = now_ns(), t;

		probe_loop(n);
		t = (now_ns() - t0) / (double)n;
		if (!k || t < best)
			best = t;
	}
	printf("%.3f\n", best);
	return 0;
}
