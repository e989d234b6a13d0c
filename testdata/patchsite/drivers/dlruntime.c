// SPDX-License-Identifier: GPL-2.0-only
/*
 * libpatchsite itself loaded with dlopen: the program is neither linked
 * with it nor runs with it preloaded, reaches the API through dlsym, and
 * its own dlopen and dlclose are the C library's, which the runtime does
 * not see.  Usage: dlruntime LIBPATCHSITE DIR SUFFIX [THREADS ROUNDS]
 * with DIR/libdyn-SUFFIX.so and DIR/libdyntop-SUFFIX.so (which needs libdyn).
 *   1. An ops filters 'dyn_*:mod:libdyn-SUFFIX.so' (pending) and is
 *      registered; then libdyntop is dlopened.  Until the next API call
 *      its calls are not traced (no callback: patchsite(7) says so);
 *      after patchsite_tracing_on every call is counted exactly, and the
 *      functions are listed, the wanted ones enabled.
 *   2. That API call leaves the program's pending dlerror() message alone.
 *   3. After dlclose and a dlopen of libdyn alone, patchsite_set_filter
 *      with a plain glob ('dyn_inner', which must match a loaded
 *      function) finds the new copy: exact counts again.  After dlclose,
 *      the next API call forgets it: nothing listed, the site count as
 *      at the start.
 *   4. With THREADS: each thread dlopens, calls and dlcloses either
 *      library ROUNDS times while the main thread toggles tracing and
 *      changes the filter, so API calls meet objects in the middle of
 *      their dlopen (a -mrecord-mcount library has text relocations):
 *      no crash, every result right, no API call fails, and afterwards
 *      nothing stale is listed.
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

static int failures;

/* The API, through dlsym. */
static int (*reg)(struct patchsite_ops *), (*unreg)(struct patchsite_ops *);
static int (*release)(struct patchsite_ops *);
static int (*set_filter)(struct patchsite_ops *, const char *, int);
static int (*tracing_on)(void), (*tracing_off)(void);
static int (*for_each)(patchsite_func_cb, void *);
static unsigned long (*stat_of)(const char *);
static void (*set_log)(patchsite_log_func_t, void *);

static char dyn_path[512], top_path[512], dyn_name[128];
static atomic_long wrong, failed_loads, arrived;
static long rounds;

static bool api(void *h)
{
	struct {
		void *fp;
		const char *name;
	} t[] = {
		{ &reg, "patchsite_register_function" },
		{ &unreg, "patchsite_unregister_function" },
		{ &release, "patchsite_ops_release" },
		{ &set_filter, "patchsite_set_filter" },
		{ &tracing_on, "patchsite_tracing_on" },
		{ &tracing_off, "patchsite_tracing_off" },
		{ &for_each, "patchsite_for_each_function" },
		{ &stat_of, "patchsite_stat" },
		{ &set_log, "patchsite_set_log" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		void *f = dlsym(h, t[i].name);

		if (!f)
			return false;
		memcpy(t[i].fp, &f, sizeof(f));
	}
	return true;
}

struct listing {
	int dyn, dyn_enabled, top, top_enabled;
};

static int list_cb(const char *name, const char *module, unsigned long ip, unsigned flags,
		   void *arg)
{
	struct listing *l = arg;
	bool on = flags & PATCHSITE_FUNC_ENABLED;

	(void)name, (void)ip;
	if (!strcmp(module, dyn_name)) {
		l->dyn++;
		l->dyn_enabled += on;
	} else if (!strncmp(module, "libdyntop-", 10)) {
		l->top++;
		l->top_enabled += on;
	}
	return 0;
}

static struct listing listing(void)
{
	struct listing l = { 0, 0, 0, 0 };

	if (for_each(list_cb, &l))
		l.dyn = -1;
	return l;
}

static int (*function(void *h, const char *name))(int)
{
	return h ? (int (*)(int))dlsym(h, name) : NULL;
}

/* f(1..n): false if a result is wrong (dyn_outer: 3x + 1; top_call: 100 more). */
static bool call(int (*f)(int), int n, int extra)
{
	bool ok = f != NULL;

	for (int i = 1; ok && i <= n; i++)
		ok = f(i) == 3 * i + 1 + extra;
	return ok;
}

/* Counts the objects the runtime added (for the INFO line). */
static void log_cb(enum patchsite_log_level level, const char *msg, void *arg)
{
	(void)level, (void)arg;
	if (strstr(msg, ": loaded: "))
		atomic_fetch_add(&arrived, 1);
}

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long r = 0; r < rounds; r++) {
		bool top = (r + id) & 1;
		void *h = dlopen(top ? top_path : dyn_path, RTLD_NOW);

		if (!h) {
			atomic_fetch_add(&failed_loads, 1);
			continue;
		}
		if (!call(function(h, top ? "top_call" : "dyn_outer"), 50, top ? 100 : 0))
			atomic_fetch_add(&wrong, 1);
		if (dlclose(h))
			atomic_fetch_add(&failed_loads, 1);
	}
	return NULL;
}

