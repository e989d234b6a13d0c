// SPDX-License-Identifier: GPL-2.0-only
/*
 * A C program that dlopens a C++ library (libcxx.cc) after tracing
 * started, by bare name through its DT_RUNPATH, with RTLD_LOCAL, and
 * calls it twice.  Usage: dlcxx LIBNAME.
 */
#include <dlfcn.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

TRACED int prog_cxx(int (*f)(int), int x)
{
	return f(x) + 1;	/* not a tail call */
}

int main(int argc, char **argv)
{
	void *h = dlopen(argc > 1 ? argv[1] : "libcxx-pie.so", RTLD_NOW | RTLD_LOCAL);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "cxx_entry") : NULL;
	int sum = 0;

	if (!f) {
		printf("dlopen: %s\n", dlerror());
		return 1;
	}
	for (int x = 1; x <= 2; x++)
		sum += prog_cxx(f, x);
	printf("sum=%d\n", sum);	/* (8 + 1) + (16 + 1) */
	return 0;
}
