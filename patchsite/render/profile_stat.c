// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_stat/function, as the kernel's function profiler prints it
 * (Function, Hit, Time, Avg, s^2; times in µs with 3 decimals, s^2 the
 * sample variance in µs^2), followed by what the kernel lacks: self time,
 * min and max.  Sorted by total time, longest first, as the kernel's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "profile_stat.h"

/* A time in µs, 3 decimals, as the kernel's trace_print_graph_duration writes it. */
static void put_us(FILE *out, uint64_t ns)
{
	char b[40];

	snprintf(b, sizeof(b), "%llu.%03llu us", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
	fprintf(out, "    %14s", b);
}

/* The sample variance in µs^2 (the kernel's s^2): (sum x^2 - n avg^2) / (n - 1). */
static double variance_us2(const struct psr_prof_fn *f)
{
	long double n = (long double)f->h->n, sum = (long double)f->sum;
	long double v;

	if (f->h->n < 2)
		return 0;
	v = ((long double)f->sumsq - sum * sum / n) / (n - 1);
	return v > 0 ? (double)(v / 1e6L) : 0;
}

static int cmp_total(const void *a, const void *b)
{
	const struct psr_prof_fn *x = *(const struct psr_prof_fn *const *)a;
	const struct psr_prof_fn *y = *(const struct psr_prof_fn *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

void render_profile_stat(FILE *out, const struct psr_profile *pf)
{
	const struct psr_prof_fn **v = malloc((pf->n ? pf->n : 1) * sizeof(*v));

	fprintf(out, "  Function                               Hit    Time            Avg      "
		"       s^2               Self              Min              Max\n"
		"  --------                               ---    ----            ---      "
		"       ---               ----              ---              ---\n");
	if (!v) {
		fprintf(out, "# out of memory\n");
		return;
	}
	for (size_t i = 0; i < pf->n; i++)
		v[i] = &pf->f[i];
	qsort(v, pf->n, sizeof(*v), cmp_total);
	for (size_t i = 0; i < pf->n; i++) {
		const struct psr_prof_fn *f = v[i];
		char s2[40];

		fprintf(out, "  %-30.30s  %10llu", f->name, (unsigned long long)f->h->n);
		put_us(out, f->total);
		put_us(out, f->sum / f->h->n);
		snprintf(s2, sizeof(s2), "%.3f us", variance_us2(f));
		fprintf(out, "    %14s", s2);
		put_us(out, f->self);
		put_us(out, f->h->min);
		put_us(out, f->h->max);
		fputc('\n', out);
	}
	free(v);
}

int render_profile_hist(FILE *out, const struct psr_profile *pf, const char *name)
{
	const struct psr_prof_fn *f = psr_profile_find(pf, name);

	if (!f)
		return -ENOENT;
	return dist_print_hist(out, name, f->h, NULL, 0);
}
