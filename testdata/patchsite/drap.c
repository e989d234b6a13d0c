// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function whose stack is realigned with a dynamic realignment pointer
 * (an over-aligned local and alloca): gcc -O2 -pg sets it up before the
 * frame pointer (lea 0x8(%rsp),%r10; and $-64,%rsp; push -0x8(%r10);
 * push %rbp; mov %rsp,%rbp), so 8(%rbp) holds a copy of the return address,
 * not the slot the function returns through.  Its mcount site is refused
 * by name; the others are traced.
 */
#include <stdio.h>

__attribute__((noinline)) void drap_use(char *p)
{
	p[0] = 1;
}

__attribute__((noinline)) int drap_realigned(int n)
{
	char buf[64] __attribute__((aligned(64)));
	char *v = __builtin_alloca(n);

	drap_use(buf);
	drap_use(v);
	return buf[0] + v[0] + n;
}

int main(void)
{
	printf("sum=%d\n", drap_realigned(3));
	return 0;
}
