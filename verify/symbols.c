// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions by section and offset: the names in messages (func+0xoff), the
 * coverage test behind orphan-site, entries for not-at-entry, and the ARM
 * Thumb state of a site (bit 0 of its function's address).  The static
 * symbol table is used when it has functions, else the dynamic one (a
 * stripped executable or library still has .dynsym).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static bool take(const struct audit *au, const struct eo_sym *s, struct func *f)
{
	const struct eo_sec *sec;
	uint64_t v = s->value;

	if (!s->defined || s->type != EO_STT_FUNC)
		return false;
	sec = elfobj_sec(au->o, s->shndx);
	if (!sec || !(sec->flags & EO_SHF_EXECINSTR))
		return false;
	f->thumb = au->a->thumb_bit && (v & 1);
	if (f->thumb)
		v &= ~1ull;
	if (au->linked) {
		if (v < sec->addr || v - sec->addr > sec->size)
			return false;
		v -= sec->addr;
	}
	f->sec = s->shndx;
	f->off = v;
	f->size = s->size;
	f->name = s->name;
	f->weak = s->bind == EO_STB_WEAK;
	return true;
}

int symbols_load(struct audit *au)
{
	size_t i, n = elfobj_nsyms(au->o);
	bool dyn = false;

	au->funcs = calloc(n + (au->q ? elfquery_ndynsyms(au->q) : 0) + 1, sizeof(*au->funcs));
	if (!au->funcs)
		return -ENOMEM;
	for (i = 1; i < n; i++)
		if (take(au, elfobj_sym(au->o, i), &au->funcs[au->nfuncs]))
			au->nfuncs++;
	if (!au->nfuncs && au->q) {
		dyn = true;
		for (i = 1; i < elfquery_ndynsyms(au->q); i++)
			if (take(au, elfquery_dynsym(au->q, i), &au->funcs[au->nfuncs]))
				au->nfuncs++;
	}
	(void)dyn;
	qsort(au->funcs, au->nfuncs, sizeof(*au->funcs), cmp_func);
	return 0;
}

/* Index of the first function at or after (sec, off). */
static size_t lower_bound(const struct audit *au, size_t sec, uint64_t off)
{
	size_t lo = 0, hi = au->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct func *f = &au->funcs[mid];

		if (f->sec < sec || (f->sec == sec && f->off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct func *symbols_cover(const struct audit *au, size_t sec, uint64_t off)
{
	size_t i = lower_bound(au, sec, off + 1), tries;

	/* Walk back over the few functions that start at or before off. */
	for (tries = 0; i > 0 && tries < 8; tries++) {
		const struct func *f = &au->funcs[--i];

		if (f->sec != sec)
			break;
		if (off < f->off + f->size || (f->size == 0 && off == f->off))
			return f;
	}
	return NULL;
}

const struct func *symbols_next(const struct audit *au, size_t sec, uint64_t off)
{
	size_t i = lower_bound(au, sec, off);

	return i < au->nfuncs && au->funcs[i].sec == sec ? &au->funcs[i] : NULL;
}

uint64_t symbols_addr(const struct audit *au, size_t sec, uint64_t off)
{
	const struct eo_sec *s = elfobj_sec(au->o, sec);

	return au->linked && s ? s->addr + off : off;
}

bool symbols_thumb_at(const struct audit *au, size_t sec, uint64_t off)
{
	const struct func *f = symbols_cover(au, sec, off);

	return f && f->thumb;
}

void symbols_where(const struct audit *au, size_t sec, uint64_t off, char *buf, size_t len)
{
	const struct func *f = symbols_cover(au, sec, off);
	const struct eo_sec *s = elfobj_sec(au->o, sec);
	const char *sname = s ? s->name : "?";

	if (f)
		snprintf(buf, len, "%s+0x%llx (%s+0x%llx)", f->name,
			 (unsigned long long)(off - f->off), sname, (unsigned long long)off);
	else
		snprintf(buf, len, "%s+0x%llx", sname, (unsigned long long)off);
}
