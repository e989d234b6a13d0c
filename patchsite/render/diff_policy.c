// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --diff with uftrace's --diff-policy and --sort-column
 * (uftrace-report(1)): per function the change of its total time, self
 * time and calls, B - A (compact), or A's, B's and the change of each
 * (full); as amounts or as percentages of A's (percent, N/A where A has
 * none); sorted by the change of the -s key largest first, by its size
 * (abs, the default) or its sign (no-abs, gains first); with full,
 * --sort-column 0 or 1 sorts by A's or B's value instead.  Every column
 * is B - A: uftrace 0.13 prints its compact time columns as A - B beside
 * its calls and percentages as B - A.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

int render_parse_diff_policy(struct render_opts *o, const char *list, const char **bad)
{
	static const struct { const char *name; unsigned set, clear; } words[] = {
		{ "abs", 0, RENDER_DIFF_NOABS }, { "no-abs", RENDER_DIFF_NOABS, 0 },
		{ "percent", RENDER_DIFF_PERCENT, 0 }, { "no-percent", 0, RENDER_DIFF_PERCENT },
		{ "full", RENDER_DIFF_FULL, 0 }, { "compact", 0, RENDER_DIFF_FULL },
	};
	static char word[32];
	const char *p = list;

	o->diff_policy |= RENDER_DIFF_SET;
	do {
		size_t len = strcspn(p, ","), i;

		snprintf(word, sizeof(word), "%.*s", (int)(len < sizeof(word) ? len : sizeof(word) - 1), p);
		*bad = word;
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (len == strlen(words[i].name) && !strncmp(p, words[i].name, len))
				break;
		if (i == sizeof(words) / sizeof(words[0]))
			return -EINVAL;
		o->diff_policy = (o->diff_policy | words[i].set) & ~words[i].clear;
		p += len;
	} while (*p++ == ',');
	return 0;
}

static const struct render_opts *sort_opts;	/* qsort's context (diff_policy_print) */

/* The value a row is sorted by: A's, B's or the change of the key (its size under abs). */
static int64_t sort_value(const struct drow *r)
{
	const struct render_opts *o = sort_opts;
	enum render_sort by = o->nsort && o->sort[0] != SORT_FUNC ? o->sort[0] : SORT_TOTAL;
	int col = (o->diff_policy & RENDER_DIFF_FULL) && o->sort_column >= 0 ? o->sort_column : 2;
	int64_t ch;

	if (col == 0)
		return (int64_t)diff_key(r->a, by);
	if (col == 1)
		return (int64_t)diff_key(r->b, by);
	ch = (int64_t)(diff_key(r->b, by) - diff_key(r->a, by));
	return (o->diff_policy & RENDER_DIFF_NOABS) || ch >= 0 ? ch : -ch;
}

static int by_policy(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	int64_t va = sort_value(a), vb = sort_value(b);

	if (sort_opts->nsort && sort_opts->sort[0] == SORT_FUNC)
		return diff_by_name(x, y);	/* -s func */

	if (va != vb)
		return va > vb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* A change as uftrace prints one, its sign on the number: +24, -1.601 us, +0. */
static void put_change(FILE *out, int64_t v, bool calls)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char b[32];

	if (calls)
		snprintf(b, sizeof(b), "%c%llu", v < 0 ? '-' : '+', (unsigned long long)m);
	else if (m >= 1000000000u)
		snprintf(b, sizeof(b), "%c%.3f  s", v < 0 ? '-' : '+', (double)m / 1e9);
	else if (m >= 1000000u)
		snprintf(b, sizeof(b), "%c%.3f ms", v < 0 ? '-' : '+', (double)m / 1e6);
	else if (m >= 1000u)
		snprintf(b, sizeof(b), "%c%.3f us", v < 0 ? '-' : '+', (double)m / 1e3);
	else
		snprintf(b, sizeof(b), "%c%llu ns", v < 0 ? '-' : '+', (unsigned long long)m);
	fprintf(out, "  %12s", b);
}

/* One column of the change (compact) or of A's, B's and the change (full). */
static void put_group(FILE *out, const struct drow *r, enum render_sort k, unsigned policy)
{
	bool calls = k == SORT_CALLS;
	uint64_t va = diff_key(r->a, k), vb = diff_key(r->b, k);
	int64_t ch = (int64_t)(vb - va);

	if (policy & RENDER_DIFF_FULL) {
		if (!calls && !r->a)
			fprintf(out, "  %12s", "-");
		else
			diff_put_amount(out, (int64_t)va, calls, false);
		if (!calls && !r->b)
			fprintf(out, "  %12s", "-");
		else
			diff_put_amount(out, (int64_t)vb, calls, false);
	}
	if (calls || !(policy & RENDER_DIFF_PERCENT))
		put_change(out, ch, calls);
	else if (!va || !r->a || !r->b)
		fprintf(out, "  %12s", "N/A");
	else
		fprintf(out, "  %+11.2f%%", 100.0 * (double)ch / (double)va);
}

void diff_policy_print(FILE *out, const struct psr_session *a, const struct psr_session *b,
		       struct drow *rows, size_t n, const struct render_opts *o)
{
	static const enum render_sort cols[] = { SORT_TOTAL, SORT_SELF, SORT_CALLS };
	static const char *const titles[] = { "Total time", "Self time", "Calls" };
	bool full = o->diff_policy & RENDER_DIFF_FULL, shown[3] = { true, true, true };

	/* -f: those of the three asked, in uftrace's order whatever -f's. */
	for (int i = 0; i < 3 && o->fields; i++) {
		shown[i] = false;
		for (unsigned k = 0; k < o->nfield; k++)
			shown[i] |= o->field[k] == cols[i];
	}
	sort_opts = o;
	if (n)
		qsort(rows, n, sizeof(*rows), by_policy);
	fprintf(out, "# A (base): %s\n# B (diff): %s\n# each change is B - A\n", a->dir, b->dir);
	for (int i = 0; i < 3; i++)
		if (!shown[i])
			continue;
		else if (full)
			fprintf(out, "  %33s (diff)", titles[i]);
		else
			fprintf(out, "  %12s", titles[i]);
	fputs("  Function\n", out);
	for (int i = 0; i < 3; i++)
		if (shown[i])
			fputs(full ? "  ========================================" : "  ============", out);
	fputs("  ====================\n", out);
	for (size_t i = 0; i < n; i++) {
		for (int c = 0; c < 3; c++)
			if (shown[c])
				put_group(out, &rows[i], cols[c], o->diff_policy);
		fprintf(out, "  %s\n", rows[i].name);
	}
}
