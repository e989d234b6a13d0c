// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbols sorted by (section, offset) so that an offset finds the symbol
 * before it by bisection.  Three sorted views of one symbol table:
 *   named      every named symbol; a function wins over others at the same
 *              place; section symbols and mapping symbols never name a site
 *   funcs      functions in executable sections, with their extent
 *   maps       ARM mapping symbols ($a ARM, $t Thumb, $d data)
 * A linked file's symbol values are addresses: each is placed at its
 * section offset, so that objects and linked files answer alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "elfobj.h"
#include "elfquery.h"
#include "symindex.h"

struct placed {
	const struct eo_sym *sym;
	size_t sec;
	uint64_t off;
};

struct symindex {
	struct placed *named;
	size_t nnamed;
	struct si_func *funcs;
	size_t nfuncs;
	struct placed *maps;
	size_t nmaps;
};

/*
 * "$a", "$t", "$d", "$x", or one of those with a ".suffix": the mapping
 * symbols of ARM, AArch64 and RISC-V, which mark code and data, not names.
 */
static char mapping_kind(const struct eo_sym *s)
{
	const char *n = s->name;

	if (n[0] != '$' || !n[1] || !strchr("atdx", n[1]) || (n[2] && n[2] != '.'))
		return 0;
	return n[1];
}

/* Where s lies: its section and the offset in it.  False: it names no place we index. */
static bool place_of(const struct elfobj *o, const struct eo_sym *s, bool thumb_bit,
		     struct placed *p, bool *thumb)
{
	const struct eo_sec *sec = s->defined ? elfobj_sec(o, s->shndx) : NULL;
	uint64_t v = s->value;

	if (!sec || !s->name[0] || s->type == EO_STT_SECTION)
		return false;
	*thumb = thumb_bit && s->type == EO_STT_FUNC && (v & 1);
	if (*thumb)
		v &= ~1ull;
	if (elfobj_hdr(o)->type != EO_ET_REL) {
		if (v < sec->addr || v - sec->addr > sec->size)
			return false;
		v -= sec->addr;
	}
	*p = (struct placed){ s, s->shndx, v };
	return true;
}

static int cmp_placed(const void *pa, const void *pb)
{
	const struct placed *a = pa, *b = pb;

	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	/* At the same place a function sorts last, so bisection finds it. */
	return (a->sym->type == EO_STT_FUNC) - (b->sym->type == EO_STT_FUNC);
}

