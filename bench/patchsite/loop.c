// SPDX-License-Identifier: GPL-2.0-only
/*
 * The side-by-side workload (bench/patchsite/compare.sh): a loop calling
 * mid() -> leaf(), so two traced calls per iteration, built for each
 * tracer (gcc -pg for patchsite and uftrace, clang -fxray-instrument for XRay).
 * It times its own loop, so that start-up and writing the trace at exit
 * (text for patchsite, binary files for uftrace) are not counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TRACED __attribute__((noinline))

TRACED int leaf(int x)
{
	__asm__ volatile("");
	return x + 1;
}

TRACED int mid(int x)
{
	__asm__ volatile("");
	return leaf(x) * 2;
}

/*
 * Prints the sum, and on stderr the CPU time of the loop (start-up and
 * trace output excluded; CPU time, as the shared machine deschedules us).
 */
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000, s = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < n; i++)
		s += mid((int)i);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	printf("%ld\n", s);
	fprintf(stderr, "loop_ns %lld\n",
		(long long)(b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec));
	return 0;
}
