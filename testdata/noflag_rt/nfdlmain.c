// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loads ./libnfdl.so (nfdl.c) after start-up and calls nf_work three times
 * (tests/patchsite/noflag.sh): 3 calls of nf_work, 3 * 40 of nf_leaf.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
	void *h = dlopen("./libnfdl.so", RTLD_NOW);
	int (*work)(int);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	*(void **)&work = dlsym(h, "nf_work");
	for (int k = 0; k < 3; k++)
		printf("%d\n", work(40));
	return 0;
}
