// SPDX-License-Identifier: GPL-2.0-only
/*
 * The walk every renderer shares: a thread's events one at a time with
 * what follows each (arguments, return value), threads merged by time,
 * the calls still open in each, and the small texts every format prints
 * (values, arguments, markers, symbols, losses).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../data/format.h"
#include "walk.h"

/*
 * The arguments or return value recorded right after ev (same site), or
 * its mark as a call open at a fork, taken into at, with uprobes -R's probe
 * after an exit; anything else is left for the next call.
 */
static void attach(struct psr_cursor *c, const struct psr_event *ev, struct attach *at,
		   bool uprobes)
{
	struct psr_cursor ahead = *c;
	struct psr_event x;
	char buf[32];

	*at = (struct attach){ 0 };
	while (psr_next(&ahead, &x) && x.type == PSR_EXT && x.nwords >= 1 && !x.truncated &&
	       x.payload[0] == ev->id) {
		if (x.ext_kind == PSD_EXT_ARGS && ev->type != PSR_EXIT && !at->args) {
			at->args = x.payload + 1;
			at->nargs = x.nwords - 1;
		} else if (x.ext_kind == PSD_EXT_RETVAL && ev->type == PSR_EXIT && x.nwords == 2 &&
			   !at->has_ret) {
			at->has_ret = true;
			at->ret = x.payload[1];
		} else if (x.ext_kind == PSD_EXT_INHERITED && ev->type == PSR_ENTRY && x.nwords == 1) {
			at->inherited = true;
		} else {
			break;
		}
		*c = ahead;
	}
	ahead = *c;
	if (uprobes && ev->type == PSR_EXIT && psr_next(&ahead, &x) &&
	    psr_uprobe(c->p, &x, psr_site_name(c->p, ev->id, ev->tsc, buf, sizeof(buf))) ==
	    PSR_UPROBE_RET) {	/* -R's, right after the exit */
		at->ret_probe = x;
		at->has_ret_probe = true;
		*c = ahead;
	}
}

/*
 * ev, a probe of record -A or -a, taken into the entry (or function tracer
 * hit) right after it when that is its function's: true, with *ev that event.
 */
static bool args_probe_call(struct psr_cursor *c, struct psr_event *ev, struct attach *at)
{
	struct psr_cursor ahead = *c;
	struct psr_event probe = *ev, x;
	char buf[32];

	if (psr_uprobe(c->p, ev, NULL) != PSR_UPROBE_ARGS || !psr_next(&ahead, &x) ||
	    (x.type != PSR_ENTRY && x.type != PSR_FUNC) ||
	    psr_uprobe(c->p, ev, psr_site_name(c->p, x.id, x.tsc, buf, sizeof(buf))) !=
	    PSR_UPROBE_ARGS)
		return false;
	*c = ahead;
	*ev = x;
	attach(c, ev, at, true);
	at->probe = probe;
	at->has_probe = true;
	return true;
}

/* A stack trace record (PSD_EXT_STACK: the site id, then return addresses), whole. */
bool walk_is_stack(const struct psr_event *ev)
{
	return ev->type == PSR_EXT && ev->ext_kind == PSD_EXT_STACK && ev->nwords >= 1 &&
	       !ev->truncated;
}

bool walk_is_read(const struct psr_event *ev)
{
	return psr_read_valid(ev);
}

const char *walk_read_text(struct stream *m, const struct psr_event *e, char *b, size_t n)
{
	unsigned kind = (unsigned)e->payload[1] & 0xff, nv = psr_read_nvals(kind);
	uint32_t id = (uint32_t)e->payload[0];
	struct read_open o = { .id = id, .kind = kind };

	if (!(e->payload[1] & PSD_READ_EXIT)) {
		if (m->nreads == m->capreads) {
			size_t cap = m->capreads ? 2 * m->capreads : 16;
			struct read_open *r = realloc(m->reads, cap * sizeof(*r));

			if (!r) {
				psr_read_text(kind, e->payload + 2, NULL, b, n);
				return b;
			}
			m->reads = r, m->capreads = cap;
		}
		memcpy(o.v, e->payload + 2, nv * 8);
		m->reads[m->nreads++] = o;
		psr_read_text(kind, e->payload + 2, NULL, b, n);
		return b;
	}
	for (size_t i = m->nreads; i-- > 0;)
		if (m->reads[i].id == id && m->reads[i].kind == kind) {
			o = m->reads[i];
			memmove(&m->reads[i], &m->reads[i + 1], (m->nreads - i - 1) * sizeof(o));
			m->nreads--;
			psr_read_text(kind, e->payload + 2, o.v, b, n);
			return b;
		}
	/* Its entry is not in the record (overwritten, filtered): the values alone. */
	psr_read_text(kind, e->payload + 2, NULL, b, n);
	return b;
}

