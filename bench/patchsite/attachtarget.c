// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process bench/patchsite/attach.sh attaches to, started without the
 * runtime: THREADS threads call the N generated functions round robin, and
 * a canary thread stamps the clock in a tight loop.  Each keeps the longest
 * gap between two of its stamps (a caller stamps every 64 calls): the
 * longest stall it saw.  Lines on stdin:
 *   reset   forget the gaps, "ok"
 *   gap     "gap CALLERS_US CANARY_US CALLS": the longest gaps since reset
 * End of input stops it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int (*const bench_funcs[])(int);
extern const int bench_nfuncs;

static atomic_bool stop;
static atomic_long calls, gap_callers, gap_canary;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void note(atomic_long *max, long gap)
{
	long cur = atomic_load_explicit(max, memory_order_relaxed);

	while (gap > cur && !atomic_compare_exchange_weak(max, &cur, gap))
		;
}

static void *caller(void *arg)
{
	long n = 0, last = now_ns();

	(void)arg;
	for (int i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++, n++) {
		bench_funcs[i % bench_nfuncs](i);
		if (!(i & 63)) {
			long t = now_ns();

			note(&gap_callers, t - last);
			last = t;
		}
	}
	atomic_fetch_add(&calls, n);
	return NULL;
}

static void *canary(void *arg)
{
	long last = now_ns();

	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		long t = now_ns();

		note(&gap_canary, t - last);
		last = t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nth = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[17];
	char line[64];

	if (nth < 1 || nth > 16)
		return 2;
	for (int i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, caller, NULL);
	pthread_create(&th[nth], NULL, canary, NULL);
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		if (!strcmp(line, "reset\n")) {
			atomic_store(&gap_callers, 0);
			atomic_store(&gap_canary, 0);
			printf("ok\n");
		} else if (!strcmp(line, "gap\n")) {
			printf("gap %ld %ld\n", atomic_load(&gap_callers) / 1000,
			       atomic_load(&gap_canary) / 1000);
		}
		fflush(stdout);
	}
	atomic_store(&stop, true);
	for (int i = 0; i <= nth; i++)
		pthread_join(th[i], NULL);
	printf("%ld calls\n", atomic_load(&calls));
	return 0;
}
