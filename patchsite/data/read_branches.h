/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The branch profiler's counts in a trace directory (the process directory's `branches` file,
 * patchsite-data(5)), as read; render/branch_report.h prints them.
 */
#ifndef PS_READ_BRANCHES_H
#define PS_READ_BRANCHES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "psread.h"

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
 * The branches file of p into bs, as written (render/branch_report.c merges and orders):
 * 0 (an absent file is no counts: *absent), or -errno said on stderr.
 */
int psr_branches_read(const struct psr_proc *p, struct psr_branches *bs, bool *absent);

#endif
