// SPDX-License-Identifier: GPL-2.0-only
/* Linked against libdyn: dlopen of this library loads libdyn as its dependency. */
#define TRACED __attribute__((noinline, noipa))

int dyn_outer(int x);

TRACED int top_call(int x)
{
	return dyn_outer(x) + 100;
}
