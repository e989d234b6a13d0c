// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dispatcher and the ops registry: ops states, want masks, the
 * published list, which trampoline.  An ops joins or leaves in ops.c.
 *
 * Every stub ends in the arch trampoline, which calls ps_dispatch(id, ...).
 * The dispatcher walks the published ops list and calls each ops whose bit
 * is set in the site's want mask.  Changing tracers changes the list and the
 * masks, not the trampoline or the sites (sites change only when the union
 * of what all ops want changes).
 *
 * A thread inside the dispatcher is a reader of the list, in the sense of
 * the grace periods core/thread.c keeps: an ops leaves the list, and an old
 * list is freed, only once every thread that may have seen it has left.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arch/entry.h"
#include "sites/site.h"
#include "sites.h"

/* parent: where the caller's address is read, for each ops (one may hook it before the next). */
void ps_dispatch_parent(uint32_t id, const unsigned long *parent, struct patchsite_regs *regs)
{
	struct ps_thread *t = ps_self;
	struct ps_ops_list *list;
	struct ps_site *s;
	uint64_t want;
	unsigned long seq;

	if (__builtin_expect(!t, 0)) {
		t = ps_thread_self();
		if (!t)
			return;
	}
	if (t->depth) {
		atomic_fetch_add_explicit(&t->missed, 1, memory_order_relaxed);	/* patchsite_stat reads */
		/*
		 * Inside the runtime's ops the program runs nothing: this is a
		 * signal handler's call, lost as any event the ring drops is.
		 * Not while the runtime does its own work (ps_own: its calls
		 * into a malloc the program defines), nor from a program's ops
		 * (depth 2: calls from inside it are not traced, patchsite.h).
		 */
		if (t->depth == 1 && !ps_own &&
		    atomic_load_explicit(&ps.tracing_on, memory_order_relaxed))
			ps_thread_lost(t);
		return;
	}
	if (ps_own)
		return;		/* the runtime's own call: not the program's */
	t->depth = 1;
	seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
	atomic_store_explicit(&t->seq, seq + 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	list = atomic_load_explicit(&ps.list, memory_order_consume);
	s = ps_site_by_id(id);
	t->cur_idw = id << 2;
	t->ev_lo = NULL;	/* the probe records of this call alone (record/ring.c ev_run) */
	want = atomic_load_explicit(&s->want, memory_order_relaxed);
	/*
	 * Tracing off: no ops is called but those that run always (the graph
	 * tracer: exits of calls still open; the filter commands: traceon),
	 * which come first in the list when they may flip the switch for the
	 * others.
	 */
	if (list) {
		for (unsigned i = 0; i < list->n; i++)
			if (want & list->e[i].bit && (list->e[i].always ||
						      atomic_load_explicit(&ps.tracing_on,
									   memory_order_relaxed))) {
				t->depth = list->e[i].own ? 1 : 2;
				list->e[i].ops->func(s->addr, *parent, list->e[i].ops, regs);
			}
	}
	t->ev_lo = NULL;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->seq, seq + 2, memory_order_release);
	t->depth = 0;
}

void ps_dispatch(uint32_t id, unsigned long ret, struct patchsite_regs *regs)
{
	(void)ret;
	ps_dispatch_parent(id, patchsite_regs_parent_loc(regs), regs);
}

/* The runtime's own ops and what they need; a program's ops are not listed. */
static struct {
	const struct patchsite_ops *ops;
	const struct ps_ops_props *props;
} described[8];	/* function, function_graph, the filter commands, probes; room */

/* Said once, at init (api.c wire), before the ops has a state. */
void ps_ops_describe(struct patchsite_ops *ops, const struct ps_ops_props *props)
{
	for (size_t i = 0; i < sizeof(described) / sizeof(described[0]); i++)
		if (!described[i].ops) {
			described[i].ops = ops;
			described[i].props = props;
			return;
		}
}

static const struct ps_ops_props *props_of(const struct patchsite_ops *ops)
{
	for (size_t i = 0; i < sizeof(described) / sizeof(described[0]); i++)
		if (described[i].ops == ops)
			return described[i].props;
	return NULL;
}

/* Listed in ps.states so that objects loaded later reach every filter.  ps.lock held. */
struct ps_ops_state *ps_ops_state(struct patchsite_ops *ops)
{
	if (!ops->state) {
		struct patchsite_ops_state *n = calloc(1, sizeof(*n));

		if (!n)
			return NULL;
		n->s.props = props_of(ops);
		n->s.slot = -1;
		n->s.next = ps.states;
		ps.states = &n->s;
		/* Made whole first: an exiting thread reads it without the lock (record/unwind.c). */
		__atomic_store_n(&ops->state, n, __ATOMIC_RELEASE);
	}
	return &ops->state->s;
}

static bool site_wanted(const struct ps_ops_state *st, size_t i)
{
	if (st->filter.set && !st->filter.set[i])
		return false;
	return !(st->notrace.set && st->notrace.set[i]);
}

/*
 * Masks from the registered ops' filters.  An exit site is wanted by the
 * ops that want exits (the graph tracer), exactly when its function's
 * entry is.  ps.lock held.
 */
