// SPDX-License-Identifier: GPL-2.0-only
/*
 * What fires a dynamic probe (probe.c has the design): the hit table, made
 * from the enabled probes' sites and published whole (freed after a grace
 * period), with each entry's layout for the x86-64 fast path
 * (probe_hits.h); and the ops that reads it at a hit, runs the probe's
 * fetch program and hands the values to the event's probes, or, for a
 * conditional filter, the call to the tracer.  Apart from probe.c, which
 * parses and keeps the definitions (the dynamic_events file): this is
 * what runs on the program's time, at every hit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/format.h"
#include "event.h"
#include "record/record.h"
#include "probe.h"
#include "probe_fetch.h"
#include "probe_hits.h"

struct probe *ps_probe_defs;		/* ps.lock */
_Atomic(struct ps_probe_hits *) ps_probe_hits;

/*
 * What ps_event_fire does for a static site, less what the dispatcher did
 * already (the thread's record, its grace-period section, the recursion
 * guard) and the widening, which the fetch program did.
 */
/* A value not readable: the record is not made, said as the thread's lost events (info, replay). */
static void fault(struct probe *p)
{
	atomic_fetch_add_explicit(&p->faults, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->ev->lost, 1, memory_order_relaxed);
	ps_record_lost();
}

/*
 * The entry of a %return probe's function: its entry values ($argN, names)
 * read and its return hooked with them, no more.
 */
static void hook_return(struct probe *p, struct patchsite_regs *regs)
{
	uint64_t edata[PS_FS_EDATA];

	if (p->prog.nent && ps_fetch_entry(&p->prog, regs, edata)) {
		fault(p);
		return;
	}
	if (!ps_retprobe_hook(patchsite_regs_parent_loc(regs), p, edata, p->prog.nent))
		atomic_fetch_add_explicit(&p->unhooked, 1, memory_order_relaxed);
}

/*
 * An event's values: an entry probe's its fetch arguments', a return
 * probe's (ret set) the caller's address first (the kernel's
 * __probe_ret_ip, shown as "(caller <- func)"), then its arguments'.
 */
static void fire(struct probe *p, struct patchsite_regs *regs, const uint64_t *ret,
		 const uint64_t *edata, uint64_t caller)
{
	struct ps_probe_list *l = atomic_load_explicit(&p->ev->probes, memory_order_acquire);
	char strs[PS_PROBE_MAX_ARGS][PS_FETCH_STR_BYTES];
	uint64_t raw[PS_PROBE_MAX_ARGS + 1];

	if (!l || p->ev->gone)
		return;		/* disabled: nothing fetched */
	if (!ret && p->def.ret) {
		hook_return(p, regs);
		return;
	}
	raw[0] = caller;
	if (ret ? ps_fetch_run_ret(&p->prog, ret, edata, raw + 1, strs) :
		  ps_fetch_run(&p->prog, regs, raw, strs)) {
		fault(p);
		return;
	}
	ps_event_tally(&p->ev->hits);
	for (unsigned i = 0; i < l->n; i++)
		l->e[i].fn(l->e[i].data, &p->ev->info, (const unsigned long long *)raw);
}

/* The built-in tracer running (function_graph's ops, or the function tracer's), or NULL. */
static struct patchsite_ops *tracer_ops(void)
{
	struct patchsite_ops *o[2] = { &ps_graph_ops, &ps_function_ops };

	for (int i = 0; i < 2; i++) {
		struct patchsite_ops_state *st = __atomic_load_n(&o[i]->state, __ATOMIC_ACQUIRE);

		if (st && __atomic_load_n(&st->s.registered, __ATOMIC_RELAXED))
			return o[i];
	}
	return NULL;
}

/*
 * A conditional filter's function entered: the tracer is handed the call
 * (as the dispatcher would, the site's id current) when the condition on
 * its arguments holds.  The tracer's own filter leaves the function out.
 */
static void trace_if(struct probe *p, unsigned long ip, unsigned long parent_ip,
		     struct patchsite_regs *regs)
{
	struct ps_evfilter *flt = atomic_load_explicit(&p->ev->filter, memory_order_acquire);
	struct patchsite_ops *tr = tracer_ops();
	char strs[PS_PROBE_MAX_ARGS][PS_FETCH_STR_BYTES];
	uint64_t raw[PS_PROBE_MAX_ARGS];
	struct ps_evval v[PS_PROBE_MAX_ARGS];

	if (!tr)
		return;
	if (ps_fetch_run(&p->prog, regs, raw, strs)) {
		atomic_fetch_add_explicit(&p->faults, 1, memory_order_relaxed);
		return;		/* not known to hold: not traced, counted (dynamic_events) */
	}
	ps_event_values(p->ev, (const unsigned long long *)raw, v);
	if (!flt || ps_evfilter_match(flt, v))
		tr->func(ip, parent_ip, tr, regs);
}

/* The dispatcher's thread: ps_self is set, and cur_idw names the site called for. */
static void probe_hit(unsigned long ip, unsigned long parent_ip, struct patchsite_ops *op,
		      struct patchsite_regs *regs)
{
	const struct ps_probe_hits *tb = atomic_load_explicit(&ps_probe_hits, memory_order_acquire);
	uint32_t id = ps_self->cur_idw >> 2;
	size_t lo = 0, hi = tb ? tb->n : 0;