static int cmp_func(const void *pa, const void *pb)
{
	const struct si_func *a = pa, *b = pb;

	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	/* The largest first, then by name: the order is the same on every run. */
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Add one symbol to the views it belongs to. */
static void add_sym(struct symindex *si, const struct elfobj *o, const struct eo_sym *s,
		    bool thumb_bit, bool funcs_only)
{
	const struct eo_sec *sec;
	struct placed p;
	bool thumb;

	if (!place_of(o, s, thumb_bit, &p, &thumb))
		return;
	if (mapping_kind(s)) {
		if (thumb_bit && !funcs_only)
			si->maps[si->nmaps++] = p;
		return;
	}
	if (!funcs_only)
		si->named[si->nnamed++] = p;
	sec = elfobj_sec(o, p.sec);
	if (s->type == EO_STT_FUNC && (sec->flags & EO_SHF_EXECINSTR))
		si->funcs[si->nfuncs++] = (struct si_func){
			.name = s->name, .sec = p.sec, .off = p.off, .size = s->size,
			.weak = s->bind == EO_STB_WEAK, .thumb = thumb,
		};
}

struct symindex *symindex_build_linked(const struct elfobj *o, const struct elfquery *q)
{
	const struct arch *a = elfobj_arch(o);
	bool thumb_bit = a && a->thumb_bit;
	size_t i, n = elfobj_nsyms(o), nd = q ? elfquery_ndynsyms(q) : 0, cap = n + nd + 1;
	struct symindex *si = calloc(1, sizeof(*si));

	if (!si || !(si->named = calloc(cap, sizeof(*si->named))) ||
	    !(si->funcs = calloc(cap, sizeof(*si->funcs))) ||
	    !(si->maps = calloc(cap, sizeof(*si->maps)))) {
		symindex_free(si);
		return NULL;
	}
	for (i = 1; i < n; i++)
		add_sym(si, o, elfobj_sym(o, i), thumb_bit, false);
	/* A stripped file still names its exported functions in .dynsym. */
	if (si->nfuncs)
		nd = 0;
	for (i = 1; i < nd; i++)
		add_sym(si, o, elfquery_dynsym(q, i), thumb_bit, true);
	qsort(si->named, si->nnamed, sizeof(*si->named), cmp_placed);
	qsort(si->funcs, si->nfuncs, sizeof(*si->funcs), cmp_func);
	qsort(si->maps, si->nmaps, sizeof(*si->maps), cmp_placed);
	return si;
}

struct symindex *symindex_build(const struct elfobj *o)
{
	return symindex_build_linked(o, NULL);
}

void symindex_free(struct symindex *si)
{
	if (!si)
		return;
	free(si->named);
	free(si->funcs);
	free(si->maps);
	free(si);
}

/* Index of the first entry of v (sorted by place) past (sec, off): bisection. */
static size_t placed_bound(const struct placed *v, size_t n, size_t sec, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].sec < sec || (v[mid].sec == sec && v[mid].off <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct eo_sym *symindex_covering(const struct symindex *si, size_t sec, uint64_t off,
				       uint64_t *delta)
{
	size_t i = si ? placed_bound(si->named, si->nnamed, sec, off) : 0;

	if (i == 0 || si->named[i - 1].sec != sec)
		return NULL;
	*delta = off - si->named[i - 1].off;
	return si->named[i - 1].sym;
}

static const char *format_where(const struct elfobj *o, size_t sec, uint64_t off,
				const char *name, uint64_t delta, char *buf, size_t len)
{
	const struct eo_sec *es = elfobj_sec(o, sec);
	const char *sname = es ? es->name : "?";

	if (name)
		snprintf(buf, len, "%s+0x%llx (%s+0x%llx)", name, (unsigned long long)delta,
			 sname, (unsigned long long)off);
	else
		snprintf(buf, len, "%s+0x%llx", sname, (unsigned long long)off);
	return buf;
}

const char *symindex_where(const struct symindex *si, const struct elfobj *o, size_t sec,
			   uint64_t off, char *buf, size_t len)
{
	uint64_t delta = 0;
	const struct eo_sym *s = symindex_covering(si, sec, off, &delta);

	return format_where(o, sec, off, s ? s->name : NULL, delta, buf, len);
}

size_t symindex_nfuncs(const struct symindex *si)
{
	return si ? si->nfuncs : 0;
}

/* Index of the first function at or after (sec, off). */
static size_t func_bound(const struct symindex *si, size_t sec, uint64_t off)
{
	size_t lo = 0, hi = si ? si->nfuncs : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct si_func *f = &si->funcs[mid];

		if (f->sec < sec || (f->sec == sec && f->off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct si_func *symindex_func_at(const struct symindex *si, size_t sec, uint64_t off)
{
	size_t i = func_bound(si, sec, off + 1), tries;

	/* Walk back over the few functions that start at or before off. */
	for (tries = 0; i > 0 && tries < 8; tries++) {
		const struct si_func *f = &si->funcs[--i];

		if (f->sec != sec)
			break;
		if (off < f->off + f->size || (f->size == 0 && off == f->off))
			return f;
	}
	return NULL;
}

const struct si_func *symindex_func_next(const struct symindex *si, size_t sec, uint64_t off)
{
	size_t i = func_bound(si, sec, off);

	return si && i < si->nfuncs && si->funcs[i].sec == sec ? &si->funcs[i] : NULL;
}

const struct si_func *symindex_func_nth(const struct symindex *si, size_t i)
{
	return si && i < si->nfuncs ? &si->funcs[i] : NULL;
}

const struct si_func *symindex_func_prev(const struct symindex *si, size_t sec, uint64_t off)
{
	size_t i = func_bound(si, sec, off);

	return si && i > 0 && si->funcs[i - 1].sec == sec ? &si->funcs[i - 1] : NULL;
}

const char *symindex_func_where(const struct symindex *si, const struct elfobj *o, size_t sec,
				uint64_t off, char *buf, size_t len)
{
	const struct si_func *f = symindex_func_at(si, sec, off);

	return format_where(o, sec, off, f ? f->name : NULL, f ? off - f->off : 0, buf, len);
}

bool symindex_thumb_at(const struct symindex *si, size_t sec, uint64_t off)
{
	size_t i = si ? placed_bound(si->maps, si->nmaps, sec, off) : 0;
	const struct si_func *f;

	if (i && si->maps[i - 1].sec == sec)
		return mapping_kind(si->maps[i - 1].sym) == 't';
	f = symindex_func_at(si, sec, off);
	return f && f->thumb;
}
