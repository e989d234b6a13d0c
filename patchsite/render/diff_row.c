// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --diff's row values, amounts and name order, below both of its layouts:
 * patchsite's own (diff.c) and uftrace's --diff-policy (diff_policy.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diff.h"
#include "report_cols.h"

uint64_t diff_key(const struct entry *e, enum render_sort by)
{
	uint64_t v = 0;

	if (e)
		report_value(e, by, &v);
	return v;
}

void diff_put_amount(FILE *f, int64_t v, bool calls, bool change)
{
	uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;
	char sign = !change ? ' ' : v < 0 ? '-' : v > 0 ? '+' : ' ';

	if (calls)
		fprintf(f, "  %c%11llu", sign, (unsigned long long)m);
	else if (m >= 1000000000u)
		fprintf(f, "  %c%8.3f  s", sign, (double)m / 1e9);
	else if (m >= 1000000u)
		fprintf(f, "  %c%8.3f ms", sign, (double)m / 1e6);
	else if (m >= 1000u)
		fprintf(f, "  %c%8.3f us", sign, (double)m / 1e3);
	else
		fprintf(f, "  %c%8llu ns", sign, (unsigned long long)m);
}

int diff_by_name(const void *x, const void *y)
{
	return strcmp(((const struct drow *)x)->name, ((const struct drow *)y)->name);
}
