/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * function_profile's counters as profile.c keeps them, shared with its
 * x86-64 fast path (arch/x86_64/tramp.S, which counts as prof_count does,
 * at offsets profile_fast.c checks): per thread, per function, written by
 * their thread only, read by others under a sequence count.
 */
#ifndef PS_RECORD_PROFILE_COUNTERS_H
#define PS_RECORD_PROFILE_COUNTERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "data/hist.h"
#include "record/record.h"

struct prof_fn {			/* one function in one thread */
	uint64_t total;			/* ns, outermost calls only */
	uint64_t sum;			/* ns, every call (the average) */
	uint64_t self;			/* ns, less the callees' */
	unsigned __int128 sumsq;	/* ns^2, every call (s^2) */
	uint32_t id;			/* its entry site */
	uint32_t open;			/* calls running now (recursion) */
	_Atomic uint32_t seq;		/* odd while its thread changes it (readers retry) */
	uint32_t pend;			/* x86-64 fast path: bucket + 1 of its last call, not in h.count yet */
	struct hist h;			/* hits (h.n), min, max, buckets */
};

struct prof_thread {
	struct prof_thread *_Atomic next;
	pid_t tid;
	char comm[16];
	_Atomic unsigned gen;			/* the reset generation its counts belong to */
	struct prof_fn **_Atomic mods[PS_MAX_MODULES];	/* by module, then index in module */
	uint8_t *arena, *arena_end;
	struct prof_fn *_Atomic list;		/* every counter it made, for reset and readers */
};

/* profile.c: bumped by a reset; ticks to ns as ns = ticks * mult >> 32; the thread's counters. */
extern _Atomic unsigned ps_prof_generation;
extern uint64_t ps_prof_ns_mult;
extern __thread struct prof_thread *ps_prof_me __attribute__((tls_model("initial-exec")));

/*
 * gcc refuses fences under -fsanitize=thread (-Wtsan): the TSan build (make
 * check-tsan) orders with an acquire-release read-modify-write of the
 * sequence word that changes nothing instead; the other builds keep the
 * fence, which costs the writer no locked instruction (on x86-64 a release
 * fence is only a compiler barrier).
 */
#ifdef __SANITIZE_THREAD__
#define seq_fence(order, seq) \
	((void)atomic_fetch_add_explicit((_Atomic uint32_t *)(seq), 0, memory_order_acq_rel))
#else
#define seq_fence(order, seq) atomic_thread_fence(order)
#endif

/* The seqcount's writer side: the counters between these two are in flux. */
static inline void write_begin(struct prof_fn *fn)
{
	atomic_store_explicit(&fn->seq, atomic_load_explicit(&fn->seq, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	seq_fence(memory_order_release, &fn->seq);
}

static inline void write_end(struct prof_fn *fn)
{
	atomic_store_explicit(&fn->seq, atomic_load_explicit(&fn->seq, memory_order_relaxed) + 1,
			      memory_order_release);
}

static inline uint64_t prof_ns(uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ticks * ps_prof_ns_mult) >> 32);
}

/*
 * A call of d ns ended in frame fr, whose slow info is x: the caller's
 * frame fr - 1 (slow info x - 1, the arrays are parallel), when it is
 * counted too, has d more of its callees' time.
 */
static inline void prof_to_caller(struct ps_thread *t, const struct ps_frame *fr,
				  struct ps_fslow *x, uint64_t d)
{
	if (fr - 1 > t->frames && ((fr - 1)->key & PS_FRAME_SLOW) && ((x - 1)->flags & PS_FS_PROFILE))
		(x - 1)->child_ns += d;
}

/*
 * One call of fn counted (the C path: its bucket at once, pend left alone).  A call made while the same function is still
 * running further out (fn->open > 1: recursion) adds to hits, the
 * histogram and self, not to total, which the outer call holds.
 */
static inline void prof_count(struct prof_fn *fn, uint64_t d, uint64_t self)
{
	bool nested = fn->open > 1;

	if (fn->open)
		fn->open--;
	write_begin(fn);
	hist_add(&fn->h, d);
	fn->total += nested ? 0 : d;
	fn->sum += d;
	fn->self += self;
	fn->sumsq += (unsigned __int128)d * d;
	write_end(fn);
}

#endif
