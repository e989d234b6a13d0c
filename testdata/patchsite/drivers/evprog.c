// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static trace events under test (events.sh).  Each mode checks its own
 * counts (the oracle: what this program did, counted where the argument is
 * evaluated and where a probe is called) and exits non-zero, saying what
 * differed; modes that record leave the trace directory to events.sh.
 * Built as C and as C++, with and without the runtime (mode nort).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
/* patchsite.h is C only (struct patchsite_ops has a member named private): C++ uses the events alone. */
#if defined(__cplusplus) && !defined(NO_RUNTIME)
#define NO_API
#elif !defined(NO_RUNTIME)
#include "patchsite.h"
#endif

static long evals;
static int failed;

#define CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "evprog: %s:%d: ", __FILE__, __LINE__);	\
			fprintf(stderr, __VA_ARGS__);				\
			fputc('\n', stderr);					\
			failed = 1;						\
		}								\
	} while (0)

static int len_of(int v)
{
	evals++;
	return v;
}

static const char *host_of(const char *h)
{
	evals++;
	return h;
}

static void emit_send(int n)
{
	for (int i = 0; i < n; i++)
		patchsite_trace(netsim, send, len_of(i), host_of("a.b"));
}

/* Every event once, and send with lengths and hosts for the filter. */
static void emit_all(void)
{
	static const int lens[] = { 100, 1500, 2000, 3000, 5000 };
	static const char *const hosts[] = { "a.b", "c.d", "a.b", "a.b", NULL };
	unsigned char raw[4] = { 0xde, 0xad, 0xbe, 0xef };
	char big[301];

	memset(big, 'x', 300);
	big[300] = 0;
	for (int i = 0; i < 5; i++)
		patchsite_trace(netsim, send, lens[i], hosts[i]);
	patchsite_trace(netsim, poll, 7u);
	patchsite_trace(netsim, tick, -5L, 3);
	patchsite_trace(types, all, (int8_t)-100, (int16_t)-30000, (int64_t)-1234567890123LL,
			4000000000u, (void *)0x1234, 2.5, "hello \"world\"", raw);
	patchsite_trace(types, all, (int8_t)127, (int16_t)1, (int64_t)1, 0u, (void *)0, -0.125,
			big, raw);
}

#if defined(NO_RUNTIME) || defined(NO_API)
/*
 * nort: no runtime, or one that enables nothing: no argument evaluated.
 * env: the events PATCHSITE_EVENTS enables are recorded; netsim:send 1000
 * times, each argument evaluated once per hit.
 */
int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	emit_send(1000);
	if (!strcmp(mode, "nort")) {
		CHECK(evals == 0, "%ld arguments evaluated while disabled", evals);
		CHECK(!patchsite_event_enabled(netsim, send), "enabled with no runtime");
	} else if (!strcmp(mode, "env")) {
		CHECK(evals == 2000, "%ld evaluations for 1000 hits of 2 arguments", evals);
	} else {
		fprintf(stderr, "usage: evprog nort|env\n");
		return 2;
	}
	emit_all();
	return failed;
}
#else

static void count_probe(void *data, const struct patchsite_event_info *ev,
			const unsigned long long *args)
{
	(void)ev, (void)args;
	(*(long *)data)++;
}

/* Enabled: evaluated exactly once per hit; disabled: never. */
static void mode_sidefx(int n)
{
	long probe = 0;

	emit_send(n);
	CHECK(evals == 0, "disabled: %ld evaluations", evals);
	CHECK(patchsite_event_is_enabled("netsim:send") == 0, "is_enabled before enable");
	CHECK(patchsite_event_probe_register("netsim:send", count_probe, &probe, 0) == 0,
	      "register: %s", strerror(errno));
	CHECK(patchsite_event_enabled(netsim, send), "enabled() false with a probe");
	emit_send(n);
	CHECK(evals == 2L * n, "enabled: %ld evaluations for %d hits of 2 arguments", evals, n);
	CHECK(probe == n, "probe called %ld times for %d hits", probe, n);
	CHECK(patchsite_event_probe_unregister("netsim:send", count_probe, &probe) == 0,
	      "unregister");
	CHECK(!patchsite_event_enabled(netsim, send), "enabled() true after unregister");
	emit_send(n);
	CHECK(evals == 2L * n, "disabled again: %ld evaluations", evals);
	CHECK(patchsite_enable_event("netsim:send") == 0, "enable");
	CHECK(patchsite_event_is_enabled("netsim:send") == 1, "is_enabled after enable");
	emit_send(n);
	CHECK(evals == 4L * n, "recorded: %ld evaluations", evals);
	CHECK(patchsite_disable_event("netsim:*") == 0, "disable");
	CHECK(patchsite_event_is_enabled("netsim:send") == 0, "is_enabled after disable");
	CHECK(patchsite_event_is_enabled("netsim:nothere") == -ENOENT, "is_enabled unknown");
	CHECK(patchsite_event_probe_register("netsim:nothere", count_probe, &probe, 0) == -ENOENT,
	      "register unknown");
}

