// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload of bench/patchsite/probes.sh: a loop calling f3(a, b, c),
 * one traced function with three integer arguments, and g0(), one with
 * none that no probe names.  It prints on stderr the CPU time per
 * iteration of its loop (start-up and the trace's writing at exit are
 * not counted; CPU time, as the shared machine deschedules us).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int f3(int a, int b, int c)
{
	__asm__ volatile("");
	return a + b * c;
}

__attribute__((noinline)) int g0(void)
{
	__asm__ volatile("");
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, s = 0;
	int which = argc > 2 ? atoi(argv[2]) : 0;
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < n; i++)
		s += which ? g0() : f3((int)i, (int)i + 1, 3);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	printf("%ld\n", s);
	fprintf(stderr, "%.2f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
	return 0;
}
