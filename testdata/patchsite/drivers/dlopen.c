// SPDX-License-Identifier: GPL-2.0-only
/*
 * Libraries loaded and unloaded while tracing runs (linked with
 * libpatchsite.a, so the program's dlopen and dlclose are the runtime's).
 * Usage: dlopen DIR SUFFIX THREADS ROUNDS
 * with DIR/libdyn-SUFFIX.so and DIR/libdyntop-SUFFIX.so (which needs libdyn).
 *   1. An ops filters on a library not loaded yet (a pending :mod: token).
 *      dlopen: its functions are listed and enabled, every call is counted
 *      exactly; dlclose: nothing of it is listed; the same again.
 *   2. THREADS threads each dlopen, call and dlclose either library,
 *      ROUNDS times, while the main thread toggles tracing, changes the
 *      filter and re-registers the ops: results right, no crash, and
 *      afterwards nothing stale is listed.
 *   3. Steady: one ops, the library loaded by two threads at once, exact counts.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static char dyn_path[512], top_path[512], dyn_name[128];
static atomic_long wrong, failed_loads;
static atomic_bool stop;
static int failures;
static long rounds;

struct listing {
	int listed, enabled;
};

static int list_cb(const char *name, const char *module, unsigned long ip, unsigned flags,
		   void *arg)
{
	struct listing *l = arg;

	(void)ip;
	if (strcmp(module, dyn_name))
		return 0;
	if (strncmp(name, "dyn_", 4)) {
		printf("FAIL unexpected function %s in %s\n", name, module);
		failures++;
	}
	l->listed++;
	l->enabled += !!(flags & PATCHSITE_FUNC_ENABLED);
	return 0;
}

static struct listing listing(void)
{
	struct listing l = { 0, 0 };

	if (patchsite_for_each_function(list_cb, &l))
		l.listed = -1;
	return l;
}

/* Load one of the two libraries, call into it n times, unload it; false if a result was wrong. */
static bool use_library(bool top, long n, bool close)
{
	void *h = dlopen(top ? top_path : dyn_path, RTLD_NOW);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, top ? "top_call" : "dyn_outer") : NULL;
	bool ok = true;

	if (!f) {
		atomic_fetch_add(&failed_loads, 1);
		return false;
	}
	for (long i = 0; i < n; i++)
		ok &= f((int)i) == 3 * (int)i + 1 + (top ? 100 : 0);
	if (close && dlclose(h))
		atomic_fetch_add(&failed_loads, 1);
	return ok;
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long r = 0; r < rounds && !atomic_load(&stop); r++)
		if (!use_library((r + id) & 1, 50, true))
			atomic_fetch_add(&wrong, 1);
	return NULL;
}

struct steady {
	long calls;
	void *h;
};

