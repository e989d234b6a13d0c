/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report --diff's rows (diff.c), for its layout by uftrace's --diff-policy
 * (diff_policy.c); their values and amounts (diff_row.c), below both.
 */
#ifndef PS_RENDER_DIFF_H
#define PS_RENDER_DIFF_H

#include "report_cols.h"

struct drow {
	const char *name;
	const struct entry *a, *b;	/* NULL: not in that run */
	int64_t change;
};

/* qsort's order of drows by name (report --diff -s func). */
int diff_by_name(const void *x, const void *y);
/* The row's value of key by (0 where the function is not in that run). */
uint64_t diff_key(const struct entry *e, enum render_sort by);
/* An amount (ns as report prints them, or calls), signed for a change. */
void diff_put_amount(FILE *f, int64_t v, bool calls, bool change);
/* The rows as uftrace's report --diff shows them under o->diff_policy, re-sorted. */
void diff_policy_print(FILE *out, const struct psr_session *a, const struct psr_session *b,
		       struct drow *rows, size_t n, const struct render_opts *o);

#endif
