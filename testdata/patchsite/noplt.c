// SPDX-License-Identifier: GPL-2.0-only
/*
 * noplt.sh's program: library calls it counts itself, for builds with
 * -fno-plt (calls through GLOB_DAT slots).  `noplt N` makes N rounds of
 * malloc, qsort (3 elements: its callback counted too), free, and one
 * nanosleep every 4 rounds, then prints how many of each it made.  Built
 * with -DTAKE_MALLOC it also takes &malloc and prints whether it is the
 * pointer noplt_lib.so sees (built without -fno-plt, its own GOT).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, s = 0;

	for (int i = 0; i < n; i++)
		s += round_of(i);
#ifdef TAKE_MALLOC
	mine = malloc;
	printf("malloc pointer: %s\n", mine == noplt_lib_malloc() ? "same" : "differs");
#endif
	printf("sum %d\nmalloc %lu\nfree %lu\nqsort %lu\nnanosleep %lu\ncmp %lu\nround_of %d\n", s,
	       n_malloc, n_free, n_qsort, n_nanosleep, n_cmp, n);
	return 0;
}