bool walk_is_marker(const struct psr_event *e)
{
	return e->type == PSR_EXT && e->ext_kind == PSD_EXT_MARKER;
}

/*
 * The next event these renderers show, with what follows it: stack traces,
 * read= values and markers are shown, static trace events by replay and the Chrome JSON
 * (ctx->with_events), other extended records skipped (arguments and return
 * values come with their event).
 */
static bool shown(const struct render_ctx *ctx, const struct psr_event *ev)
{
	if (ev->type == PSR_SCHED)
		return ctx->with_sched;
	return ev->type != PSR_EXT || walk_is_stack(ev) || walk_is_marker(ev) || walk_is_read(ev) ||
	       (ctx->with_events && ev->ext_kind == PSD_EXT_EVENT);
}

static int next_shown(const struct render_ctx *ctx, struct psr_cursor *c, struct psr_event *ev,
		      struct attach *at)
{
	int more;

	while ((more = psr_next(c, ev)) &&
	       (!shown(ctx, ev) ||
		(ctx->window && (ev->tsc < ctx->win_lo || ev->tsc > ctx->win_hi))))
		;
	if (more && ctx->uprobes && ev->type == PSR_EXT && args_probe_call(c, ev, at))
		return more;
	if (more && (ev->type == PSR_EXT || ev->type == PSR_SCHED)) {
		*at = (struct attach){ 0 };
		return more;
	}
	if (more)
		attach(c, ev, at, ctx->uprobes);
	return more;
}

/* The next event shown, and kept by the filters (its arguments skipped with it). */
static int next_event(struct stream *s, struct psr_cursor *c, struct psr_event *ev,
		      struct attach *at)
{
	int more;

	while ((more = next_shown(s->ctx, c, ev, at)) && !psr_filter_keep(s->filter, ev))
		;
	if (more)
		at->nest_only = psr_filter_nest_only(s->filter);
	if (more && psr_filter_no_args(s->filter)) {	/* --no-args */
		at->args = NULL, at->nargs = 0, at->has_ret = false;
		at->has_probe = at->has_ret_probe = false;
	}
	return more;
}

bool walk_advance(struct stream *s)
{
	if (s->has_next) {
		s->ev = s->next;
		s->ev_at = s->next_at;
		s->at_ev = s->at_next;
		s->has_next = false;
		return s->has_ev = true;
	}
	s->at_ev = s->cur;
	return s->has_ev = next_event(s, &s->cur, &s->ev, &s->ev_at);
}

const struct psr_event *walk_peek(struct stream *s)
{
	if (!s->has_next) {
		s->at_next = s->cur;
		s->has_next = next_event(s, &s->cur, &s->next, &s->next_at);
	}
	return s->has_next ? &s->next : NULL;
}

/* A register as uftrace's default form shows it (psr_uprobe_auto_text). */
int walk_value_text(char *b, size_t n, uint64_t v)
{
	return psr_uprobe_auto_text(b, n, v);
}

/* "(1, 2)" for an entry's arguments, "()" without; then tail. */
const char *walk_args_text(const struct psr_proc *p, char *b, size_t n, const struct attach *at,
			   const char *tail)
{
	size_t len = 0;

	b[0] = 0;
	if (at->has_probe && n > 2) {
		b[len++] = '(';
		len += psr_uprobe_values(p, &at->probe, b + len, n - len - 1);
		len += (size_t)snprintf(b + len, n - len, ")");
	} else if (at->args) {
		len += (size_t)snprintf(b, n, "(");
		for (unsigned i = 0; i < at->nargs && len < n; i++) {
			if (i)
				len += (size_t)snprintf(b + len, n - len, ", ");
			if (len < n)
				len += (size_t)walk_value_text(b + len, n - len, at->args[i]);
		}
		if (len < n)
			len += (size_t)snprintf(b + len, n - len, ")");
	} else {
		len += (size_t)snprintf(b, n, "()");
	}
	if (len < n)
		snprintf(b + len, n - len, "%s", tail);
	return b;
}

