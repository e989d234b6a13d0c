/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function_profile tracer's counts as text (profile_stat.c): the
 * kernel's trace_stat/function table, with self, min and max added, and
 * one function's histogram (trace_stat/function_hist).  The runtime's
 * control files and `patchsite report` print through these.
 */
#ifndef PS_RENDER_PROFILE_STAT_H
#define PS_RENDER_PROFILE_STAT_H

#include <stdio.h>

#include "../data/read_profile.h"

/* Every function, longest total first. */
void render_profile_stat(FILE *out, const struct psr_profile *pf);
/* name's histogram; -ENOENT when no call of it was counted. */
int render_profile_hist(FILE *out, const struct psr_profile *pf, const char *name);

#endif
