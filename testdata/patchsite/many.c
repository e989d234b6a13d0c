// SPDX-License-Identifier: GPL-2.0-only
/*
 * More objects than libpatchsite has module slots (256): dlopen N copies of
 * one traced library (DIR/libmany-0.so ... DIR/libmany-(N-1).so, copies of
 * libdyn) and call each one's dyn_outer.  Usage: many DIR N.
 * Prints "sum=S" (each call returns 3 * 1 + 1 = 4, so S = 4 * N).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0, sum = 0;
	char path[4096];

	for (int i = 0; i < n; i++) {
		void *h;
		int (*f)(int);

		snprintf(path, sizeof(path), "%s/libmany-%d.so", argv[1], i);
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		f = h ? (int (*)(int))dlsym(h, "dyn_outer") : NULL;
		if (!f) {
			printf("dlopen %s: %s\n", path, dlerror());
			return 1;
		}
		sum += f(1);
	}
	printf("sum=%d\n", sum);
	return 0;
}
