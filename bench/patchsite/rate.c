// SPDX-License-Identifier: GPL-2.0-only
/*
 * A thread making traced calls at a steady rate (bench/patchsite/pipe.sh):
 * rate RATE SECONDS FILE calls leaf() RATE times a second for SECONDS
 * seconds, in batches of 1000 each started on schedule (it spins until
 * then), and writes to FILE "calls N" (the oracle), the rate it kept and
 * "exit_ns T" (CLOCK_REALTIME, as date +%s%N) as it ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline, noipa)) long leaf(long x)
{
	return x + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double rate = argc > 1 ? atof(argv[1]) : 1e6, secs = argc > 2 ? atof(argv[2]) : 3;
	double t0 = now(), t;
	long calls = 0, sum = 0;
	struct timespec end;
	FILE *out = argc > 3 ? fopen(argv[3], "w") : NULL;

	if (rate <= 0 || secs <= 0 || !out)
		return 2;
	while ((t = now()) - t0 < secs) {
		if (calls > (t - t0) * rate)
			continue;	/* ahead of the schedule */
		for (int i = 0; i < 1000; i++)
			sum += leaf(i);
		calls += 1000;
	}
	fprintf(out, "calls %ld\nrate %.0f per second%s\n", calls, calls / (now() - t0), sum ? "" : " ");
	clock_gettime(CLOCK_REALTIME, &end);
	fprintf(out, "exit_ns %lld\n", (long long)end.tv_sec * 1000000000 + end.tv_nsec);
	return fclose(out) ? 1 : 0;
}
