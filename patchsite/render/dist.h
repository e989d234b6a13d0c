/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Latency distributions for report (issue #28): exact percentiles of a
 * function's call times, and a log-linear histogram of them (dist.c).
 *
 * The histogram's buckets: values below 8 ns one each; above, each power
 * of two [2^k, 2^(k+1)) cut into 8 equal buckets, so a bucket is at most
 * 12.5% of the values in it (2^(k-3) / 2^k) and 496 buckets cover 64 bits.
 * dist_bucket and dist_bucket_lo are the whole rule: a profile kept in
 * memory per function (the function_profile tracer, runtime work) can
 * count into the same buckets and be merged by adding them.
 */
#ifndef PS_RENDER_DIST_H
#define PS_RENDER_DIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DIST_BUCKETS	496
#define DIST_MAX_PCT	8

unsigned dist_bucket(uint64_t ns);
/* The smallest value of bucket b (its largest: dist_bucket_lo(b + 1) - 1). */
uint64_t dist_bucket_lo(unsigned b);

/* --percentiles=LIST: "50,90,99.9" (each in (0, 100]), ascending; the count, or -1 (said). */
int dist_parse_percentiles(const char *list, double *pct, const char **why);

/*
 * Nearest-rank percentiles of the n values v (reordered, never sorted
 * whole: one selection per percentile, each on what is above the last):
 * out[i] is the smallest value with at least pct[i]% of the values at or
 * below it.  pct ascending; n > 0.
 */
void dist_percentiles(uint64_t *v, size_t n, const double *pct, unsigned npct, uint64_t *out);

/*
 * The histogram of the n values v of name, as text: one line per non-empty
 * bucket, after a line of exact percentiles (pct, or 50, 90, 99, 99.9 when
 * NULL) and the extremes.  v is reordered.
 */
int dist_print_hist(FILE *out, const char *name, uint64_t *v, size_t n, const double *pct,
		    unsigned npct);

#endif
