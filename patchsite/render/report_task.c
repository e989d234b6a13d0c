// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --task (uftrace's report --task): one row per thread, with its
 * time in calls (the sum of its outermost completed calls: calls that no
 * call still open in the thread's record encloses), the number of calls
 * it completed, its id and name.  uftrace 0.13 prints that time as both
 * its Total and Self columns; so does this.  -f takes total, self, func
 * (the calls) and tid; -s the same keys, total by default.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_cols.h"
#include "walk.h"

struct task_row {
	int pid, tid;
	char comm[17];
	uint64_t ns, calls;
};

struct task_walk {
	struct task_row *rows;
	size_t n, cap;
};

static int task_one(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct task_walk *w = arg;
	struct task_row r = { .pid = p->pid, .tid = m->t->tid };
	size_t k;
	int err = 0;

	snprintf(r.comm, sizeof(r.comm), "%s", m->t->comm);
	for (; m->has_ev && !err; walk_advance(m)) {
		const struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY) {
			err = walk_push(m, e->id, e->tsc, 0);
		} else if (e->type == PSR_EXIT && (k = walk_match(m, e->id))) {
			/* Every call the exit closes completes; the outermost is counted in time. */
			r.calls += m->depth - k + 1;
			if (k == 1)
				r.ns += walk_dur(m->p, m->stack[0].tsc, e->tsc);
			m->depth = k - 1;
		}
	}
	if (err)
		return err;
	if (w->n == w->cap) {
		struct task_row *g = realloc(w->rows, (w->cap = w->cap * 2 + 16) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->rows = g;
	}
	w->rows[w->n++] = r;
	return 0;
}

static uint64_t task_value(const struct task_row *r, enum render_sort k)
{
	return k == SORT_CALLS ? r->calls : k == SORT_TID ? (uint64_t)r->tid : r->ns;
}

/* The keys' order (times and calls largest first, tids smallest first), then pid and tid. */
static int task_cmp(const void *a, const void *b, void *arg)
{
	const struct task_row *x = a, *y = b;
	const struct render_opts *o = arg;

	for (unsigned i = 0; i < o->nsort; i++) {
		uint64_t kx = task_value(x, o->sort[i]), ky = task_value(y, o->sort[i]);

		if (kx != ky)
			return (kx > ky) == (o->sort[i] == SORT_TID) ? 1 : -1;
	}
	if (!o->nsort && x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void task_cell(FILE *out, const struct task_row *r, enum render_sort k, bool title)
{
	static const char *const titles[] = { [SORT_TOTAL] = "Total time", [SORT_SELF] = "Self time",
					      [SORT_CALLS] = "Num funcs", [SORT_TID] = "TID" };

	if (title)
		fprintf(out, "  %12s", titles[k]);
	else if (!r)
		fputs("  ============", out);
	else if (k == SORT_CALLS || k == SORT_TID)
		fprintf(out, "  %12llu", (unsigned long long)task_value(r, k));
	else
		report_print_time(out, r->ns);
}

int render_report_task(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	static const enum render_sort dflt[] = { SORT_TOTAL, SORT_SELF, SORT_TID, SORT_CALLS };
	const enum render_sort *f = o->fields ? o->field : dflt;
	unsigned nf = o->fields ? o->nfield : 4;
	struct task_walk w = { 0 };
	int err = walk_each_thread(s, o, task_one, &w);

	if (!err && w.n)
		qsort_r(w.rows, w.n, sizeof(*w.rows), task_cmp, (void *)o);
	for (int line = 0; !err && (nf || !o->fields) && line < 2; line++) {	/* -f none: names */
		for (unsigned i = 0; i < nf; i++)
			task_cell(out, NULL, f[i], !line);
		fputs(line ? "  ====================\n" : "  Task name\n", out);
	}
	for (size_t i = 0; !err && i < w.n; i++) {
		for (unsigned c = 0; c < nf; c++)
			task_cell(out, &w.rows[i], f[c], false);
		fprintf(out, "  %s\n", w.rows[i].comm);
	}
	free(w.rows);
	return err;
}
