// SPDX-License-Identifier: GPL-2.0-only
/*
 * libpatchsite costs, against N generated traced functions (run.sh makes
 * them):  start-up NOPing, live enable and disable of every site while a
 * thread keeps calling them, and time per traced call.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "patchsite.h"

extern int (*const bench_funcs[])(int);
extern const int bench_nfuncs;

static atomic_bool stop;
static atomic_long hits;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void empty(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
		  struct patchsite_regs *regs)
{
	(void)ip, (void)parent, (void)op, (void)regs;
	atomic_fetch_add_explicit(&hits, 1, memory_order_relaxed);
}

static void *caller(void *arg)
{
	(void)arg;
	for (int i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++)
		bench_funcs[i % bench_nfuncs](i);
	return NULL;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU time per call: the machine is shared, wall time would count other jobs. */
static double per_call(long n)
{
	volatile int sink = 0;
	double t;

	for (long i = 0; i < 1000; i++)	/* a tracer's first event sets up its ring: not counted */
		sink += bench_funcs[0]((int)i);
	t = cpu_now();

	for (long i = 0; i < n; i++)
		sink += bench_funcs[0]((int)i);
	return (cpu_now() - t) / n * 1e9;
}

int main(int argc, char **argv)
{
	struct patchsite_ops ops = { .func = empty };
	const long calls = 5000000;
	pthread_t th;
	const int rounds = 5;
	double t, c, base, hook, fn, graph, sw_us, sw_cpu, graph_off, fn_pid, fn_again, fn_args;
	double graph_again, graph_thresh;
	double on_ms = INFINITY, off_ms = INFINITY, on_cpu = INFINITY, off_cpu = INFINITY, first_cpu;

	patchsite_init();
	if (argc > 1) {	/* "startup": the start-up CPU time only, in ns (run.sh takes the best of 5) */
		printf("%lu %lu\n", patchsite_stat("init_cpu_ns"), patchsite_stat("init_ns"));
		return argv[1][0] != 's';
	}
	printf("sites                          %lu\n", patchsite_stat("sites"));
	printf("start-up (find, check, NOP)    %.2f ms (%.2f ms CPU)\n", patchsite_stat("init_ns") / 1e6,
	       patchsite_stat("init_cpu_ns") / 1e6);

	/*
	 * Best of 5 rounds; CPU time of this (the patching) thread, and wall
	 * time, which also counts the calling thread when both share a CPU.
	 */
	pthread_create(&th, NULL, caller, NULL);
	for (int r = 0; r < rounds; r++) {
		t = now();
		c = cpu_now();
		patchsite_register_function(&ops);
		on_cpu = fmin(on_cpu, (cpu_now() - c) * 1e3);
		if (!r)
			first_cpu = on_cpu;
		on_ms = fmin(on_ms, (now() - t) * 1e3);
		t = now();
		c = cpu_now();
		patchsite_unregister_function(&ops);
		off_cpu = fmin(off_cpu, (cpu_now() - c) * 1e3);
		off_ms = fmin(off_ms, (now() - t) * 1e3);
	}
	atomic_store(&stop, true);
	pthread_join(th, NULL);
	printf("live enable, all sites         %.2f ms CPU (%.2f ms wall; first time %.2f ms CPU; "
	       "%lu sites patched)\n", on_cpu, on_ms, first_cpu, patchsite_stat("pokes") / (2 * rounds));
	printf("live disable, all sites        %.2f ms CPU (%.2f ms wall; %lu breakpoint traps "
	       "emulated)\n", off_cpu, off_ms, patchsite_stat("traps_emulated"));

	base = per_call(calls);
	patchsite_set_filter(&ops, "f0", 1);
	patchsite_register_function(&ops);
	hook = per_call(calls);
	patchsite_unregister_function(&ops);
	patchsite_set_buffer_kb(256 * 1024);
	patchsite_set_filter(NULL, "f0", 1);
	patchsite_set_tracer("function");
	fn = per_call(calls);
	patchsite_set_tracer("function_graph");
	graph = per_call(calls);
	/*
	 * The recording settings (1M calls each: the ring must not fill, a
	 * full ring drops events on the slow path).  tracing_on: the switch's
	 * own time, the cost while off, and on again (the fast paths again).
	 */
	t = now();
	c = cpu_now();
	patchsite_tracing_off();
	sw_cpu = (cpu_now() - c) * 1e6;
	sw_us = (now() - t) * 1e6;
	graph_off = per_call(calls / 5);
	patchsite_tracing_on();
	graph_again = per_call(calls / 5);
	patchsite_set_tracing_thresh(1000000);
	graph_thresh = per_call(calls / 5);
	patchsite_set_tracing_thresh(0);
	patchsite_set_tracer("function");
	fn_again = per_call(calls / 5);
	patchsite_set_ftrace_pid("1", 0);	/* another thread's id: the C path, nothing recorded */
	fn_pid = per_call(calls / 5);
	patchsite_set_ftrace_pid("", 0);
	patchsite_set_ftrace_args("f0@arg1", 0);
	fn_args = per_call(calls / 5);
	patchsite_set_ftrace_args("", 0);
	patchsite_set_tracer("nop");
	printf("call, site a NOP               %.1f ns (CPU time per call from here on)\n", base);
	printf("call, empty ops                %.1f ns (+%.1f)\n", hook, hook - base);
	printf("call, function tracer          %.1f ns (+%.1f), 16 bytes per event\n", fn,
	       fn - base);
	printf("call, function_graph tracer    %.1f ns (+%.1f), 8 bytes per entry or exit\n",
	       graph, graph - base);
	printf("tracing_on 0 (the switch)      %.1f us wall (%.1f us CPU), no site changed\n", sw_us,
	       sw_cpu);
	printf("call, graph, tracing off       %.1f ns (generic trampoline, nothing recorded)\n",
	       graph_off);
	printf("call, function, other pid      %.1f ns (set_ftrace_pid: C path, not recorded)\n",
	       fn_pid);
	printf("call, function, args f0@arg1   %.1f ns (C path, 16 + 24 bytes per event)\n", fn_args);
	printf("call, function, again          %.1f ns (before the switches: %.1f; ratio %.2f)\n",
	       fn_again, fn, fn_again / fn);
	printf("call, graph, on again          %.1f ns (before the switch: %.1f; ratio %.2f)\n",
	       graph_again, graph, graph_again / graph);
	printf("call, graph, tracing_thresh    %.1f ns (C path; every call taken back)\n",
	       graph_thresh);
	patchsite_ops_release(&ops);
	return 0;
}