/* " = 3" for a return value, "" without; then tail. */
const char *walk_ret_text(const struct psr_proc *p, char *b, size_t n, const struct attach *at,
			  const char *tail)
{
	int len = 0;

	b[0] = 0;
	if (at->has_ret_probe && n > 4) {
		len = snprintf(b, n, " = ");
		len += (int)psr_uprobe_values(p, &at->ret_probe, b + len, n - (size_t)len);
	} else if (at->has_ret) {
		len = snprintf(b, n, " = ");
		len += walk_value_text(b + len, n - (size_t)len, at->ret);
	}
	snprintf(b + len, n - (size_t)len, "%s", tail);
	return b;
}

/*
 * A marker's text (patchsite-data(5): word 0 holds the stored and the
 * written length, the text follows), with what was cut said after it.
 */
const char *walk_marker_text(const struct psr_event *e, char *buf, size_t len)
{
	size_t stored = e->nwords ? (size_t)(uint32_t)e->payload[0] : 0;
	size_t written = e->nwords ? (size_t)(e->payload[0] >> 32) : 0;
	size_t room = e->nwords ? (size_t)(e->nwords - 1) * 8 : 0;

	if (stored > room)
		stored = room;
	if (stored > len - 64)
		stored = len - 64;
	memcpy(buf, e->payload + 1, stored);
	buf[stored] = 0;
	if (written > stored || e->truncated)
		snprintf(buf + strlen(buf), 64, " [cut: %zu of %zu bytes]", stored,
			 written > stored ? written : stored);
	return buf;
}

int walk_push_at(struct stream *s, uint32_t id, uint64_t tsc, size_t path_len,
		 const struct attach *at)
{
	if (s->depth == s->cap) {
		struct frame *g = realloc(s->stack, (s->cap = s->cap * 2 + 64) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		s->stack = g;
	}
	s->stack[s->depth++] = (struct frame){ id, tsc, at ? *at : (struct attach){ 0 }, 0,
					       path_len };
	return 0;
}

int walk_push(struct stream *s, uint32_t id, uint64_t tsc, size_t path_len)
{
	return walk_push_at(s, id, tsc, path_len, NULL);
}

/* Depth of the open call an exit of id closes + 1, or 0 when none is open. */
size_t walk_match(const struct stream *s, uint32_t id)
{
	size_t k = s->depth;

	while (k > 0 && s->stack[k - 1].id != id)
		k--;
	return k;
}

uint64_t walk_dur(const struct psr_proc *p, uint64_t a, uint64_t b)
{
	uint64_t x = psr_ns(p, a), y = psr_ns(p, b);

	return y > x ? y - x : 0;
}

static int stream_init(struct stream *s, struct render_ctx *ctx, const struct psr_proc *p,
		       const struct psr_thread *t, const struct psr_filter *filter)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	s->p = p;
	s->t = t;
	if (psr_filter_thread(filter, p, t, &s->filter))
		return -ENOMEM;
	if (ctx->depths)
		psr_filter_keep_depths(s->filter);
	psr_cursor_init(&s->cur, p, t);
	if (ctx->with_sched)
		psr_cursor_sched(&s->cur);
	snprintf(s->task, sizeof(s->task), "%s-%d", t->comm, t->tid);
	walk_advance(s);
	return 0;
}

bool walk_thread_wanted(const struct psr_thread *t, const struct render_opts *o)
{
	return !o->tid || t->tid == o->tid;
}

/* The streams of a process's wanted threads; NULL with *n 0 when none. */
struct stream *walk_streams(struct render_ctx *ctx, const struct psr_proc *p,
			    const struct render_opts *o, size_t *n)
{
	struct stream *s = calloc(p->nthreads + 1, sizeof(*s));

	*n = 0;
	if (!s)
		return NULL;
	for (size_t i = 0; i < p->nthreads; i++)
		if (walk_thread_wanted(&p->threads[i], o) &&
		    stream_init(&s[(*n)++], ctx, p, &p->threads[i], o->filter)) {
			walk_streams_free(s, *n);
			*n = 0;
			return NULL;
		}
	return s;
}

void walk_streams_free(struct stream *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].stack);
		psr_filter_thread_free(s[i].filter);
		free(s[i].reads);
	}
	free(s);
}

struct stream *walk_earliest(struct stream *s, size_t n)
{
	struct stream *min = NULL;

	for (size_t i = 0; i < n; i++)
		if (s[i].has_ev && !s[i].blocked && (!min || s[i].ev.tsc < min->ev.tsc))
			min = &s[i];
	return min;
}

uint64_t walk_call_ns(const struct stream *m, uint64_t a, uint64_t b)
{
	uint64_t d = walk_dur(m->p, a, b), off;

	if (m->ctx->opts & PSR_OPT_SLEEP_TIME)
		return d;
	off = psr_offcpu_ns(m->p, m->t, a, b);
	return d > off ? d - off : 0;
}

