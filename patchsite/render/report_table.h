/* SPDX-License-Identifier: GPL-2.0-only */
/* report.c's table of a recording, for the views built on it (diff.c). */
#ifndef PS_RENDER_REPORT_TABLE_H
#define PS_RENDER_REPORT_TABLE_H

#include "render.h"
#include "table.h"

/*
 * Every function's row of report (calls, total, self, min, max, sum), the
 * processes o wants merged by name; t is filled (table_free it), error or not.
 */
int report_table(const struct psr_session *s, const struct render_opts *o, struct table *t);

#endif
