// SPDX-License-Identifier: GPL-2.0-only
/*
 * The branch profiler's test program (tests/patchsite/branches.sh):
 *   branches N [LIB M] [self] [threads T]
 * main's loop runs N times: patchsite_likely(i % 4 != 0) (line LIKELY_LINE)
 * is wrong for every i divisible by 4, patchsite_unlikely(i % 10 == 0)
 * (UNLIKELY_LINE) for every multiple of 10; never_line's site is never
 * evaluated.  LIB: dlopen it, call lib_loop(M), dlclose it before exit.
 * self: print this object's own counters from its section (no runtime
 * needed).  threads T: T threads each run the same N-loop in hot_loop().
 * fork: fork a child that exits at once.
 * ctl: print libpatchsite's trace_stat/branch_annotated (preloaded).
 * rawclose LIB M: as LIB M, but unloaded by the C library's own dlclose,
 * behind libpatchsite's back.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "patchsite_branch.h"

extern struct patchsite_branch __start_patchsite_branches[], __stop_patchsite_branches[];

static long n_iter;
static volatile long sink;

static void *hot_loop(void *arg)
{
	long s = 0;

	(void)arg;
	for (long i = 0; i < n_iter; i++)
		if (patchsite_likely(i % 4 != 0))	/* HOT_LINE */
			s += i;
	sink += s;
	return NULL;
}

static int never(int x)
{
	return patchsite_unlikely(x == 12345);		/* NEVER_LINE */
}

int main(int argc, char **argv)
{
	long s = 0;
	int threads = 0;

	if (argc < 2)
		return 2;
	n_iter = atol(argv[1]);
	for (long i = 0; i < n_iter; i++) {
		if (patchsite_likely(i % 4 != 0))	/* LIKELY_LINE */
			s += i;
		if (patchsite_unlikely(i % 10 == 0))	/* UNLIKELY_LINE */
			s -= 1;
	}
	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "threads") && a + 1 < argc) {
			pthread_t t[64];

			threads = atoi(argv[++a]);
			for (int k = 0; k < threads && k < 64; k++)
				pthread_create(&t[k], NULL, hot_loop, NULL);
			for (int k = 0; k < threads && k < 64; k++)
				pthread_join(t[k], NULL);
		} else if (!strcmp(argv[a], "fork")) {
			/* A child that exits at once: its counts are the parent's at the fork. */
			pid_t pid = fork();

			if (!pid)
				exit(0);
			waitpid(pid, NULL, 0);
		} else if (!strcmp(argv[a], "ctl")) {
			/* libpatchsite's trace_stat/branch_annotated, when it is preloaded. */
			long (*rd)(const char *, char *, unsigned long) =
				(long (*)(const char *, char *, unsigned long))dlsym(RTLD_DEFAULT,
										 "patchsite_ctl_read");
			static char text[65536];

			if (!rd || rd("trace_stat/branch_annotated", text, sizeof(text)) < 0)
				return 1;
			fputs(text, stdout);
		} else if (!strcmp(argv[a], "self")) {
			for (struct patchsite_branch *b = __start_patchsite_branches;
			     b < __stop_patchsite_branches; b++)
				printf("self %s %u %lu %lu\n", b->func, b->line, b->correct, b->incorrect);
		} else if (!strcmp(argv[a], "rawclose") && a + 2 < argc) {
			/* The C library's own dlclose, not libpatchsite's wrapper. */
			void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
			int (*raw_close)(void *) = libc ? (int (*)(void *))dlsym(libc, "dlclose") : NULL;
			void *h = dlopen(argv[++a], RTLD_NOW);
			long (*f)(long) = h ? (long (*)(long))dlsym(h, "lib_loop") : NULL;

			if (!f || !raw_close)
				return 1;
			s += f(atol(argv[++a]));
			raw_close(h);
		} else if (a + 1 < argc) {
			void *h = dlopen(argv[a], RTLD_NOW);
			long (*f)(long) = h ? (long (*)(long))dlsym(h, "lib_loop") : NULL;

			if (!f) {
				fprintf(stderr, "branches: %s\n", dlerror());
				return 1;
			}
			s += f(atol(argv[++a]));
			dlclose(h);
		}
	}
	if (argc > 100 && never(argc) > 1)	/* never evaluated: the kernel's "X" */
		return 3;
	printf("sum=%ld\n", s);
	return 0;
}
