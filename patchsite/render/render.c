// SPDX-License-Identifier: GPL-2.0-only
/*
 * Formats of a trace directory (render.h).  The ftrace text is the
 * runtime's own (patchsite/output.c): the function tracer's
 * `TASK-PID [CPU] TIMESTAMP: func <-parent` and function_graph's
 * `CPU) TASK-PID | DURATION | func() {` with ftrace's duration markers,
 * threads merged by time with `=>` lines where the thread changes, one
 * block per process.  An exit is paired with the innermost open call of
 * its function; calls above it that saw no exit (left by longjmp or an
 * exception) close with it; an exit with no open call is not shown.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "../data/format.h"
#include "branch_report.h"
#include "render.h"

/*
 * What one call of a renderer shows: made by the call from its render_opts (and, per process,
 * from the process's options), handed to its streams.  Kept here, not in file-scope variables,
 * so that calls one after the other (the fuzzer, the runtime at exit) do not see each other's.
 */
struct render_ctx {
	bool with_events;	/* static trace events are shown (replay, Chrome) */
	bool window;		/* replay --latency: only events in [win_lo, win_hi] */
	uint64_t win_lo, win_hi;
	bool bare;		/* render_opts.bare of the call */
	unsigned opts;		/* PSR_OPT_* of the process being shown */
	uint64_t line_ns;	/* function_graph: the time of the event being shown */
};

/*
 * What extended records following an event add to it (set_ftrace_args):
 * the arguments after an entry, the return value after an exit.
 */
struct attach {
	const uint64_t *args;	/* nargs values in the mapped file */
	unsigned nargs;
	bool has_ret;
	uint64_t ret;
};

struct frame {
	uint32_t id;
	uint64_t tsc;
	struct attach at;	/* the entry's arguments */
	uint64_t child_ns;	/* time in completed callees */
	size_t path_len;	/* folded: length of the path before this frame */
};

/* One thread's events, with one event of lookahead and its open calls. */
struct stream {
	struct render_ctx *ctx;	/* the call's, shared by its streams */
	const struct psr_proc *p;
	const struct psr_thread *t;
	struct psr_cursor cur;
	struct psr_event ev, next;
	struct attach ev_at, next_at;
	bool has_ev, has_next;
	bool blocked;		/* live: its next event waits for more data this round */
	struct psr_cursor at_ev, at_next;	/* live: where ev and next were read (positions) */
	struct frame *stack;
	size_t depth, cap;
	char task[64];
};

/*
 * The arguments or return value recorded right after ev (same site), taken
 * into at; anything else is left for the next call.
 */
static void attach(struct psr_cursor *c, const struct psr_event *ev, struct attach *at)
{
	struct psr_cursor ahead = *c;
	struct psr_event x;

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
		} else {
			break;
		}
		*c = ahead;
	}
}

/* A stack trace record (PSD_EXT_STACK: the site id, then return addresses), whole. */
static bool is_stack(const struct psr_event *ev)
{
	return ev->type == PSR_EXT && ev->ext_kind == PSD_EXT_STACK && ev->nwords >= 1 &&
	       !ev->truncated;
}

static bool is_marker(const struct psr_event *e)
{
	return e->type == PSR_EXT && e->ext_kind == PSD_EXT_MARKER;
}

/*
 * The next event these renderers show, with what follows it: stack traces
 * and markers are shown, static trace events by replay and the Chrome JSON
 * (ctx->with_events), other extended records skipped (arguments and return
 * values come with their event).
 */
static bool shown(const struct render_ctx *ctx, const struct psr_event *ev)
{
	return ev->type != PSR_EXT || is_stack(ev) || is_marker(ev) ||
	       (ctx->with_events && ev->ext_kind == PSD_EXT_EVENT);
}

static int next_event(const struct render_ctx *ctx, struct psr_cursor *c, struct psr_event *ev,
		      struct attach *at)
{
	int more;

	while ((more = psr_next(c, ev)) &&
	       (!shown(ctx, ev) ||
		(ctx->window && (ev->tsc < ctx->win_lo || ev->tsc > ctx->win_hi))))
		;
	if (more && ev->type == PSR_EXT) {
		*at = (struct attach){ 0 };
		return more;
	}
	if (more)
		attach(c, ev, at);
	return more;
}

static bool advance(struct stream *s)
{
	if (s->has_next) {
		s->ev = s->next;
		s->ev_at = s->next_at;
		s->at_ev = s->at_next;
		s->has_next = false;
		return s->has_ev = true;
	}
	s->at_ev = s->cur;
	return s->has_ev = next_event(s->ctx, &s->cur, &s->ev, &s->ev_at);
}

static const struct psr_event *peek(struct stream *s)
{
	if (!s->has_next) {
		s->at_next = s->cur;
		s->has_next = next_event(s->ctx, &s->cur, &s->next, &s->next_at);
	}
	return s->has_next ? &s->next : NULL;
}

/* A value as uftrace shows an integer: decimal, or hex when it looks like an address. */
static int value_text(char *b, size_t n, uint64_t v)
{
	int64_t i = (int64_t)v;

	if (i > -1000000000 && i < 1000000000000ll)
		return snprintf(b, n, "%lld", (long long)i);
	return snprintf(b, n, "%#llx", (unsigned long long)v);
}

