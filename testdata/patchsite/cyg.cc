// SPDX-License-Identifier: GPL-2.0-only
/*
 * tests/patchsite/cyg.sh's C++ program, built with -finstrument-functions:
 * every third call throws from leaf through mid (whose destructor runs
 * while unwinding) to top, which catches.  The compiler calls
 * __cyg_profile_func_exit for mid and leaf from their unwinding cleanups
 * too, so the nesting stays exact.  Its output is the oracle for "tracing
 * changes nothing".
 */
#include <cstdio>
#include <stdexcept>

struct Guard {
	int *n;
	~Guard() { ++*n; }
};

__attribute__((noinline)) int leaf(int i)
{
	if (i % 3 == 0)
		throw std::runtime_error("third");
	return i;
}

__attribute__((noinline)) int mid(int i, int *d)
{
	Guard g{d};
	return leaf(i) + 1;
}

__attribute__((noinline)) int top(int i, int *d)
{
	try {
		return mid(i, d);
	} catch (const std::exception &) {
		return -1;
	}
}

int main()
{
	int d = 0, s = 0;

	for (int i = 0; i < 10; i++)
		s += top(i, &d);
	std::printf("s=%d d=%d\n", s, d);
	return 0;
}
