// SPDX-License-Identifier: GPL-2.0-only
/* Traced functions in a shared library (built -pg -fPIC -shared by run.sh). */
#define TRACED __attribute__((noinline, noipa))

TRACED int lib_inner(int x)
{
	return x * 3;
}

TRACED int lib_outer(int x)
{
	return lib_inner(x) + 1;
}
