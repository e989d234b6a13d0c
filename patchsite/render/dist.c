// SPDX-License-Identifier: GPL-2.0-only
/* Exact percentiles and log-linear histograms of call times (dist.h), for report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

unsigned dist_bucket(uint64_t ns)
{
	unsigned k;

	if (ns < 8)
		return (unsigned)ns;
	k = 63 - (unsigned)__builtin_clzll(ns);		/* ns in [2^k, 2^(k+1)), k >= 3 */
	return 8 + (k - 3) * 8 + (unsigned)((ns >> (k - 3)) & 7);
}

uint64_t dist_bucket_lo(unsigned b)
{
	unsigned k;

	if (b < 8)
		return b;
	if (b >= DIST_BUCKETS)
		return UINT64_MAX;
	k = (b - 8) / 8 + 3;
	return (uint64_t)(8 + (b - 8) % 8) << (k - 3);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int dist_parse_percentiles(const char *list, double *pct, const char **why)
{
	const char *s = list;
	int n = 0;

	*why = NULL;
	while (*s) {
		char *end;
		double v;

		if (n == DIST_MAX_PCT) {
			*why = "at most 8 percentiles";
			return -1;
		}
		v = strtod(s, &end);
		if (end == s || (*end && *end != ',') || !(v > 0 && v <= 100)) {
			*why = "expected numbers above 0 and at most 100, comma-separated";
			return -1;
		}
		pct[n++] = v;
		s = *end ? end + 1 : end;
		if (*end && !*s) {
			*why = "a comma with nothing after it";
			return -1;
		}
	}
	if (!n) {
		*why = "no percentile given";
		return -1;
	}
	qsort(pct, (size_t)n, sizeof(*pct), cmp_double);
	return n;
}

static void swap(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

/*
 * Quickselect: v[k] becomes the value of rank k of v[lo, hi), smaller ones
 * before it, larger after.  Median of three and a three-way partition, so
 * that runs of equal times (fib's leaves) do not make it quadratic.
 */
static void select_rank(uint64_t *v, size_t lo, size_t hi, size_t k)
{
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, i = lo, gt = hi;
		uint64_t a = v[lo], b = v[mid], c = v[hi - 1];
		uint64_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);

		while (i < gt) {		/* [lo,lt) < pivot, [lt,i) == pivot, [gt,hi) > pivot */
			if (v[i] < pivot)
				swap(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
}

void dist_percentiles(uint64_t *v, size_t n, const double *pct, unsigned npct, uint64_t *out)
{
	size_t from = 0;

	for (unsigned i = 0; i < npct; i++) {
		/*
		 * Nearest rank, 1-based: ceil(p / 100 * n), in integers (p in millionths)
		 * so that 99.9% of 1000 is rank 999, not 1000 by a rounding.
		 */
		unsigned __int128 pm = (unsigned __int128)(pct[i] * 1e6 + 0.5);
		unsigned __int128 r = (pm * n + 99999999) / 100000000;
		size_t k = r < 1 ? 0 : r > n ? n - 1 : (size_t)r - 1;

		if (k < from)
			k = from;
		select_rank(v, from, n, k);
		out[i] = v[k];
		from = k;
	}
}

static void put_ns(char *b, size_t len, uint64_t ns)
{
	if (ns >= 10000000000ull)
		snprintf(b, len, "%.3f s", (double)ns / 1e9);
	else if (ns >= 10000000)
		snprintf(b, len, "%.3f ms", (double)ns / 1e6);
	else if (ns >= 10000)
		snprintf(b, len, "%.3f us", (double)ns / 1e3);
	else
		snprintf(b, len, "%llu ns", (unsigned long long)ns);
}

int dist_print_hist(FILE *out, const char *name, uint64_t *v, size_t n, const double *pct,
		    unsigned npct)
{
	static const double dflt[] = { 50, 90, 99, 99.9 };
	uint64_t pv[DIST_MAX_PCT], min = UINT64_MAX, max = 0;
	uint64_t *count = calloc(DIST_BUCKETS, sizeof(*count)), most = 0, sum = 0;
	unsigned first = DIST_BUCKETS, last = 0;
	char lo[32], hi[32];

	if (!count)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		count[dist_bucket(v[i])]++;
		min = v[i] < min ? v[i] : min;
		max = v[i] > max ? v[i] : max;
	}
	for (unsigned b = 0; b < DIST_BUCKETS; b++) {
		if (!count[b])
			continue;
		if (b < first)
			first = b;
		last = b;
		if (count[b] > most)
			most = count[b];
	}
	fprintf(out, "# %s: %zu calls; buckets of at most 12.5%% of their values, empty ones "
		"left out\n", name, n);
	if (!pct) {
		pct = dflt;
		npct = 4;
	}
	if (n) {
		dist_percentiles(v, n, pct, npct, pv);
		put_ns(lo, sizeof(lo), min);
		fprintf(out, "# min %s", lo);
		for (unsigned i = 0; i < npct; i++) {
			put_ns(lo, sizeof(lo), pv[i]);
			fprintf(out, "  p%g %s", pct[i], lo);
		}
		put_ns(lo, sizeof(lo), max);
		fprintf(out, "  max %s\n", lo);
	}
	fprintf(out, "#           from            to       count  cumul%%\n");
	for (unsigned b = first; b <= last && n; b++) {
		char bar[41];
		size_t w;

		if (!count[b])
			continue;
		sum += count[b];
		put_ns(lo, sizeof(lo), dist_bucket_lo(b));
		put_ns(hi, sizeof(hi), dist_bucket_lo(b + 1) - 1);
		w = (size_t)((count[b] * 40 + most - 1) / most);
		memset(bar, '@', w);
		bar[w] = 0;
		fprintf(out, "  %13s %13s  %10llu  %6.2f  |%-40s|\n", lo, hi,
			(unsigned long long)count[b], 100.0 * (double)sum / (double)n, bar);
	}
	free(count);
	return 0;
}
