// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace's text (replay), the runtime's own format (patchsite/record/output.c):
 * the function tracer's `TASK-PID [CPU] TIMESTAMP: func <-parent` and
 * function_graph's `CPU) TASK-PID | DURATION | func() {` with ftrace's
 * duration markers, threads merged by time with `=>` lines where the
 * thread changes, one block per process.  An exit is paired with the
 * innermost open call of its function; calls above it that saw no exit
 * (left by longjmp or an exception) close with it; an exit with no open
 * call is not shown.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "../data/format.h"
#include "text.h"

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
/* replay --srcline: the comment " FILE:LINE " of e's function, or "" (not asked, not known). */
static const char *srcline_text(const struct stream *m, const struct psr_event *e, char *buf,
				size_t len)
{
	char where[4096];

	if (!m->ctx->srcline || !m->ctx->srcline(m->p, e->id, e->tsc, where, sizeof(where)))
		return "";
	snprintf(buf, len, " /* %s */", where);
	return buf;
}

void text_function_line(FILE *f, const struct psr_proc *p, struct stream *m,
			const struct psr_event *e)
{
	static char text[PSD_EXT_MAX_WORDS * 8 + 64];
	uint64_t t = psr_ns(p, e->tsc);
	char b1[32], b2[32], a[256];

	if (e->type != PSR_FUNC && e->type != PSR_EXT && e->type != PSR_SCHED)
		return;
	fprintf(f, "%16s-%-7d [%03d] %5llu.%06llu: ", m->t->comm, m->t->tid, e->cpu,
		(unsigned long long)(t / 1000000000u), (unsigned long long)(t % 1000000000u / 1000u));
	if (e->type == PSR_SCHED) {
		fprintf(f, "/* %s */\n", walk_switch_text(e));
		return;
	}
	if (walk_is_marker(e)) {
		fprintf(f, "tracing_mark_write: %s\n", walk_marker_text(e, text, sizeof(text)));
		return;
	}
	if (walk_is_stack(e)) {
		fputs("<stack trace>\n", f);
		stack_lines(f, p, e);
		return;
	}
	if (walk_is_read(e)) {
		fprintf(f, "%s\n", walk_read_text(m, e, text, sizeof(text)));
		return;
	}
	if (e->type == PSR_EXT) {	/* a static trace event */
		psr_event_text(p, e, text, sizeof(text));
		fprintf(f, "%s\n", text);
		return;
	}
	walk_put_sym(f, m->ctx, p, psr_site_name(p, e->id, e->tsc, b1, sizeof(b1)),
		     psr_site_addr(p, e->id, e->tsc), e->tsc);
	if (m->ev_at.args || m->ev_at.has_probe)
		fputs(walk_args_text(p, a, sizeof(a), &m->ev_at, ""), f);
	if (m->ctx->opts & PSR_OPT_PRINT_PARENT) {
		fputs(" <-", f);
		walk_put_sym(f, m->ctx, p, psr_addr_name(p, e->parent, e->tsc, b2, sizeof(b2)), e->parent, e->tsc);
	}
	fprintf(f, "%s\n", srcline_text(m, e, text, sizeof(text)));
}

static void write_function(FILE *f, const struct render_ctx *ctx, const struct psr_proc *p,
			   struct stream *s, size_t ns)
{
	unsigned long long entries = 0, funcs = 0, lost = 0;
	struct stream *m;

