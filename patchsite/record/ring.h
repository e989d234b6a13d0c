/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-thread rings, for the files of record/ (function.c, graph.c,
 * unwind.c; ring.c holds the rest).  What every C-path event does (the
 * thread set up, a mark, its room taken, its words written) is static
 * inline here, as it was inside one file: the C path must not pay a call
 * for each step.
 */
#ifndef PS_RING_H
#define PS_RING_H

#include <sched.h>
#include <string.h>

#include "host.h"
#include "record/record.h"
#include "data/format.h"

#define PS_FRAMES	1024		/* shadow frames per thread: the deepest max depth */
#define PS_SLACK	16		/* words kept for marks and signal handlers */

struct ps_thread *ps_ring_thread_setup(void);
int32_t ps_ring_budget(struct ps_thread *t, struct ps_fast *f, bool frames);
bool ps_ring_next_chunk(struct ps_thread *t, struct ps_fast *f);

/* Which ring or chunk t writes now: a position saved earlier is only comparable within it. */
static inline uint64_t ps_ring_gen(const struct ps_thread *t)
{
	return ps_store_on() ? t->base[1] : atomic_load_explicit(&t->lap, memory_order_relaxed);
}

static inline bool own_stack(const struct ps_fast *f, uintptr_t slot)
{
	return slot - f->stack_lo < f->stack_size;
}

/* An event not recorded: counted (in the thread's file too, where there is one: ps_store_lost). */
static inline void lose(struct ps_thread *t)
{
	ps_thread_lost(t);
}

/* The calling thread's ring and shadow stack, set up by its first event (ring.c). */
static inline struct ps_thread *thread_setup(void)
{
	struct ps_thread *t = ps_fast.t;

	if (t && t->base)
		return t;
	return ps_ring_thread_setup();
}

/* Start a new stretch of time: a mark word (upper half, CPU).  False when full. */
static inline bool mark(struct ps_thread *t, struct ps_fast *f, uint64_t tsc)
{
	uint32_t hi = (uint32_t)(tsc >> 32);

	if (hi == f->hi)
		return true;
	if ((t->end - f->wp < 2 || ps_store_stale(t)) && !(t->store && ps_ring_next_chunk(t, f)))
		return false;
	f->wp[0] = (uint64_t)hi << 32 | PS_EV_MARK;
	f->wp[1] = (uint64_t)sched_getcpu();
	ps_wp_set(f, f->wp + 2);
	f->hi = hi;
	return true;
}

/* One entry's room: true with the budget taken, false (counted lost) when full. */
static inline bool take(struct ps_thread *t, struct ps_fast *f, bool frames)
{
	if (f->budget <= 0)
		f->budget = ps_ring_budget(t, f, frames);
	if (f->budget <= 0) {
		f->budget = 0;
		lose(t);
		return false;
	}
	f->budget--;
	return true;
}

static inline void put_exit(struct ps_thread *t, struct ps_fast *f, uint64_t tsc, uint64_t idw)
{
	if (f->wp >= t->end) {
		lose(t);
		return;
	}
	f->wp[0] = tsc << 32 | (uint32_t)(idw | PS_EV_EXIT);
	ps_wp_set(f, f->wp + 1);
}

/*
 * The calling thread, ready to record an event stamped *tsc; NULL when it
 * has no buffer, or when the event is lost (counted) because a new time
 * stretch could not be marked.
 */
static inline struct ps_thread *begin_event(uint64_t *tsc)
{
	struct ps_thread *t = ps_own ? NULL : thread_setup();	/* the runtime's own call */

	*tsc = ps_clock();
	if (!t)
		return NULL;
	if (!mark(t, &ps_fast, *tsc)) {
		lose(t);
		return NULL;
	}
	return t;
}

/* An entry with its parent: the function tracer's, or a graph call whose return is not hooked. */
static inline void put_func(struct ps_thread *t, struct ps_fast *f, uint64_t tsc, uint32_t idw,
		     unsigned long parent)
{
	if (!take(t, f, false))
		return;
	f->wp[0] = tsc << 32 | (idw & ~3u) | PS_EV_FUNC;
	f->wp[1] = parent;
	ps_wp_set(f, f->wp + 2);
}

/*
 * The arguments set_ftrace_args asks for, after the entry just written
 * (PSD_EXT_ARGS: the site id, then the values), and its read= triggers'
 * values (PSD_EXT_READ).  Only on the C path, where the registers were
 * saved (regs NULL: from a fast path's slow half).  *fs: the frame's flags
 * for the exit (PS_FS_RETVAL, PS_FS_READ).  Returns the budget units taken.
 */
static inline unsigned put_args(const struct ps_site *s, uint32_t idw, struct patchsite_regs *regs,
			 unsigned *fs)
{
	uint64_t a[9];
	unsigned n, units = 0;

	*fs = 0;
	if (!regs || !ps_args_on())
		return 0;
	if (!s)
		s = ps_site_by_id(idw >> 2);
	n = ps_args_want(s, fs);
	if (n) {
		a[0] = idw >> 2;
		for (unsigned i = 0; i < n && i < 8; i++)
			a[1 + i] = patchsite_regs_arg(regs, i);
		units = ps_ring_ext(PSD_EXT_ARGS, a, n + 1) ? (n + 3) / 2 : 0;
	}
	if (*fs & PS_FS_READ)
		units += ps_read_put(idw >> 2, (*fs & PS_FS_READ) >> PS_FS_READ_SHIFT, false);
	return units;
}

#endif