/* "(1, 2)" for an entry's arguments, "" without; then tail. */
static const char *args_text(char *b, size_t n, const struct attach *at, const char *tail)
{
	size_t len = 0;

	b[0] = 0;
	if (at->args) {
		len += (size_t)snprintf(b, n, "(");
		for (unsigned i = 0; i < at->nargs && len < n; i++) {
			if (i)
				len += (size_t)snprintf(b + len, n - len, ", ");
			if (len < n)
				len += (size_t)value_text(b + len, n - len, at->args[i]);
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
static const char *ret_text(char *b, size_t n, const struct attach *at, const char *tail)
{
	int len = 0;

	b[0] = 0;
	if (at->has_ret) {
		len = snprintf(b, n, " = ");
		len += value_text(b + len, n - (size_t)len, at->ret);
	}
	snprintf(b + len, n - (size_t)len, "%s", tail);
	return b;
}

/*
 * A marker's text (patchsite-data(5): word 0 holds the stored and the
 * written length, the text follows), with what was cut said after it.
 */
static const char *marker_text(const struct psr_event *e, char *buf, size_t len)
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

static int push_at(struct stream *s, uint32_t id, uint64_t tsc, size_t path_len,
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

static int push(struct stream *s, uint32_t id, uint64_t tsc, size_t path_len)
{
	return push_at(s, id, tsc, path_len, NULL);
}

/* Depth of the open call an exit of id closes + 1, or 0 when none is open. */
static size_t match(const struct stream *s, uint32_t id)
{
	size_t k = s->depth;

	while (k > 0 && s->stack[k - 1].id != id)
		k--;
	return k;
}

static uint64_t dur(const struct psr_proc *p, uint64_t a, uint64_t b)
{
	uint64_t x = psr_ns(p, a), y = psr_ns(p, b);

	return y > x ? y - x : 0;
}

static void stream_init(struct stream *s, struct render_ctx *ctx, const struct psr_proc *p,
			const struct psr_thread *t)
{
	memset(s, 0, sizeof(*s));
	s->ctx = ctx;
	s->p = p;
	s->t = t;
	psr_cursor_init(&s->cur, p, t);
	snprintf(s->task, sizeof(s->task), "%s-%d", t->comm, t->tid);
	advance(s);
}

static bool thread_wanted(const struct psr_thread *t, const struct render_opts *o)
{
	return !o->tid || t->tid == o->tid;
}

/* The streams of a process's wanted threads; NULL with *n 0 when none. */
static struct stream *streams(struct render_ctx *ctx, const struct psr_proc *p,
			      const struct render_opts *o, size_t *n)
{
	struct stream *s = calloc(p->nthreads + 1, sizeof(*s));

	*n = 0;
	if (!s)
		return NULL;
	for (size_t i = 0; i < p->nthreads; i++)
		if (thread_wanted(&p->threads[i], o))
			stream_init(&s[(*n)++], ctx, p, &p->threads[i]);
	return s;
}

static void streams_free(struct stream *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].stack);
	free(s);
}

static struct stream *earliest(struct stream *s, size_t n)
{
	struct stream *min = NULL;

	for (size_t i = 0; i < n; i++)
		if (s[i].has_ev && !s[i].blocked && (!min || s[i].ev.tsc < min->ev.tsc))
			min = &s[i];
	return min;
}

/* The options a process is shown with: its recorded ones, then --options. */
static void use_options(struct render_ctx *ctx, const struct psr_proc *p, unsigned set,
			unsigned clear)
{
	ctx->opts = (p->options & ~clear) | set;
}

/* NAME, or with sym-offset NAME+0xOFF/0xSIZE (ftrace's form) when the function is known. */
static void put_sym(FILE *f, const struct render_ctx *ctx, const struct psr_proc *p,
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
static void losses(FILE *out, const struct psr_proc *p, const char *prefix, bool bare)
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
	losses(out, p, prefix, false);
}

/*
 * A stack trace as ftrace shows one: ` => func` a line, the traced
 * function first, then its callers (a return address names the function
 * it returns into; minus one: a call at a function's very end).
 */
static void stack_lines(FILE *f, const struct psr_proc *p, const struct psr_event *e)
{
	char buf[32];

	fprintf(f, " => %s\n", psr_site_name(p, (uint32_t)e->payload[0], e->tsc, buf, sizeof(buf)));
	for (uint32_t i = 1; i < e->nwords; i++)
		fprintf(f, " => %s\n", psr_addr_name(p, e->payload[i] - 1, e->tsc, buf, sizeof(buf)));
}

/* One function tracer line: a function event or a marker. */
static void function_line(FILE *f, const struct psr_proc *p, const struct stream *m,
			  const struct psr_event *e)
{
	static char text[PSD_EXT_MAX_WORDS * 8 + 64];
	uint64_t t = psr_ns(p, e->tsc);
	char b1[32], b2[32], a[256];

	if (e->type != PSR_FUNC && e->type != PSR_EXT)
		return;
	fprintf(f, "%16s-%-7d [%03d] %5llu.%06llu: ", m->t->comm, m->t->tid, e->cpu,
		(unsigned long long)(t / 1000000000u), (unsigned long long)(t % 1000000000u / 1000u));
	if (is_marker(e)) {
		fprintf(f, "tracing_mark_write: %s\n", marker_text(e, text, sizeof(text)));
		return;
	}
	if (is_stack(e)) {
		fputs("<stack trace>\n", f);
		stack_lines(f, p, e);
		return;
	}
	if (e->type == PSR_EXT) {	/* a static trace event */
		psr_event_text(p, e, text, sizeof(text));
		fprintf(f, "%s\n", text);
		return;
	}
	put_sym(f, m->ctx, p, psr_site_name(p, e->id, e->tsc, b1, sizeof(b1)),
		psr_site_addr(p, e->id, e->tsc), e->tsc);
	if (m->ev_at.args)
		fputs(args_text(a, sizeof(a), &m->ev_at, ""), f);
	if (m->ctx->opts & PSR_OPT_PRINT_PARENT) {
		fputs(" <-", f);
		put_sym(f, m->ctx, p, psr_addr_name(p, e->parent, e->tsc, b2, sizeof(b2)), e->parent, e->tsc);
	}
	fputc('\n', f);
}

static void write_function(FILE *f, const struct render_ctx *ctx, const struct psr_proc *p,
			   struct stream *s, size_t ns)
{
	unsigned long long entries = 0, lost = 0;
	struct stream *m;

	for (size_t i = 0; i < ns; i++) {
		entries += s[i].t->funcs;
		lost += s[i].t->lost + s[i].t->overwritten;	/* written, not in the buffer */
	}
	fprintf(f, "# tracer: %s\n#\n", strcmp(p->tracer, "nop") ? "function" : "nop");
	fprintf(f, "# entries-in-buffer/entries-written: %llu/%llu   #P:%ld\n#\n", entries,
		entries + lost, sysconf(_SC_NPROCESSORS_ONLN));
	losses(f, p, "# ", ctx->bare);
	fprintf(f, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	fprintf(f, "#              | |         |         |         |\n");
	while ((m = earliest(s, ns))) {
		function_line(f, p, m, &m->ev);
		advance(m);
	}
}

/* ftrace's markers: $ > 1 s, @ > 100 ms, * > 10 ms, # > 1 ms, ! > 100 us, + > 10 us. */
static char dur_mark(double ns)
{
	return ns > 1e9 ? '$' : ns > 1e8 ? '@' : ns > 1e7 ? '*' : ns > 1e6 ? '#' : ns > 1e5 ? '!' :
	       ns > 1e4 ? '+' : ' ';
}

/* One function_graph line: text in up to three pieces, so that no name is cut. */
static void graph_line(FILE *f, const struct stream *m, int cpu, const uint64_t *d, size_t depth,
		       const char *a, const char *b, const char *c)
{
	const struct render_ctx *ctx = m->ctx;

	if (ctx->opts & PSR_OPT_FUNCGRAPH_ABSTIME)
		fprintf(f, "%6llu.%06llu |  ", (unsigned long long)(ctx->line_ns / 1000000000u),
			(unsigned long long)(ctx->line_ns % 1000000000u / 1000u));
	if (ctx->opts & PSR_OPT_FUNCGRAPH_PROC)
		fprintf(f, " %d) %14s | ", cpu, m->task);
	else
		fprintf(f, " %d) ", cpu);
	if (d)
		fprintf(f, "%c %8.3f us | ", dur_mark((double)*d), (double)*d / 1000.0);
	else
		fprintf(f, "              | ");
	fprintf(f, "%*s%s%s%s\n", (int)(2 * depth), "", a, b, c);
}

/* One event of function_graph. */
static void graph_event(FILE *f, struct stream *m, struct stream **last)
{
	const struct psr_proc *p = m->p;
	struct psr_event e = m->ev;
	const struct psr_event *nx;
	char buf[32], a[320];
	const char *name;
	uint64_t d;
	size_t k = 0;

	if (e.type == PSR_EXIT && !(k = match(m, e.id)) && m->ctx->bare)
		return;
	m->ctx->line_ns = psr_ns(p, e.tsc);
	if (*last && *last != m) {
		fprintf(f, " ------------------------------------------\n");
		fprintf(f, " %d) %s => %s\n", e.cpu, (*last)->task, m->task);
		fprintf(f, " ------------------------------------------\n\n");
	}
	*last = m;
	if (is_stack(&e)) {
		graph_line(f, m, e.cpu, NULL, m->depth, "/* <stack trace> */", "", "");
		stack_lines(f, p, &e);
		return;
	}
	if (is_marker(&e)) {
		static char text[PSD_EXT_MAX_WORDS * 8 + 64];

		graph_line(f, m, e.cpu, NULL, m->depth, "/* ", marker_text(&e, text, sizeof(text)),
			   " */");
		return;
	}
	if (e.type == PSR_EXT) {
		char text[4096];

		psr_event_text(p, &e, text, sizeof(text));
		graph_line(f, m, e.cpu, NULL, m->depth, "/* ", text, " */");
		return;
	}
	name = psr_site_name(p, e.id, e.tsc, buf, sizeof(buf));
	if (e.type == PSR_FUNC) {
		graph_line(f, m, e.cpu, NULL, m->depth, name, "(); /* other stack */", "");
	} else if (e.type == PSR_ENTRY) {
		nx = peek(m);
		if (nx && nx->type == PSR_EXIT && nx->id == e.id) {
			char r[64];

			d = dur(p, e.tsc, nx->tsc);
			ret_text(r, sizeof(r), &m->next_at, ";");
			graph_line(f, m, e.cpu, &d, m->depth, name,
				   args_text(a, sizeof(a), &m->ev_at, r), "");
			advance(m);	/* the exit */
		} else {
			graph_line(f, m, e.cpu, NULL, m->depth, name,
				   args_text(a, sizeof(a), &m->ev_at, " {"), "");
			push(m, e.id, e.tsc, 0);	/* no memory: shown unnested */
		}
	} else if (!k) {
		/* Its entry is not in the record (overwritten, or before a fork). */
		graph_line(f, m, e.cpu, NULL, 0, "} /* ", name, " */");
	} else {
		while (m->depth >= k) {
			d = dur(p, m->stack[m->depth - 1].tsc, e.tsc);
			m->depth--;
			/* The return value is the one of the call the exit is for. */
			if (m->depth == k - 1 && m->ev_at.has_ret) {
				ret_text(a + 1, sizeof(a) - 1, &m->ev_at, "; /* ");
				a[0] = '}';
				graph_line(f, m, e.cpu, &d, m->depth, a, name, " */");
			}
			else
				graph_line(f, m, e.cpu, &d, m->depth, "}", "", "");
		}
	}
}

static void write_graph(FILE *f, const struct render_ctx *ctx, const struct psr_proc *p,
			struct stream *s, size_t ns)
{
	struct stream *m, *last = NULL;

	const char *t1 = ctx->opts & PSR_OPT_FUNCGRAPH_ABSTIME ? "     TIME       " : "";
	const char *t2 = ctx->opts & PSR_OPT_FUNCGRAPH_ABSTIME ? "      |         " : "";

	fprintf(f, "# tracer: function_graph\n#\n");
	losses(f, p, "# ", ctx->bare);
	if (ctx->opts & PSR_OPT_FUNCGRAPH_PROC) {
		fprintf(f, "# %sCPU  TASK/PID         DURATION                  FUNCTION CALLS\n", t1);
		fprintf(f, "# %s|     |    |           |   |                     |   |   |   |\n", t2);
	} else {
		fprintf(f, "# %sCPU  DURATION                  FUNCTION CALLS\n", t1);
		fprintf(f, "# %s|     |   |                     |   |   |   |\n", t2);
	}
	while ((m = earliest(s, ns))) {
		graph_event(f, m, &last);
		advance(m);
	}
}

static bool is_graph(const struct psr_proc *p)
{
	if (!strcmp(p->tracer, "function_graph") || !strcmp(p->tracer, "latency"))
		return true;
	if (!strcmp(p->tracer, "function"))
		return false;
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].events - p->threads[i].ext > p->threads[i].funcs)
			return true;
	return false;
}

/*
 * The latency tracer's longest call in p (ns): its thread and time span from
 * the last and longest PSD_EXT_LATENCY record (site id, ticks, entry time
 * stamp; written right after the call's exit).  0 when there is none.
 */
static uint64_t max_latency(const struct psr_proc *p, int *tid, uint64_t *lo, uint64_t *hi)
{
	uint64_t max = 0;

	for (size_t i = 0; i < p->nthreads; i++) {
		struct psr_cursor c;
		struct psr_event ev;

		psr_cursor_init(&c, p, &p->threads[i]);
		while (psr_next(&c, &ev))
			if (ev.type == PSR_EXT && ev.ext_kind == PSD_EXT_LATENCY && ev.nwords == 3 &&
			    !ev.truncated && dur(p, ev.payload[2], ev.payload[2] + ev.payload[1]) >= max) {
				max = dur(p, ev.payload[2], ev.payload[2] + ev.payload[1]);
				*tid = p->threads[i].tid;
				*lo = ev.payload[2];
				*hi = ev.tsc;
			}
	}
	return max;
}

int render_replay(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct render_ctx ctx = { .with_events = true, .bare = o->bare };
	bool first = true;

	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];
		struct stream *st;
		size_t n;

		struct render_opts lo = *o;
		uint64_t max = 0;

		if (!render_proc_wanted(p, o))
			continue;
		if (o->latency) {
			max = max_latency(p, &lo.tid, &ctx.win_lo, &ctx.win_hi);
			ctx.window = max != 0;
			if (!max)
				lo.tid = -1;	/* nothing kept: no thread */
		}
		st = streams(&ctx, p, &lo, &n);
		if (!st)
			return -ENOMEM;
		if (!first)
			fputc('\n', out);
		first = false;
		if (!ctx.bare)
			fprintf(out, "# process %d: %s\n", p->pid,
				p->cmdline ? p->cmdline : p->exe ? p->exe : "?");
		if (o->latency)
			fprintf(out, "# tracing_max_latency: %llu us\n",
				(unsigned long long)(max / 1000));
		use_options(&ctx, p, o->opt_set, o->opt_clear);
		if (is_graph(p))
			write_graph(out, &ctx, p, st, n);
		else
			write_function(out, &ctx, p, st, n);
		streams_free(st, n);
	}
	return 0;
}

