// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracing_thresh with argument events (tests/patchsite/uft.sh): main
 * calls quick(i), which returns at once, and slow(i), which sleeps 30 ms
 * and calls quick(i) too, for i = 0..2.  Under a 10 ms threshold only
 * main and the three slow() calls stay, each with its argument; no
 * quick() call, and none of its arguments.
 */
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) int quick(int i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

__attribute__((noinline)) int slow(int i)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	return 2 * quick(i);
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 3; i++)
		sum += quick(i) + slow(i);
	printf("sum=%d\n", sum);
	return 0;
}
