/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function_profile tracer's counts (a process directory's `profile`
 * file, patchsite-data(5); the runtime's trace_stat/function reads the
 * same text live), parsed and merged over threads per function.
 *
 * The text, version 1:
 *	patchsite-profile 1
 *	thread TID COMM
 *	f HITS TOTAL SUM SELF MIN MAX SUMSQ NAME
 *	h BUCKET:COUNT ...
 * times in ns (TOTAL: outermost calls only; SUM: every call), SUMSQ the
 * sum of squared times in ns^2 as 0x-hexadecimal (128 bits), NAME the
 * rest of the line; an `h` line follows each `f` line with its non-empty
 * buckets of data/hist.h, ascending, adding up to HITS.
 */
#ifndef PS_READ_PROFILE_H
#define PS_READ_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "psread.h"

#define PSR_PROFILE_VERSION	1

struct psr_prof_fn {
	char *name;
	uint64_t total, sum, self;	/* ns; hits, min and max are h's */
	unsigned __int128 sumsq;	/* ns^2 */
	struct hist *h;
};

struct psr_profile {
	struct psr_prof_fn *f;		/* one per function, every thread's merged */
	size_t n;
	size_t threads;
};

/*
 * Parse a profile text (len bytes, not NUL-terminated), merging threads.
 * 0, or -EINVAL with why set to "line N: what" (nothing kept), -ENOMEM.
 */
int psr_profile_parse(const char *text, size_t len, struct psr_profile *out, char *why,
		      size_t whylen);
void psr_profile_free(struct psr_profile *pf);
/* The function called name, or NULL. */
const struct psr_prof_fn *psr_profile_find(const struct psr_profile *pf, const char *name);

/* Did p run function_profile (its tracer at the start, or one it switched to)? */
bool psr_proc_profiled(const struct psr_proc *p);

/*
 * The profile file of p into pf: 0 (an absent file is no profile: *absent), or -errno said on
 * stderr naming the file.
 */
int psr_profile_read(const struct psr_proc *p, struct psr_profile *pf, bool *absent);

#endif
