// SPDX-License-Identifier: GPL-2.0-only
/* The second file of tests/patchsite/lto.sh's program (see lto_main.c). */

__attribute__((noinline)) int lib_scale(int x)
{
	return 3 * x + 1;
}

__attribute__((noinline)) int lib_sum(const int *v, int n)
{
	int s = 0;

	while (n--)
		s += *v++;
	return s;
}
