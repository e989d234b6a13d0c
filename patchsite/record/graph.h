/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The graph tracer's shadow frames, for the unwinding hooks (record/unwind.c),
 * and the settings graph_settings.c keeps for graph.c's C path.
 */
#ifndef PS_GRAPH_H
#define PS_GRAPH_H

#include "ring.h"

/* The return slot a frame hooked. */
static inline uintptr_t frame_slot(const struct ps_frame *fr)
{
	return (fr->key & ~(uintptr_t)3) + PS_FRAME_KEY_BIAS;
}

/* The slot a call's frame is keyed by: loc itself, but where the arch hands a copy (ps_arch.key_slot). */
static inline uintptr_t frame_key_slot(unsigned long *loc)
{
	return ps.arch->key_slot ? ps.arch->key_slot(loc) : (uintptr_t)loc;
}

/* The slow info of fr, or NULL when its exit has nothing to do in C. */
static inline struct ps_fslow *frame_slow(const struct ps_thread *t, const struct ps_frame *fr)
{
	return fr->key & PS_FRAME_SLOW ? &t->fslow[fr - t->frames] : NULL;
}

/*
 * graph.c: a call's entry at a site that hooks its return (or a call's
 * entry or exit word at an exit site, ps_graph_word), as the dispatcher
 * (graph_ops.c) and the fast paths' C halves call them.
 */
void ps_graph_entry(struct ps_site *site, uint32_t idw, unsigned long *loc,
		    struct patchsite_regs *regs);
void ps_graph_word(struct ps_site *site, uint32_t idw, unsigned long *loc,
		   struct patchsite_regs *regs);
void ps_graph_close_frame(struct ps_thread *t, struct ps_fast *f, uint64_t tsc,
			  const struct ps_frame *fr);
/* graph_lost.c */
uintptr_t ps_graph_other_thread_ret(struct ps_thread *me, uintptr_t key);
/*
 * retprobe.c: the return of a return probe's frame (PS_FS_PROBE), at the
 * hooked slot, to caller.
 */
void ps_retprobe_exit(struct ps_thread *t, const struct ps_fslow *x, const unsigned long *slot,
		      uintptr_t caller);

/* tracing_thresh in time-stamp ticks; 0: off. */
extern _Atomic uint64_t ps_graph_thresh_tsc;

/*
 * Functions by site index (set_graph_notrace); n: the sites it covers
 * (objects loaded after it was written are not).  Immutable once published.
 */
struct ps_sitemask {
	size_t n;
	char *text;
	uint8_t set[];
};
extern _Atomic(struct ps_sitemask *) ps_graph_notrace;

/*
 * The latency tracer (PS_FS_LATENCY): the longest top-level call so far,
 * in time-stamp ticks (converted outside the dispatcher: the first
 * conversion may measure the clock's rate for 20 ms).
 */
extern _Atomic bool ps_graph_latency_on;
extern _Atomic uint64_t ps_graph_max_latency_tsc;

/*
 * function_profile (PS_FS_PROFILE): calls are timed by the same frames and
 * hooked returns, and counted at their end by profile.c; no event is
 * written to the ring.  Only a return that starts a new stretch of time
 * still writes its mark (ps_graph_exit_slow): a frame entered before the
 * switch may end in this mode and write its exit, which needs it.
 */
extern _Atomic bool ps_graph_profile_on;

static inline bool ps_graph_profiling(void)
{
	return atomic_load_explicit(&ps_graph_profile_on, memory_order_relaxed);
}

#endif
