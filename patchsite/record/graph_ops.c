// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_graph as a tracer: the call the dispatcher makes (graph_call,
 * for the sites the fast trampolines leave to it) and which path the
 * settings allow, the fast trampolines' or C's (graph_fast, ps_record_slow).
 */
#include "graph.h"

static void graph_call(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
		       struct patchsite_regs *regs)
{
	struct ps_thread *t = ps_thread_self();
	struct ps_site *s;

	(void)ip, (void)parent, (void)op;
	if (!t)
		return;
	s = ps_site_by_id(t->cur_idw >> 2);
	if (s->kind == SITE_EXIT)
		ps_graph_word(s, t->cur_idw | PS_EV_EXIT, patchsite_regs_parent_loc(regs), regs);
	else if (s->kind == SITE_ENTRY_EXITS)
		ps_graph_word(s, t->cur_idw, patchsite_regs_parent_loc(regs), regs);
	else
		ps_graph_entry(s, t->cur_idw, patchsite_regs_parent_loc(regs), regs);
}

/* A setting only the C path of the graph tracer heeds. */
static bool graph_settings(void)
{
	return ps_gate_filtering() || atomic_load_explicit(&ps_graph_thresh_tsc, memory_order_relaxed) ||
	       ps_args_on() || atomic_load_explicit(&ps_graph_notrace, memory_order_relaxed) ||
	       atomic_load_explicit(&ps_graph_latency_on, memory_order_relaxed);
}

/* The built-in tracers need the C path (dispatch.c ps_tramp_select): a setting their fast paths ignore. */
bool ps_record_slow(void)
{
	return graph_settings() || ps_graph_profiling();
}

/*
 * The graph tracer's fast path cannot test the trigger (set_graph_function)
 * either.  function_profile takes it too, for its C halves alone: the
 * profile mode keeps every thread's budget at zero or below (ps_graph_entry,
 * ps_graph_word), so the fast paths write nothing and call those halves
 * directly, sparing the generic dispatcher; the frames it pushes are
 * marked slow, so their returns leave the graph tracer's fast return
 * (x86-64 counts them in tramp.S, elsewhere they come to C).
 */
static uintptr_t graph_fast(void)
{
	if (graph_settings() || ps_graph_trigger.set)
		return 0;
	if (ps_graph_profiling() && ps.arch->tramp_profile)
		return (uintptr_t)ps.arch->tramp_profile;	/* its own entry (x86-64: tramp.S) */
	return (uintptr_t)ps.arch->tramp_graph;
}

struct patchsite_ops ps_graph_ops = { .func = graph_call };
/* Exits of calls still open are recorded while tracing is off. */
const struct ps_ops_props ps_graph_props = { .fast = graph_fast, .exits = true, .always = true };
