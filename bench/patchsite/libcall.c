// SPDX-License-Identifier: GPL-2.0-only
/*
 * Library calls (bench/patchsite/libcall.sh): the program calls lc_leaf()
 * of a shared library through its PLT in a loop and times the loop itself
 * (thread CPU time, so start-up and trace output are not counted), or
 * switches the GOT slots of its 2000 calls lc0..lc1999 on and off through
 * the runtime's control files and times each batch.
 *   libcall loop N       ns per call of lc_leaf
 *   libcall toggle       ms to switch the lc* slots on, then off
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int lc_leaf(int x);
int lc_call_all(int x);	/* the program's 2000 calls: generated (lcall.c) */

static double now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int (*ctl)(const char *, const char *, int);
	volatile int sink = 0;
	double t0;

	if (argc > 2 && !strcmp(argv[1], "loop")) {
		long n = atol(argv[2]);

		t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		for (long i = 0; i < n; i++)
			sink += lc_leaf((int)i);
		printf("%.2f\n", (now_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)n);
		return 0;
	}
	ctl = (int (*)(const char *, const char *, int))dlsym(RTLD_DEFAULT, "patchsite_ctl_write");
	if (!ctl) {
		fprintf(stderr, "libcall: no patchsite runtime\n");
		return 2;
	}
	sink += lc_call_all(1);
	t0 = now_ns(CLOCK_MONOTONIC);
	if (ctl("set_ftrace_filter", "lc[0-9]*", 0))
		return 1;
	printf("on %.3f\n", (now_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	sink += lc_call_all(1);
	t0 = now_ns(CLOCK_MONOTONIC);
	if (ctl("set_ftrace_filter", "lc_leaf", 0))
		return 1;
	printf("off %.3f\n", (now_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	return 0;
}
