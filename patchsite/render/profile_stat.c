// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace_stat/function, as the kernel's function profiler prints it
 * (kernel/trace/ftrace.c function_stat_headers, function_stat_show; the
 * times as trace_functions_graph.c trace_print_graph_duration writes
 * them): Function, Hit, Time, Avg, s^2, then what the kernel lacks, in
 * the same form: self time, min and max.  Sorted by total time, longest
 * first, as the kernel's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "profile_stat.h"

/*
 * A time in ns as the kernel writes a duration: the µs, then up to 3
 * digits of ns (fewer, so that the number fits in 7 digits, none past
 * that), " us ", and spaces to a width of 8 for the number; each column
 * opens with 4 spaces.
 */
static void put_us(FILE *out, uint64_t ns)
{
	char us[24], frac[8];
	int len = snprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));

	fprintf(out, "    %s", us);
	if (len < 7) {
		snprintf(frac, sizeof(frac), "%03llu", (unsigned long long)(ns % 1000));
		frac[len <= 3 ? 3 : 7 - len] = 0;
		fprintf(out, ".%s", frac);
		len += (int)strlen(frac) + 1;
	}
	fprintf(out, " us %*s", len < 8 ? 8 - len : 0, "");
}

/*
 * The kernel's s^2: (n sum x^2 - (sum x)^2) / (n (n - 1) 1000), in integers
 * (ns^2 / 1000, which put_us writes as µs^2); exact here where the
 * kernel's 64 bits may wrap, and in long double past 128.
 */
static uint64_t variance_kernel(const struct psr_prof_fn *f)
{
	unsigned __int128 n = f->h->n, sum = f->sum, num;

	if (n < 2)
		return 0;
	if (f->sumsq > ~(unsigned __int128)0 / n) {
		long double v = ((long double)f->sumsq * (long double)n - (long double)sum * sum) /
				((long double)n * (n - 1) * 1000);

		return v > 0 ? (uint64_t)v : 0;
	}
	num = n * f->sumsq;
	num = num > sum * sum ? num - sum * sum : 0;
	return (uint64_t)(num / (n * (n - 1) * 1000));
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

	/* The kernel's two header lines, our three columns after its s^2 at its spacing. */
	fprintf(out, "  Function                               Hit    Time            Avg             "
		"s^2             Self            Min             Max\n"
		"  --------                               ---    ----            ---             "
		"---             ----            ---             ---\n");
	if (!v) {
		fprintf(out, "# out of memory\n");
		return;
	}
	for (size_t i = 0; i < pf->n; i++)
		v[i] = &pf->f[i];
	qsort(v, pf->n, sizeof(*v), cmp_total);
	for (size_t i = 0; i < pf->n; i++) {
		const struct psr_prof_fn *f = v[i];

		fprintf(out, "  %-30.30s  %10llu", f->name, (unsigned long long)f->h->n);
		put_us(out, f->total);
		put_us(out, f->sum / f->h->n);
		put_us(out, variance_kernel(f));
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