static void *steady_worker(void *arg)
{
	struct steady *s = arg;
	int (*f)(int) = (int (*)(int))dlsym(s->h, "dyn_outer");

	for (long i = 0; f && i < s->calls; i++)
		if (f((int)i) != 3 * (int)i + 1)
			atomic_fetch_add(&wrong, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".", *suffix = argc > 2 ? argv[2] : "pie";
	int nthreads = argc > 3 ? atoi(argv[3]) : 4, errors = 0;
	struct patchsite_ops ops = { .func = count };
	char filter[256];
	unsigned long sites0 = patchsite_stat("sites");
	pthread_t th[64];
	struct listing l;
	long n;

	rounds = argc > 4 ? atol(argv[4]) : 200;
	if (nthreads > 64)
		nthreads = 64;
	snprintf(dyn_path, sizeof(dyn_path), "%s/libdyn-%s.so", dir, suffix);
	snprintf(top_path, sizeof(top_path), "%s/libdyntop-%s.so", dir, suffix);
	snprintf(dyn_name, sizeof(dyn_name), "libdyn-%s.so", suffix);
	snprintf(filter, sizeof(filter), "dyn_*:mod:%s", dyn_name);

	/* 1. A filter on a library not loaded yet, then load it. */
	CHECK(patchsite_set_filter(&ops, "dyn_*", 1) == -EINVAL,
	      "dlopen: a plain glob for functions not loaded yet is refused");
	CHECK(patchsite_set_filter(&ops, filter, 1) == 0, "dlopen: '%s' accepted before the "
	      "library is loaded (pending, as ftrace's :mod:)", filter);
	CHECK(patchsite_register_function(&ops) == 0, "dlopen: ops registered");
	l = listing();
	CHECK(l.listed == 0, "dlopen: nothing of %s listed before dlopen (%d)", dyn_name, l.listed);
	for (int round = 0; round < 2; round++) {
		void *h = dlopen(top_path, RTLD_NOW);
		int (*f)(int) = h ? (int (*)(int))dlsym(h, "top_call") : NULL;
		long sum = 0;

		CHECK(f != NULL, "dlopen %s (round %d): %s", top_path, round,
		      f ? "loaded" : dlerror());
		if (!f)
			return 1;
		l = listing();
		CHECK(l.listed == 2 && l.enabled == 2, "dlopen (round %d): the dependency's "
		      "dyn_outer and dyn_inner listed and enabled (%d listed, %d enabled)", round,
		      l.listed, l.enabled);
		atomic_store(&hits, 0);
		for (int i = 0; i < 1000; i++)
			sum += f(i);
		CHECK(sum == 3 * 999 * 1000 / 2 + 1000 * 101, "dlopen (round %d): results right",
		      round);
		CHECK(hits == 2000, "dlopen (round %d): %ld callbacks for 1000 calls of "
		      "top_call -> dyn_outer -> dyn_inner, filter %s (want 2000)", round,
		      (long)hits, filter);
		patchsite_tracing_off();
		atomic_store(&hits, 0);
		f(1);
		CHECK(hits == 0, "dlopen (round %d): tracing off, no callback (%ld)", round,
		      (long)hits);
		patchsite_tracing_on();
		CHECK(dlclose(h) == 0, "dlclose (round %d)", round);
		l = listing();
		CHECK(l.listed == 0, "dlclose (round %d): nothing of %s listed (%d)", round,
		      dyn_name, l.listed);
		CHECK(patchsite_stat("sites") == sites0, "dlclose (round %d): %lu sites, as "
		      "before dlopen (%lu)", round, patchsite_stat("sites"), sites0);
	}

	/* 2. Loads and unloads in several threads while tracing changes. */
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	n = 0;
	for (long r = 0; r < rounds; r++, n++) {
		errors += patchsite_tracing_off() != 0;
		errors += patchsite_tracing_on() != 0;
		errors += patchsite_set_filter(&ops, r & 1 ? filter : "dyn_inner:mod:libdyn-*",
					       1) != 0;
		if (r % 4 == 0) {
			errors += patchsite_unregister_function(&ops) != 0;
			errors += patchsite_register_function(&ops) != 0;
		}
		errors += listing().listed < 0;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	CHECK(errors == 0, "threads: %d API calls failed in %ld rounds", errors, n);
	CHECK(wrong == 0 && failed_loads == 0, "threads: %d threads x %ld dlopen/call/dlclose: "
	      "%ld wrong results, %ld failed dlopen/dlclose", nthreads, rounds, (long)wrong,
	      (long)failed_loads);
	l = listing();
	CHECK(l.listed == 0, "threads: all closed, nothing of %s listed (%d)", dyn_name,
	      l.listed);
	CHECK(patchsite_stat("sites") == sites0, "threads: %lu sites, as at start (%lu)",
	      patchsite_stat("sites"), sites0);

	/* 3. Steady: exact counts with the library loaded by two threads. */
	{
		struct steady s[2] = { { 100000, NULL }, { 100000, NULL } };
		pthread_t st[2];

		errors += patchsite_set_filter(&ops, filter, 1) != 0;
		s[0].h = dlopen(dyn_path, RTLD_NOW);
		s[1].h = dlopen(dyn_path, RTLD_NOW);
		atomic_store(&hits, 0);
		for (int i = 0; i < 2; i++)
			pthread_create(&st[i], NULL, steady_worker, &s[i]);
		for (int i = 0; i < 2; i++)
			pthread_join(st[i], NULL);
		CHECK(s[0].h && s[1].h && hits == 400000 && wrong == 0, "steady: %ld callbacks "
		      "for 2 x 100000 calls of dyn_outer -> dyn_inner (want 400000)", (long)hits);
		for (int i = 0; i < 2; i++)
			if (s[i].h)
				dlclose(s[i].h);
	}
	CHECK(patchsite_unregister_function(&ops) == 0, "ops unregistered");
	patchsite_ops_release(&ops);
	printf("INFO dlopen: %lu live batches, %lu traps emulated, %lu retried\n",
	       patchsite_stat("batches"), patchsite_stat("traps_emulated"),
	       patchsite_stat("traps_retried"));
	return failures != 0;
}
