// SPDX-License-Identifier: GPL-2.0-only
/*
 * A function with a cold part: gcc -O2 -freorder-blocks-and-partition moves
 * the branch that calls a cold function to work.cold (gcc 12 splits on a
 * call to a cold function, not on __builtin_expect alone), entered by a
 * jump with work's frame (its sub $8,%rsp) already set up.  patchverify
 * --noflag must list work.cold as a fragment and never as a site, with
 * symbols and stripped.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int helper(int x)
{
	return x * 7 + 1;
}

__attribute__((cold, noinline)) void die(int x)
{
	fprintf(stderr, "rare %d\n", x);
	exit(3);
}

__attribute__((noinline)) int work(int x)
{
	int y = helper(x);

	if (__builtin_expect(y == 12345, 0))
		die(x);
	return x * 3 + y;
}

int main(int argc, char **argv)
{
	(void)argv;
	return work(argc) == 11 ? 0 : 1;
}
