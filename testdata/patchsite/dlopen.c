// SPDX-License-Identifier: GPL-2.0-only
/*
 * Libraries loaded after tracing started: dlopen by bare name (found
 * through this program's DT_RUNPATH), call, dlclose, load again, call,
 * dlclose.
 * libdyntop brings libdyn in as its dependency.  Usage: dlopen SUFFIX
 * (the libraries are libdyntop-SUFFIX.so and libdyn-SUFFIX.so).
 */
#include <dlfcn.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

TRACED int prog_run(int (*f)(int), int x)
{
	return f(x) + 1;	/* not a tail call */
}

int main(int argc, char **argv)
{
	char name[256];
	int sum = 0;

	snprintf(name, sizeof(name), "libdyntop-%s.so", argc > 1 ? argv[1] : "pie");
	for (int round = 0; round < 2; round++) {
		void *h = dlopen(name, RTLD_NOW);
		int (*top)(int) = h ? (int (*)(int))dlsym(h, "top_call") : NULL;

		if (!top) {
			printf("dlopen %s: %s\n", name, dlerror());
			return 1;
		}
		sum += prog_run(top, round + 1);
		if (dlclose(h)) {	/* both: the trace names callers in unloaded code */
			printf("dlclose: %s\n", dlerror());
			return 1;
		}
	}
	printf("sum=%d\n", sum);	/* (1*3+1+100+1) + (2*3+1+100+1) */
	return 0;
}