/* Chrome trace-event JSON: per thread, complete "X" events as their calls end. */
/* ,"args":{"arg1":1,...,"retval":3} when there are any. */
static void chrome_args(FILE *f, const struct attach *args, const struct attach *ret)
{
	const char *sep = "";
	char v[32];

	if (!(args && args->args) && !(ret && ret->has_ret))
		return;
	fprintf(f, ",\"args\":{");
	for (unsigned i = 0; args && args->args && i < args->nargs; i++) {
		value_text(v, sizeof(v), args->args[i]);
		fprintf(f, "%s\"arg%u\":%s%s%s", sep, i + 1, v[0] == '0' && v[1] == 'x' ? "\"" : "",
			v, v[0] == '0' && v[1] == 'x' ? "\"" : "");
		sep = ",";
	}
	if (ret && ret->has_ret) {
		value_text(v, sizeof(v), ret->ret);
		fprintf(f, "%s\"retval\":%s%s%s", sep, v[0] == '0' && v[1] == 'x' ? "\"" : "", v,
			v[0] == '0' && v[1] == 'x' ? "\"" : "");
	}
	fprintf(f, "}");
}

static void chrome_event_at(FILE *f, const char **sep, const struct psr_proc *p, int tid,
			    const char *name, const char *ph, uint64_t tsc, const uint64_t *d,
			    const struct attach *args, const struct attach *ret)
{
	fprintf(f, "%s{\"name\":", *sep);
	json_str(f, name);
	fprintf(f, ",\"ph\":\"%s\"", ph);
	if (!strcmp(ph, "i"))
		fprintf(f, ",\"s\":\"t\"");
	if (d)
		fprintf(f, ",\"dur\":%.3f", (double)*d / 1000.0);
	chrome_args(f, args, ret);
	fprintf(f, ",\"ts\":%.3f,\"pid\":%d,\"tid\":%d,\"cat\":\"patchsite\"}",
		(double)psr_ns(p, tsc) / 1000.0, p->pid, tid);
	*sep = ",\n";
}

