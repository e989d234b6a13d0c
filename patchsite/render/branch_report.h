/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `patchsite report --branches` and info's line: the branch profiler's counts
 * (data/read_branches.h) printed as the kernel's trace_stat/branch_annotated does.
 */
#ifndef PS_BRANCH_REPORT_H
#define PS_BRANCH_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "../data/read_branches.h"
#include "render.h"

/*
 * One process's table (text) or its JSON objects (the caller writes the
 * brackets); merges bs.  Text with p NULL: the table alone, as the
 * kernel's file is (libpatchsite's trace_stat/branch_annotated).
 */
void psr_branches_show(FILE *out, const struct psr_proc *p, struct psr_branches *bs, bool json);

/* info's line for a process with a branches file (nothing when it has none). */
bool render_branches_info(FILE *out, const struct psr_proc *p);

/* report --branches: 0, or -errno after every process was shown (damage said on stderr). */
int render_branches(FILE *out, const struct psr_session *s, const struct render_opts *o);

#endif
