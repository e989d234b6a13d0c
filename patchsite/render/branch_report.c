// SPDX-License-Identifier: GPL-2.0-only
/*
 * `patchsite report --branches`: the branch profiler's counts of every
 * process of a trace directory, in the layout and order of the kernel's
 * trace_stat/branch_annotated (kernel/trace/trace_branch.c): correct,
 * incorrect, percent incorrect ("X" when never evaluated), function, the
 * file's base name, line; the worst predictions first.
 *
 * The file is read by data/read_branches.c.  The same site counted in
 * several records (a static inline function in many files of one object
 * keeps one per file; a library loaded twice) is shown once, with the sums.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "branch_report.h"

/* The kernel's get_incorrect_percent: -1 when never evaluated (128 bits: no overflow). */
static long percent(const struct psr_branch *b)
{
	if (b->correct)
		return (long)((unsigned __int128)b->incorrect * 100 /
			      ((unsigned __int128)b->correct + b->incorrect));
	return b->incorrect ? 100 : -1;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int cmp_site(const void *x, const void *y)
{
	const struct psr_branch *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	if (!c)
		c = (a->line > b->line) - (a->line < b->line);
	if (!c)
		c = strcmp(a->func, b->func);
	return c ? c : a->likely - b->likely;
}

/* The kernel's order: percent incorrect, then incorrect, descending; then correct ascending. */
static int cmp_shown(const void *x, const void *y)
{
	const struct psr_branch *a = x, *b = y;
	long pa = percent(a), pb = percent(b);

	if (pa != pb)
		return pa < pb ? 1 : -1;
	if (a->incorrect != b->incorrect)
		return a->incorrect < b->incorrect ? 1 : -1;
	if (a->correct != b->correct)
		return a->correct > b->correct ? 1 : -1;
	return cmp_site(a, b);
}

/* One record per site: the sums of its records. */
static void merge(struct psr_branches *bs)
{
	size_t k = 0;

	if (!bs->n)
		return;
	qsort(bs->b, bs->n, sizeof(*bs->b), cmp_site);
	for (size_t i = 1; i < bs->n; i++) {
		struct psr_branch *last = &bs->b[k];

		if (!cmp_site(last, &bs->b[i])) {
			last->correct = add_sat(last->correct, bs->b[i].correct);
			last->incorrect = add_sat(last->incorrect, bs->b[i].incorrect);
			free(bs->b[i].func);
			free(bs->b[i].file);
		} else {
			bs->b[++k] = bs->b[i];
		}
	}
	bs->n = k + 1;
	qsort(bs->b, bs->n, sizeof(*bs->b), cmp_shown);
}

/* The process's file, merged: 0 (an absent file is no counts), or -errno said on stderr. */
static int read_proc(const struct psr_proc *p, struct psr_branches *bs, bool *absent)
{
	int err = psr_branches_read(p, bs, absent);

	if (!err)
		merge(bs);
	return err;
}

static const char *base(const char *file)
{
	const char *s = strrchr(file, '/');

	return s ? s + 1 : file;
}

/* p NULL: no process line (the runtime's trace_stat/branch_annotated). */
static void show_text(FILE *out, const struct psr_proc *p, const struct psr_branches *bs,
		      bool absent)
{
	if (p)
		fprintf(out, "# pid %d: %s\n", p->pid, p->exe ? p->exe : "?");
	if (absent && p)
		fprintf(out, "# no branch counts recorded%s\n",
			p->has_end ? "" : " (the process did not end normally: they are written at exit)");
	if (bs->lost)
		fprintf(out, "# %" PRIu64 " branch counters lost: objects unloaded without patchsite's "
			"dlclose\n", bs->lost);
	if (bs->refused)
		fprintf(out, "# %zu damaged branch sections or entries not read (the program said "
			"which)\n", bs->refused);
	fputs(" correct incorrect  %        Function                  File              Line\n"
	      " ------- ---------  -        --------                  ----              ----\n",
	      out);
	for (size_t i = 0; i < bs->n; i++) {
		const struct psr_branch *b = &bs->b[i];
		long pc = percent(b);

		fprintf(out, "%8" PRIu64 " %8" PRIu64 " ", b->correct, b->incorrect);
		if (pc < 0)
			fputs("  X ", out);
		else
			fprintf(out, "%3ld ", pc);
		fprintf(out, "%-30.30s %-20.20s %u\n", b->func, base(b->file), b->line);
	}
}

static void show_json(FILE *out, const struct psr_proc *p, const struct psr_branches *bs,
		      bool *first)
{
	for (size_t i = 0; i < bs->n; i++) {
		const struct psr_branch *b = &bs->b[i];
		long pc = percent(b);

		fprintf(out, "%s\n{\"pid\":%d,\"function\":", *first ? "" : ",", p->pid);
		json_str(out, b->func);
		fprintf(out, ",\"file\":");
		json_str(out, b->file);
		fprintf(out, ",\"line\":%u,\"expect\":\"%s\",\"correct\":%" PRIu64 ",\"incorrect\":%"
			PRIu64 ",\"percent_incorrect\":", b->line, b->likely ? "likely" : "unlikely",
			b->correct, b->incorrect);
		if (pc < 0)
			fputs("null}", out);
		else
			fprintf(out, "%ld}", pc);
		*first = false;
	}
	if (bs->lost)
		fprintf(stderr, "patchsite: pid %d: %" PRIu64 " branch counters lost: objects unloaded "
			"without patchsite's dlclose\n", p->pid, bs->lost);
	if (bs->refused)
		fprintf(stderr, "patchsite: pid %d: %zu damaged branch sections or entries not read\n",
			p->pid, bs->refused);
}

void psr_branches_show(FILE *out, const struct psr_proc *p, struct psr_branches *bs, bool json)
{
	bool first = true;

	merge(bs);
	if (json)
		show_json(out, p, bs, &first);
	else
		show_text(out, p, bs, false);
}

/* info: one line for the process's branch counts, when it has a branches file; false: damaged. */
bool render_branches_info(FILE *out, const struct psr_proc *p)
{
	struct psr_branches bs = { 0 };
	uint64_t c = 0, i = 0;
	bool absent;

	if (read_proc(p, &bs, &absent)) {
		fprintf(out, "  branches: damaged file (said on stderr)\n");
		return false;
	}
	if (absent)
		return true;
	for (size_t k = 0; k < bs.n; k++) {
		c = add_sat(c, bs.b[k].correct);
		i = add_sat(i, bs.b[k].incorrect);
	}
	fprintf(out, "  branches: %zu sites, %" PRIu64 " predicted right, %" PRIu64 " wrong%s\n",
		bs.n, c, i, bs.lost || bs.refused ? " (some not read: report --branches says which)" : "");
	psr_branches_free(&bs);
	return true;
}

int render_branches(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	bool first = true, shown = false;
	int err = 0;

	if (o->json)
		fputc('[', out);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];
		struct psr_branches bs = { 0 };
		bool absent;
		int e;

		if (!render_proc_wanted(p, o))
			continue;
		e = read_proc(p, &bs, &absent);
		if (e) {
			err = err ? err : e;
			continue;
		}
		if (o->json)
			show_json(out, p, &bs, &first);
		else {
			if (shown)
				fputc('\n', out);
			show_text(out, p, &bs, absent);
		}
		shown = true;
		psr_branches_free(&bs);
	}
	if (o->json)
		fputs("\n]\n", out);
	return err;
}