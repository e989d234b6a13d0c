// SPDX-License-Identifier: GPL-2.0-only
/*
 * Filters on a recording (replay, report, graph and dump's -F -N -H -C -T
 * -D -t -Z -L -r --max-stack --no-libcall, uftrace's spellings): one stage over each
 * thread's events that says which to show.  Every verb reads through it
 * (render/walk.c), so each option means the same in all of them.
 *
 * A call is shown or not at its entry, and its exit goes with it, so what
 * is shown stays nested.  Depth is the number of shown calls open: a call
 * not shown whose children may be (-F outside FUNC, -H, -Z, -L, -r, a library
 * call under --no-libcall, tracing off) moves them up, as uftrace re-bases below -F and re-parents below -H.
 * A call that hides its whole subtree (-N, -D, -t, -C off the path) hides
 * every event inside it.  -t and -C need what a call's subtree holds before
 * its entry is shown: one pass over the thread first (mark_thread) marks
 * each entry, by its number in the thread.
 *
 * The options become a struct psr_filter in read_filter_parse.c; what its
 * patterns say of a function, and whether the recording has what they
 * name, is read_filter_match.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "read_filter.h"

struct fframe {
	uint32_t id;
	bool shown;		/* its entry was shown: its exit is */
	bool hide_sub;		/* nothing inside it is shown */
	bool inside;		/* inside an -F function (or no -F given) */
	bool caller;		/* it is a -C function: its children are off the path */
	bool deep;		/* past -D below an -F call: not shown, a nested -F call is */
	bool quiet;		/* not shown only because tracing was off (keep_depths) */
	unsigned sdepth;	/* shown calls open, itself included */
	unsigned limit;		/* calls shown inside up to this shown depth */
};

struct site_flags {
	const char *name;	/* the name the flags were found for (NULL: not yet) */
	unsigned flags, depth;
};

struct psr_fthread {
	const struct psr_filter *f;
	const struct psr_proc *p;
	struct fframe *stack;
	size_t depth, cap;
	int tid;
	bool on;		/* tracing on (-T trace_on/trace_off) */
	bool depths;		/* psr_filter_keep_depths: quiet calls kept, nest-only */
	bool nest_only;		/* the event psr_filter_keep last kept is nest-only */
	bool failed;		/* out of memory: nothing more shown (said once) */
	uint64_t lo_ns, hi_ns;	/* -r in CLOCK_MONOTONIC ns */
	uint8_t *marks;		/* per entry: MARK_* (mark_thread) */
	uint64_t nmarks, entry;	/* entries marked; entries seen */
	struct site_flags **cache;	/* [object][site]: an object's array made when first used */
	size_t ncache;		/* objects */
};

enum { MARK_SHORT = 1, MARK_OFFPATH = 2 };

/* Flags of site id's function at tsc (what the patterns, -Z and -L say of it). */
static struct site_flags site_flags(struct psr_fthread *ft, uint32_t id, uint64_t tsc)
{
	const struct psr_filter *f = ft->f;
	char buf[32], line[4200];
	const char *name = psr_site_name(ft->p, id, tsc, buf, sizeof(buf));
	struct site_flags sf = { .name = name };
	const struct psr_module *m;
	uint64_t off, size;

	struct site_flags *c = NULL;
	m = psr_site_module(ft->p, id, tsc);
	if (m && (size_t)(m - ft->p->mods) < ft->ncache && (id & PSD_ID_MASK) < m->nsites) {
		struct site_flags **mc = &ft->cache[m - ft->p->mods];

		if (!*mc)
			*mc = calloc(m->nsites, sizeof(**mc));
		c = *mc ? &(*mc)[id & PSD_ID_MASK] : NULL;
		if (c && c->name == name)
			return *c;
	}
	for (size_t i = 0; i < f->npat; i++)
		if (psr_pattern_matches(&f->pat[i], name, m)) {
			sf.flags |= f->pat[i].flags;
			if (f->pat[i].flags & FL_DEPTH)
				sf.depth = f->pat[i].depth;
		}
	if (f->size && (!psr_addr_sym(ft->p, psr_site_addr(ft->p, id, tsc), tsc, &off, &size) ||
			size < f->size))
		sf.flags |= FL_SMALL;
	if (f->loc && (!f->srcline || !f->srcline(ft->p, id, tsc, line, sizeof(line)) ||
		       !psr_loc_matches(f->loc, line)))
		sf.flags |= FL_NOLOC;
	if (f->no_libcall && psr_libcall_module(m))
		sf.flags |= FL_LIBCALL;
	if (c && name != buf)	/* "site#N" is in buf, which goes */
		*c = sf;
	return sf;
}

static int push(struct psr_fthread *ft, const struct fframe *fr)
{
	if (ft->depth == ft->cap) {
		size_t n = ft->cap * 2 + 64;
		struct fframe *g = realloc(ft->stack, n * sizeof(*g));

		if (!g)
			return -ENOMEM;
		ft->stack = g;
		ft->cap = n;
	}
	ft->stack[ft->depth++] = *fr;
	return 0;
}

