// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/patchsite/uftconf.sh: uftrace's usual options on a recording, compared with
 * uftrace 0.13's replay of the same binary.
 *   main -> top -> one -> two -> three -> four -> five -> getpid
 *        -> add(1, 2) -> sum(3)
 * one, three and five: -F calls nested below one another past -D,
 * add and sum take int arguments (-A, -R).
 */
#include <unistd.h>

volatile int sink;

__attribute__((noinline)) int five(void) { return (int)getpid() & 1; }
__attribute__((noinline)) int four(void) { return five() + 1; }
__attribute__((noinline)) int three(void) { return four() + 1; }
__attribute__((noinline)) int two(void) { return three() + 1; }
__attribute__((noinline)) int one(void) { return two() + 1; }
__attribute__((noinline)) int top(void) { return one() + 1; }
__attribute__((noinline)) int sum(int x) { return x + sink; }
__attribute__((noinline)) int add(int a, int b) { return sum(a + b); }

int main(void)
{
	sink = top();
	sink += add(1, 2);
	return 0;
}
