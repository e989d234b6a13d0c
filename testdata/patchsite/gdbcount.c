// SPDX-License-Identifier: GPL-2.0-only
/*
 * Calls whose numbers an outside oracle counts: tests/patchsite-qemu
 * runs this under qemu's gdbstub with gdb breakpoints on leaf and mid
 * (their hit counts, not the program's or the tracer's own counting) and
 * compares them with the trace.  mid calls leaf 0-3 times, by its argument.
 */
#include <stdio.h>
#include <stdlib.h>

#define TRACED __attribute__((noinline))

static volatile int sink;

TRACED int leaf(int x)
{
	sink += x;
	return x & 1;
}

TRACED int mid(int x)
{
	int n = 0;

	for (int k = 0; k < x % 4; k++)
		n += leaf(x + k);
	return n;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40, s = 0;

	for (int i = 0; i < n; i++)
		s += i % 3 ? mid(i) : leaf(i);
	printf("s=%d\n", s);
	return 0;
}
