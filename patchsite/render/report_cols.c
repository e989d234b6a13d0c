// SPDX-License-Identifier: GPL-2.0-only
/*
 * report's sort keys and columns by the names uftrace's report takes
 * (`-s KEY[,KEY...]`, `-f FIELD[,FIELD...]`, --avg-total, --avg-self;
 * uftrace-report(1)), beside patchsite's own spellings (calls, avg, max).
 * A key and a column are the same thing: one value of a row.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report_cols.h"

static const struct {
	const char *name;	/* uftrace's */
	const char *title;	/* the column's */
} cols[] = {
	[SORT_TOTAL] = { "total", "Total time" },
	[SORT_SELF] = { "self", "Self time" },
	[SORT_CALLS] = { "call", "Calls" },
	[SORT_AVG] = { "total-avg", "Total avg" },
	[SORT_MAX] = { "total-max", "Total max" },
	[SORT_MIN] = { "total-min", "Total min" },
	[SORT_SELF_AVG] = { "self-avg", "Self avg" },
	[SORT_SELF_MIN] = { "self-min", "Self min" },
	[SORT_SELF_MAX] = { "self-max", "Self max" },
	[SORT_FUNC] = { "func", "Function" },
	[SORT_TID] = { "tid", "TID" },
};

const char *report_key_name(enum render_sort k)
{
	return cols[k].name;
}

void report_print_time(FILE *f, uint64_t ns)
{
	if (ns >= 1000000000u)
		fprintf(f, "  %8.3f  s", (double)ns / 1e9);
	else if (ns >= 1000000u)
		fprintf(f, "  %8.3f ms", (double)ns / 1e6);
	else if (ns >= 1000u)
		fprintf(f, "  %8.3f us", (double)ns / 1e3);
	else
		fprintf(f, "  %8llu ns", (unsigned long long)ns);
}

bool report_value(const struct entry *e, enum render_sort k, uint64_t *v)
{
	uint64_t timed = e->calls - e->untimed;

	*v = 0;
	switch (k) {
	case SORT_TOTAL: *v = e->total; return true;
	case SORT_SELF: *v = e->self; return true;
	case SORT_CALLS: *v = e->calls; return true;
	case SORT_AVG: *v = timed ? e->sum / timed : 0; return timed;
	case SORT_MIN: *v = timed ? e->min : 0; return timed;
	case SORT_MAX: *v = e->max; return timed;
	case SORT_SELF_AVG: *v = timed ? e->self / timed : 0; return timed;
	/* function_profile's counted rows keep no call's self time. */
	case SORT_SELF_MIN: *v = e->self_min; return e->self_min != UINT64_MAX;
	case SORT_SELF_MAX: *v = e->self_max; return e->self_min != UINT64_MAX;
	default: return false;
	}
}

/* Name k of a key or field (o->task: a thread's); -EINVAL unknown, -EOPNOTSUPP size. */
static int key_of(const char *k, bool task, bool avg_self, enum render_sort *out)
{
	static const struct { const char *name; enum render_sort total, self; } ctx[] = {
		{ "avg", SORT_AVG, SORT_SELF_AVG },
		{ "min", SORT_MIN, SORT_SELF_MIN },
		{ "max", SORT_MAX, SORT_SELF_MAX },
	};

	if (!strcmp(k, "size"))
		return -EOPNOTSUPP;	/* a trace directory has no function sizes */
	if (task) {
		static const char *const names[] = { "total", "self", "func", "tid" };
		static const enum render_sort keys[] = { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_TID };

		for (unsigned i = 0; i < 4; i++)
			if (!strcmp(k, names[i])) {
				*out = keys[i];
				return 0;
			}
		return -EINVAL;
	}
	if (!strcmp(k, "calls")) {	/* patchsite's spelling of uftrace's call */
		*out = SORT_CALLS;
		return 0;
	}
	for (unsigned i = 0; i < sizeof(ctx) / sizeof(ctx[0]); i++)
		if (!strcmp(k, ctx[i].name)) {
			*out = avg_self ? ctx[i].self : ctx[i].total;
			return 0;
		}
	for (unsigned i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		if (i != SORT_TID && !strcmp(k, cols[i].name)) {
			*out = (enum render_sort)i;
			return 0;
		}
	return -EINVAL;
}

/* A comma-separated list of keys into keys[*n]; func allowed as a key, not as a column. */
static int parse_list(const char *list, bool task, bool avg_self, bool column,
		      enum render_sort *keys, unsigned *n, const char **bad)
{
	static char name[64];
	const char *p = list;

	*n = 0;
	do {
		size_t len = strcspn(p, ",");
		int err;

		if (len >= sizeof(name) || *n == RENDER_MAX_KEYS) {
			*bad = p;
			return -EINVAL;
		}
		memcpy(name, p, len);
		name[len] = 0;
		*bad = name;
		err = key_of(name, task, avg_self, &keys[*n]);
		if (err)
			return err;
		if (column && !task && keys[*n] == SORT_FUNC)
			return -EINVAL;	/* the function's column is always there, last */
		++*n;
		p += len;
	} while (*p++ == ',');
	return 0;
}

int render_parse_keys(struct render_opts *o, const char *list, bool avg_self, const char **bad)
{
	return parse_list(list, o->task, avg_self, false, o->sort, &o->nsort, bad);
}

int render_parse_fields(struct render_opts *o, const char *list, const char **bad)
{
	static const enum render_sort all[] = { SORT_TOTAL, SORT_AVG, SORT_MIN, SORT_MAX,
						SORT_SELF, SORT_SELF_AVG, SORT_SELF_MIN,
						SORT_SELF_MAX, SORT_CALLS };

	o->fields = true;
	o->nfield = 0;
	if (!strcmp(list, "none"))
		return 0;
	if (!strcmp(list, "all") && !o->task) {
		memcpy(o->field, all, sizeof(all));
		o->nfield = sizeof(all) / sizeof(all[0]);
		return 0;
	}
	return parse_list(list, o->task, false, true, o->field, &o->nfield, bad);
}

int report_cmp(const void *a, const void *b, void *arg)
{
	const struct entry *x = a, *y = b;
	const struct render_opts *o = arg;
	static const enum render_sort by_total = SORT_TOTAL;
	const enum render_sort *keys = o->nsort ? o->sort : &by_total;
	unsigned n = o->nsort ? o->nsort : 1;

	for (unsigned i = 0; i < n; i++) {
		uint64_t kx, ky;
		int c;

		if (keys[i] == SORT_FUNC) {
			c = strcmp(x->key, y->key);
			if (c)
				return c;
			continue;
		}
		report_value(x, keys[i], &kx);
		report_value(y, keys[i], &ky);
		if (kx != ky)
			return kx > ky ? -1 : 1;
	}
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->key, y->key);
}

void report_fields_titles(FILE *out, const struct render_opts *o)
{
	for (unsigned i = 0; i < o->nfield; i++)
		fprintf(out, "  %12s", cols[o->field[i]].title);
}

void report_fields_bars(FILE *out, const struct render_opts *o)
{
	for (unsigned i = 0; i < o->nfield; i++)
		fputs("  ============", out);
}

void report_fields_row(FILE *out, const struct render_opts *o, const struct entry *e)
{
	for (unsigned i = 0; i < o->nfield; i++) {
		uint64_t v;
		bool has = report_value(e, o->field[i], &v);

		if (o->field[i] == SORT_CALLS)
			fprintf(out, "  %12llu", (unsigned long long)v);
		else if (has)
			report_print_time(out, v);
		else
			fprintf(out, "  %12s", "-");
	}
}
