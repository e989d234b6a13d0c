// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dynamic probes (probe.h): each definition written to dynamic_events is
 * an event with no site of its own (event.c ps_event_define), so that
 * events/GRP/EVENT/{enable,filter,format,id}, set_event, the recorder and
 * every reader treat it as a static one.  What fires it is one ops of
 * ours, wanted by the probed functions only: their sites reach the
 * generic trampoline, which saves the argument registers; every other
 * function keeps its NOP or the fast trampolines.  At a hit the ops finds
 * the site's probes (a table sorted by address, replaced whole and freed
 * after a grace period), runs each enabled one's fetch program and hands
 * the values to the event's probes (the recorder), as an enabled static
 * site does through ps_event_fire.
 *
 * A value whose memory cannot be read drops that record: the thread's lost
 * events (in the trace directory: info, replay), the event's lost counter
 * and the probe's faults (listed in dynamic_events) count it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "data/format.h"
#include "event.h"
#include "record/record.h"
#include "probe.h"
#include "probe_fetch.h"
#include "probe_hits.h"

struct probe {
	struct ps_probe_def def;
	struct ps_fetch_prog prog;
	struct patchsite_event *desc;	/* the event's descriptor; desc->rt is ev */
	struct ps_event *ev;
	uint8_t *set;			/* the function's sites, by global index */
	size_t nset;
	_Atomic unsigned long faults;
	_Atomic unsigned long unhooked;	/* %return: calls whose return could not be hooked */
	bool trace_if;			/* set_ftrace_filter's "FUNC if COND": no event recorded;
					   the tracer gets the calls the condition keeps */
	struct ps_probe_fast rfast;	/* %return: the fast layout its frames point at */
	struct probe *next;
};

static struct probe *probes;		/* ps.lock */
_Atomic(struct ps_probe_hits *) ps_probe_hits;
/*
 * Return probes removed: a call hooked before may still return through
 * them (record/retprobe.c keeps the pointer in its shadow frame), so they
 * are kept, disabled, as their events are (ps.lock).
 */
static struct probe *retired;

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
static void probe_ret(void *data, uint64_t x, uint64_t fp, const uint64_t *edata, uint64_t caller)
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

/*
 * The hit table and the ops' sites from the enabled probes (a disabled one
 * costs its function nothing); ps.lock held, a may be NULL.
 */
static int publish(struct ps_arrivals *a)
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
	for (struct probe *p = probes; p; p = p->next)
		for (size_t i = 0; enabled(p) && i < p->nset; i++)
			n += p->set[i] && ps.site_index[i];
	tb = calloc(1, sizeof(*tb) + n * sizeof(tb->e[0]));
	set = calloc(ps.nsites ? ps.nsites : 1, 1);
	if (!tb || !set) {
		free(tb);
		free(set);
		return -ENOMEM;
	}
	for (struct probe *p = probes; p; p = p->next)
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

/* An event's probes changed (event_probe.c, ps.lock held): the enabled probes' functions. */
static int probes_changed(void)
{
	return probes ? publish(NULL) : 0;
}

static struct probe **probes_tail(void)
{
	struct probe **pp = &probes;

	while (*pp)
		pp = &(*pp)->next;
	return pp;
}

static struct probe *find(const char *group, const char *event, struct probe ***link)
{
	for (struct probe **pp = &probes; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->def.group, group) && !strcmp((*pp)->def.event, event)) {
			if (link)
				*link = pp;
			return *pp;
		}
	return NULL;
}

static void probe_free(struct probe *p)
{
	if (p) {
		free(p->desc);
		free(p->set);
		free(p);
	}
}

/*
 * A field's kind and size in the record.  An integer (u8..u64, s8..s64,
 * x8..x64) takes its own size, as in the kernel's fprobe events: the
 * bytes a hit writes are most of what it costs (the thread's ring, then
 * the trace file), and three s32 arguments fit in 32 bytes with the
 * record's header and id where 8 bytes each took 40.  The readers
 * sign-extend a signed one by its size (format file: size, signed).
 * Floats are recorded as doubles, a char in 8 bytes, as before.
 */
