// SPDX-License-Identifier: GPL-2.0-only
/*
 * noplt.sh's program: library calls it counts itself, for builds with
 * -fno-plt (calls through GLOB_DAT slots).  `noplt N` makes N rounds of
 * malloc, qsort (3 elements: its callback counted too), free, and one
 * nanosleep every 4 rounds, then prints how many of each it made.  Built
 * with -DTAKE_MALLOC it also takes &malloc and prints whether it is the
 * pointer noplt_lib.so sees (built without -fno-plt, its own GOT).
 * `noplt N PIDFILE GOFILE` makes its N rounds twice: after the first it
 * prints their counts ("phase1 ..."), writes its pid to PIDFILE and waits
 * for GOFILE to exist (the test switches functions live meanwhile).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned long n_malloc, n_free, n_qsort, n_nanosleep, n_cmp;

__attribute__((noinline)) static int cmp(const void *a, const void *b)
{
	n_cmp++;
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) static int round_of(int i)
{
	int *v = malloc(3 * sizeof(*v)), r;

	n_malloc++;
	if (!v)
		return 0;
	v[0] = i;
	v[1] = 3;
	v[2] = 1;
	qsort(v, 3, sizeof(*v), cmp);
	n_qsort++;
	r = v[0];
	free(v);
	n_free++;
	if (i % 4 == 0) {
		struct timespec ts = { 0, 1000 };

		nanosleep(&ts, NULL);
		n_nanosleep++;
	}
	return r;
}

#ifdef TAKE_MALLOC
void *(*noplt_lib_malloc(void))(size_t);
/* Volatile: the pointer is read as data, as a program's function table would. */
static void *(*volatile mine)(size_t) = 0;
#endif

/*
 * One look for the go, then a nap (not one of the counted calls).  A
 * function of its own: a loop that calls through GOT slots lets clang load
 * the functions' addresses into registers once, before it, and a slot so
 * read is left alone (its address used as data).
 */
__attribute__((noinline)) static int still_waiting(const char *gofile)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };

	if (!access(gofile, F_OK))
		return 0;
	nanosleep(&tick, NULL);
	return 1;
}

/* Phase 1's counts, the pid for the test, then wait for its go. */
static void pause_for(const char *pidfile, const char *gofile)
{
	FILE *f;

	printf("phase1 round_of %lu cmp %lu\n", n_malloc, n_cmp);
	fflush(stdout);
	f = fopen(pidfile, "w");
	if (!f)
		exit(2);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	while (still_waiting(gofile))
		;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, s = 0, rounds = n;

	for (int i = 0; i < n; i++)
		s += round_of(i);
	if (argc > 3) {
		pause_for(argv[2], argv[3]);
		for (int i = 0; i < n; i++)
			s += round_of(i);
		rounds += n;
	}
#ifdef TAKE_MALLOC
	mine = malloc;
	printf("malloc pointer: %s\n", mine == noplt_lib_malloc() ? "same" : "differs");
#endif
	printf("sum %d\nmalloc %lu\nfree %lu\nqsort %lu\nnanosleep %lu\ncmp %lu\nround_of %d\n", s,
	       n_malloc, n_free, n_qsort, n_nanosleep, n_cmp, rounds);
	return 0;
}
