// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_profile's x86-64 fast path: the common call's entry and end,
 * called by arch/x86_64/tramp.S (ps_x86_64_prof_entry, and the return
 * hook's slow half), which save only the call-clobbered general
 * registers around them.  The C path (graph.c, profile.c) saved every
 * argument and vector register twice per call and went through the graph
 * tracer's general entry: about 540 instructions a call.  general-regs-only
 * keeps these off the vector registers (the traced function's arguments
 * and return values), and they call nothing (all inlined).  Anything but
 * the common case (a thread's first call, a function's first call in its
 * thread, a reset, a stale frame, a frame that is not a profile frame, a
 * switch of tracer) answers 1, and the trampoline takes the C path, which
 * handles it and counts the same way (profile_counters.h).
 *
 * The TSan build keeps the C path alone: its instrumentation calls into
 * the sanitizer's runtime, which may use any register.
 */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
/* Before the headers: their inline functions are inlined only under the same target. */
#pragma GCC target("general-regs-only")
#include "arch/entry.h"
#include "graph.h"
#include "profile_counters.h"

/*
 * flatten: everything they use inlined, at -O1 (the sanitizer builds) too;
 * there the sanitizers' checks stay (gcc inlines nothing across a
 * no_sanitize), and call their runtime only to report and abort.
 */
#define PROF_FAST __attribute__((flatten, no_instrument_function, no_stack_protector))

/*
 * The call's frame could be made here, as frame n of the shadow stack: the
 * thread exists, the return slot is on its stack, the shadow stack has
 * room within the depth asked, and the frame on top is not one a longjmp
 * left (its slot lies above the new one); tracing is on and the tracer
 * still function_profile (the stubs follow a switch a moment later).
 */
static inline bool can_enter(struct ps_fast *f, struct ps_thread *t, struct ps_frame *fr,
			     size_t n, uintptr_t slot)
{
	return own_stack(f, slot) && fr < t->frames_end && !t->notrace &&
	       n - 1 < ps_graph_max_depth && (n == 1 || frame_slot(fr - 1) > slot) &&
	       atomic_load_explicit(&ps.tracing_on, memory_order_relaxed) &&
	       atomic_load_explicit(&ps_graph_profile_on, memory_order_relaxed);	/* not switched away */
}

/* The counters of site id in this thread, NULL when not made yet or stale. */
static inline struct prof_fn *counters(uint32_t id, unsigned gen)
{
	struct prof_thread *pt = ps_prof_me;
	struct prof_fn **row;

	if (!pt || atomic_load_explicit(&pt->gen, memory_order_relaxed) != gen)
		return NULL;
	row = atomic_load_explicit(&pt->mods[id >> PS_ID_SHIFT], memory_order_relaxed);
	return row ? row[id & PS_ID_MASK] : NULL;
}

/* a[0] the stub's id << 2, a[1] return into the function, a[2] into its caller. */
PROF_FAST int ps_profile_fast_entry(unsigned long *a)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uintptr_t slot = (uintptr_t)&a[2];
	unsigned gen = atomic_load_explicit(&ps_prof_generation, memory_order_relaxed);
	struct ps_frame *fr = f->fp;
	size_t n = t ? (size_t)(fr - t->frames) : 0;
	struct prof_fn *fn;
	struct ps_fslow *x;

	if (!t || !can_enter(f, t, fr, n, slot) || !(fn = counters((uint32_t)a[0] >> 2, gen)))
		return 1;
	/* The frame is taken before it is filled: a signal handler's calls push above it. */
	f->fp = fr + 1;
	atomic_signal_fence(memory_order_seq_cst);
	x = &t->fslow[n];
	x->flags = PS_FS_PROFILE;
	x->child_ns = 0;
	x->prof = fn;
	x->units = gen;
	fn->open++;
	fr->ret = a[2];
	fr->key = (slot - PS_FRAME_KEY_BIAS) | PS_FRAME_SLOW;
	fr->idw = ((uint32_t)a[0] & ~3u) | PS_EV_EXIT;
	x->tsc = ps_clock();	/* last: the call's time leaves this path's out */
	a[2] = (uintptr_t)ps.arch->graph_return;
	return 0;
}

/*
 * slot: where the hooked return was, holding the lower half of the time
 * stamp the return hook read in the stretch f->hi (tramp.S); it gets the
 * real return address when the call is counted here.
 */
PROF_FAST int ps_profile_fast_exit(unsigned long *slot)
{
	struct ps_fast *f = &ps_fast;
	uint64_t tsc = (uint64_t)f->hi << 32 | (uint32_t)*slot, d;
	struct ps_thread *t = f->t;
	struct ps_frame *fr = f->fp - 1;
	struct ps_fslow *x;
	struct prof_fn *fn;

	if (!t || fr <= t->frames ||
	    fr->key != (((uintptr_t)slot - PS_FRAME_KEY_BIAS) | PS_FRAME_SLOW))
		return 1;
	x = &t->fslow[fr - t->frames];
	fn = x->prof;
	if (x->flags != PS_FS_PROFILE || !fn ||
	    x->units != atomic_load_explicit(&ps_prof_generation, memory_order_relaxed))
		return 1;
	d = prof_ns(tsc - x->tsc);
	prof_to_caller(t, fr, x, d);
	prof_count(fn, d, d > x->child_ns ? d - x->child_ns : 0);
	*slot = fr->ret;
	atomic_signal_fence(memory_order_seq_cst);
	f->fp = fr;
	return 0;
}
#endif
