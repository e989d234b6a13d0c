// SPDX-License-Identifier: GPL-2.0-only
/* A library for libcall_throw.cc: a call out of it that throws, and one that calls back. */
#include <stdexcept>

int lib_throw(int v)
{
	if (v > 0)
		throw std::runtime_error("from the library");
	return v;
}

int lib_call(int (*cb)(int), int v)
{
	return cb(v) + 1;
}