static char order[8];
static unsigned norder;
#define PRIO_PROBE(c)								\
	static void probe_##c(void *d, const struct patchsite_event_info *ev,	\
			      const unsigned long long *a)			\
	{									\
		(void)d, (void)ev, (void)a;					\
		if (norder < sizeof(order) - 1)					\
			order[norder++] = #c[0];				\
	}
PRIO_PROBE(A)
PRIO_PROBE(B)
PRIO_PROBE(C)

/* Higher priority first, equal ones in registration order (the kernel's register_trace_prio). */
static void mode_prio(void)
{
	CHECK(!patchsite_event_probe_register("netsim:poll", probe_A, NULL, 5), "A");
	CHECK(!patchsite_event_probe_register("netsim:poll", probe_B, NULL, 20), "B");
	CHECK(!patchsite_event_probe_register("netsim:poll", probe_C, NULL, 5), "C");
	CHECK(patchsite_event_probe_register("netsim:poll", probe_C, NULL, 5) == -EEXIST, "C twice");
	patchsite_trace(netsim, poll, 1u);
	CHECK(!strcmp(order, "BAC"), "order %s, expected BAC", order);
	CHECK(!patchsite_event_probe_unregister("netsim:poll", probe_B, NULL), "unregister B");
	norder = 0;
	memset(order, 0, sizeof(order));
	patchsite_trace(netsim, poll, 2u);
	CHECK(!strcmp(order, "AC"), "order %s, expected AC", order);
}

/* Threads emit while the event is switched; exact counts in the steady phases. */
enum { T_MAX = 8 };
static int phase;	/* 0 flips, 1-2 steady on, 3-4 steady off (4: stop) */
static __thread int self;
static struct tstate {
	long evals, hits;
	long e[4], h[4];		/* at phases 1..4 */
	int seen;
} ts[T_MAX];

static long tick_arg(long i)
{
	__atomic_fetch_add(&ts[self].evals, 1, __ATOMIC_RELAXED);
	return i;
}

static void tick_probe(void *d, const struct patchsite_event_info *ev, const unsigned long long *a)
{
	(void)d, (void)ev;
	__atomic_fetch_add(&ts[a[1]].hits, 1, __ATOMIC_RELAXED);
}

static void *emitter(void *arg)
{
	int seen = 0;

	self = (int)(long)arg;
	for (long i = 0;; i++) {
		int ph = __atomic_load_n(&phase, __ATOMIC_ACQUIRE);

		if (ph != seen) {
			/* Between two hits: this thread's counts are exact here. */
			ts[self].e[ph - 1] = ts[self].evals;
			ts[self].h[ph - 1] = ts[self].hits;
			seen = ph;
			__atomic_store_n(&ts[self].seen, ph, __ATOMIC_RELEASE);
			if (ph == 4)
				break;
		}
		patchsite_trace(netsim, tick, tick_arg(i), self);
	}
	return NULL;
}

static void wait_seen(int nt, int ph)
{
	for (int k = 0; k < nt; k++)
		while (__atomic_load_n(&ts[k].seen, __ATOMIC_ACQUIRE) != ph)
			usleep(100);
}

static void mode_threads(int nt, int flips)
{
	pthread_t th[T_MAX];

	for (long k = 0; k < nt; k++)
		pthread_create(&th[k], NULL, emitter, (void *)k);
	for (int f = 0; f < flips; f++) {
		CHECK(!patchsite_event_probe_register("netsim:tick", tick_probe, NULL, 0), "on");
		usleep(200);
		CHECK(!patchsite_event_probe_unregister("netsim:tick", tick_probe, NULL), "off");
	}
	CHECK(!patchsite_event_probe_register("netsim:tick", tick_probe, NULL, 0), "steady on");
	for (int ph = 1; ph <= 4; ph++) {
		__atomic_store_n(&phase, ph, __ATOMIC_RELEASE);
		wait_seen(nt, ph);
		if (ph == 2)
			CHECK(!patchsite_event_probe_unregister("netsim:tick", tick_probe, NULL),
			      "steady off");
		else if (ph != 4)
			usleep(20000);
	}
	for (int k = 0; k < nt; k++) {
		struct tstate *t = &ts[k];

		pthread_join(th[k], NULL);
		CHECK(t->e[1] - t->e[0] > 0, "thread %d: no hit in the steady phase", k);
		CHECK(t->e[1] - t->e[0] == t->h[1] - t->h[0], "thread %d: %ld evaluations, %ld "
		      "probe calls while enabled", k, t->e[1] - t->e[0], t->h[1] - t->h[0]);
		CHECK(t->e[3] == t->e[2], "thread %d: %ld evaluations while disabled", k,
		      t->e[3] - t->e[2]);
	}
	printf("traps_emulated %lu batches %lu\n", patchsite_stat("traps_emulated"),
	       patchsite_stat("batches"));
}