static void chrome_event(FILE *f, const char **sep, const struct psr_proc *p, int tid,
			 const char *name, const char *ph, uint64_t tsc, const uint64_t *d)
{
	chrome_event_at(f, sep, p, tid, name, ph, tsc, d, NULL, NULL);
}

/* A static trace event: an instant event with its fields, typed, in args. */
static void chrome_static_event(FILE *f, const char **sep, const struct psr_proc *p, int tid,
				const struct psr_event *e)
{
	fprintf(f, "%s{\"name\":", *sep);
	json_str(f, psr_event_name(p, e));
	fprintf(f, ",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d,"
		"\"cat\":\"event\",\"args\":", (double)psr_ns(p, e->tsc) / 1000.0, p->pid, tid);
	psr_event_json_args(f, p, e);
	fputc('}', f);
	*sep = ",\n";
}

static int chrome_thread(FILE *f, const char **sep, struct stream *m)
{
	const struct psr_proc *p = m->p;
	char buf[48];
	uint64_t d;

	fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		*sep, p->pid, m->t->tid);
	json_str(f, m->t->comm);
	fprintf(f, "}}");
	*sep = ",\n";
	if (m->t->lost && m->has_ev) {
		snprintf(buf, sizeof(buf), "LOST %llu EVENTS", (unsigned long long)m->t->lost);
		chrome_event(f, sep, p, m->t->tid, buf, "i", m->ev.tsc, NULL);
	}
	for (; m->has_ev; advance(m)) {
		static char text[PSD_EXT_MAX_WORDS * 8 + 64];
		struct psr_event *e = &m->ev;
		size_t k;

		if (is_marker(e)) {
			chrome_event(f, sep, p, m->t->tid, marker_text(e, text, sizeof(text)), "i",
				     e->tsc, NULL);
		} else if (e->type == PSR_EXT && e->ext_kind == PSD_EXT_EVENT) {
			chrome_static_event(f, sep, p, m->t->tid, e);
		} else if (e->type == PSR_FUNC) {
			chrome_event_at(f, sep, p, m->t->tid,
					psr_site_name(p, e->id, e->tsc, buf, sizeof(buf)), "i", e->tsc,
					NULL, &m->ev_at, NULL);
		} else if (e->type == PSR_ENTRY) {
			if (push_at(m, e->id, e->tsc, 0, &m->ev_at))
				return -ENOMEM;
		} else if (e->type == PSR_EXIT && (k = match(m, e->id))) {
			while (m->depth >= k) {
				struct frame *fr = &m->stack[--m->depth];

				d = dur(p, fr->tsc, e->tsc);
				chrome_event_at(f, sep, p, m->t->tid,
						psr_site_name(p, fr->id, fr->tsc, buf, sizeof(buf)), "X",
						fr->tsc, &d, &fr->at,
						m->depth == k - 1 ? &m->ev_at : NULL);
			}
		}
	}
	/* Still open at the end of the record. */
	for (size_t k = 0; k < m->depth; k++)
		chrome_event(f, sep, p, m->t->tid,
			     psr_site_name(p, m->stack[k].id, m->stack[k].tsc, buf, sizeof(buf)), "B",
			     m->stack[k].tsc, NULL);
	return 0;
}

