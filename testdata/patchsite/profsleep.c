// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_profile's time oracle (tests/patchsite/profile.sh): work() is
 * called 5 times and calls nap() 4 times each, nap() sleeps at least
 * 200 us.  The program brackets all work() calls with CLOCK_MONOTONIC and
 * prints that span and its own call counts: a profile's totals must lie
 * between the sleeps asked for and the span measured around them.
 */
#include <stdio.h>
#include <time.h>

static long naps, works;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

__attribute__((noinline)) void nap(long us)
{
	struct timespec ts = { 0, us * 1000 };

	naps++;
	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) void work(int k)
{
	works++;
	for (int i = 0; i < k; i++)
		nap(200);
}

int main(void)
{
	long t0 = now_ns(), t1;

	for (int j = 0; j < 5; j++)
		work(4);
	t1 = now_ns();
	printf("span_ns=%ld works=%ld naps=%ld\n", t1 - t0, works, naps);
	return 0;
}