	for (size_t i = 0; i < ns; i++) {
		/* a line each: the function tracer's calls, markers and trace events */
		entries += s[i].t->funcs + s[i].t->markers + s[i].t->trace_events;
		funcs += s[i].t->funcs;
		lost += s[i].t->lost + s[i].t->overwritten;	/* written, not in the buffer */
	}
	/* "ctl": chosen at run time; nop where no function was traced, as ftrace says */
	fprintf(f, "# tracer: %s\n#\n", strcmp(p->tracer, "nop") &&
		(strcmp(p->tracer, "ctl") || funcs) ? "function" : "nop");
	fprintf(f, "# entries-in-buffer/entries-written: %llu/%llu   #P:%ld\n#\n", entries,
		entries + lost, sysconf(_SC_NPROCESSORS_ONLN));
	walk_losses(f, p, "# ", ctx->bare);
	fprintf(f, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	fprintf(f, "#              | |         |         |         |\n");
	while ((m = walk_earliest(s, ns))) {
		text_function_line(f, p, m, &m->ev);
		walk_advance(m);
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
	if (ctx->opts & PSR_OPT_FUNCGRAPH_CPU)
		fprintf(f, " %d) ", cpu);
	if (ctx->opts & PSR_OPT_FUNCGRAPH_PROC)
		fprintf(f, "%14s | ", m->task);
	if (!(ctx->opts & PSR_OPT_FUNCGRAPH_DURATION))
		;
	else if (d)
		fprintf(f, "%c %8.3f us | ", ctx->opts & PSR_OPT_FUNCGRAPH_OVERHEAD ?
			dur_mark((double)*d) : ' ', (double)*d / 1000.0);
	else
		fprintf(f, "              | ");
	fprintf(f, "%*s%s%s%s\n", (int)(2 * depth), "", a, b, c);
}

/* One event of function_graph. */
void text_graph_event(FILE *f, struct stream *m, struct stream **last)
{
	const struct psr_proc *p = m->p;
	struct psr_event e = m->ev;
	const struct psr_event *nx;
	char buf[32], a[4096], src[4200];
	const char *name;
	uint64_t d;
	size_t k = 0;

	if (e.type == PSR_EXIT && !(k = walk_match(m, e.id)) && m->ctx->bare)
		return;
	if (m->ev_at.nest_only) {	/* tracing off: the program's depth kept, nothing drawn */
		if (e.type == PSR_ENTRY)
			walk_push_at(m, e.id, e.tsc, 0, &m->ev_at);
		else if (e.type == PSR_EXIT && k)
			m->depth = k - 1;
		return;
	}
	m->ctx->line_ns = psr_ns(p, e.tsc);
	if (*last && *last != m) {
		fprintf(f, " ------------------------------------------\n");
		fprintf(f, " %d) %s => %s\n", e.cpu, (*last)->task, m->task);
		fprintf(f, " ------------------------------------------\n\n");
	}
	*last = m;
	if (walk_is_stack(&e)) {
		graph_line(f, m, e.cpu, NULL, m->depth, "/* <stack trace> */", "", "");
		stack_lines(f, p, &e);
		return;
	}
	if (walk_is_read(&e)) {
		char text[256];

		graph_line(f, m, e.cpu, NULL, m->depth, "/* ", walk_read_text(m, &e, text, sizeof(text)),
			   " */");
		return;
	}
	if (walk_is_marker(&e)) {
		static char text[PSD_EXT_MAX_WORDS * 8 + 64];

		graph_line(f, m, e.cpu, NULL, m->depth, "/* ", walk_marker_text(&e, text, sizeof(text)),
			   " */");
		return;
	}
	if (e.type == PSR_SCHED) {
		graph_line(f, m, e.cpu, NULL, m->depth, "/* ", walk_switch_text(&e), " */");
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
	} else if (e.type == PSR_ENTRY && m->ev_at.inherited) {
		/* Open at the fork: entered in the parent, shown there; nested in, not drawn. */
		walk_push_at(m, e.id, e.tsc, 0, &m->ev_at);
	} else if (e.type == PSR_ENTRY) {
		nx = walk_peek(m);
		if (nx && nx->type == PSR_EXIT && nx->id == e.id && !m->next_at.nest_only) {
			char r[2048];

			d = walk_call_ns(m, e.tsc, nx->tsc);
			walk_ret_text(p, r, sizeof(r), &m->next_at, ";");
			graph_line(f, m, e.cpu, &d, m->depth, name,
				   walk_args_text(p, a, sizeof(a), &m->ev_at, r),
				   srcline_text(m, &e, src, sizeof(src)));
			walk_advance(m);	/* the exit */
		} else {
			graph_line(f, m, e.cpu, NULL, m->depth, name,
				   walk_args_text(p, a, sizeof(a), &m->ev_at, " {"),
				   srcline_text(m, &e, src, sizeof(src)));
			walk_push(m, e.id, e.tsc, 0);	/* no memory: shown unnested */
		}
	} else if (!k) {
		/* Its entry is not in the record (overwritten, or a fork recorded without PSD_EXT_INHERITED). */
		graph_line(f, m, e.cpu, NULL, 0, "} /* ", name, " */");
	} else {
		while (m->depth >= k) {
			d = walk_call_ns(m, m->stack[m->depth - 1].tsc, e.tsc);
			m->depth--;
			/* The return value is the one of the call the exit is for. */
			if (m->depth == k - 1 && (m->ev_at.has_ret || m->ev_at.has_ret_probe)) {
				walk_ret_text(p, a + 1, sizeof(a) - 1, &m->ev_at, "; /* ");
				a[0] = '}';
				graph_line(f, m, e.cpu, &d, m->depth, a, name, " */");
			}
			else if ((m->ctx->opts & PSR_OPT_FUNCGRAPH_TAIL) ||
				 m->stack[m->depth].at.inherited ||	/* its opening is the parent's */
				 m->stack[m->depth].at.nest_only)	/* or not drawn: tracing off */
				graph_line(f, m, e.cpu, &d, m->depth, "} /* ",
					   psr_site_name(p, m->stack[m->depth].id, e.tsc, buf,
							 sizeof(buf)), " */");
			else
				graph_line(f, m, e.cpu, &d, m->depth, "}", "", "");
		}
	}
}

static void write_graph(FILE *f, const struct render_ctx *ctx, const struct psr_proc *p,
			struct stream *s, size_t ns)
{
	struct stream *m, *last = NULL;

	/* The header's columns, each shown with its option (as the kernel's
	 * __print_graph_headers_flags): title, then the line of bars under it. */
	static const struct { unsigned opt; const char *title, *bars; } col[] = {
		{ PSR_OPT_FUNCGRAPH_ABSTIME, "     TIME       ", "      |         " },
		{ PSR_OPT_FUNCGRAPH_CPU, "CPU  ", "|    " },
		{ PSR_OPT_FUNCGRAPH_PROC, "TASK/PID         ", " |    |          " },
		{ PSR_OPT_FUNCGRAPH_DURATION, "DURATION      ", " |   |        " },
		{ 0, "            FUNCTION CALLS\n", "             |   |   |   |\n" },
	};

	fprintf(f, "# tracer: function_graph\n#\n");
	walk_losses(f, p, "# ", ctx->bare);
	for (int line = 0; line < 2; line++) {
		fputs("# ", f);
		for (size_t i = 0; i < sizeof(col) / sizeof(col[0]); i++)
			if (!col[i].opt || (ctx->opts & col[i].opt))
				fputs(line ? col[i].bars : col[i].title, f);
	}
	while ((m = walk_earliest(s, ns))) {
		text_graph_event(f, m, &last);
		walk_advance(m);
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
			    !ev.truncated && walk_dur(p, ev.payload[2], ev.payload[2] + ev.payload[1]) >= max) {
				max = walk_dur(p, ev.payload[2], ev.payload[2] + ev.payload[1]);
				*tid = p->threads[i].tid;
				*lo = ev.payload[2];
				*hi = ev.tsc;
			}
	}
	return max;
}

int render_replay(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct render_ctx ctx = { .with_events = true, .bare = o->bare, .with_sched = o->sched,
				  .srcline = o->srcline };
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
		ctx.depths = is_graph(p);
		/* -A/-R's values in the call line, as uftrace's graph; the function tracer's text
		 * (no uftrace equivalent, no return line) keeps them as ftrace's event lines. */
		ctx.uprobes = ctx.depths;
		st = walk_streams(&ctx, p, &lo, &n);
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
		walk_use_options(&ctx, p, o->opt_set, o->opt_clear);
		if (is_graph(p))
			write_graph(out, &ctx, p, st, n);
		else
			write_function(out, &ctx, p, st, n);
		walk_streams_free(st, n);
	}
	return 0;
}
