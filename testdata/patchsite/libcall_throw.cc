// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ exceptions through library calls whose returns are hooked
 * (tests/patchsite/libcall.sh): thrown inside a library function, and
 * thrown by a callback of the program through a library function's frame;
 * both caught in main, and the same calls then return normally.
 */
#include <cstdio>
#include <stdexcept>

int lib_throw(int v);
int lib_call(int (*cb)(int), int v);

static int cb(int v)
{
	if (v > 0)
		throw std::out_of_range("from the callback");
	return v * 2;
}

int main()
{
	for (int i = 0; i < 3; i++) {
		try {
			lib_throw(1);
		} catch (const std::exception &e) {
			std::printf("caught: %s\n", e.what());
		}
		try {
			lib_call(cb, 1);
		} catch (const std::exception &e) {
			std::printf("caught: %s\n", e.what());
		}
	}
	std::printf("%d %d\n", lib_throw(0), lib_call(cb, 0));
	return 0;
}