/* 4. Loads in other threads while the API changes tracing. */
static void threads(int nthreads, struct patchsite_ops *ops, const char *filter)
{
	pthread_t th[64];
	int errors = 0;

	atomic_store(&arrived, 0);
	set_log(log_cb, NULL);
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (long r = 0; r < rounds; r++) {
		errors += tracing_off() != 0;
		errors += tracing_on() != 0;
		errors += set_filter(ops, r & 1 ? filter : "dyn_inner:mod:libdyn-*", 1) != 0;
		errors += listing().dyn < 0;
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	set_log(NULL, NULL);
	printf("INFO dlruntime: %ld objects added by API calls, %ld loads by the threads\n",
	       (long)arrived, nthreads * rounds);
	CHECK(errors == 0, "threads: %d of %ld API calls failed", errors, 4 * rounds);
	CHECK(wrong == 0 && failed_loads == 0, "threads: %d threads x %ld dlopen/call/dlclose "
	      "while the API picked up and dropped them: %ld wrong results, %ld failed "
	      "dlopen/dlclose", nthreads, rounds, (long)wrong, (long)failed_loads);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 2 ? argv[2] : ".", *suffix = argc > 3 ? argv[3] : "pie";
	int nthreads = argc > 4 ? atoi(argv[4]) : 0;
	struct patchsite_ops ops = { .func = count };
	void *rt = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL, *h;
	unsigned long sites0;
	char filter[256];
	const char *msg;
	struct listing l;

	rounds = argc > 5 ? atol(argv[5]) : 100;
	if (nthreads > 64)
		nthreads = 64;
	CHECK(rt && api(rt), "dlopen %s and dlsym its API", argc > 1 ? argv[1] : "(none)");
	if (!rt || !stat_of)
		return 1;
	snprintf(dyn_path, sizeof(dyn_path), "%s/libdyn-%s.so", dir, suffix);
	snprintf(top_path, sizeof(top_path), "%s/libdyntop-%s.so", dir, suffix);
	snprintf(dyn_name, sizeof(dyn_name), "libdyn-%s.so", suffix);
	snprintf(filter, sizeof(filter), "dyn_*:mod:%s", dyn_name);
	sites0 = stat_of("sites");

	/* 1. and 2. */
	CHECK(set_filter(&ops, filter, 1) == 0, "filter '%s' pending", filter);
	CHECK(reg(&ops) == 0, "ops registered");
	h = dlopen(top_path, RTLD_NOW);
	CHECK(call(function(h, "top_call"), 100, 100) && hits == 0, "libdyntop dlopened "
	      "behind the runtime's back: 100 calls right, not traced before the next API "
	      "call (%ld callbacks)", (long)hits);
	CHECK(!dlopen("/nonexistent/libnone.so", RTLD_NOW), "a dlopen that fails");
	CHECK(tracing_on() == 0, "patchsite_tracing_on");
	msg = dlerror();
	CHECK(msg && strstr(msg, "/nonexistent/libnone.so"), "dlerror() after the API call "
	      "that picked up the libraries is still the program's: %s", msg ? msg : "NULL");
	atomic_store(&hits, 0);
	CHECK(call(function(h, "top_call"), 1000, 100) && hits == 2000, "after the API call: "
	      "%ld callbacks for 1000 calls of top_call -> dyn_outer -> dyn_inner, filter %s "
	      "(want 2000)", (long)hits, filter);
	l = listing();
	CHECK(l.dyn == 2 && l.dyn_enabled == 2 && l.top == 1 && l.top_enabled == 0,
	      "listed: libdyn %d functions (%d enabled), libdyntop %d (%d enabled); want 2 (2), "
	      "1 (0)", l.dyn, l.dyn_enabled, l.top, l.top_enabled);

	/* 3. */
	CHECK(h && dlclose(h) == 0, "dlclose libdyntop (and libdyn with it)");
	h = dlopen(dyn_path, RTLD_NOW);
	CHECK(set_filter(&ops, "dyn_inner", 1) == 0, "patchsite_set_filter(ops, \"dyn_inner\") "
	      "matches the function of a library dlopened since the last API call");
	atomic_store(&hits, 0);
	CHECK(call(function(h, "dyn_outer"), 1000, 0) && hits == 1000, "%ld callbacks for "
	      "1000 calls of dyn_outer -> dyn_inner, filter dyn_inner (want 1000)", (long)hits);
	CHECK(h && dlclose(h) == 0, "dlclose libdyn");
	CHECK(tracing_off() == 0 && tracing_on() == 0, "tracing off and on");
	l = listing();
	CHECK(l.dyn == 0 && l.top == 0 && stat_of("sites") == sites0, "after dlclose the next "
	      "API call forgot them: %d + %d functions listed, %lu sites (at the start %lu)",
	      l.dyn, l.top, stat_of("sites"), sites0);

	/* 4. */
	if (nthreads) {
		threads(nthreads, &ops, filter);
		l = listing();
		CHECK(l.dyn == 0 && l.top == 0 && stat_of("sites") == sites0, "threads: all "
		      "closed, nothing listed (%d + %d), %lu sites (at the start %lu)", l.dyn,
		      l.top, stat_of("sites"), sites0);
	}
	CHECK(unreg(&ops) == 0, "ops unregistered");
	release(&ops);
	/* libpatchsite stays loaded: its SIGTRAP handler and fork hooks are installed. */
	return failures != 0;
}
