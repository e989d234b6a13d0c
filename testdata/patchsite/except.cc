// SPDX-License-Identifier: GPL-2.0-only
/* function_graph across C++ exceptions: frames the unwinder leaves are closed at the catch. */
#include <cstdio>
#include <stdexcept>

#define TRACED __attribute__((noinline))

TRACED int thrower(int x)
{
	if (x & 1)
		throw std::runtime_error("odd");
	return x;
}

TRACED int middle(int x)
{
	return thrower(x) + 1;
}

TRACED int catcher(int x)
{
	try {
		return middle(x);
	} catch (const std::exception &e) {
		return -1;
	}
}

int main()
{
	int sum = 0;

	for (int i = 0; i < 4; i++)
		sum += catcher(i);
	std::printf("sum=%d\n", sum);
	return 0;
}
