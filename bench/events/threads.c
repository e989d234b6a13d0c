// SPDX-License-Identifier: GPL-2.0-only
/*
 * What plain increments lose under contention:  threads T N
 * T threads each evaluate one patchsite_likely site N times (always
 * true: every evaluation counts as correct).  Prints the counts expected
 * (T * N, the oracle), the counts kept, and the wall time per evaluation.
 * Built twice by run.sh: plain, and with -DPATCHSITE_BRANCH_EXACT.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "patchsite_branch.h"

extern struct patchsite_branch __start_patchsite_branches[], __stop_patchsite_branches[];

static long n;
static volatile long sink;
static pthread_barrier_t start;		/* all threads begin together: they contend */

static void *run(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start);
	for (long i = 0; i < n; i++)
		if (patchsite_likely(i >= 0))
			sink = i;
	return NULL;
}

int main(int argc, char **argv)
{
	int t = argc > 2 ? atoi(argv[1]) : 0;
	pthread_t th[64];
	struct timespec a, b;
	double ns;

	n = argc > 2 ? atol(argv[2]) : 0;
	if (t < 1 || t > 64 || n < 1)
		return 2;
	pthread_barrier_init(&start, NULL, (unsigned)t);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int k = 0; k < t; k++)
		pthread_create(&th[k], NULL, run, NULL);
	for (int k = 0; k < t; k++)
		pthread_join(th[k], NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / ((double)n * t);
	printf("%ld %lu %.3f\n", (long)t * n, __start_patchsite_branches[0].correct, ns);
	return 0;
}
