// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time-stamp floor of function_graph on this machine
 * (bench/patchsite/compare.sh), CPU time, best of 5:
 *   rdtsc_ns     one rdtsc, in a loop of 10,000,000 that uses each value;
 *   graph_ns     per call, above the untraced loop, of loop.c's workload
 *                (mid -> leaf) where each function itself stores an 8-byte
 *                word stamped with rdtsc at entry and at exit: what any
 *                function_graph recorder pays here at the very least,
 *                with no trampoline, no check and no call.
 * Prints "rdtsc_ns X" and "graph_ns Y".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#define N 10000000L	/* rdtsc loop */
#define NL 2000000L	/* workload iterations, as compare.sh's */

static uint64_t *ring, *wp;
static volatile int stamped;

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void stamp(uint64_t id)
{
	if (stamped)
		*wp++ = __rdtsc() << 32 | id;
}

__attribute__((noinline)) static int leaf(int x)
{
	stamp(4);
	__asm__ volatile("");
	stamp(5);
	return x + 1;
}

__attribute__((noinline)) static int mid(int x)
{
	int r;

	stamp(8);
	__asm__ volatile("");
	r = leaf(x) * 2;
	stamp(9);
	return r;
}

/* CPU ns of NL iterations of the loop, best of 5 (each run rewrites the same ring). */
static double loop(int with_stamps)
{
	double best = 1e30;
	volatile long s = 0;

	stamped = with_stamps;
	for (int r = 0; r < 5; r++) {
		double t = cpu_ns();

		wp = ring;
		for (long i = 0; i < NL; i++)
			s += mid((int)i);
		t = cpu_ns() - t;
		if (t < best)
			best = t;
	}
	return best;
}

int main(void)
{
	double best = 1e30, base, graph;
	volatile uint64_t sink = 0;

	for (int r = 0; r < 5; r++) {
		uint64_t s = 0;
		double t = cpu_ns();

		for (long i = 0; i < N; i++)
			s += __rdtsc();
		t = (cpu_ns() - t) / N;
		sink += s;
		if (t < best)
			best = t;
	}
	printf("rdtsc_ns %.2f\n", best);
	ring = calloc(4 * NL, sizeof(*ring));	/* 4 words an iteration; touched once before timing */
	if (!ring)
		return 1;
	for (long i = 0; i < 4 * NL; i += 512)
		ring[i] = 1;
	base = loop(0);
	graph = loop(1);
	printf("graph_ns %.2f\n", (graph - base) / (2.0 * NL));
	return 0;
}