/* Events of a library loaded later: rules (PATCHSITE_EVENTS) apply, probes attach. */
static void mode_dlopen(const char *lib, int n)
{
	long probe = 0;
	void *h;
	void (*run)(int);
	int *lib_evals;

	CHECK(patchsite_event_probe_register("evlib:hello", count_probe, &probe, 0) == -ENOENT,
	      "evlib:hello known before dlopen");
	h = dlopen(lib, RTLD_NOW);
	CHECK(h != NULL, "dlopen %s: %s", lib, dlerror());
	if (!h)
		return;
	run = (void (*)(int))dlsym(h, "evlib_run");
	lib_evals = (int *)dlsym(h, "evlib_evals");
	CHECK(patchsite_event_is_enabled("evlib:hello") == 1, "evlib:hello not enabled by the rule");
	CHECK(!patchsite_event_probe_register("evlib:hello", count_probe, &probe, 0), "register");
	run(n);
	CHECK(probe == n && *lib_evals == n, "probe %ld, evaluations %d, hits %d", probe,
	      *lib_evals, n);
	CHECK(!patchsite_event_probe_unregister("evlib:hello", count_probe, &probe), "unregister");
	dlclose(h);
	/* Loaded again: its sites are new, the rule still records them. */
	h = dlopen(lib, RTLD_NOW);
	CHECK(h != NULL, "dlopen again: %s", dlerror());
	if (!h)
		return;
	run = (void (*)(int))dlsym(h, "evlib_run");
	lib_evals = (int *)dlsym(h, "evlib_evals");
	run(n);
	CHECK(*lib_evals == n, "loaded again: %d evaluations for %d hits", *lib_evals, n);
	dlclose(h);
}

static void ctl_expect(const char *file, const char *want)
{
	char buf[8192];
	long n = patchsite_ctl_read(file, buf, sizeof(buf));

	CHECK(n >= 0 && strstr(buf, want), "%s: '%s' not in '%s'", file, want, n >= 0 ? buf : "");
}

/* Control files, then every event once; the filter keeps send with len > 1024 to a.b. */
static void mode_record(void)
{
	const char *flt = "len > 1024 && host == \"a.b\"";

	CHECK(patchsite_ctl_write("set_event", "netsim:* types:all", 0) == 0, "set_event");
	CHECK(patchsite_ctl_write("set_event", "!netsim:tick", 1) == 0, "set_event append");
	ctl_expect("available_events", "netsim:poll\n");
	ctl_expect("set_event", "netsim:send\nnetsim:poll\n");
	ctl_expect("events/netsim/tick/enable", "0");
	ctl_expect("events/netsim/send/format", "field:int len;\toffset:8;\tsize:4;\tkind:signed;");
	CHECK(patchsite_ctl_write("events/netsim/send/filter", "len > > 3", 0) < 0,
	      "a bad filter accepted");
	CHECK(strstr(patchsite_last_error(), "expected"), "bad filter said: %s",
	      patchsite_last_error());
	CHECK(patchsite_ctl_write("events/netsim/send/filter", "host ~ a*", 0) == 0, "glob filter");
	CHECK(patchsite_ctl_write("events/netsim/send/filter", flt, 0) == 0, "filter: %s",
	      patchsite_last_error());
	ctl_expect("events/netsim/send/filter", flt);
	CHECK(patchsite_ctl_write("events/netsim/tick/enable", "1", 0) == 0, "enable file");
	ctl_expect("events/netsim/tick/enable", "1");
	emit_all();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "sidefx"))
		mode_sidefx(argc > 2 ? atoi(argv[2]) : 1000);
	else if (!strcmp(mode, "prio"))
		mode_prio();
	else if (!strcmp(mode, "threads"))
		mode_threads(argc > 2 ? atoi(argv[2]) : 4, argc > 3 ? atoi(argv[3]) : 50);
	else if (!strcmp(mode, "dlopen") && argc > 2)
		mode_dlopen(argv[2], 1000);
	else if (!strcmp(mode, "record"))
		mode_record();
	else if (!strcmp(mode, "env"))
		emit_all();
	else {
		fprintf(stderr, "usage: evprog sidefx|prio|threads|dlopen LIB|record|env\n");
		return 2;
	}
	return failed;
}
#endif
