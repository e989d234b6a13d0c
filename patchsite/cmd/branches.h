/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The branch profiler's counts in a trace directory (the process
 * directory's `branches` file, patchsite-data(5)), and
 * `patchsite report --branches`, which prints them as the kernel's
 * trace_stat/branch_annotated does.
 */
#ifndef PS_BRANCHES_H
#define PS_BRANCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "render.h"

struct psr_branch {
	char *func, *file;
	unsigned line;
	bool likely;		/* patchsite_likely: expected true */
	uint64_t correct, incorrect;
};

struct psr_branches {
	struct psr_branch *b;
	size_t n;
	uint64_t lost;		/* counters of objects unloaded without being read */
	size_t refused;		/* sections or entries the runtime did not read */
};

/*
 * Parse the text of a branches file (len bytes, not NUL-terminated).
 * 0, or -EINVAL with why set to "line N: what" (nothing kept), -ENOMEM.
 */
int psr_branches_parse(const char *text, size_t len, struct psr_branches *out, char *why,
		       size_t whylen);
void psr_branches_free(struct psr_branches *bs);

/*
 * One process's table (text) or its JSON objects (the caller writes the
 * brackets); merges bs.  Text with p NULL: the table alone, as the
 * kernel's file is (libpatchsite's trace_stat/branch_annotated).
 */
void psr_branches_show(FILE *out, const struct psr_proc *p, struct psr_branches *bs, bool json);

/* info's line for a process with a branches file (nothing when it has none). */
void render_branches_info(FILE *out, const struct psr_proc *p);

/* report --branches: 0, or -errno after every process was shown (damage said on stderr). */
int render_branches(FILE *out, const struct psr_session *s, const struct render_opts *o);

#endif
