// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process bench/patchsite/attach.sh attaches to, started without the
 * runtime: THREADS threads call the N generated functions round robin, and
 * a canary thread stamps the clock in a tight loop.  Each keeps the longest
 * gap between two of its stamps (a caller stamps every 64 calls): the
 * longest stall it saw; and the longest of the gaps in which the thread was
 * not preempted (getrusage(RUSAGE_THREAD)'s ru_nivcsw, involuntary context
 * switches, unchanged): a stall of its own, a trap, a fault or a wait
 * (voluntary switches count), not the machine's other runnable threads
 * taking its CPU, which on a 2-CPU VM with three spinning threads is
 * tens of ms whatever happens (a gap that holds both a stall and a
 * preemption is left out of the second).  Lines on stdin:
 *   reset   forget the gaps, "ok"
 *   gap     "gap CALLERS_US CANARY_US CALLERS_OWN_US CANARY_OWN_US": the
 *           longest gaps since reset, all, and those not preempted
 *   calls N "calls CPU_NS WALL_NS": N calls round robin made by the main
 *           thread, its own CPU time and the wall time they took (the
 *           per-call cost; THREADS 0 runs no other thread, to measure it
 *           alone)
 * The canary thread is named "canary" (attach.sh may make it SCHED_FIFO).
 * It says "ready CPU_US" once running: the CPU time of the process so far
 * (under `patchsite record`, the preloaded runtime's start-up).
 * End of input stops it.
 */
#define _GNU_SOURCE	/* pthread_setname_np */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

extern int (*const bench_funcs[])(int);
extern const int bench_nfuncs;

static atomic_bool stop;
static atomic_long calls, gap_callers, gap_canary, own_callers, own_canary;

static long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* n calls round robin on this thread: "calls CPU_NS WALL_NS". */
static void timed_calls(long n)
{
	long cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID), wall = now_ns();
	int sum = 0;

	for (long i = 0; i < n; i++)
		sum += bench_funcs[i % bench_nfuncs]((int)i);
	printf("calls %ld %ld %d\n", clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu, now_ns() - wall,
	       sum & 1);
}

static void note(atomic_long *max, long gap)
{
	long cur = atomic_load_explicit(max, memory_order_relaxed);

	while (gap > cur && !atomic_compare_exchange_weak(max, &cur, gap))
		;
}

/* This thread's involuntary context switches so far. */
static long preempted(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nivcsw;
}

/*
 * A stamp: the gap since the last one, and whether the thread was preempted
 * in it.  The count is read before and after the clock (a preemption is
 * counted when the thread is switched out, which may be inside either
 * getrusage, after it read the count): the gap had none for sure if the
 * count after this clock is the count before the last one.  *niv keeps
 * that count before.
 */
static void stamp(long *last, long *niv, atomic_long *all, atomic_long *own)
{
	long before = preempted(), t = now_ns(), after = preempted();

	note(all, t - *last);
	if (after == *niv)
		note(own, t - *last);
	*last = t;
	*niv = before;
}

static void *caller(void *arg)
{
	long n = 0, last = now_ns(), niv = preempted();

	(void)arg;
	/* long: an int wraps negative after 2^31 calls (minutes), then a negative index */
	for (long i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++, n++) {
		bench_funcs[i % bench_nfuncs]((int)i);
		if (!(i & 63))
			stamp(&last, &niv, &gap_callers, &own_callers);
	}
	atomic_fetch_add(&calls, n);
	return NULL;
}

static void *canary(void *arg)
{
	long last = now_ns(), niv = preempted();

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		stamp(&last, &niv, &gap_canary, &own_canary);
	return NULL;
}

int main(int argc, char **argv)
{
	int nth = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[17];
	char line[64];
	long n;

	if (nth < 0 || nth > 16)
		return 2;
	printf("ready %ld\n", clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1000);
	for (int i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, caller, NULL);
	if (nth) {
		pthread_create(&th[nth], NULL, canary, NULL);
		/* attach.sh finds it by name, to run it SCHED_FIFO when it can */
		pthread_setname_np(th[nth], "canary");
	}
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "reset\n")) {
			atomic_store(&gap_callers, 0);
			atomic_store(&gap_canary, 0);
			atomic_store(&own_callers, 0);
			atomic_store(&own_canary, 0);
			printf("ok\n");
		} else if (!strcmp(line, "gap\n")) {
			printf("gap %ld %ld %ld %ld\n", atomic_load(&gap_callers) / 1000,
			       atomic_load(&gap_canary) / 1000, atomic_load(&own_callers) / 1000,
			       atomic_load(&own_canary) / 1000);
		} else if (sscanf(line, "calls %ld", &n) == 1) {
			timed_calls(n);
		}
		fflush(stdout);
	}
	atomic_store(&stop, true);
	for (int i = 0; nth && i <= nth; i++)
		pthread_join(th[i], NULL);
	printf("%ld calls\n", atomic_load(&calls));
	return 0;
}
