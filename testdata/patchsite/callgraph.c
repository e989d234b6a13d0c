// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump --graphviz and --mermaid against uftrace's (tests/patchsite/dumpgraph.sh):
 * a call tree with a function reached by two paths, recursion, and calls that
 * never return.  By construction:
 *   main: down(3) once, then twice() 2 times, then bye()
 *   down(n): down(n - 1) while n > 0, so the path main/down/down/down/down
 *   twice: leaf() 2 times;  bye: twice() once, then exit(0) inside it
 * so main and bye are entered and never return (uftrace counts them), and
 * leaf is reached by main/twice (4 calls) and main/bye/twice (2 calls).
 */
#include <stdlib.h>

#define TRACED __attribute__((noinline))

static volatile unsigned long sink;

TRACED void leaf(void)
{
	sink++;
}

TRACED void twice(void)
{
	leaf();
	leaf();
}

TRACED void down(int n)
{
	if (n > 0)
		down(n - 1);
	sink += (unsigned long)n;
}

TRACED void bye(void)
{
	twice();
	exit(0);
}

int main(void)
{
	down(3);
	twice();
	twice();
	bye();
	return 1;
}
