/* SPDX-License-Identifier: GPL-2.0-only */
/* report's sort keys and columns by uftrace's names (report_cols.c), for report.c and diff.c. */
#ifndef PS_RENDER_REPORT_COLS_H
#define PS_RENDER_REPORT_COLS_H

#include "render.h"
#include "table.h"

/* A time as uftrace prints it: 3 decimals and a unit, in 12 columns after two spaces. */
void report_print_time(FILE *f, uint64_t ns);
/* The row's value of key k (ns, or calls); false when it has none (no timed call). */
bool report_value(const struct entry *e, enum render_sort k, uint64_t *v);
/* uftrace's name of key k. */
const char *report_key_name(enum render_sort k);
/* qsort_r's order of report's rows under o's keys (largest first, names A to Z), then pid, name. */
int report_cmp(const void *a, const void *b, void *o);
/* report -f: the columns' titles, the line under them, and a row's cells (then the function's). */
void report_fields_titles(FILE *out, const struct render_opts *o);
void report_fields_bars(FILE *out, const struct render_opts *o);
void report_fields_row(FILE *out, const struct render_opts *o, const struct entry *e);

#endif