/* The open call an exit of id closes: its index + 1, or 0 when none is open. */
static size_t match(const struct psr_fthread *ft, uint32_t id)
{
	size_t k = ft->depth;

	while (k > 0 && ft->stack[k - 1].id != id)
		k--;
	return k;
}

/*
 * The pass before the walk, for -t and -C: each entry of the thread marked
 * MARK_SHORT (its call returned sooner than -t) and MARK_OFFPATH (no -C
 * function is it or inside it).  A call without its return is never short.
 */
struct mark {
	uint64_t n, tsc;
	uint32_t id;
	bool path;
};

static void mark_close(struct psr_fthread *ft, struct mark *m, struct mark *parent, uint64_t end,
		       bool returned)
{
	if (m->n < ft->nmarks) {
		if (returned && ft->f->time_ns && psr_ns(ft->p, end) - psr_ns(ft->p, m->tsc) <
		    ft->f->time_ns && psr_ns(ft->p, end) >= psr_ns(ft->p, m->tsc))
			ft->marks[m->n] |= MARK_SHORT;
		if (ft->f->used & FL_CALLER && !m->path)
			ft->marks[m->n] |= MARK_OFFPATH;
	}
	if (parent && m->path)
		parent->path = true;
}

static int mark_thread(struct psr_fthread *ft, const struct psr_thread *t)
{
	struct psr_cursor c;
	struct psr_event ev;
	struct mark *st = NULL;
	size_t depth = 0, cap = 0;
	uint64_t n = 0;

	ft->nmarks = t->entries;
	ft->marks = calloc(ft->nmarks ? ft->nmarks : 1, 1);
	if (!ft->marks)
		return -ENOMEM;
	psr_cursor_init(&c, ft->p, t);
	while (psr_next(&c, &ev)) {
		if (ev.type == PSR_ENTRY) {
			if (depth == cap) {
				struct mark *g = realloc(st, (cap = cap * 2 + 64) * sizeof(*g));

				if (!g) {
					free(st);
					return -ENOMEM;
				}
				st = g;
			}
			st[depth++] = (struct mark){ n++, ev.tsc, ev.id,
				(site_flags(ft, ev.id, ev.tsc).flags & FL_CALLER) != 0 };
		} else if (ev.type == PSR_EXIT) {
			size_t k = depth;

			while (k > 0 && st[k - 1].id != ev.id)
				k--;
			while (k && depth >= k) {
				depth--;
				mark_close(ft, &st[depth], depth ? &st[depth - 1] : NULL, ev.tsc,
					   depth == k - 1);
			}
		}
	}
	while (depth--)
		mark_close(ft, &st[depth], depth ? &st[depth - 1] : NULL, 0, false);
	free(st);
	return 0;
}

/* The earliest event of the process: where elapsed times of -r count from. */
static uint64_t first_ns(const struct psr_proc *p)
{
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < p->nthreads; i++) {
		struct psr_cursor c;
		struct psr_event ev;

		psr_cursor_init(&c, p, &p->threads[i]);
		if (psr_next(&c, &ev) && psr_ns(p, ev.tsc) < min)
			min = psr_ns(p, ev.tsc);
	}
	return min == UINT64_MAX ? 0 : min;
}

int psr_filter_thread(const struct psr_filter *f, const struct psr_proc *p,
		      const struct psr_thread *t, struct psr_fthread **out)
{
	struct psr_fthread *ft;

	*out = NULL;
	if (!psr_filter_any(f))
		return 0;
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return -ENOMEM;
	ft->f = f;
	ft->p = p;
	ft->tid = t->tid;
	ft->ncache = p->nmods;
	ft->cache = calloc(p->nmods ? p->nmods : 1, sizeof(*ft->cache));
	if (!ft->cache) {
		free(ft);
		return -ENOMEM;
	}
	ft->on = !f->start_off;	/* as uftrace's replay: trace_off turns it off, trace_on back on */
	if (f->range) {
		uint64_t base0 = f->lo_rel || f->hi_rel ? first_ns(p) : 0;

		ft->lo_ns = f->lo + (f->lo_rel ? base0 : 0);
		ft->hi_ns = f->hi == UINT64_MAX ? UINT64_MAX : f->hi + (f->hi_rel ? base0 : 0);
	}
	if ((f->time_ns || (f->used & FL_CALLER)) && mark_thread(ft, t)) {
		psr_filter_thread_free(ft);
		return -ENOMEM;
	}
	*out = ft;
	return 0;
}

void psr_filter_thread_free(struct psr_fthread *ft)
{
	if (!ft)
		return;
	free(ft->stack);
	free(ft->marks);
	for (size_t i = 0; i < ft->ncache; i++)
		free(ft->cache[i]);
	free(ft->cache);
	free(ft);
}

static bool in_range(const struct psr_fthread *ft, uint64_t tsc)
{
	uint64_t ns;

	if (!ft->f->range)
		return true;
	ns = psr_ns(ft->p, tsc);
	return ns >= ft->lo_ns && ns <= ft->hi_ns;
}

