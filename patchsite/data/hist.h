/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A mergeable latency histogram (issue #28): one per function, in the
 * runtime's function_profile tracer and in report's readers alike, so it
 * lives here, below both.
 *
 * The buckets are log-linear: values below 8 ns one bucket each; above,
 * each power of two [2^k, 2^(k+1)) cut into 8 equal buckets, so a bucket is
 * at most 12.5% of the values in it (2^(k-3) / 2^k) and 496 buckets cover
 * 64 bits.  hist_bucket and hist_bucket_lo are the whole rule.  Memory is
 * fixed (a struct hist, ~4 KB) whatever the number of calls; merging two is
 * adding them, so per-thread histograms merge when read and two runs'
 * compare bucket by bucket.
 */
#ifndef PS_DATA_HIST_H
#define PS_DATA_HIST_H

#include <stdint.h>

#define HIST_BUCKETS	496

struct hist {
	uint64_t n;			/* values counted */
	uint64_t min, max;		/* exact extremes (min UINT64_MAX while n == 0) */
	uint64_t count[HIST_BUCKETS];
};

static inline unsigned hist_bucket(uint64_t ns)
{
	unsigned k;

	if (ns < 8)
		return (unsigned)ns;
	k = 63 - (unsigned)__builtin_clzll(ns);		/* ns in [2^k, 2^(k+1)), k >= 3 */
	return 8 + (k - 3) * 8 + (unsigned)((ns >> (k - 3)) & 7);
}

/* The smallest value of bucket b (its largest: hist_bucket_lo(b + 1) - 1). */
uint64_t hist_bucket_lo(unsigned b);

void hist_init(struct hist *h);

static inline void hist_add(struct hist *h, uint64_t ns)
{
	h->n++;
	h->count[hist_bucket(ns)]++;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

/* to += from. */
void hist_merge(struct hist *to, const struct hist *from);

/*
 * Nearest-rank percentile p (in (0, 100]) of what h counted: the smallest
 * value with at least p% of the values at or below it lies in the bucket
 * this finds; the answer is that bucket's largest value, kept within
 * [min, max], so it is in the same bucket as the exact one (and exact at
 * 100 and wherever a bucket holds one value).  0 when h is empty.
 */
uint64_t hist_percentile(const struct hist *h, double p);

#endif
