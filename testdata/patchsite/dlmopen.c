// SPDX-License-Identifier: GPL-2.0-only
/*
 * Libraries loaded with dlmopen after tracing started, by bare name
 * (found through this program's DT_RUNPATH).  Usage: dlmopen SUFFIX
 * [RUNTIME], with libdyn-SUFFIX.so and libdyntop-SUFFIX.so (which needs
 * libdyn) next to the program.
 *   - libdyn into LM_ID_BASE: as dlopen, so traced; dyn_outer called 3 times.
 *   - libdyn again, into LM_ID_NEWLM: a second copy of the same file in a
 *     namespace the runtime cannot see; dyn_outer called 5 times.
 *   - libdyntop into that namespace (libdyn is there already), and libdyn
 *     into it once more (nothing new); top_call called 2 times.
 *   - RUNTIME (a path to libpatchsite.so), if given, into another new
 *     namespace: that copy must stay inert (patchsite_tracing_on fails
 *     with ENOTSUP) and the program's tracing go on.
 * Prints the three sums and the runtime copy's answer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

#define TRACED __attribute__((noinline, noipa))

static void *open_in(Lmid_t lmid, const char *name)
{
	void *h = dlmopen(lmid, name, RTLD_NOW);

	if (!h)
		printf("dlmopen %s: %s\n", name, dlerror());
	return h;
}

TRACED int prog_sum(void *h, const char *fn, int n)
{
	int (*f)(int) = h ? (int (*)(int))dlsym(h, fn) : NULL;
	int sum = 0;

	for (int i = 1; f && i <= n; i++)
		sum += f(i);
	return f ? sum : -1;
}

/* A second libpatchsite in its own namespace: what its API answers (0 if not asked). */
static int other_runtime(const char *path)
{
	void *h = path ? open_in(LM_ID_NEWLM, path) : NULL;
	int (*on)(void) = h ? (int (*)(void))dlsym(h, "patchsite_tracing_on") : NULL;

	if (!path)
		return 0;
	return on ? on() : 1;
}

int main(int argc, char **argv)
{
	const char *suffix = argc > 1 ? argv[1] : "pie";
	char dyn[256], top[256];
	void *base, *other, *again, *above;
	Lmid_t lmid = LM_ID_BASE;
	int inert;

	snprintf(dyn, sizeof(dyn), "libdyn-%s.so", suffix);
	snprintf(top, sizeof(top), "libdyntop-%s.so", suffix);
	base = open_in(LM_ID_BASE, dyn);
	other = open_in(LM_ID_NEWLM, dyn);
	if (!base || !other || dlinfo(other, RTLD_DI_LMID, &lmid) || lmid == LM_ID_BASE)
		return 1;
	above = open_in(lmid, top);
	again = open_in(lmid, dyn);
	inert = other_runtime(argc > 2 ? argv[2] : NULL);
	/* 4+7+10, 4+7+10+13+16, 104+107 */
	printf("base=%d other=%d top=%d again=%d inert=%d\n", prog_sum(base, "dyn_outer", 3),
	       prog_sum(other, "dyn_outer", 5), prog_sum(above, "top_call", 2), again == other,
	       inert);
	return 0;
}
