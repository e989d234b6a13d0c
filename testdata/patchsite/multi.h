/* SPDX-License-Identifier: GPL-2.0-only */
/* multi_a.cc and multi_b.cc: an inline template both emit. */
#include <string>
#include <vector>

/* gcc would otherwise call a local clone (get.isra.0) of its own in each object. */
#ifdef __clang__
#define KEEP_ONE __attribute__((noinline))
#else
#define KEEP_ONE __attribute__((noinline, noclone))
#endif

template <typename T> struct Box {
	T v;
	KEEP_ONE T get() const { return v; }
};

std::string join_b(const std::vector<std::string> &v);
