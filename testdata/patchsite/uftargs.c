// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/patchsite/uftconf.sh: arguments and return values (record -A, -R) shown by
 * replay as uftrace 0.13 shows them, in the call line, on the same binary.
 *   main -> mid(1, 2) -> leaf(1, 2); neg, wide, big: integers either side of the
 *   forms uftrace switches between; slen, up, half: a string, a char, floats;
 *   nothing: no return value.
 */
#include <string.h>

volatile int sink;

__attribute__((noinline)) int leaf(int a, long b) { return a + (int)b + sink; }
__attribute__((noinline)) int mid(int a, int b) { return leaf(a, b) + 1; }
__attribute__((noinline)) int neg(int a) { return -a; }
__attribute__((noinline)) long wide(long a) { return a * 2; }
__attribute__((noinline)) unsigned long big(unsigned long u) { return u * 3; }
__attribute__((noinline)) size_t slen(const char *s) { return s ? strlen(s) : 0; }
__attribute__((noinline)) char up(char c) { return (char)(c - 32); }
__attribute__((noinline)) double half(double d, float f) { return d / 2 + f; }
__attribute__((noinline)) void nothing(int a) { sink = a; }

int main(void)
{
	sink = mid(1, 2);
	sink += neg(7) + neg(100001) + neg(-5);
	sink += (int)wide(50000) + (int)wide(-100000) + (int)wide(0x7fffffff);
	sink += (int)big(5) + (int)big(0xffffffff00ul);
	sink += (int)slen("hello") + (int)slen(NULL);
	sink += up('a');
	sink += (int)half(3.0, 0.5f);
	nothing(4);
	return 0;
}
