// SPDX-License-Identifier: GPL-2.0-only
/* The per-function report (report): calls, total, self, average, min and max time, sorted. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "../data/read_profile.h"
#include "json.h"
#include "report_cols.h"
#include "report_table.h"
#include "table.h"
#include "walk.h"

/* Is function id still running in this thread (below the top of its stack)? */
static bool active(const struct stream *m, uint32_t id)
{
	for (size_t i = m->depth; i-- > 0;)
		if (m->stack[i].id == id)
			return true;
	return false;
}

/* The calls an exit at depth k closes, innermost first, each accounted. */
/* report --srcline: where the row's function is, from one call of it (the command resolves it). */
static void note_src(const struct stream *m, struct table *t, const char *name, int pid,
		     uint32_t id, uint64_t tsc)
{
	struct entry *e = table_lookup(t, name, pid);

	if (e && !e->src_p) {
		e->src_p = m->p;
		e->src_id = id;
		e->src_tsc = tsc;
	}
}

static int close_calls(struct stream *m, size_t k, uint64_t tsc, struct table *t, int pid,
		       bool src)
{
	char buf[32];

	while (m->depth >= k) {
		struct frame *fr = &m->stack[--m->depth];
		uint64_t d = walk_dur(m->p, fr->tsc, tsc), self = d > fr->child_ns ? d - fr->child_ns : 0;

		if (m->depth)
			m->stack[m->depth - 1].child_ns += d;
		const char *name = psr_site_name(m->p, fr->id, fr->tsc, buf, sizeof(buf));
		bool nested = active(m, fr->id), known = m->t->sched == PSR_SCHED_ON;
		uint64_t off = known && !nested ? psr_offcpu_ns(m->p, m->t, fr->tsc, tsc) : 0;

		if (table_account(t, name, name != buf, pid, d, self, nested) ||
		    table_account_off(t, name, name != buf, pid, off, nested, known))
			return -ENOMEM;
		if (src)
			note_src(m, t, name, pid, fr->id, fr->tsc);
	}
	return 0;
}

static int report_thread(struct stream *m, struct table *t, int pid, bool src)
{
	char buf[32];
	int err = 0;
	size_t k;

	for (; m->has_ev && !err; walk_advance(m)) {
		struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY)
			err = walk_push(m, e->id, e->tsc, 0);
		else if (e->type == PSR_EXIT && (k = walk_match(m, e->id)))
			err = close_calls(m, k, e->tsc, t, pid, src);
		else if (e->type == PSR_FUNC) {
			const char *name = psr_site_name(m->p, e->id, e->tsc, buf, sizeof(buf));

			err = table_account_untimed(t, name, name != buf, pid);
			if (!err && src)
				note_src(m, t, name, pid, e->id, e->tsc);
		}
	}
	return err;
}

/* --percentiles: the entry's, or false when it has no timed call (function tracer). */
static bool entry_percentiles(const struct entry *e, const struct render_opts *o, uint64_t *out)
{
	if (!e->hist || !e->hist->n)
		return false;
	for (unsigned k = 0; k < o->npct; k++)
		out[k] = hist_percentile(e->hist, o->pct[k]);
	return true;
}

/* --hist=FUNC: its histogram (one per process with several); -ENOENT when it has no timed call. */
static int report_hist(FILE *out, struct table *t, size_t n, const struct render_opts *o,
		       bool by_pid)
{
	char name[300];
	int err = -ENOENT;

	for (size_t i = 0; i < n; i++) {
		struct entry *e = &t->e[i];

		const char *func = o->hist;

		if (strcmp(e->key, func) || !e->hist)
			continue;
		if (by_pid)
			snprintf(name, sizeof(name), "%s (pid %d)", func, e->pid);
		else
			snprintf(name, sizeof(name), "%s", func);
		err = dist_print_hist(out, name, e->hist, o->npct ? o->pct : NULL, o->npct);
		if (err)
			break;
	}
	return err;
}

/* On-CPU and off-CPU columns: for a record with scheduler switches asked for or found. */
static bool sched_columns(const struct psr_session *s, const struct render_opts *o)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];

		if (!render_proc_wanted(p, o))
			continue;
		if (p->sched_asked == 1)
			return true;
		for (size_t k = 0; k < p->nthreads; k++)
			if (p->threads[k].sched != PSR_SCHED_NONE)
				return true;
	}
	return false;
}

