// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbols sorted by (section, value) so that an offset finds the symbol
 * before it by bisection.  Function symbols win over other named symbols
 * at the same place; section symbols and unnamed ones never name a site.
 */
#include <stdio.h>
#include <stdlib.h>

#include "elfobj.h"
#include "symindex.h"

struct symindex {
	const struct eo_sym **syms;
	size_t n;
};

static int by_place(const void *pa, const void *pb)
{
	const struct eo_sym *a = *(const struct eo_sym *const *)pa;
	const struct eo_sym *b = *(const struct eo_sym *const *)pb;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	if (a->value != b->value)
		return a->value < b->value ? -1 : 1;
	/* At the same place a function sorts last, so bisection finds it. */
	return (a->type == EO_STT_FUNC) - (b->type == EO_STT_FUNC);
}

struct symindex *symindex_build(const struct elfobj *o)
{
	struct symindex *si = calloc(1, sizeof(*si));
	size_t i, n = elfobj_nsyms(o);

	if (!si || !(si->syms = calloc(n ? n : 1, sizeof(*si->syms)))) {
		free(si);
		return NULL;
	}
	for (i = 1; i < n; i++) {
		const struct eo_sym *s = elfobj_sym(o, i);

		if (s->defined && s->name[0] && s->type != EO_STT_SECTION)
			si->syms[si->n++] = s;
	}
	qsort(si->syms, si->n, sizeof(*si->syms), by_place);
	return si;
}

void symindex_free(struct symindex *si)
{
	if (si)
		free(si->syms);
	free(si);
}

const struct eo_sym *symindex_covering(const struct symindex *si, size_t sec, uint64_t off,
				       uint64_t *delta)
{
	size_t lo = 0, hi = si ? si->n : 0;
	const struct eo_sym *s;

	/* Find the last symbol at or before (sec, off). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		s = si->syms[mid];
		if (s->shndx < sec || (s->shndx == sec && s->value <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || si->syms[lo - 1]->shndx != sec)
		return NULL;
	s = si->syms[lo - 1];
	*delta = off - s->value;
	return s;
}

const char *symindex_where(const struct symindex *si, const struct elfobj *o, size_t sec,
			   uint64_t off, char *buf, size_t len)
{
	const struct eo_sec *es = elfobj_sec(o, sec);
	const char *sname = es ? es->name : "?";
	uint64_t delta;
	const struct eo_sym *s = symindex_covering(si, sec, off, &delta);

	if (s)
		snprintf(buf, len, "%s+0x%llx (%s+0x%llx)", s->name, (unsigned long long)delta,
			 sname, (unsigned long long)off);
	else
		snprintf(buf, len, "%s+0x%llx", sname, (unsigned long long)off);
	return buf;
}
