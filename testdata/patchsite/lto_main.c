// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two-file program of tests/patchsite/lto.sh: built with -flto, the code of
 * both files is generated at the link, where their calls cross files (and some
 * are inlined).  Its output is the oracle for "tracing changes nothing".
 */
#include <stdio.h>

int lib_scale(int x);
int lib_sum(const int *v, int n);

__attribute__((noinline)) static int fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

__attribute__((noinline)) int step(int i)
{
	return lib_scale(i) + fact(i % 5);
}

int main(int argc, char **argv)
{
	int v[16], i;

	(void)argv;
	for (i = 0; i < 16; i++)
		v[i] = step(i + argc);
	printf("sum=%d\n", lib_sum(v, 16));
	return 0;
}
