// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sample of tests/patchsite/retprobe.sh's entry values at the return
 * (FUNC%return with $argN and names): arguments of several types and
 * sizes, two passed on the stack (x86-64: the 7th and 8th), a struct
 * changed through its pointer before the return (read at the return, as
 * the kernel's fprobe reads what a kept $argN points to), a recursion
 * (each frame its own values) and a longjmp out of a probed callee
 * (the caller's values survive it).  gdb's info args at the entry and
 * its finish value are the oracle.
 */
#include <setjmp.h>
#include <stdio.h>

#if defined(__clang__)
#define F __attribute__((noinline, used))
#else
#define F __attribute__((noinline, noclone, used))
#endif

struct host {
	int port;
	const char *name;
};

volatile int vn = 7;
volatile long sink;
static jmp_buf env;

F long ra_mix(int a, long b, unsigned short c, signed char d)
{
	return a * 3 + b - c + d;
}

F long ra_eight(long a1, long a2, long a3, long a4, long a5, long a6, long a7, int a8)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 * 10 + a8;
}

F int ra_host(struct host *h, int len)
{
	static const char *const later[] = { "b.example", "c", "" };

	h->port += len;		/* what the return sees */
	h->name = later[len % 3];
	return h->port;
}

F int ra_fact(int n)
{
	return n <= 1 ? 1 : n * ra_fact(n - 1);
}

F int ra_inner(int x)
{
	if (x & 1)
		longjmp(env, 1);
	return x + 1;
}

F int ra_outer(int x, int y)
{
	int r = 0;

	if (!setjmp(env))
		r = ra_inner(x);
	return r + y;
}

int main(void)
{
	struct host h = { 80, "a.example" };

	for (int i = 0; i < vn; i++) {
		sink += ra_mix(i - 3, -1000000007L * i, (unsigned short)(65535 - i),
			       (signed char)(i * 40));
		sink += ra_eight(i, 2, 3, 4, 5, 6, 70 + i, -i);
		sink += ra_host(&h, i);
		sink += ra_fact(i);
		sink += ra_outer(i, 100 * i);
	}
	printf("%ld\n", sink);
	return 0;
}
