/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency distributions for report (issue #28): percentiles of a function's
 * call times, and a text histogram of them, both from its mergeable
 * histogram (data/hist.h): memory per function, not per call.
 */
#ifndef PS_RENDER_DIST_H
#define PS_RENDER_DIST_H

#include <stdio.h>

#include "../data/hist.h"

#define DIST_MAX_PCT	8

/* --percentiles=LIST: "50,90,99.9" (each in (0, 100]), ascending; the count, or -1 (said). */
int dist_parse_percentiles(const char *list, double *pct, const char **why);

/*
 * The histogram h of name, as text: one line per non-empty bucket, after a
 * line of percentiles (pct, or 50, 90, 99, 99.9 when NULL; each the largest
 * value of its bucket, hist_percentile) and the exact extremes.
 */
int dist_print_hist(FILE *out, const char *name, const struct hist *h, const double *pct,
		    unsigned npct);

#endif
