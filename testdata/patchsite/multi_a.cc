// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ over two files (with multi_b.cc), built through build/patchsite-c++:
 * Box<int>::get and the std::string code are emitted in both objects
 * (COMDAT groups), one copy kept at link.
 */
#include <cstdio>
#include <string>
#include <vector>

#include "multi.h"

__attribute__((noinline)) int twice_a(int x)
{
	Box<int> b{x};

	return b.get() * 2;
}

int main()
{
	std::vector<std::string> v{"a", "b"};

	std::printf("%s %d\n", join_b(v).c_str(), twice_a(4));
	return 0;
}