static uint8_t field_kind(const struct ps_probe_arg *a, uint16_t *size)
{
	*size = 8;
	switch (a->type) {
	case PT_S: *size = a->size; return PATCHSITE_FIELD_SIGNED;
	case PT_U:
	case PT_X: *size = a->size; return PATCHSITE_FIELD_UNSIGNED;
	case PT_STRING: *size = sizeof(void *); return PATCHSITE_FIELD_STRING;
	case PT_FLOAT:
	case PT_DOUBLE: return PATCHSITE_FIELD_FLOAT;
	default: return PATCHSITE_FIELD_UNSIGNED;
	}
}

/* A return probe's first field: where the call returns to (the kernel's __probe_ret_ip). */
#define RET_IP_FIELD	"__probe_ret_ip"

/*
 * The print format, the kernel's: an entry probe's "FUNC(name=value, ...)"
 * as before; a return probe's "(caller+off/size <- FUNC) name=value ...",
 * its fields as written (an unnamed $retval is argN, as the kernel names it).
 */
static void print_format(const struct ps_probe_def *d, struct ps_buf *fmt)
{
	if (d->ret) {
		ps_buf_printf(fmt, "(%%pS <- %s)", d->func);
		for (unsigned i = 0; i < d->nargs; i++)
			ps_buf_printf(fmt, " %s=%s", d->a[i].name, ps_probe_type_fmt(&d->a[i]));
		return;
	}
	ps_buf_printf(fmt, "%s(", d->func);
	for (unsigned i = 0; i < d->nargs; i++)
		ps_buf_printf(fmt, "%s%s=%s", i ? ", " : "", d->a[i].name,
			      ps_probe_type_fmt(&d->a[i]));
	ps_buf_puts(fmt, ")");
}

/* The descriptor a static event would have: fields, "grp\0ev\0fmt\0" and each "name\0type\0". */
static struct patchsite_event *describe(const struct ps_probe_def *d)
{
	struct ps_buf text = { 0 }, fmt = { 0 };
	struct patchsite_event *e = NULL;
	struct patchsite_event_field *f;
	unsigned nf = d->nargs + d->ret;	/* a return probe's caller first */
	size_t head = sizeof(*e) + nf * sizeof(*f);

	print_format(d, &fmt);
	ps_buf_add(&text, d->group, strlen(d->group) + 1);
	ps_buf_add(&text, d->event, strlen(d->event) + 1);
	if (fmt.p)
		ps_buf_add(&text, fmt.p, strlen(fmt.p) + 1);
	if (d->ret)
		ps_buf_add(&text, RET_IP_FIELD "\0x64", sizeof(RET_IP_FIELD "\0x64"));
	for (unsigned i = 0; i < d->nargs; i++) {
		char tn[8];
		const char *t = ps_probe_type_name(&d->a[i], tn, sizeof(tn));

		ps_buf_add(&text, d->a[i].name, strlen(d->a[i].name) + 1);
		ps_buf_add(&text, t, strlen(t) + 1);
	}
	if (fmt.p && text.p)
		e = calloc(1, (head + text.len + 7) & ~(size_t)7);
	if (e) {
		e->magic = PATCHSITE_EVENT_MAGIC;
		e->version = PATCHSITE_EVENT_VERSION;
		e->nfields = (uint16_t)nf;
		e->text_off = (uint32_t)head;
		e->size = (uint32_t)(head + text.len);
		f = (struct patchsite_event_field *)(e + 1);
		if (d->ret) {
			f->kind = PATCHSITE_FIELD_POINTER;
			f->size = sizeof(void *);
			f++;
		}
		for (unsigned i = 0; i < d->nargs; i++)
			f[i].kind = field_kind(&d->a[i], &f[i].size);
		memcpy((char *)e + head, text.p, text.len);
	}
	ps_buf_free(&text);
	ps_buf_free(&fmt);
	return e;
}