void ps_recompute_want(void)
{
	const struct ps_ops_state *st[PS_MAX_OPS];
	uint64_t bit[PS_MAX_OPS], gbit = 0;
	unsigned n = 0;

	for (unsigned k = 0; k < PS_MAX_OPS; k++)
		if (ps.slots[k]) {
			st[n] = &ps.slots[k]->state->s;
			bit[n++] = 1ull << k;
			if (st[n - 1]->props && st[n - 1]->props->exits)
				gbit |= 1ull << k;
		}
	for (size_t i = 0; i < ps.nsites; i++) {
		struct ps_site *s = ps.site_index[i];
		uint64_t want = 0;

		if (!s || s->kind == SITE_EXIT)
			continue;
		for (unsigned k = 0; k < n; k++)
			if (site_wanted(st[k], i))
				want |= bit[k];
		atomic_store_explicit(&s->want, want, memory_order_relaxed);
	}
	for (size_t i = 0; i < ps.nsites; i++) {
		struct ps_site *s = ps.site_index[i];

		if (s && s->kind == SITE_EXIT)
			atomic_store_explicit(&s->want, atomic_load_explicit(
				&s->mod->sites[s->owner].want, memory_order_relaxed) & gbit,
					      memory_order_relaxed);
	}
}

/*
 * A no-flag site at a function's entry takes the fast entry of the
 * function or graph tracer alone where the arch has a no-flag one (it keeps
 * what a function built without -pg needs kept: arch.h); else, and at a
 * form b site, the trampoline that keeps every register.
 */
static uintptr_t noflag_tramp(uintptr_t tramp)
{
	if (tramp == (uintptr_t)ps.arch->tramp_func && ps.arch->tramp_func_noflag)
		return (uintptr_t)ps.arch->tramp_func_noflag;
	if (tramp == (uintptr_t)ps.arch->tramp_graph && ps.arch->tramp_graph_noflag)
		return (uintptr_t)ps.arch->tramp_graph_noflag;
	return (uintptr_t)ps.arch->tramp_noflag;
}

/* Point every module's stubs at tramp (by site kind: the graph tracer's differ).  ps.lock held. */
void ps_tramp_set(uintptr_t tramp)
{
	uintptr_t t[SITE_KINDS] = { tramp, tramp, tramp, (uintptr_t)ps.arch->tramp_late,
				    noflag_tramp(tramp), (uintptr_t)ps.arch->tramp_noflag };

	if (tramp == (uintptr_t)ps.arch->tramp_graph ||
	    (ps.arch->tramp_profile && tramp == (uintptr_t)ps.arch->tramp_profile)) {
		t[SITE_ENTRY_EXITS] = (uintptr_t)ps.arch->tramp_graph_noret;
		t[SITE_EXIT] = (uintptr_t)ps.arch->tramp_graph_exit;
		t[SITE_ENTRY_LATE] = (uintptr_t)ps.arch->tramp_graph_late;
	} else if (tramp != (uintptr_t)ps.arch->tramp) {
		t[SITE_EXIT] = (uintptr_t)ps.arch->tramp;	/* only the graph tracer wants exits */
		if (tramp == (uintptr_t)ps.arch->tramp_func)
			t[SITE_ENTRY_LATE] = (uintptr_t)ps.arch->tramp_func_late;
	}
	ps.tramp = tramp;
	for (unsigned i = 0; i < ps.nmods; i++)
		for (unsigned k = 0; ps.mods[i]->tramp_slot && k < SITE_KINDS; k++)
			atomic_store_explicit(&ps.mods[i]->tramp_slot[k], t[k],
					      memory_order_release);
}

/*
 * The generic trampoline works for any set of ops and sites; a built-in
 * tracer registered alone gets its fast trampoline, as the kernel calls
 * a lone ops directly.  Before the set of ops or sites changes, callers
 * select the generic one (generic = true).  ps.lock held.
 */
void ps_tramp_select(bool generic)
{
	struct ps_ops_list *l = atomic_load(&ps.list);
	uintptr_t tramp = (uintptr_t)ps.arch->tramp;

	if (!generic && l && l->n == 1) {
		const struct ps_ops_props *p = l->e[0].ops->state->s.props;
		uintptr_t fast = p && p->fast ? p->fast() : 0;

		if (fast)
			tramp = fast;
	}
	if (tramp != ps.tramp)
		ps_tramp_set(tramp);
}

/* Publish the list of registered ops; frees the old one after a grace period. */
int ps_ops_publish(void)
{
	struct ps_ops_list *l, *old;
	unsigned n = 0;

	for (unsigned k = 0; k < PS_MAX_OPS; k++)
		n += ps.slots[k] != NULL;
	l = malloc(sizeof(*l) + n * sizeof(l->e[0]));
	if (!l)
		return -ENOMEM;
	l->n = 0;
	/* Those that go first (the filter commands: they fire before the call is recorded). */
	for (int first = 1; first >= 0; first--)
		for (unsigned k = 0; k < PS_MAX_OPS; k++) {
			const struct ps_ops_props *p;

			if (!ps.slots[k])
				continue;
			p = ps.slots[k]->state->s.props;
			if ((p && p->first) != first)
				continue;
			l->e[l->n].ops = ps.slots[k];
			l->e[l->n].bit = 1ull << k;
			l->e[l->n].always = p && p->always;
			l->e[l->n].own = p != NULL;
			l->n++;
		}
	old = atomic_exchange(&ps.list, l);
	ps_sync_dispatchers();
	free(old);
	return 0;
}
