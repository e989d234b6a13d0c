// SPDX-License-Identifier: GPL-2.0-only
/*
 * The function_profile tracer's counts (read_profile.h): the process
 * directory's `profile` file, written by the runtime (record/profile.c) and
 * read here as untrusted text.  A line that is not exactly one of the forms
 * of read_profile.h, or counts that contradict each other (buckets that do
 * not add up to the hits, extremes outside their buckets, self or total
 * above the sum), refuse the whole file in one line naming the line and why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read_profile.h"
#include "reader.h"

#define MAX_NAME	4096

struct rec {				/* one function of one thread, as read */
	struct psr_prof_fn fn;
	bool hist_read;
};

struct parse {
	struct rec *r;
	size_t n, cap;
	bool header, thread;
	size_t threads;
};

/* A decimal u64 ending at a space: the number, *s moved past the space; false when malformed. */
static bool num(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (p >= end || *p < '0' || *p > '9')
		return false;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	*s = p;
	return true;
}

static bool space(const char **s, const char *end)
{
	if (*s >= end || **s != ' ')
		return false;
	(*s)++;
	return true;
}

static bool hex128(const char **s, const char *end, unsigned __int128 *v)
{
	const char *p = *s;
	unsigned __int128 x = 0;
	unsigned digits = 0;

	if (end - p < 3 || p[0] != '0' || p[1] != 'x')
		return false;
	for (p += 2; p < end && *p != ' '; p++, digits++) {
		unsigned d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0') :
			     *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10) : 16;

		if (d == 16 || (x >> 124))
			return false;
		x = x << 4 | d;
	}
	if (!digits)
		return false;
	*v = x;
	*s = p;
	return true;
}

static const char *f_line(struct parse *ps, const char *s, const char *end)
{
	uint64_t v[6];
	struct rec *r;

	if (!ps->thread)
		return "a function before any `thread` line";
	if (ps->n && !ps->r[ps->n - 1].hist_read)
		return "an `f` line where its `h` line was expected";
	for (unsigned i = 0; i < 6; i++)
		if (!num(&s, end, &v[i]) || !space(&s, end))
			return "expected `f HITS TOTAL SUM SELF MIN MAX SUMSQ NAME`";
	if (ps->n == ps->cap) {
		size_t cap = ps->cap * 2 + 64;
		struct rec *g = realloc(ps->r, cap * sizeof(*g));

		if (!g)
			return "out of memory";
		ps->r = g;
		ps->cap = cap;
	}
	r = &ps->r[ps->n];
	memset(r, 0, sizeof(*r));
	if (!hex128(&s, end, &r->fn.sumsq) || !space(&s, end))
		return "expected SUMSQ as 0x-hexadecimal, at most 128 bits";
	if (s == end || end - s > MAX_NAME)
		return "expected a function name of 1 to 4096 bytes";
	if (!v[0])
		return "a function with no hits";
	if (v[4] > v[5])
		return "MIN above MAX";
	if (v[1] > v[2] || v[3] > v[2])
		return "TOTAL or SELF above SUM (every call's time)";
	if ((unsigned __int128)v[0] * v[4] > v[2] || (unsigned __int128)v[0] * v[5] < v[2])
		return "SUM / HITS outside [MIN, MAX]";
	r->fn.name = strndup(s, (size_t)(end - s));
	r->fn.h = malloc(sizeof(*r->fn.h));
	if (!r->fn.name || !r->fn.h) {
		free(r->fn.name);
		free(r->fn.h);
		return "out of memory";
	}
	ps->n++;
	hist_init(r->fn.h);
	r->fn.h->n = v[0];
	r->fn.total = v[1];
	r->fn.sum = v[2];
	r->fn.self = v[3];
	r->fn.h->min = v[4];
	r->fn.h->max = v[5];
	return NULL;
}

static const char *h_line(struct parse *ps, const char *s, const char *end)
{
	struct rec *r = ps->n ? &ps->r[ps->n - 1] : NULL;
	uint64_t b, c, sum = 0;
	long last = -1;

	if (!r || r->hist_read)
		return "an `h` line without its `f` line";
	while (s < end) {
		if (!space(&s, end) || !num(&s, end, &b) || s >= end || *s++ != ':' ||
		    !num(&s, end, &c))
			return "expected `h BUCKET:COUNT ...`";
		if (b >= HIST_BUCKETS || (long)b <= last || !c)
			return "buckets must ascend below 496, with counts above 0";
		if (c > UINT64_MAX - sum)
			return "bucket counts overflow";
		r->fn.h->count[b] = c;
		sum += c;
		last = (long)b;
	}
	if (sum != r->fn.h->n)
		return "the buckets do not add up to HITS";
	if (hist_bucket(r->fn.h->max) != (unsigned)last || !r->fn.h->count[hist_bucket(r->fn.h->min)])
		return "MIN or MAX outside the buckets";
	for (unsigned k = 0; k < hist_bucket(r->fn.h->min); k++)
		if (r->fn.h->count[k])
			return "MIN or MAX outside the buckets";
	r->hist_read = true;
	return NULL;
}

