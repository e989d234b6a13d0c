// SPDX-License-Identifier: GPL-2.0-only
/*
 * Traced functions for the API and stress tests (tests/patchsite/*.c link
 * this, built with -pg in each form, against libpatchsite.a).
 */
#define TRACED __attribute__((noinline, noipa))

TRACED long api_f1(long a, long b)
{
	return a + b;
}

TRACED long api_f2(long a)
{
	return a * 2;
}

TRACED long api_g(long a)
{
	return api_f2(a) + 1;
}

TRACED long work_count(long a)
{
	return a ^ 1;
}

TRACED long work_other(long a)
{
	return a + 3;
}

TRACED double api_fp(double x, double y)
{
	return x * y;
}
