// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/patchsite/readfilt.sh: a call tree to filter on a recording.
 *   main -> outer -> mid -> leaf, big -> mid -> leaf
 *        -> mid -> leaf
 *        -> nap (30 ms asleep: the one long call besides main) -> leaf
 *        -> rec(3) -> rec(2) -> rec(1) -> rec(0), each rec(n > 0) -> leaf
 * mid and leaf are in readfilt_lib.c (the source file -L picks); big is the
 * largest function, rec, nap and main the next (-Z), leaf, mid, outer small.
 */
#include <stdio.h>
#include <time.h>

int leaf(int x);
int mid(int x);

volatile int sink;

__attribute__((noinline)) void nap(void)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	sink += leaf(1);
}

__attribute__((noinline)) int big(int x)
{
	int a[64];

	for (int i = 0; i < 64; i++)
		a[i] = i * x + sink;
	for (int i = 1; i < 64; i++)
		a[i] += a[i - 1] ^ (a[i] >> 1);
	return a[63] + mid(x);
}

__attribute__((noinline)) int outer(int x)
{
	return mid(x) + big(x);
}

__attribute__((noinline)) int rec(int n)
{
	return n ? rec(n - 1) + leaf(n) : 0;
}

int main(void)
{
	sink = outer(1);
	sink += mid(2);
	nap();
	sink += rec(3);
	printf("%d\n", sink != 0);
	return 0;
}