int render_chrome(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct render_ctx ctx = { .with_events = true, .bare = o->bare };
	const char *sep = "\n";
	int err = 0;

	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	for (size_t i = 0; i < s->nprocs && !err; i++) {
		const struct psr_proc *p = &s->procs[i];
		struct stream *st;
		size_t n;

		if (!render_proc_wanted(p, o))
			continue;
		fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
			sep, p->pid);
		json_str(out, p->exe ? p->exe : "?");
		fprintf(out, "}}");
		sep = ",\n";
		st = streams(&ctx, p, o, &n);
		if (!st)
			return -ENOMEM;
		for (size_t k = 0; k < n && !err; k++)
			err = chrome_thread(out, &sep, &st[k]);
		streams_free(st, n);
	}
	fprintf(out, "\n]}\n");
	return err;
}

/* A string -> value table (open addressing), for distinct stacks and functions. */
struct entry {
	char *key;
	int pid;
	uint64_t calls, total, self, min, max;
	uint64_t sum;			/* every call's time, nested recursion included (average) */
};

/*
 * Names come from the reader as stable pointers, one per site: a small
 * direct-mapped cache from that pointer to its entry spares the string
 * hash and compare per call.  It is valid while the table does not grow
 * (gen counts growths).
 */
#define NCACHE 1024
struct table {
	struct entry *e;
	size_t n, cap;
	unsigned gen;
	struct { const char *name; int pid; unsigned gen; struct entry *e; } cache[NCACHE];
};

static uint64_t hash(const char *s, int pid)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(unsigned)pid;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static struct entry *lookup(struct table *t, const char *key, int pid)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct { struct entry *e; size_t n, cap; } g = {
			calloc(t->cap ? 2 * t->cap : 1024, sizeof(struct entry)), 0,
			t->cap ? 2 * t->cap : 1024 };

		if (!g.e)
			return NULL;
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->e[k].key)
				continue;
			for (i = hash(t->e[k].key, t->e[k].pid) & (g.cap - 1); g.e[i].key;
			     i = (i + 1) & (g.cap - 1))
				;
			g.e[i] = t->e[k];
			g.n++;
		}
		free(t->e);
		t->e = g.e;
		t->n = g.n;
		t->cap = g.cap;
		t->gen++;
	}
	for (i = hash(key, pid) & (t->cap - 1); t->e[i].key; i = (i + 1) & (t->cap - 1))
		if (t->e[i].pid == pid && !strcmp(t->e[i].key, key))
			return &t->e[i];
	t->e[i].key = strdup(key);
	if (!t->e[i].key)
		return NULL;
	t->e[i].pid = pid;
	t->e[i].min = UINT64_MAX;
	t->n++;
	return &t->e[i];
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->e[i].key);
	free(t->e);
}

/* The table's entries, packed (the table's memory, reused). */
static size_t table_pack(struct table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].key)
			t->e[n++] = t->e[i];
	for (size_t i = n; i < t->cap; i++)
		t->e[i].key = NULL;
	return n;
}

/*
 * A completed call: its stats (self = its time less its callees').  A call
 * made while the same function is still running further out (recursion)
 * adds nothing to total, which the outer call's time already holds, as
 * uftrace report counts: total never exceeds the time the thread ran.
 */
static int account(struct table *t, const char *name, bool stable, int pid, uint64_t d,
		   uint64_t self, bool nested)
{
	size_t c = ((uintptr_t)name >> 3) % NCACHE;
	struct entry *e;

	if (stable && t->cache[c].name == name && t->cache[c].pid == pid &&
	    t->cache[c].gen == t->gen + 1) {
		e = t->cache[c].e;
	} else {
		e = lookup(t, name, pid);
		t->cache[c].name = name;
		t->cache[c].pid = pid;
		t->cache[c].gen = t->gen + 1;
		t->cache[c].e = e;
	}

	if (!e)
		return -ENOMEM;
	e->calls++;
	e->total += nested ? 0 : d;
	e->sum += d;
	e->self += self;
	if (d < e->min)
		e->min = d;
	if (d > e->max)
		e->max = d;
	return 0;
}

