// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live patching under load.  Worker threads call traced functions
 * (testdata/patchsite/work.c) without pause while the main thread, for
 * `rounds` rounds, registers ops, changes filters, toggles tracing and
 * unregisters, so sites flip between NOP and call under the workers' feet
 * and some calls go through the breakpoint emulation.
 *   - nothing may crash or compute a wrong result;
 *   - an ops must never be called after patchsite_unregister_function
 *     returned (grace period);
 *   - steady phase: with one ops registered and nothing changing, the
 *     callback count equals the number of calls exactly.
 * One more thread reads the runtime's state (patchsite_stat, whether tracing
 * is on) all along, and one callback calls a traced function (the recursion
 * guard counts it as missed), so that ThreadSanitizer sees those readers too.
 * Usage: stress THREADS ROUNDS STEADY_CALLS
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "patchsite.h"

long work_count(long a);
long work_other(long a);
long api_f1(long a, long b);

static atomic_bool stop, steady_go;
static atomic_long wrong, late_calls, steady_hits;
static atomic_int ready;
static atomic_bool ops_a_live, ops_b_live;
static long steady_calls;

static void cb_a(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
		 struct patchsite_regs *regs)
{
	(void)ip, (void)parent, (void)op, (void)regs;
	if (!atomic_load(&ops_a_live))
		atomic_fetch_add(&late_calls, 1);
}

static void cb_b(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
		 struct patchsite_regs *regs)
{
	(void)ip, (void)parent, (void)op, (void)regs;
	if (!atomic_load(&ops_b_live))
		atomic_fetch_add(&late_calls, 1);
	if (work_other(1) != 4)		/* traced: not traced again (missed) */
		atomic_fetch_add(&wrong, 1);
}

static void cb_steady(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
		      struct patchsite_regs *regs)
{
	(void)parent, (void)op, (void)regs;
	/* The site: work_count's entry (+4 after endbr64), or after its prologue (-pg: before work_other). */
	if (ip - (unsigned long)work_count <= 4 ||
	    (ip > (unsigned long)work_count && ip < (unsigned long)work_other &&
	     (unsigned long)work_other > (unsigned long)work_count))
		atomic_fetch_add_explicit(&steady_hits, 1, memory_order_relaxed);
}

static void *worker(void *arg)
{
	long i = (long)arg, n = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (work_count(i) != (i ^ 1) || work_other(i) != i + 3 || api_f1(i, 2) != i + 2)
			atomic_fetch_add(&wrong, 1);
		i++;
	}
	atomic_fetch_add(&ready, 1);
	while (!atomic_load(&steady_go))
		;
	for (n = 0; n < steady_calls; n++)
		if (work_count(n) != (n ^ 1))
			atomic_fetch_add(&wrong, 1);
	return NULL;
}

/* Readers of the runtime's counters and switches while it patches. */
static void *watcher(void *arg)
{
	static const char *const stats[] = { "batches", "pokes", "missed", "traps_emulated",
					     "traps_retried", "init_ns", "enabled" };
	unsigned long sum = 0;

	(void)arg;
	for (unsigned i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++)
		sum += patchsite_stat(stats[i % 7]) + (unsigned long)patchsite_tracing_is_on();
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 8;
	int rounds = argc > 2 ? atoi(argv[2]) : 10000;
	struct patchsite_ops a = { .func = cb_a }, b = { .func = cb_b };
	struct patchsite_ops steady = { .func = cb_steady };
	static const char *const filters[] = { "work_*", "work_count api_f1", "*", "api_*",
					       "work_other" };
	pthread_t *th = calloc((size_t)nthreads, sizeof(*th)), watch;
	int errors = 0, failures = 0;

	steady_calls = argc > 3 ? atol(argv[3]) : 1000000;
	for (long i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(i * 1000));
	pthread_create(&watch, NULL, watcher, NULL);
	for (int r = 0; r < rounds; r++) {
		atomic_store(&ops_a_live, true);
		errors += patchsite_set_filter(&a, filters[r % 5], 1) != 0;
		errors += patchsite_register_function(&a) != 0;
		if (r % 3 == 0)
			errors += patchsite_tracing_off() != 0;
		atomic_store(&ops_b_live, true);
		errors += patchsite_set_filter(&b, filters[(r + 2) % 5], 1) != 0;
		errors += patchsite_register_function(&b) != 0;
		if (r % 3 == 0)
			errors += patchsite_tracing_on() != 0;
		errors += patchsite_unregister_function(&a) != 0;
		atomic_store(&ops_a_live, false);
		errors += patchsite_set_filter(&b, filters[(r + 1) % 5], 1) != 0;
		errors += patchsite_unregister_function(&b) != 0;
		atomic_store(&ops_b_live, false);
	}
	/* Steady phase: one ops, nothing changes while the workers count. */
	errors += patchsite_set_filter(&steady, "work_count", 1) != 0;
	errors += patchsite_register_function(&steady) != 0;
	atomic_store(&stop, true);
	while (atomic_load(&ready) < nthreads)
		;
	atomic_store(&steady_hits, 0);
	atomic_store(&steady_go, true);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	pthread_join(watch, NULL);
	errors += patchsite_unregister_function(&steady) != 0;
	errors += patchsite_stat("enabled") != 0;
	patchsite_ops_release(&a);
	patchsite_ops_release(&b);
	patchsite_ops_release(&steady);
	free(th);

#define CHECK(ok, ...)                                                          \
	do {                                                                    \
		printf("%s ", (ok) ? "PASS" : "FAIL");                          \
		printf(__VA_ARGS__);                                            \
		putchar('\n');                                                  \
		failures += !(ok);                                              \
	} while (0)
	printf("INFO stress: %lu live batches, %lu site changes, %lu breakpoint traps emulated, "
	       "%lu retried\n", patchsite_stat("batches"), patchsite_stat("pokes"),
	       patchsite_stat("traps_emulated"), patchsite_stat("traps_retried"));
	CHECK(errors == 0, "stress: %d API calls failed in %d rounds", errors, rounds);
	CHECK(patchsite_stat("missed") > 0, "stress: %lu recursive entries skipped",
	      patchsite_stat("missed"));
	CHECK(wrong == 0, "stress: %ld wrong results from traced functions", (long)wrong);
	CHECK(late_calls == 0, "stress: %ld callbacks after unregister returned",
	      (long)late_calls);
	CHECK(steady_hits == (long)nthreads * steady_calls,
	      "stress: steady phase %ld callbacks for %ld calls", (long)steady_hits,
	      (long)nthreads * steady_calls);
	return failures != 0;
}
