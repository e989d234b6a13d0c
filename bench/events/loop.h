/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The loop every bench/events/loop_*.c runs: LOOP(PROBE) expands to a
 * function probe_loop(n) whose body reads and writes two globals and calls
 * PROBE(i, v) with two integer arguments once per iteration.  Without a
 * probe it is 7 instructions per iteration with gcc -O2 on x86-64 (the
 * issue's setup).  The globals are volatile so that neither the loop nor a
 * probe's arguments can be computed away.
 */
#ifndef BENCH_EVENTS_LOOP_H
#define BENCH_EVENTS_LOOP_H

extern volatile long bench_acc, bench_cnt;

#define LOOP(PROBE)							\
	volatile long bench_acc, bench_cnt;				\
	__attribute__((noinline)) void probe_loop(long n)		\
	{								\
		for (long i = 0; i < n; i++) {				\
			long v = bench_acc + i;				\
			bench_acc = v;					\
			bench_cnt = i;					\
			PROBE(i, v);					\
		}							\
	}

#endif
