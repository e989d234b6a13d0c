// SPDX-License-Identifier: GPL-2.0-only
/*
 * The branch counters read while threads count (tests/patchsite/tsan.sh):
 * two threads evaluate one PATCHSITE_BRANCH_EXACT site until told to stop
 * while the main thread writes the counts 50 times (ps_branches_write,
 * what a snapshot calls; libpatchsite linked in).  Prints the threads'
 * own evaluation total (the oracle) and ps_branches_write's results.
 */
#define PATCHSITE_BRANCH_EXACT
#include <pthread.h>
#include <stdio.h>

#include "patchsite_branch.h"

int ps_branches_write(void);

static int stop;

static void *run(void *arg)
{
	long n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		if (patchsite_likely(n++ % 4 != 0))	/* TSAN_LINE */
			__asm__ volatile("");
	return (void *)n;
}

int main(void)
{
	pthread_t t[2];
	long total = 0;
	int err = 0;

	for (int k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, run, NULL);
	for (int k = 0; k < 50; k++)
		err |= ps_branches_write();
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int k = 0; k < 2; k++) {
		void *n;

		pthread_join(t[k], &n);
		total += (long)n;
	}
	printf("evaluated %ld write %d\n", total, err);
	return 0;
}