	(void)op;
	while (lo < hi) {		/* the first entry of the site */
		size_t mid = lo + (hi - lo) / 2;

		if (tb->e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; tb && lo < tb->n && tb->e[lo].id == id; lo++)
		if (tb->e[lo].p->trace_if)
			trace_if(tb->e[lo].p, ip, parent_ip, regs);
		else
			fire(tb->e[lo].p, regs, NULL, NULL, 0);
}

/* A hooked return (record/retprobe.c): the probe's values from the return registers and edata. */
void ps_probe_ret(void *data, uint64_t x, uint64_t fp, const uint64_t *edata, uint64_t caller)
{
	uint64_t ret[2] = { x, fp };

	fire(data, NULL, ret, edata, caller);
}

static struct patchsite_ops probe_ops = { .func = probe_hit };

/*
 * Probes alone (no tracer) take the arch's probe trampoline where there is
 * one (x86-64: probe_fast.c records the common probe without the full
 * register save and the dispatcher; anything else goes on to the generic
 * path from there).
 */
static bool fast_any;		/* ps.lock: an entry of the table the fast path takes */

static uintptr_t probe_tramp(void)
{
	return fast_any ? (uintptr_t)ps.arch->tramp_probe : 0;
}

static const struct ps_ops_props probe_props = { .fast = probe_tramp };

static int cmp_hit(const void *a, const void *b)
{
	uint32_t x = ((const struct ps_probe_hit *)a)->id, y = ((const struct ps_probe_hit *)b)->id;

	return x < y ? -1 : x > y;
}

/*
 * Where field i of a return probe comes from at the fast return (probe_hits.h):
 * an entry value kept from an integer register (its reg), or the integer
 * $retval; -1: the C path.
 */
static int ret_source(const struct ps_fetch_arg *a, uint8_t *ereg, unsigned *nent)
{
	bool integer = a->type == PT_S || a->type == PT_U || a->type == PT_X;

	if (!integer || a->nderef || a->bw)
		return -1;	/* a float, a string, memory read at the return, a bitfield */
	if (a->base == PF_RETVAL)
		return PS_PROBE_FAST_RETVAL;
	if (a->ent < 0 || a->base != PF_REG || a->reg < 0 || a->reg >= PS_PROBE_FAST_REGS)
		return -1;	/* @SYM, an immediate, a vector register, the stack */
	ereg[a->ent] = (uint8_t)a->reg;
	*nent = *nent > (unsigned)a->ent + 1 ? *nent : (unsigned)a->ent + 1;
	return a->ent;
}

/*
 * An entry probe's record without the flags word (PSD_EXT_EVENT_PACKED,
 * patchsite-data(5)): the fields from byte 4, beside the id, each at its
 * offset less 4.  It takes a word less when the fields fit (3 s32: 24
 * bytes, not 32; the ring's bytes are most of a hit's cost) and none then
 * spans two words or leaves one without a field; else the full layout.
 * The flags word is only ever set for a cut string, which these have not.
 */
static void fast_packed(const struct ps_event *ev, struct ps_probe_fast *f)
{
	unsigned w = (ev->fixed - 4 + 7) / 8, prev = 0;

	for (unsigned i = 0; i < f->n; i++) {
		unsigned off = ev->f[i].off - 4, end = off + ev->f[i].size - 1;

		if (off / 8 != end / 8 || off / 8 > (i ? prev + 1 : 0u))
			return;
		prev = off / 8;
	}
	if (!f->n || w >= f->words)
		return;		/* nothing gained */
	for (unsigned i = 0; i < f->n; i++) {
		f->word[i] = (uint8_t)((ev->f[i].off - 4) / 8);
		f->pos[i] = (uint8_t)(8 * ((ev->f[i].off - 4) % 8));
	}
	f->head = (uint64_t)w << 10 | (uint64_t)PSD_EXT_EVENT_PACKED << 2 | PS_EV_MARK;
	f->units = (uint8_t)((w + 2) / 2);
	f->words = (uint8_t)w;
}

/*
 * Field i's source in the fast layout: an entry probe's register; a return
 * probe's (ret_source), its field 0 the caller, the frame's saved return
 * address.  -1: the C path.
 */
static int fast_source(const struct probe *p, unsigned i, uint8_t *ereg, unsigned *nent)
{
	if (!p->def.ret)
		return p->prog.a[i].reg;
	return i ? ret_source(&p->prog.a[i - 1], ereg, nent) : PS_PROBE_FAST_CALLER;
}

/* What the fast path records of p, when it can (probe_hits.h): the layout event.c gave it. */
static void fast_of(struct probe *p, struct ps_probe_fast *f)
{
	const struct ps_event *ev = p->ev;
	unsigned w = (ev->fixed + 7) / 8;	/* payload words: the id word, the fields */
	unsigned nent = 0, nf = p->prog.n + p->def.ret;

	memset(f, 0, sizeof(*f));
	f->ev = p->ev;
	f->n = PS_PROBE_FAST_NO;
	f->ret = p->def.ret;
	if (p->trace_if || (!p->prog.regs_only && !p->def.ret) || ev->nfields != nf ||
	    nf > PS_PROBE_MAX_ARGS)
		return;	/* a condition of the function filter, memory, ... */
	for (unsigned i = 0; i < nf; i++) {
		const struct ps_evfield *ef = &ev->f[i];
		int src = fast_source(p, i, f->ereg, &nent);
		unsigned size = p->def.ret && !i ? 8 : p->prog.a[i - p->def.ret].size;

		if (src < 0 || src >= (p->def.ret ? PS_PROBE_FAST_CALLER + 1 : PS_PROBE_FAST_REGS) ||
		    ef->size != size || ef->off / 8 != (ef->off + ef->size - 1) / 8 ||
		    (i && ef->off < ev->f[i - 1].off) || ef->off / 8 > (i ? f->word[i - 1] + 1u : 1u))
			return;		/* a vector register; a field across two words, back, a word skipped */
		f->reg[i] = (uint8_t)src;
		f->word[i] = (uint8_t)(ef->off / 8);
		f->pos[i] = (uint8_t)(8 * (ef->off % 8));
		f->mask[i] = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
	}
	if (nent != p->prog.nent || (nf ? f->word[nf - 1] + 1u : 1u) != w)
		return;		/* an entry value not a register (a stack argument); a word no field's */
	f->head = (uint64_t)w << 10 | (uint64_t)PSD_EXT_EVENT << 2 | PS_EV_MARK;
	f->units = (uint8_t)((w + 2) / 2);	/* as ps_ring_ext takes them */
	f->words = (uint8_t)w;
	f->nent = (uint8_t)nent;
	f->n = (uint8_t)nf;
	if (!p->def.ret)
		fast_packed(ev, f);
	if (p->def.ret) {	/* the frames' copy, the probe's as long as the probe is */
		f->own = &p->rfast;
		if (memcmp(&p->rfast, f, sizeof(*f)))
			p->rfast = *f;	/* once: the layout is the probe's, frames may read it */
	}
}

/* Sites with several probes take the C path; any fast one: the probe trampoline (probe_tramp). */
static bool fast_mark(struct ps_probe_hits *tb)
{
	bool any = false;

	for (size_t k = 0; k < tb->n; k++) {
		if ((k > 0 && tb->e[k - 1].id == tb->e[k].id) ||
		    (k + 1 < tb->n && tb->e[k + 1].id == tb->e[k].id))
			tb->e[k].fast.n = PS_PROBE_FAST_NO;	/* several probes on the site */
		any |= tb->e[k].fast.n != PS_PROBE_FAST_NO;
	}
	return any;
}

static bool enabled(const struct probe *p)
{
	return p->trace_if || atomic_load(&p->ev->probes) != NULL;
}

/* probe_hits.h */
int ps_probe_publish(struct ps_arrivals *a)
{
	bool any = false;

	struct ps_ops_state *st;
	struct ps_probe_hits *tb, *old;
	size_t n = 0, k = 0;
	uint8_t *set;
	int err = 0;

	if (!probe_ops.state)
		ps_ops_describe(&probe_ops, &probe_props);	/* before its state is made */
	st = ps_ops_state(&probe_ops);
	if (!st)
		return -ENOMEM;
	for (struct probe *p = ps_probe_defs; p; p = p->next)
		for (size_t i = 0; enabled(p) && i < p->nset; i++)
			n += p->set[i] && ps.site_index[i];
	tb = calloc(1, sizeof(*tb) + n * sizeof(tb->e[0]));
	set = calloc(ps.nsites ? ps.nsites : 1, 1);
	if (!tb || !set) {
		free(tb);
		free(set);
		return -ENOMEM;
	}
	for (struct probe *p = ps_probe_defs; p; p = p->next)
		for (size_t i = 0; enabled(p) && i < p->nset && i < ps.nsites; i++)
			if (p->set[i] && ps.site_index[i]) {
				tb->e[k].addr = ps.site_index[i]->addr;
				tb->e[k].id = ps.site_index[i]->id;
				fast_of(p, &tb->e[k].fast);
				tb->e[k++].p = p;
				set[i] = 1;
			}
	tb->n = k;
	qsort(tb->e, k, sizeof(tb->e[0]), cmp_hit);
	fast_any = fast_mark(tb);
	old = atomic_exchange(&ps_probe_hits, tb);
	ps_globs_free(&st->filter);
	st->filter.set = set;	/* no text: a probe names the functions loaded when it was set */
	any = k > 0;
	if (!any && st->registered)
		err = ps_ops_unregister(&probe_ops, a);
	else if (any && !st->registered)
		err = ps_ops_register(&probe_ops, a);
	else if (any) {
		ps_tramp_select(true);	/* as ops.c around a change of sites */
		ps_recompute_want();
		err = ps_loader_sync(NULL);
		ps_tramp_select(false);	/* the probe trampoline or not: fast_any */
	}
	ps_sync_dispatchers();		/* no thread still reads the old table */
	free(old);
	return err;
}