/* A function's time on and off the CPU (of its total), or ? where a thread's is unknown. */
static void print_cpu_times(FILE *out, const struct entry *e)
{
	if (e->off_unknown) {
		fprintf(out, "  %11s  %11s", "?", "?");
		return;
	}
	report_print_time(out, e->total > e->off ? e->total - e->off : 0);
	report_print_time(out, e->off);
}

static void json_cpu_times(FILE *out, const struct entry *e)
{
	if (e->off_unknown || e->calls == e->untimed)
		fprintf(out, ",\"oncpu_ns\":null,\"offcpu_ns\":null");
	else
		fprintf(out, ",\"oncpu_ns\":%llu,\"offcpu_ns\":%llu",
			(unsigned long long)(e->total > e->off ? e->total - e->off : 0),
			(unsigned long long)e->off);
}

/* report -f (uftrace's fields, --avg-total, --avg-self): those columns, then the function's. */
static void print_fields(FILE *out, const struct table *t, size_t n, const struct render_opts *o,
			 bool by_pid)
{
	/* -f none: the names alone, as uftrace prints them (no header). */
	if (o->nfield || by_pid) {
		report_fields_titles(out, o);
		fprintf(out, "  %sFunction\n", by_pid ? "    Pid  " : "");
		report_fields_bars(out, o);
		fprintf(out, "  %s====================\n", by_pid ? "=======  " : "");
	}
	for (size_t i = 0; i < n; i++) {
		report_fields_row(out, o, &t->e[i]);
		if (by_pid)
			fprintf(out, "  %7d", t->e[i].pid);
		fprintf(out, "  %s\n", t->e[i].key);
	}
}

struct report_walk {
	struct table t;
	bool by_pid;			/* several processes: one row per function and process */
	bool srcline;			/* --srcline: each row remembers a call (note_src) */
};

static int report_one(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct report_walk *w = arg;

	return report_thread(m, &w->t, w->by_pid ? p->pid : 0, w->srcline);
}

/*
 * function_profile's counts of the processes reported (their `profile` files), added to the
 * rows of the recorded calls: a run of that tracer has only these.
 */
static int report_profiles(const struct psr_session *s, const struct render_opts *o,
			   struct report_walk *w)
{
	int err = 0;

	for (size_t i = 0; i < s->nprocs && !err; i++) {
		struct psr_profile pf;
		bool absent;

		if (!render_proc_wanted(&s->procs[i], o))
			continue;
		err = psr_profile_read(&s->procs[i], &pf, &absent);
		if (absent && psr_proc_profiled(&s->procs[i]))
			fprintf(stderr, "patchsite: %s: function_profile counted in memory, but there is "
				"no profile file: the process did not end by exit(3) or a snapshot "
				"(a signal, _exit or a crash): those counts are lost\n",
				s->procs[i].dir);
		for (size_t k = 0; !err && k < pf.n; k++) {
			struct psr_prof_fn *f = &pf.f[k];

			err = table_account_counted(&w->t, f->name, w->by_pid ? s->procs[i].pid : 0,
						    f->h, f->total, f->sum, f->self);
		}
		psr_profile_free(&pf);
	}
	return err;
}

/* report_table.h: the rows of s, one per function (processes merged), for diff.c. */
int report_table(const struct psr_session *s, const struct render_opts *o, struct table *t)
{
	struct report_walk *w = calloc(1, sizeof(*w));	/* its name cache is large for the stack */
	int err;

	if (!w)
		return -ENOMEM;
	err = walk_each_thread(s, o, report_one, w);
	if (!err)
		err = report_profiles(s, o, w);
	*t = w->t;
	free(w);
	return err;
}