/* Is function id still running in this thread (below the top of its stack)? */
static bool active(const struct stream *m, uint32_t id)
{
	for (size_t i = m->depth; i-- > 0;)
		if (m->stack[i].id == id)
			return true;
	return false;
}

/* The calls an exit at depth k closes, innermost first, each accounted. */
static int close_calls(struct stream *m, size_t k, uint64_t tsc, struct table *t, int pid)
{
	char buf[32];

	while (m->depth >= k) {
		struct frame *fr = &m->stack[--m->depth];
		uint64_t d = dur(m->p, fr->tsc, tsc), self = d > fr->child_ns ? d - fr->child_ns : 0;

		if (m->depth)
			m->stack[m->depth - 1].child_ns += d;
		const char *name = psr_site_name(m->p, fr->id, fr->tsc, buf, sizeof(buf));

		if (account(t, name, name != buf, pid, d, self, active(m, fr->id)))
			return -ENOMEM;
	}
	return 0;
}

static int report_thread(struct stream *m, struct table *t, int pid)
{
	char buf[32];
	int err = 0;
	size_t k;

	for (; m->has_ev && !err; advance(m)) {
		struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY)
			err = push(m, e->id, e->tsc, 0);
		else if (e->type == PSR_EXIT && (k = match(m, e->id)))
			err = close_calls(m, k, e->tsc, t, pid);
		else if (e->type == PSR_FUNC) {
			const char *name = psr_site_name(m->p, e->id, e->tsc, buf, sizeof(buf));

			err = account(t, name, name != buf, pid, 0, 0, false);
		}
	}
	return err;
}

static uint64_t sort_key(const struct entry *e, enum render_sort sort_by)
{
	switch (sort_by) {
	case SORT_SELF: return e->self;
	case SORT_CALLS: return e->calls;
	case SORT_AVG: return e->calls ? e->sum / e->calls : 0;
	case SORT_MAX: return e->max;
	default: return e->total;
	}
}

/* qsort_r's: arg is the render_sort (the order is total: keys are distinct per pid). */
static int cmp_entry(const void *a, const void *b, void *arg)
{
	const struct entry *x = a, *y = b;
	enum render_sort by = *(const enum render_sort *)arg;
	uint64_t kx = sort_key(x, by), ky = sort_key(y, by);

	if (kx != ky)
		return kx > ky ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* A time as uftrace prints it: 3 decimals and a unit. */
static void print_time(FILE *f, uint64_t ns)
{
	if (ns >= 1000000000u)
		fprintf(f, "  %8.3f  s", (double)ns / 1e9);
	else if (ns >= 1000000u)
		fprintf(f, "  %8.3f ms", (double)ns / 1e6);
	else if (ns >= 1000u)
		fprintf(f, "  %8.3f us", (double)ns / 1e3);
	else
		fprintf(f, "  %8llu ns", (unsigned long long)ns);
}

/* report's and folded's walk: each wanted thread of each wanted process, one process's streams at a time. */
static int each_thread(const struct psr_session *s, const struct render_opts *o,
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
		st = streams(&ctx, p, o, &ns);
		if (!st)
			return -ENOMEM;
		for (size_t k = 0; k < ns && !err; k++)
			err = fn(&st[k], p, arg);
		streams_free(st, ns);
	}
	return err;
}

struct report_walk {
	struct table t;
	bool by_pid;			/* several processes: one row per function and process */
};

static int report_one(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct report_walk *w = arg;

	return report_thread(m, &w->t, w->by_pid ? p->pid : 0);
}

int render_report(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	static struct report_walk w;	/* its name cache is large for the stack */
	struct table *t;
	size_t nprocs = 0, n;
	int err;

	memset(&w, 0, sizeof(w));
	for (size_t i = 0; i < s->nprocs; i++)
		nprocs += render_proc_wanted(&s->procs[i], o);
	w.by_pid = nprocs > 1;
	err = each_thread(s, o, report_one, &w);
	t = &w.t;
	n = table_pack(t);
	if (n)
		qsort_r(t->e, n, sizeof(*t->e), cmp_entry, (void *)&o->sort);
	if (o->json) {
		fprintf(out, "[");
		for (size_t i = 0; i < n; i++) {
			struct entry *e = &t->e[i];

			fprintf(out, "%s\n{\"name\":", i ? "," : "");
			json_str(out, e->key);
			fprintf(out, ",\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,\"avg_ns\":%llu,"
				"\"min_ns\":%llu,\"max_ns\":%llu", (unsigned long long)e->calls,
				(unsigned long long)e->total, (unsigned long long)e->self,
				(unsigned long long)(e->calls ? e->sum / e->calls : 0),
				(unsigned long long)(e->calls ? e->min : 0), (unsigned long long)e->max);
			if (nprocs > 1)
				fprintf(out, ",\"pid\":%d", e->pid);
			fprintf(out, "}");
		}
		fprintf(out, "\n]\n");
	} else {
		for (size_t i = 0; i < s->nprocs; i++)
			if (render_proc_wanted(&s->procs[i], o))
				losses(out, &s->procs[i], "# ", o->bare);
		fprintf(out, "    Total time     Self time       Calls       Average           Min"
			"           Max  %sFunction\n", nprocs > 1 ? "    Pid  " : "");
		fprintf(out, "  ============  ============  ==========  ============  ============"
			"  ============  %s====================\n", nprocs > 1 ? "=======  " : "");
		for (size_t i = 0; i < n; i++) {
			struct entry *e = &t->e[i];

			print_time(out, e->total);
			print_time(out, e->self);
			fprintf(out, "  %10llu", (unsigned long long)e->calls);
			print_time(out, e->calls ? e->sum / e->calls : 0);
			print_time(out, e->calls ? e->min : 0);
			print_time(out, e->max);
			if (nprocs > 1)
				fprintf(out, "  %7d", e->pid);
			fprintf(out, "  %s\n", e->key);
		}
	}
	table_free(t);
	return err;
}