static const char *one_line(struct parse *ps, const char *s, const char *end)
{
	uint64_t tid;

	if (!ps->header) {
		uint64_t ver;
		const char *p = s + 18;

		if (end - s < 19 || memcmp(s, "patchsite-profile ", 18) || !num(&p, end, &ver) ||
		    p != end)
			return "not a profile file (expected `patchsite-profile VERSION`)";
		if (ver != PSR_PROFILE_VERSION)
			return "profile format version not 1 (written by another patchsite)";
		ps->header = true;
		return NULL;
	}
	if (end - s >= 2 && !memcmp(s, "h ", 2))
		return h_line(ps, s + 1, end);
	if (ps->n && !ps->r[ps->n - 1].hist_read)
		return "an `f` line without its `h` line";
	if (end - s >= 7 && !memcmp(s, "thread ", 7)) {
		s += 7;
		if (!num(&s, end, &tid) || !tid || tid > INT32_MAX || (s != end && *s != ' '))
			return "expected `thread TID COMM`";
		ps->thread = true;
		ps->threads++;
		return NULL;
	}
	if (end - s >= 2 && !memcmp(s, "f ", 2))
		return f_line(ps, s + 2, end);
	return "expected a `thread`, `f` or `h` line";
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct rec *)a)->fn.name, ((const struct rec *)b)->fn.name);
}

/* Sort by name and fold each function's threads into one record; -ENOMEM. */
static int merge(struct parse *ps, struct psr_profile *out)
{
	size_t n = 0;

	out->f = malloc((ps->n ? ps->n : 1) * sizeof(*out->f));
	if (!out->f)
		return -ENOMEM;
	if (ps->n)
		qsort(ps->r, ps->n, sizeof(*ps->r), cmp_name);
	for (size_t i = 0; i < ps->n; i++) {
		struct psr_prof_fn *a = n ? &out->f[n - 1] : NULL, *b = &ps->r[i].fn;

		if (a && !strcmp(a->name, b->name)) {
			a->total += b->total;
			a->sum += b->sum;
			a->self += b->self;
			a->sumsq += b->sumsq;
			hist_merge(a->h, b->h);
			free(b->name);
			free(b->h);
		} else {
			out->f[n++] = *b;
		}
	}
	out->n = n;
	out->threads = ps->threads;
	free(ps->r);
	return 0;
}

int psr_profile_parse(const char *text, size_t len, struct psr_profile *out, char *why,
		      size_t whylen)
{
	struct parse ps = { 0 };
	const char *err = NULL;
	size_t at = 0, lineno = 0;

	*out = (struct psr_profile){ 0 };
	while (at < len && !err) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;

		lineno++;
		err = nl ? one_line(&ps, text + at, text + at + n) : "the last line has no newline";
		at += n + 1;
	}
	if (!err && !ps.header)
		err = "empty (expected `patchsite-profile VERSION`)";
	if (!err && ps.n && !ps.r[ps.n - 1].hist_read)
		err = "the last `f` line has no `h` line";
	if (!err && merge(&ps, out))
		err = "out of memory";
	if (err) {
		snprintf(why, whylen, "line %zu: %s", lineno ? lineno : 1, err);
		for (size_t i = 0; i < ps.n; i++) {
			free(ps.r[i].fn.name);
			free(ps.r[i].fn.h);
		}
		free(ps.r);
		return strcmp(err, "out of memory") ? -EINVAL : -ENOMEM;
	}
	return 0;
}

void psr_profile_free(struct psr_profile *pf)
{
	for (size_t i = 0; i < pf->n; i++) {
		free(pf->f[i].name);
		free(pf->f[i].h);
	}
	free(pf->f);
	*pf = (struct psr_profile){ 0 };
}

const struct psr_prof_fn *psr_profile_find(const struct psr_profile *pf, const char *name)
{
	for (size_t i = 0; i < pf->n; i++)
		if (!strcmp(pf->f[i].name, name))
			return &pf->f[i];
	return NULL;
}

bool psr_proc_profiled(const struct psr_proc *p)
{
	return !strcmp(p->tracer, "function_profile") ||
	       (p->tracers && strstr(p->tracers, " function_profile\n"));
}

int psr_profile_read(const struct psr_proc *p, struct psr_profile *pf, bool *absent)
{
	char path[4200], why[160], *text;
	size_t got;
	int err;

	*pf = (struct psr_profile){ 0 };
	err = read_proc_text(p, "profile", &text, &got, absent, path, sizeof(path));
	if (err || !text)
		return err;
	err = psr_profile_parse(text, got, pf, why, sizeof(why));
	free(text);
	if (err)
		fprintf(stderr, "patchsite: %s: %s\n", path, err == -ENOMEM ? "out of memory" : why);
	return err;
}
