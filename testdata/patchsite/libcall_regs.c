// SPDX-License-Identifier: GPL-2.0-only
/*
 * Library calls for tests/patchsite-qemu/libcall.sh: the C library's
 * malloc, memcpy, puts, qsort with a callback that calls strcmp, varargs
 * printf and snprintf with doubles, free; and libcall_regs_lib.c's
 * functions, which use every argument and result register the calling
 * convention has.  What it prints depends on nothing else, so a traced run
 * must print exactly what an untraced one does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lr_big { long v[5]; };
struct lr_hfa { double a, b, c, d; };

long lr_ints(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j);
double lr_doubles(double a, double b, double c, double d, double e, double f, double g,
		  double h, double i);
struct lr_big lr_big(long seed, double scale);
struct lr_hfa lr_hfa(struct lr_hfa x, double s);
double lr_vsum(int n, ...);
long lr_apply(long (*fn)(long, double), long x, double y);

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static long back(long x, double y)
{
	return x * 100 + (long)y;
}

int main(int argc, char **argv)
{
	const char *words[] = { "pear", "apple", "fig", "kiwi" };
	size_t n = strlen(argv[0]) > 0 ? 6 : 1;	/* not a constant: memcpy stays a call */
	char *buf = malloc(64);
	struct lr_big big = lr_big(argc + 6, 2.5);
	struct lr_hfa h = lr_hfa((struct lr_hfa){ 1.25, 2.5, 3.75, 5.0 }, 2.0);

	memcpy(buf, "hello", n);
	puts(buf);
	qsort(words, 4, sizeof(words[0]), cmp);
	printf("%s %s %s %s | %.3f %d %.2f %ld %.1e\n", words[0], words[1], words[2], words[3],
	       1.5, 42, 2.25, 9L, 6.02e23);
	printf("ints %ld doubles %.3f\n", lr_ints(1, 2, 3, 4, 5, 6, 7, 8, 9, argc + 9),
	       lr_doubles(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5 * argc));
	printf("big %ld %ld %ld %ld %ld\n", big.v[0], big.v[1], big.v[2], big.v[3], big.v[4]);
	printf("hfa %.2f %.2f %.2f %.2f\n", h.a, h.b, h.c, h.d);
	printf("vsum %.4f apply %ld\n", lr_vsum(9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.5),
	       lr_apply(back, argc + 2, 7.0));
	snprintf(buf, 64, "%.2f|%d|%.2f", 0.125 * argc, argc, 3.0);
	puts(buf);
	free(buf);
	return 0;
}
