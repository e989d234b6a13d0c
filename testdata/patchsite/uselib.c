// SPDX-License-Identifier: GPL-2.0-only
/* The program side of libwork.c: its own traced function calls into the library. */
#include <stdio.h>

int lib_outer(int x);

__attribute__((noinline, noipa)) int prog_fn(int x)
{
	return lib_outer(x) + 1;	/* not a tail call: keeps prog_fn the parent */
}

int main(void)
{
	printf("%d\n", prog_fn(2));
	return 0;
}
