// SPDX-License-Identifier: GPL-2.0-only
/* A small call tree for the function tracer; built with -pg in every form by run.sh. */
#include <stdio.h>
#include <stdlib.h>

#define TRACED __attribute__((noinline, noipa))

TRACED int work_leaf(int x)
{
	return x + 1;
}

TRACED int work_mid(int x)
{
	return work_leaf(x) * 2;
}

TRACED int other(int x)
{
	return x - 1;
}

TRACED void skip_me(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	int sum = 0, n = argc > 1 ? atoi(argv[1]) : 2;

	for (int i = 0; i < n; i++) {
		sum += work_mid(i);
		sum += other(i);
		skip_me();
	}
	printf("sum=%d\n", sum);
	return 0;
}
