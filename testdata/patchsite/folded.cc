// SPDX-License-Identifier: GPL-2.0-only
/*
 * Two identical virtual functions in an anonymous namespace: gcc's
 * -fipa-icf (on at -O2) folds them, X::f and Y::f are two symbols at one
 * address (tests/patchsite/unwind.sh checks that with readelf).
 */
#include <cstdio>

struct Base {
	virtual int f(int) const = 0;
	virtual ~Base() {}
};

namespace {
struct X : Base {
	int f(int a) const override { return a * 5 + 1; }
};
struct Y : Base {
	int f(int a) const override { return a * 5 + 1; }
};
}

__attribute__((noinline)) int call(const Base &b, int a)
{
	return b.f(a);
}

int main(int argc, char **)
{
	X x;
	Y y;

	std::printf("%d %d\n", call(x, argc), call(y, argc + 1));
	return 0;
}
