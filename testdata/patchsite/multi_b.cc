// SPDX-License-Identifier: GPL-2.0-only
/* The second file of multi_a.cc's program. */
#include <string>
#include <vector>

#include "multi.h"

__attribute__((noinline)) std::string join_b(const std::vector<std::string> &v)
{
	std::string s;
	Box<int> b{1};

	for (const auto &x : v)
		s += x;
	return s + std::to_string(b.get());
}