/* The frame an event happens in: the innermost open call, or the thread's top. */
static struct fframe top(const struct psr_fthread *ft)
{
	if (ft->depth)
		return ft->stack[ft->depth - 1];
	return (struct fframe){ .inside = !(ft->f->used & FL_FILTER),
				.limit = ft->f->depth ? ft->f->depth : UINT_MAX };
}

static bool entry(struct psr_fthread *ft, const struct psr_event *ev)
{
	const struct psr_filter *f = ft->f;
	struct fframe up = top(ft), fr = { .id = ev->id };
	struct site_flags sf = site_flags(ft, ev->id, ev->tsc);
	uint8_t mark = ft->entry < ft->nmarks ? ft->marks[ft->entry] : 0;

	ft->entry++;
	if (sf.flags & FL_ON)
		ft->on = true;
	if (sf.flags & FL_OFF)
		ft->on = false;
	fr.inside = up.inside || (sf.flags & FL_FILTER);
	fr.limit = up.limit;
	/*
	 * With -F, -D counts from the innermost -F call, as uftrace's: each -F call starts
	 * the count again, so an -F function below the depth is shown (the calls between
	 * are not).  Without -F, what lies past the depth goes with its call.
	 */
	if ((sf.flags & FL_FILTER) && f->depth)
		fr.limit = up.sdepth + f->depth;
	fr.deep = (f->used & FL_FILTER) && up.sdepth >= fr.limit;
	fr.hide_sub = up.hide_sub || up.caller || (sf.flags & FL_NOTRACE) || (mark & MARK_SHORT) ||
		      (mark & MARK_OFFPATH) || (!fr.deep && up.sdepth >= fr.limit) ||
		      (f->max_stack && ft->depth >= f->max_stack);
	fr.caller = (sf.flags & FL_CALLER) != 0;
	fr.shown = !fr.hide_sub && !fr.deep && fr.inside && in_range(ft, ev->tsc) &&
		   !(sf.flags & (FL_HIDE | FL_SMALL | FL_NOLOC | FL_LIBCALL));
	fr.quiet = ft->depths && fr.shown && !ft->on;
	fr.shown = fr.shown && ft->on;
	ft->nest_only = fr.quiet;
	fr.sdepth = up.sdepth + fr.shown;
	/* -D counts from the first call -F shows (uftrace re-bases its depth there too). */
	if (sf.flags & FL_DEPTH && fr.sdepth - fr.shown + sf.depth < fr.limit)
		fr.limit = fr.sdepth - fr.shown + sf.depth;
	if (push(ft, &fr)) {
		/* Said, and nothing more of the thread shown: never a tree filtered wrong. */
		if (ft->p->session && ft->p->session->err)
			fprintf(ft->p->session->err, "patchsite: %s: thread %d: out of memory for "
				"the filters: its events from here on are not shown\n", ft->p->dir,
				ft->tid);
		ft->failed = true;
		return false;
	}
	return fr.shown || fr.quiet;
}

void psr_filter_keep_depths(struct psr_fthread *ft)
{
	if (ft)
		ft->depths = true;
}

bool psr_filter_nest_only(const struct psr_fthread *ft)
{
	return ft && ft->nest_only;
}

bool psr_filter_no_args(const struct psr_fthread *ft)
{
	return ft && ft->f->no_args;
}

/* --no-args: a probe of record -A, -a or -R its call did not take (psr_uprobe). */
static bool args_probe(const struct psr_fthread *ft, const struct psr_event *ev)
{
	return ev->type == PSR_EXT && ev->ext_kind == PSD_EXT_EVENT &&
	       psr_uprobe(ft->p, ev, NULL) != PSR_UPROBE_NONE;
}

bool psr_filter_keep(struct psr_fthread *ft, const struct psr_event *ev)
{
	struct fframe up;
	size_t k;

	if (!ft)
		return true;
	if (ft->failed)
		return false;
	ft->nest_only = false;
	if (ft->f->no_args && args_probe(ft, ev))
		return false;
	if (ev->type == PSR_ENTRY)
		return entry(ft, ev);
	if (ev->type == PSR_EXIT && (k = match(ft, ev->id))) {
		bool shown = ft->stack[k - 1].shown;

		/* keep_depths: uftrace's replay draws a return when tracing is on at it. */
		if (ft->depths && (shown || ft->stack[k - 1].quiet)) {
			ft->nest_only = !ft->on;
			shown = true;
		}
		ft->depth = k - 1;
		return shown && in_range(ft, ev->tsc);	/* -r: after END, the call is left open */
	}
	/* A function event, a record, a switch, a return without its call: as where it is. */
	up = top(ft);
	return !up.hide_sub && !up.deep && up.inside && ft->on && in_range(ft, ev->tsc) &&
	       !(ev->type == PSR_FUNC &&
		 (site_flags(ft, ev->id, ev->tsc).flags & (FL_NOTRACE | FL_HIDE | FL_SMALL | FL_NOLOC |
							    FL_LIBCALL)));
}