int render_report(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	static struct report_walk w;	/* its name cache is large for the stack */
	struct table *t;
	size_t nprocs = 0, n;
	bool cpu_cols = sched_columns(s, o);
	int err;

	memset(&w, 0, sizeof(w));
	w.t.keep = o->npct || o->hist;
	w.t.keep_only = o->hist;
	for (size_t i = 0; i < s->nprocs; i++)
		nprocs += render_proc_wanted(&s->procs[i], o);
	w.by_pid = nprocs > 1;
	w.srcline = o->srcline != NULL;
	err = walk_each_thread(s, o, report_one, &w);
	if (!err)
		err = report_profiles(s, o, &w);
	t = &w.t;
	n = table_pack(t);
	if (n)
		qsort_r(t->e, n, sizeof(*t->e), report_cmp, (void *)o);
	if (o->hist) {
		if (!err)
			err = report_hist(out, t, n, o, nprocs > 1);
	} else if (o->json) {
		fprintf(out, "[");
		for (size_t i = 0; i < n; i++) {
			struct entry *e = &t->e[i];

			fprintf(out, "%s\n{\"name\":", i ? "," : "");
			json_str(out, e->key);
			uint64_t timed = e->calls - e->untimed;

			fprintf(out, ",\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,\"avg_ns\":%llu,"
				"\"min_ns\":%llu,\"max_ns\":%llu", (unsigned long long)e->calls,
				(unsigned long long)e->total, (unsigned long long)e->self,
				(unsigned long long)(timed ? e->sum / timed : 0),
				(unsigned long long)(timed ? e->min : 0), (unsigned long long)e->max);
			if (e->untimed)
				fprintf(out, ",\"untimed_calls\":%llu", (unsigned long long)e->untimed);
			if (cpu_cols)
				json_cpu_times(out, e);
			if (o->npct) {
				uint64_t pv[DIST_MAX_PCT];
				bool has = entry_percentiles(e, o, pv);

				for (unsigned k = 0; k < o->npct; k++)
					if (has)
						fprintf(out, ",\"p%g_ns\":%llu", o->pct[k],
							(unsigned long long)pv[k]);
					else
						fprintf(out, ",\"p%g_ns\":null", o->pct[k]);
			}
			if (nprocs > 1)
				fprintf(out, ",\"pid\":%d", e->pid);
			fprintf(out, "}");
		}
		fprintf(out, "\n]\n");
	} else {
		uint64_t untimed = 0, timed = 0;

		for (size_t i = 0; i < s->nprocs; i++)
			if (render_proc_wanted(&s->procs[i], o))
				walk_losses(out, &s->procs[i], "# ", o->bare);
		for (size_t i = 0; i < n; i++)
			untimed += t->e[i].untimed, timed += t->e[i].calls - t->e[i].untimed;
		/* Tracers switched live (function_graph, then function): never one mixed row. */
		if (untimed && timed)
			fprintf(out, "# %llu of %llu calls were recorded by the function tracer, which "
				"takes no times: counted in Calls, kept out of the time columns\n",
				(unsigned long long)untimed, (unsigned long long)(untimed + timed));
		if (o->fields) {
			print_fields(out, t, n, o, nprocs > 1);
			goto done;
		}
		fprintf(out, "    Total time     Self time%s       Calls       Average           Min"
			"           Max", cpu_cols ? "        On-CPU       Off-CPU" : "");
		for (unsigned k = 0; k < o->npct; k++) {
			char h[16];

			snprintf(h, sizeof(h), "p%g", o->pct[k]);
			fprintf(out, "  %12s", h);
		}
		fprintf(out, "  %sFunction\n", nprocs > 1 ? "    Pid  " : "");
		fprintf(out, "  ============  ============%s  ==========  ============  ============"
			"  ============", cpu_cols ? "  ============  ============" : "");
		for (unsigned k = 0; k < o->npct; k++)
			fprintf(out, "  ============");
		fprintf(out, "  %s====================\n", nprocs > 1 ? "=======  " : "");
		for (size_t i = 0; i < n; i++) {
			struct entry *e = &t->e[i];
			char where[4096];

			report_print_time(out, e->total);
			report_print_time(out, e->self);
			if (cpu_cols)
				print_cpu_times(out, e);
			fprintf(out, "  %10llu", (unsigned long long)e->calls);
			report_print_time(out, e->calls > e->untimed ? e->sum / (e->calls - e->untimed) : 0);
			report_print_time(out, e->calls > e->untimed ? e->min : 0);
			report_print_time(out, e->max);
			if (o->npct) {
				uint64_t pv[DIST_MAX_PCT];
				bool has = entry_percentiles(e, o, pv);

				for (unsigned k = 0; k < o->npct; k++)
					if (has)
						report_print_time(out, pv[k]);
					else
						fprintf(out, "  %12s", "-");
			}
			if (nprocs > 1)
				fprintf(out, "  %7d", e->pid);
			fprintf(out, "  %s", e->key);
			if (o->srcline && e->src_p &&
			    o->srcline(e->src_p, e->src_id, e->src_tsc, where, sizeof(where)))
				fprintf(out, " /* %s */", where);
			fputc('\n', out);
		}
	}
done:
	table_free(t);
	return err;
}
