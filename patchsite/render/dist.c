// SPDX-License-Identifier: GPL-2.0-only
/* Percentiles and text histograms of call times (dist.h), for report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

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

int dist_print_hist(FILE *out, const char *name, const struct hist *h, const double *pct,
		    unsigned npct)
{
	static const double dflt[] = { 50, 90, 99, 99.9 };
	uint64_t most = 0, sum = 0;
	unsigned first = HIST_BUCKETS, last = 0;
	char lo[32], hi[32];

	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		if (!h->count[b])
			continue;
		if (b < first)
			first = b;
		last = b;
		if (h->count[b] > most)
			most = h->count[b];
	}
	fprintf(out, "# %s: %llu calls; buckets of at most 12.5%% of their values, empty ones "
		"left out\n", name, (unsigned long long)h->n);
	if (!pct) {
		pct = dflt;
		npct = 4;
	}
	if (h->n) {
		put_ns(lo, sizeof(lo), h->min);
		fprintf(out, "# min %s", lo);
		for (unsigned i = 0; i < npct; i++) {
			put_ns(lo, sizeof(lo), hist_percentile(h, pct[i]));
			fprintf(out, "  p%g %s", pct[i], lo);
		}
		put_ns(lo, sizeof(lo), h->max);
		fprintf(out, "  max %s\n", lo);
	}
	fprintf(out, "#           from            to       count  cumul%%\n");
	for (unsigned b = first; b <= last && h->n; b++) {
		char bar[41];
		size_t w;

		if (!h->count[b])
			continue;
		sum += h->count[b];
		put_ns(lo, sizeof(lo), hist_bucket_lo(b));
		put_ns(hi, sizeof(hi), hist_bucket_lo(b + 1) - 1);
		w = (size_t)((h->count[b] * 40 + most - 1) / most);
		memset(bar, '@', w);
		bar[w] = 0;
		fprintf(out, "  %13s %13s  %10llu  %6.2f  |%-40s|\n", lo, hi,
			(unsigned long long)h->count[b], 100.0 * (double)sum / (double)h->n, bar);
	}
	return 0;
}
