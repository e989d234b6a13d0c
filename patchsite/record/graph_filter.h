/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which calls function_graph records: set_graph_function (the calls inside
 * one of its functions, and their roots while tracing is off),
 * set_graph_notrace and max_graph_depth.  Predicates for graph.c's entry
 * paths alone (no other file includes this), compiled with them: they are
 * asked on every call the C path takes, and a call into another file would
 * cost each one.  The three that gcc keeps out of line are static, not
 * inline, so that it keeps them so: an inline one is inlined into both
 * entry paths, which changes the hot code (make bench-patchsite).
 */
#ifndef PS_GRAPH_FILTER_H
#define PS_GRAPH_FILTER_H

#include "graph.h"

static inline bool in_mask(struct ps_sitemask *m, const struct ps_site *s)
{
	return m && s->gindex < m->n && m->set[s->gindex];
}

/*
 * set_graph_notrace: the call is not recorded, nor anything it calls
 * while it runs (t->notrace counts such calls open); its frame only hooks
 * the return, to know when it ends.
 */
static bool notrace_call(struct ps_thread *t, struct ps_site **site, uint32_t idw)
{
	struct ps_sitemask *m = atomic_load_explicit(&ps_graph_notrace, memory_order_acquire);

	if (!m)
		return false;
	if (!*site)
		*site = ps_site_by_id(idw >> 2);
	(void)t;
	return in_mask(m, *site);
}

/*
 * Tracing off (tracing_on 0, not a thread left out by set_ftrace_pid), no
 * call open, and set_graph_function names this one: it is not recorded, but
 * its frame is pushed, so that the calls it makes count as inside it when a
 * trigger (traceon) turns tracing on before it returns, as uftrace's filter
 * keeps its depth while disabled.  Its exit is then recorded as any open
 * call's is.
 */
static bool root_while_off(struct ps_thread *t, struct ps_fast *f, struct ps_site **site,
			   uint32_t idw)
{
	const uint8_t *trigger = __atomic_load_n(&ps_graph_trigger.set, __ATOMIC_ACQUIRE);

	if (!trigger || f->fp != t->frames + 1 || ps_own ||
	    atomic_load_explicit(&ps.tracing_on, memory_order_relaxed))
		return false;
	if (!*site)
		*site = ps_site_by_id(idw >> 2);
	return trigger[(*site)->gindex];
}

/*
 * set_graph_function as ftrace's (Documentation/trace/ftrace.rst): a call
 * is recorded when it is one of those functions or runs inside one, that
 * is when one of the thread's open frames is such a call (looked for from
 * the outermost: -G main finds it first).  A frame opened before the set
 * was written (ctl, while the program runs) counts only when it is one:
 * a thread inside its loop then records nothing but their calls.  Return
 * probes' frames name no function.
 */
static bool inside_graph_function(const struct ps_thread *t, const struct ps_fast *f,
				  const uint8_t *trigger)
{
	for (const struct ps_frame *fr = t->frames + 1; fr < f->fp; fr++) {
		const struct ps_fslow *x = frame_slow(t, fr);

		if (!(x && (x->flags & PS_FS_PROBE)) &&
		    trigger[ps_site_by_id((uint32_t)fr->idw >> 2)->gindex])
			return true;
	}
	return false;
}

/* set_graph_function is set, and the call idw starts is neither one of its functions nor inside one. */
static inline bool outside_graph_function(const struct ps_thread *t, const struct ps_fast *f,
				   struct ps_site **site, uint32_t idw)
{
	const uint8_t *trigger = __atomic_load_n(&ps_graph_trigger.set, __ATOMIC_ACQUIRE);

	if (!trigger)
		return false;
	if (!*site)
		*site = ps_site_by_id(idw >> 2);
	return !trigger[(*site)->gindex] && !inside_graph_function(t, f, trigger);
}

static inline bool too_deep(struct ps_thread *t, struct ps_fast *f)
{
	return (unsigned)(f->fp - (t->frames + 1)) >= ps_graph_max_depth;
}

/*
 * ps_graph_entry's set_graph_function and max_graph_depth for a call whose
 * return is not hooked: an entry outside the trigger's functions
 * (outside_graph_function) is not recorded, and neither is an exit there
 * (the exit of such an entry: ps_graph_entry hooks no return there).  An entry deeper than asked gets a set_graph_notrace frame
 * (ps_graph_word), so that its exit, which may look like its caller's in a
 * recursion (cyg_exit_of), pops that frame and nothing else.
 */
static inline bool word_outside(struct ps_thread *t, struct ps_fast *f, struct ps_site **site,
			 uint32_t idw)
{
	const uint8_t *trigger = __atomic_load_n(&ps_graph_trigger.set, __ATOMIC_ACQUIRE);

	if (too_deep(t, f))
		return (idw & 3) == PS_EV_EXIT;
	if (!trigger || inside_graph_function(t, f, trigger))
		return false;
	if ((idw & 3) == PS_EV_EXIT)
		return true;
	if (!*site)
		*site = ps_site_by_id(idw >> 2);
	return !trigger[(*site)->gindex];
}

#endif
