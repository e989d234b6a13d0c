// SPDX-License-Identifier: GPL-2.0-only
/* The string -> counts table of report and folded stacks (table.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "../data/hist.h"

static uint64_t hash(const char *s, int pid)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(unsigned)pid;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct entry *table_lookup(struct table *t, const char *key, int pid)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct { struct entry *e; size_t n, cap; } g = {
			calloc(t->cap ? 2 * t->cap : 1024, sizeof(struct entry)), 0,
			t->cap ? 2 * t->cap : 1024 };

		if (!g.e)
			return NULL;
		for (size_t k = 0; k < t->cap; k++) {
			if (!t->e[k].key)
				continue;
			for (i = hash(t->e[k].key, t->e[k].pid) & (g.cap - 1); g.e[i].key;
			     i = (i + 1) & (g.cap - 1))
				;
			g.e[i] = t->e[k];
			g.n++;
		}
		free(t->e);
		t->e = g.e;
		t->n = g.n;
		t->cap = g.cap;
		t->gen++;
	}
	for (i = hash(key, pid) & (t->cap - 1); t->e[i].key; i = (i + 1) & (t->cap - 1))
		if (t->e[i].pid == pid && !strcmp(t->e[i].key, key))
			return &t->e[i];
	t->e[i].key = strdup(key);
	if (!t->e[i].key)
		return NULL;
	t->e[i].pid = pid;
	t->e[i].min = UINT64_MAX;
	t->e[i].self_min = UINT64_MAX;
	t->n++;
	return &t->e[i];
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		free(t->e[i].key);
		free(t->e[i].hist);
	}
	free(t->e);
}

/* The table's entries, packed (the table's memory, reused). */
size_t table_pack(struct table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].key)
			t->e[n++] = t->e[i];
	for (size_t i = n; i < t->cap; i++) {	/* moved below n (or empty) */
		t->e[i].key = NULL;
		t->e[i].hist = NULL;
	}
	return n;
}

/* The entry of name in pid, through the cache when the name is stable. */
static struct entry *account_entry(struct table *t, const char *name, bool stable, int pid)
{
	size_t c = ((uintptr_t)name >> 3) % NCACHE;
	struct entry *e;

	if (stable && t->cache[c].name == name && t->cache[c].pid == pid &&
	    t->cache[c].gen == t->gen + 1) {
		e = t->cache[c].e;
	} else {
		e = table_lookup(t, name, pid);
		t->cache[c].name = name;
		t->cache[c].pid = pid;
		t->cache[c].gen = t->gen + 1;
		t->cache[c].e = e;
	}
	return e;
}

/*
 * A completed call: its stats (self = its time less its callees').  A call
 * made while the same function is still running further out (recursion)
 * adds nothing to total, which the outer call's time already holds, as
 * uftrace report counts: total never exceeds the time the thread ran.
 */
int table_account(struct table *t, const char *name, bool stable, int pid, uint64_t d,
		  uint64_t self, bool nested)
{
	struct entry *e = account_entry(t, name, stable, pid);

	if (!e)
		return -ENOMEM;
	if (t->keep && (!t->keep_only || !strcmp(e->key, t->keep_only))) {
		if (!e->hist) {
			e->hist = malloc(sizeof(*e->hist));
			if (!e->hist)
				return -ENOMEM;
			hist_init(e->hist);
		}
		hist_add(e->hist, d);
	}
	e->calls++;
	e->total += nested ? 0 : d;
	e->sum += d;
	e->self += self;
	if (d < e->min)
		e->min = d;
	if (d > e->max)
		e->max = d;
	if (self < e->self_min)
		e->self_min = self;
	if (self > e->self_max)
		e->self_max = self;
	return 0;
}

int table_account_counted(struct table *t, const char *name, int pid, const struct hist *h,
			  uint64_t total, uint64_t sum, uint64_t self)
{
	struct entry *e = account_entry(t, name, false, pid);

	if (!e)
		return -ENOMEM;
	if (t->keep && (!t->keep_only || !strcmp(e->key, t->keep_only))) {
		if (!e->hist) {
			e->hist = malloc(sizeof(*e->hist));
			if (!e->hist)
				return -ENOMEM;
			hist_init(e->hist);
		}
		hist_merge(e->hist, h);
	}
	e->calls += h->n;
	e->total += total;
	e->sum += sum;
	e->self += self;
	if (h->min < e->min)
		e->min = h->min;
	if (h->max > e->max)
		e->max = h->max;
	return 0;
}

int table_account_off(struct table *t, const char *name, bool stable, int pid, uint64_t off,
		      bool nested, bool known)
{
	struct entry *e = account_entry(t, name, stable, pid);

	if (!e)
		return -ENOMEM;
	if (!known)
		e->off_unknown++;
	else if (!nested)
		e->off += off;
	return 0;
}

int table_account_untimed(struct table *t, const char *name, bool stable, int pid)
{
	struct entry *e = account_entry(t, name, stable, pid);

	if (!e)
		return -ENOMEM;
	e->calls++;
	e->untimed++;
	return 0;
}