const char *walk_switch_text(const struct psr_event *e)
{
	return e->id == PSR_SW_OUT_PREEMPT ? "sched-out (preempted)" :
	       e->id == PSR_SW_OUT ? "sched-out" : "sched-in";
}

/* The options a process is shown with: its recorded ones, then --options. */
void walk_use_options(struct render_ctx *ctx, const struct psr_proc *p, unsigned set,
		      unsigned clear)
{
	ctx->opts = psr_options_apply(p->options, set, clear);
}

/* NAME, or with sym-offset NAME+0xOFF/0xSIZE (ftrace's form) when the function is known. */
void walk_put_sym(FILE *f, const struct render_ctx *ctx, const struct psr_proc *p,
		  const char *name, uint64_t addr, uint64_t tsc)
{
	uint64_t off, size;

	if ((ctx->opts & PSR_OPT_SYM_OFFSET) && addr && psr_addr_sym(p, addr, tsc, &off, &size))
		fprintf(f, "%s+0x%llx/0x%llx", name, (unsigned long long)off,
			(unsigned long long)size);
	else
		fputs(name, f);
}

/* render_losses; bare: the runtime's own trace at exit, whose end is not written yet. */
void walk_losses(FILE *out, const struct psr_proc *p, const char *prefix, bool bare)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct psr_thread *t = &p->threads[i];

		if (t->lost)
			fprintf(out, "%s%s-%d [LOST %llu EVENTS]\n", prefix, t->comm, t->tid,
				(unsigned long long)t->lost);
		if (t->overwritten)
			fprintf(out, "%s%s-%d [OVERWRITTEN %llu EVENTS]\n", prefix, t->comm, t->tid,
				(unsigned long long)t->overwritten);
		if (t->stopped)
			fprintf(out, "%s%s-%d [RECORDING STOPPED: %s]\n", prefix, t->comm, t->tid,
				t->why);
		if (t->sched == PSR_SCHED_UNKNOWN)
			fprintf(out, "%s%s-%d [OFF-CPU TIME UNKNOWN: %s]\n", prefix, t->comm, t->tid,
				t->sched_why);
		if (t->sched_lost)
			fprintf(out, "%s%s-%d [LOST %llu SCHED SWITCHES]\n", prefix, t->comm, t->tid,
				(unsigned long long)t->sched_lost);
	}
	if (bare || !prefix[0] || prefix[0] != '#')
		return;		/* running (it is writing this), or stderr: only what is lost */
	if (!p->has_end)
		fprintf(out, "%sprocess %d ended %s: no clean end was written\n", prefix, p->pid,
			p->exec_followed ? "by exec" : p->status[0] ? p->status : "abnormally");
	else if (p->status[0] && strcmp(p->status, "exit 0"))
		fprintf(out, "%sprocess %d: %s\n", prefix, p->pid, p->status);
}

void render_losses(FILE *out, const struct psr_proc *p, const char *prefix)
{
	walk_losses(out, p, prefix, false);
}

/* report's and folded's walk: each wanted thread of each wanted process, one process's streams at a time. */
int walk_each_thread(const struct psr_session *s, const struct render_opts *o,
		     int (*fn)(struct stream *m, const struct psr_proc *p, void *arg), void *arg)
{
	struct render_ctx ctx = { .bare = o->bare };
	int err = 0;

	for (size_t i = 0; i < s->nprocs && !err; i++) {
		const struct psr_proc *p = &s->procs[i];
		struct stream *st;
		size_t ns;

		if (!render_proc_wanted(p, o))
			continue;
		st = walk_streams(&ctx, p, o, &ns);
		if (!st)
			return -ENOMEM;
		for (size_t k = 0; k < ns && !err; k++)
			err = fn(&st[k], p, arg);
		walk_streams_free(st, ns);
	}
	return err;
}

static void hits_flush(struct walk_hits *h)
{
	if (h->n)
		fprintf(stderr, "patchsite: %s: %llu function tracer hits (no returns recorded) are "
			"not in the %s: 'patchsite replay' shows them\n", h->p->dir,
			(unsigned long long)h->n, h->what);
	h->n = 0;
}

void walk_hits_count(struct walk_hits *h, const struct psr_proc *p, const struct psr_event *e)
{
	if (p != h->p) {
		hits_flush(h);
		h->p = p;
	}
	if (e && e->type == PSR_FUNC)
		h->n++;
}

void walk_hits_say(struct walk_hits *h)
{
	hits_flush(h);
	h->p = NULL;
}
