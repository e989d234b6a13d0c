// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/patchsite/notfound.sh's program, built with plain -pg (no table):
 * work() calls mcount after its prologue (found); quiet() is not
 * instrumented and has no frame-pointer prologue, framed() has one but
 * no call after it; bare() is assembly with no size.  It prints what the
 * runtime's unfound_functions control file (or the one argv[1] names) says
 * (patchsite_ctl_read), so the test can hold it against objdump.  Built
 * with -finstrument-functions instead, cyg.sh reads enabled_functions.
 */
#include <stdio.h>

#include "patchsite.h"

int bare(int);
__asm__(".text\n.globl bare\n.type bare, @function\nbare:\n\tleal 1(%rdi), %eax\n\tret\n");

__attribute__((noinline)) int work(int x)
{
	return bare(x) * 3;
}

__attribute__((noinline, no_instrument_function)) int quiet(int x)
{
	return x ^ 5;
}

/* A frame-pointer prologue but no call to mcount after it. */
__attribute__((noinline, no_instrument_function, optimize("no-omit-frame-pointer")))
int framed(int x)
{
	return work(x) + 1;
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	int s = 0;

	for (int i = 0; i < 4; i++)
		s += work(i) + quiet(i) + framed(i);
	printf("sum=%d\n", s);
	if (patchsite_ctl_read(argc > 1 ? argv[1] : "unfound_functions", buf, sizeof(buf)) >= 0)
		fputs(buf, stdout);
	return 0;
}
