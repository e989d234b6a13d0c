// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --diff=DIR2: per function, this recording (A) against another (B)
 * and the change B - A of the --sort key (total time by default), largest
 * change first, as uftrace's `report --diff` (issue #28).  Each recording
 * is report's table with its processes merged by function name; a
 * function found in one only has zeros for the other.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "json.h"
#include "report_cols.h"
#include "report_table.h"

static int by_change(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	uint64_t ma = a->change < 0 ? -(uint64_t)a->change : (uint64_t)a->change;
	uint64_t mb = b->change < 0 ? -(uint64_t)b->change : (uint64_t)b->change;

	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->key, ((const struct entry *)y)->key);
}

int render_report_diff(FILE *out, const struct psr_session *a, const struct psr_session *b,
		       const struct render_opts *o)
{
	struct table *ta = calloc(1, sizeof(*ta)), *tb = calloc(1, sizeof(*tb));
	struct drow *rows = NULL;
	size_t na = 0, nb = 0, n = 0;
	enum render_sort by = o->nsort && o->sort[0] != SORT_FUNC ? o->sort[0] : SORT_TOTAL;
	bool calls = by == SORT_CALLS, names = o->nsort && o->sort[0] == SORT_FUNC;
	int err = -ENOMEM;

	if (!ta || !tb)
		goto out;
	err = report_table(a, o, ta);
	if (!err)
		err = report_table(b, o, tb);
	if (err)
		goto out;
	/*
	 * The same names in both tables (a row of no calls where a run has none),
	 * then both in name order: row i of one is row i of the other.
	 */
	err = -ENOMEM;
	for (size_t i = 0; i < tb->cap; i++)
		if (tb->e[i].key && !table_lookup(ta, tb->e[i].key, 0))
			goto out;
	for (size_t i = 0; i < ta->cap; i++)
		if (ta->e[i].key && !table_lookup(tb, ta->e[i].key, 0))
			goto out;
	na = table_pack(ta);
	nb = table_pack(tb);
	if (na != nb)
		goto out;	/* cannot be: each holds the other's names */
	if (na) {	/* an empty table has no array (qsort's base must not be NULL) */
		qsort(ta->e, na, sizeof(*ta->e), by_name);
		qsort(tb->e, nb, sizeof(*tb->e), by_name);
	}
	rows = calloc(na + 1, sizeof(*rows));
	if (!rows)
		goto out;
	for (size_t i = 0; i < na; i++)
		rows[n++] = (struct drow){ ta->e[i].key, ta->e[i].calls ? &ta->e[i] : NULL,
					   tb->e[i].calls ? &tb->e[i] : NULL, 0 };
	for (size_t i = 0; i < n; i++)
		rows[i].change = (int64_t)(diff_key(rows[i].b, by) - diff_key(rows[i].a, by));
	if (n)	/* -s func: the names' order, the change of the total time shown */
		qsort(rows, n, sizeof(*rows), names ? diff_by_name : by_change);
	err = 0;
	if (o->diff_policy || o->fields) {	/* -f: uftrace's layout, its columns */
		diff_policy_print(out, a, b, rows, n, o);
		goto out;
	}
	if (o->json) {
		fprintf(out, "[");
		for (size_t i = 0; i < n; i++) {
			const struct entry *x = rows[i].a, *y = rows[i].b;

			fprintf(out, "%s\n{\"name\":", i ? "," : "");
			json_str(out, rows[i].name);
			fprintf(out, ",\"calls_a\":%llu,\"calls_b\":%llu,\"total_a_ns\":%llu,"
				"\"total_b_ns\":%llu,\"self_a_ns\":%llu,\"self_b_ns\":%llu,"
				"\"key\":\"%s\",\"change\":%lld}",
				(unsigned long long)(x ? x->calls : 0),
				(unsigned long long)(y ? y->calls : 0),
				(unsigned long long)(x ? x->total : 0),
				(unsigned long long)(y ? y->total : 0),
				(unsigned long long)(x ? x->self : 0),
				(unsigned long long)(y ? y->self : 0), by == SORT_CALLS ? "calls" : report_key_name(by),
				(long long)rows[i].change);
		}
		fprintf(out, "\n]\n");
		goto out;
	}
	fprintf(out, "# A: %s, B: %s; %s per function, sorted by the change B - A\n", a->dir,
		b->dir, calls ? "calls" : by == SORT_SELF ? "self time" :
		by == SORT_AVG ? "average time" : by == SORT_MAX ? "maximum time" :
		by == SORT_TOTAL ? "total time" : report_key_name(by));
	if (names)
		fprintf(out, "# rows by function name\n");
	fprintf(out, "             A             B        Change        %%     Calls A     Calls B"
		"  Function\n");
	fprintf(out, "  ============  ============  ============  ======  ==========  =========="
		"  ====================\n");
	for (size_t i = 0; i < n; i++) {
		uint64_t ka = diff_key(rows[i].a, by);

		diff_put_amount(out, (int64_t)ka, calls, false);
		diff_put_amount(out, (int64_t)diff_key(rows[i].b, by), calls, false);
		diff_put_amount(out, rows[i].change, calls, true);
		if (!rows[i].a)
			fprintf(out, "  %6s", "new");
		else if (!rows[i].b)
			fprintf(out, "  %6s", "gone");
		else if (ka)
			fprintf(out, "  %+5.0f%%", 100.0 * (double)rows[i].change / (double)ka);
		else
			fprintf(out, "  %6s", "-");
		fprintf(out, "  %10llu  %10llu  %s\n",
			(unsigned long long)(rows[i].a ? rows[i].a->calls : 0),
			(unsigned long long)(rows[i].b ? rows[i].b->calls : 0), rows[i].name);
	}
out:
	free(rows);
	if (ta)
		table_free(ta);
	if (tb)
		table_free(tb);
	free(ta);
	free(tb);
	return err;
}