/* Folded stacks: self time of every completed call, summed by stack. */
static int folded_thread(struct stream *m, struct table *t, char **path, size_t *cap)
{
	char buf[32];
	size_t len = strlen(m->t->comm), k;

	if (*cap < len + 1 && !(*path = realloc(*path, *cap = len + 4096)))
		return -ENOMEM;
	memcpy(*path, m->t->comm, len + 1);
	for (; m->has_ev; advance(m)) {
		struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY) {
			const char *name = psr_site_name(m->p, e->id, e->tsc, buf, sizeof(buf));
			size_t nl = strlen(name);

			if (len + nl + 2 > *cap && !(*path = realloc(*path, *cap = 2 * (len + nl + 2))))
				return -ENOMEM;
			if (push(m, e->id, e->tsc, len))
				return -ENOMEM;
			(*path)[len] = ';';
			memcpy(*path + len + 1, name, nl + 1);
			len += nl + 1;
		} else if (e->type == PSR_EXIT && (k = match(m, e->id))) {
			while (m->depth >= k) {
				struct frame *fr = &m->stack[--m->depth];
				uint64_t d = dur(m->p, fr->tsc, e->tsc);
				struct entry *x = lookup(t, *path, 0);

				if (!x)
					return -ENOMEM;
				x->self += d > fr->child_ns ? d - fr->child_ns : 0;
				if (m->depth)
					m->stack[m->depth - 1].child_ns += d;
				len = fr->path_len;
				(*path)[len] = 0;
			}
		}
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

struct folded_walk {
	struct table t;
	char *path;
	size_t cap;
};

static int folded_one(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct folded_walk *w = arg;

	(void)p;
	return folded_thread(m, &w->t, &w->path, &w->cap);
}

int render_folded(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	static struct folded_walk w;	/* its name cache is large for the stack */
	struct table *t;
	size_t n;
	int err;

	memset(&w, 0, sizeof(w));
	err = each_thread(s, o, folded_one, &w);
	t = &w.t;
	free(w.path);
	n = table_pack(t);
	if (n)
		qsort(t->e, n, sizeof(*t->e), cmp_key);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %llu\n", t->e[i].key,
			(unsigned long long)(t->e[i].self ? t->e[i].self : 1));
	table_free(t);
	return err;
}

/* Static trace events recorded per event (info): the wanted threads' records, counted. */
static void info_events(FILE *out, const struct psr_proc *p, const struct render_opts *o)
{
	uint64_t *n = calloc(p->nevents + 1, sizeof(*n));
	struct psr_cursor c;
	struct psr_event ev;

	if (!n)
		return;
	for (size_t k = 0; k < p->nthreads; k++) {
		if (!thread_wanted(&p->threads[k], o))
			continue;
		psr_cursor_init(&c, p, &p->threads[k]);
		while (psr_next(&c, &ev)) {
			const uint8_t *rec;
			size_t bytes;
			const struct psr_evdesc *d;

			if (ev.type != PSR_EXT || ev.ext_kind != PSD_EXT_EVENT)
				continue;
			d = psr_evdesc(p, &ev, &rec, &bytes);
			n[d ? (size_t)(d - p->events) : p->nevents]++;
		}
	}
	fprintf(out, "  static events: %zu described\n", p->nevents);
	for (size_t i = 0; i < p->nevents; i++)
		fprintf(out, "    %-32s %llu\n", p->events[i].name, (unsigned long long)n[i]);
	if (n[p->nevents])
		fprintf(out, "    %-32s %llu\n", "(no format)", (unsigned long long)n[p->nevents]);
	free(n);
}

int render_info(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	unsigned long long events = 0, lost = 0, markers = 0;

	fprintf(out, "# directory: %s\n# format: patchsite-data %d\n", s->dir, PSD_VERSION);
	fprintf(out, "# processes: %zu recorded, %zu without sites\n", s->nprocs, s->nosites);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];
		uint64_t span = p->last_ns > p->ns0 ? p->last_ns - p->ns0 : 0;

		if (!render_proc_wanted(p, o))
			continue;
		fprintf(out, "\nprocess %d (parent %d) in %s\n", p->pid, p->ppid, p->name);
		fprintf(out, "  command:  %s\n", p->cmdline ? p->cmdline : "?");
		fprintf(out, "  exe:      %s\n", p->exe ? p->exe : "?");
		fprintf(out, "  tracer:   %s%s\n", p->tracer, p->overwrite ? " (overwrite)" : "");
		fprintf(out, "  clock:    tsc, %.6f ns per tick\n", p->ns_per_tsc);
		fprintf(out, "  time:     %.6f s recorded\n", (double)span / 1e9);
		if (p->has_end)
			fprintf(out, "  end:      %s\n", p->status[0] ? p->status : "normal exit");
		else if (p->exec_followed)
			fprintf(out, "  end:      exec (a later image of this pid follows)\n");
		else
			fprintf(out, "  end:      %s%sabnormal: no clean end written\n", p->status,
				p->status[0] ? ", " : "");
		fprintf(out, "  objects:  %zu\n", p->nmods);
		for (size_t k = 0; k < p->nmods; k++)
			fprintf(out, "    [%u] %s: %zu sites%s\n", p->mods[k].index,
				p->mods[k].path ? p->mods[k].path : "?", p->mods[k].nsites,
				p->mods[k].unload_tsc ? " (unloaded)" : "");
		fprintf(out, "  threads:  %zu\n", p->nthreads);
		for (size_t k = 0; k < p->nthreads; k++) {
			const struct psr_thread *t = &p->threads[k];

			if (!thread_wanted(t, o))
				continue;
			fprintf(out, "    %d %-16s events %llu lost %llu overwritten %llu%s%s%s\n",
				t->tid, t->comm, (unsigned long long)t->events,
				(unsigned long long)t->lost, (unsigned long long)t->overwritten,
				t->stopped ? " stopped: " : "", t->stopped ? t->why : "",
				t->clean ? "" : " (not closed)");
			events += t->events;
			lost += t->lost;
			markers += t->markers;
		}
		if (p->nevents)
			info_events(out, p, o);
		render_branches_info(out, p);
	}
	fprintf(out, "\n# events: %llu recorded, %llu lost\n# markers: %llu (trace_marker lines, "
		"counted in the events)\n", events, lost, markers);
	if (s->problems)
		fprintf(out, "# damaged or missing parts: %u (said above on stderr)\n", s->problems);
	return 0;
}

