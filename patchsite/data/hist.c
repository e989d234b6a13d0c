// SPDX-License-Identifier: GPL-2.0-only
/* The mergeable log-linear latency histogram (hist.h). */
#include <string.h>

#include "hist.h"

uint64_t hist_bucket_lo(unsigned b)
{
	unsigned k;

	if (b < 8)
		return b;
	if (b >= HIST_BUCKETS)
		return UINT64_MAX;
	k = (b - 8) / 8 + 3;
	return (uint64_t)(8 + (b - 8) % 8) << (k - 3);
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_merge(struct hist *to, const struct hist *from)
{
	to->n += from->n;
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		to->count[b] += from->count[b];
	if (from->min < to->min)
		to->min = from->min;
	if (from->max > to->max)
		to->max = from->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	/*
	 * Nearest rank, 1-based: ceil(p / 100 * n), in integers (p in millionths)
	 * so that 99.9% of 1000 is rank 999, not 1000 by a rounding.
	 */
	unsigned __int128 pm = (unsigned __int128)(p * 1e6 + 0.5);
	unsigned __int128 r = (pm * h->n + 99999999) / 100000000;
	uint64_t rank = r < 1 ? 1 : r > h->n ? h->n : (uint64_t)r, seen = 0;
	unsigned b;

	if (!h->n)
		return 0;
	for (b = 0; b < HIST_BUCKETS - 1; b++) {
		seen += h->count[b];
		if (seen >= rank)
			break;
	}
	uint64_t v = hist_bucket_lo(b + 1) - 1;

	return v > h->max ? h->max : v < h->min ? h->min : v;
}