/* The function's entry sites into p->set: 0, or -ENOENT said. */
static int resolve_func(struct probe *p)
{
	struct ps_globs g = { .set = NULL };
	size_t n = 0;
	int err;

	ps_all_syms();
	err = ps_filter_apply(&g, p->def.func, 1, "dynamic_events");
	free(g.text);
	for (size_t i = 0; !err && g.set && i < ps.nsites; i++) {
		if (g.set[i] && ps.site_index[i] && ps.site_index[i]->kind == SITE_EXIT)
			g.set[i] = 0;
		if (g.set[i] && ps.site_index[i] && p->def.nargs &&
		    ps_site_args_unknown(ps.site_index[i])) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s: built without any flag, its "
			       "site is in its entry block, after instructions that may change the "
			       "registers and the stack a fetch argument reads (a no-flag site of "
			       "form b): no fetch arguments there", p->def.func);
			err = -ENOTSUP;
			break;
		}
		if (g.set[i] && ps.site_index[i] && p->def.ret && ps.site_index[i]->state ==
		    SITE_INTERPOSED) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s%%return: a "
			       "-finstrument-functions function: its return value is not in a "
			       "register at __cyg_profile_func_exit (build with "
			       "-fpatchable-function-entry)", p->def.func);
			err = -ENOTSUP;
			break;
		}
		n += g.set[i] && ps.site_index[i];
	}
	if (!err && !n) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s: no function of that name has a "
		       "site", p->def.func);
		err = -ENOENT;
	}
	if (err) {
		free(g.set);
		return err;
	}
	p->set = g.set;
	p->nset = ps.nsites;
	return 0;
}

/*
 * The definition's "if EXPR" as the event's filter (what events/G/E/filter
 * would set); a probe defined anew without one drops the old one.  0, or
 * -EINVAL said.
 */
static int set_filter(struct ps_event *ev, const char *expr)
{
	struct ps_evfilter *flt = NULL, *old;
	char why[256], *text = NULL;

	if (expr[0]) {
		if (ps_evfilter_parse(expr, ev->f, ev->nfields, &flt, why, sizeof(why))) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s:%s: if %s: %s",
			       ev->info.subsys, ev->info.name, expr, why);
			return -EINVAL;
		}
		text = strdup(expr);
		if (!text) {
			ps_evfilter_free(flt);
			return -ENOMEM;
		}
	}
	old = atomic_exchange(&ev->filter, flt);
	free(ev->filter_text);
	ev->filter_text = text;
	ps_sync_dispatchers();		/* no recorder still reads the old one */
	ps_evfilter_free(old);
	return 0;
}

/*
 * A parsed definition added; ps.lock held.  enable: recorded at once
 * (PATCHSITE_PROBES).  trace: a conditional filter's (never recorded).
 */
static int probe_add(const struct ps_probe_def *d, bool enable, bool trace, struct ps_arrivals *a)
{
	struct probe *p;
	char why[300];
	bool on = enable;
	int err;

	if (find(d->group, d->event, NULL)) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s/%s is defined already (-:%s/%s "
		       "removes it)", d->group, d->event, d->group, d->event);
		return -EEXIST;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->def = *d;
	p->trace_if = trace;
	d = &p->def;
	err = ps_fetch_compile(d, &p->prog, why, sizeof(why));
	if (err)
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s/%s: %s", d->group, d->event, why);
	if (!err)
		err = resolve_func(p);
	if (!err && !(p->desc = describe(d)))
		err = -ENOMEM;
	if (!err && (err = ps_event_define(p->desc, &p->ev)) == -EEXIST)
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: event %s:%s exists already with "
		       "other fields", d->group, d->event);
	if (!err && (err = set_filter(p->ev, d->filter)))
		p->ev->gone = true;	/* defined, but no probe: as one removed */
	if (err) {
		probe_free(p);
		return err;
	}
	p->desc->rt = p->ev;
	ps_event_probes_changed = probes_changed;
	ps_retprobe_fire = probe_ret;
	*probes_tail() = p;		/* listed in the order defined */
	err = publish(a);
	if (!err && !trace && (ps_event_rules_say(p->ev, &on) || enable) && on && !p->ev->record)
		err = ps_event_probe_add(p->ev, ps_event_record, p->ev, PATCHSITE_EVENT_PRIO_DEFAULT);
	return err;
}

