// SPDX-License-Identifier: GPL-2.0-only
/*
 * Return probes and C++ exceptions (tests/patchsite/retprobe.sh): thrower
 * throws out of every third call, caller catches; the program prints the
 * same sum traced or not.
 */
#include <cstdio>

#if defined(__clang__)
#define F __attribute__((noinline, used))
#else
#define F __attribute__((noinline, noclone, used))
#endif

volatile int vn = 9;

F int thrower(int x)
{
	if (x % 3 == 0)
		throw x;
	return x * 2;
}

F int caller(int x)
{
	try {
		return thrower(x) + 1;
	} catch (int e) {
		return -e;
	}
}

int main()
{
	int sum = 0, n = vn;

	for (int i = 0; i < n; i++)
		sum += caller(i);
	std::printf("sum %d\n", sum);
	return 0;
}