/*
 * Following a process as it records (patchsite pipe): each round prints
 * what every thread added since, merged by time within the round.  A
 * function_graph call is printed once its next event is there (a leaf's
 * duration needs its exit); a thread whose next event must wait is left
 * for the next round.
 */
struct render_live {
	struct render_ctx ctx;		/* every round's: no static events, no window, not bare */
	struct stream *s;
	size_t n;
	ssize_t last;			/* graph: the stream shown last (=> lines), -1 none */
	unsigned opt_set, opt_clear;	/* --options */
	uint64_t *lost;			/* per stream: the loss count said so far */
	unsigned long long shown;
};

struct render_live *render_live_new(unsigned opt_set, unsigned opt_clear)
{
	struct render_live *l = calloc(1, sizeof(*l));

	if (l) {
		l->last = -1;
		l->opt_set = opt_set;
		l->opt_clear = opt_clear;
	}
	return l;
}

void render_live_free(struct render_live *l)
{
	if (!l)
		return;
	streams_free(l->s, l->n);
	free(l->lost);
	free(l);
}

/* The streams follow p's threads (moved by psr_follow; new ones added at the end). */
static int live_sync(struct render_live *l, const struct psr_proc *p)
{
	if (p->nthreads > l->n) {
		struct stream *g = realloc(l->s, p->nthreads * sizeof(*g));
		uint64_t *h;

		if (!g)
			return -ENOMEM;
		l->s = g;
		h = realloc(l->lost, p->nthreads * sizeof(*h));
		if (!h)
			return -ENOMEM;
		l->lost = h;
		for (size_t i = l->n; i < p->nthreads; i++) {
			memset(&l->s[i], 0, sizeof(l->s[i]));
			psr_cursor_init(&l->s[i].cur, p, &p->threads[i]);
			l->lost[i] = 0;
		}
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		struct stream *m = &l->s[i];

		m->ctx = &l->ctx;
		m->p = m->cur.p = p;
		m->t = m->cur.t = &p->threads[i];
		snprintf(m->task, sizeof(m->task), "%s-%d", m->t->comm, m->t->tid);
	}
	l->n = p->nthreads;
	return 0;
}

unsigned long long render_live_shown(const struct render_live *l)
{
	return l->shown;
}

int render_live_round(FILE *f, struct render_live *l, const struct psr_proc *p)
{
	/*
	 * A tracer chosen at run time (info says "ctl": it may change while it
	 * records) is rendered event by event: function events as the
	 * function tracer's lines, entries and exits as function_graph's.
	 */
	bool any = !strcmp(p->tracer, "ctl");
	bool graph = !strcmp(p->tracer, "function_graph") || !strcmp(p->tracer, "latency");
	struct stream *m;
	int err = live_sync(l, p);

	if (err)
		return err;
	use_options(&l->ctx, p, l->opt_set, l->opt_clear);
	for (size_t i = 0; i < l->n; i++) {
		m = &l->s[i];
		m->blocked = false;
		if (m->t->lost != l->lost[i]) {
			fprintf(f, "%s [LOST %llu EVENTS]\n", m->task, (unsigned long long)m->t->lost);
			l->lost[i] = m->t->lost;
		}
		if (!m->has_ev)
			advance(m);
	}
	while ((m = earliest(l->s, l->n))) {
		if (any)
			graph = m->ev.type == PSR_ENTRY || m->ev.type == PSR_EXIT;
		if (graph && m->ev.type == PSR_ENTRY && m->t->live && !peek(m)) {
			m->blocked = true;	/* a leaf or not: its next event says */
			continue;
		}
		if (graph) {
			struct stream *last = l->last >= 0 ? &l->s[l->last] : NULL;

			graph_event(f, m, &last);
			l->last = last ? last - l->s : -1;
		} else {
			function_line(f, p, m, &m->ev);
		}
		l->shown++;
		advance(m);
	}
	return 0;
}

/* Positions (the next event of each thread), one line per thread file: NAME CHUNK WORD HI CPU. */
void render_live_save(FILE *f, const struct render_live *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct stream *m = &l->s[i];
		const struct psr_cursor *c = m->has_ev ? &m->at_ev : &m->cur;
		const char *name = strrchr(m->t->file, '/');
		size_t chunk = c->chunk, at = c->at;

		if (!m->t->nchunks)
			continue;
		if (chunk >= m->t->nchunks) {	/* read to the end */
			chunk = m->t->nchunks - 1;
			at = m->t->chunks[chunk].end;
		}
		fprintf(f, "%s %zu %zu %u %d\n", name ? name + 1 : m->t->file, chunk, at,
			(unsigned)c->hi, (int)c->cpu);
	}
}

/* Go on from saved positions (render_live_save); other lines are ignored. */
void render_live_load(FILE *f, struct render_live *l, const struct psr_proc *p)
{
	char line[256], name[128];
	size_t chunk, at;
	unsigned hi;
	int cpu;

	if (live_sync(l, p))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %zu %zu %u %d", name, &chunk, &at, &hi, &cpu) != 5)
			continue;
		for (size_t i = 0; i < l->n; i++) {
			struct stream *m = &l->s[i];
			const char *base = strrchr(m->t->file, '/');

			if (strcmp(base ? base + 1 : m->t->file, name) || chunk >= m->t->nchunks ||
			    at < m->t->chunks[chunk].first || at > m->t->chunks[chunk].end)
				continue;
			m->cur.chunk = chunk;
			m->cur.at = at;
			m->cur.hi = hi;
			m->cur.cpu = cpu;
			m->has_ev = m->has_next = false;
		}
	}
}