static int probe_remove(const char *group, const char *event, struct ps_arrivals *a)
{
	struct probe **link, *p = find(group, event, &link);
	int err;

	if (!p) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: -:%s/%s: no such probe", group, event);
		return -ENOENT;
	}
	*link = p->next;
	err = publish(a);		/* after it, no thread fires p */
	if (p->ev->record)
		ps_event_probe_del(p->ev, ps_event_record, p->ev);
	p->ev->gone = true;		/* its format stays: old records name it */
	p->desc->rt = NULL;
	if (p->def.ret) {
		p->next = retired;	/* a hooked return may still name it */
		retired = p;
	} else {
		probe_free(p);
	}
	return err;
}

/* One line; ps.lock held. */
static int probe_line(const char *line, bool enable, struct ps_arrivals *a)
{
	struct ps_probe_def d;
	char why[300];

	if (ps_probe_parse(line, &d, why, sizeof(why))) {
		ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: %s", why);
		return -EINVAL;
	}
	return d.remove ? probe_remove(d.group, d.event, a) : probe_add(&d, enable, false, a);
}

int ps_probes_write(const char *text, bool append, bool enable)
{
	struct ps_arrivals a;
	char line[4096];
	int err = 0;

	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	/* Not the filter's conditions (set_ftrace_filter's own): their function would go untraced. */
	for (struct probe *p = probes, *next; !append && !err && p; p = next) {
		next = p->next;
		if (!p->trace_if)
			err = probe_remove(p->def.group, p->def.event, &a);
	}
	for (const char *s = text; *s && !err;) {
		size_t n = strcspn(s, "\n;");

		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		if (n >= sizeof(line)) {
			ps_log(PATCHSITE_LOG_ERROR, "dynamic_events: a definition longer than %zu "
			       "characters", sizeof(line) - 1);
			err = -EINVAL;
			break;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		if (n && line[0] != '#')
			err = probe_line(line, enable, &a);
		s += n + (s[n] != '\0');
	}
	ps_events_store();
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return err;
}

int ps_probes_trace_if(const struct ps_probe_def *defs, unsigned n, bool reset)
{
	struct ps_arrivals a;
	int err = 0;

	ps_loader_prepare(&a);
	pthread_mutex_lock(&ps.lock);
	for (struct probe *p = probes, *next; reset && !err && p; p = next) {
		next = p->next;
		if (p->trace_if)
			err = probe_remove(p->def.group, p->def.event, &a);
	}
	for (unsigned i = 0; i < n && !err; i++)
		err = probe_add(&defs[i], false, true, &a);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	return err;
}

void ps_probes_trace_if_list(struct ps_buf *out)
{
	pthread_mutex_lock(&ps.lock);
	for (struct probe *p = probes; p; p = p->next) {
		if (!p->trace_if)
			continue;
		ps_buf_printf(out, "%s", p->def.func);
		for (unsigned i = 0; i < p->def.nargs; i++) {
			char what[64], tn[16];

			snprintf(what, sizeof(what), "%s", ps_probe_type_text(&p->def.a[i], tn,
									sizeof(tn)));
			ps_buf_printf(out, " %s:%s", p->def.a[i].name, what);
		}
		ps_buf_printf(out, " if %s\n", p->def.filter);
	}
	pthread_mutex_unlock(&ps.lock);
}

void ps_probes_list(struct ps_buf *out)
{
	char text[4096];

	pthread_mutex_lock(&ps.lock);
	for (struct probe *p = probes; p; p = p->next) {
		unsigned long f = atomic_load(&p->faults);

		ps_probe_text(&p->def, text, sizeof(text));
		ps_buf_printf(out, "%s", text);
		if (f)
			ps_buf_printf(out, "\t# %lu hits lost: memory not readable", f);
		f = atomic_load(&p->unhooked);
		if (f)
			ps_buf_printf(out, "\t# %lu returns not hooked: a stack not the thread's own "
				      "or the shadow stack full", f);
		ps_buf_puts(out, "\n");
	}
	pthread_mutex_unlock(&ps.lock);
}
