// SPDX-License-Identifier: GPL-2.0-only
/* A library loaded with dlopen after tracing started (run.sh builds it -pg -fPIC -shared). */
#define TRACED __attribute__((noinline, noipa))

TRACED int dyn_inner(int x)
{
	return x * 3;
}

TRACED int dyn_outer(int x)
{
	return dyn_inner(x) + 1;	/* not a tail call: dyn_outer stays the parent */
}
