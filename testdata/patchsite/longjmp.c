// SPDX-License-Identifier: GPL-2.0-only
/* function_graph across longjmp: the frames it leaves are closed where it jumps. */
#include <setjmp.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

static jmp_buf env;

TRACED void jump_deep(int x)
{
	if (x)
		longjmp(env, x);
}

TRACED void jump_mid(int x)
{
	jump_deep(x);
}

TRACED int after(int x)
{
	return x + 1;
}

TRACED int run(int i)
{
	if (setjmp(env) == 0) {
		jump_mid(i & 1);
		return 10;
	}
	return after(i);
}

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 3; i++)
		sum += run(i);
	printf("sum=%d\n", sum);
	return 0;
}
