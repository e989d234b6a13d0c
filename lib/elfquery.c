// SPDX-License-Identifier: GPL-2.0-only
/*
 * Questions about linked files, next to elfobj.c because they need libelf:
 * the dynamic symbol table, the dynamic relocations (a PIE's or a shared
 * library's tables hold zeros that R_*_RELATIVE fills at load time) and a
 * sorted index of allocated sections for address lookups.  Everything is
 * read once, when the query is opened, and checked against the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "elfobj_priv.h"
#include "elfquery.h"

struct secrange {
	uint64_t addr, end;
	size_t idx;
};

struct elfquery {
	struct elfobj *o;
	struct eo_sym *dynsyms;
	size_t ndynsyms;
	struct eq_dynrel *rels;
	size_t nrels;
	struct secrange *ranges;
	size_t nranges;
};

static int read_dynsyms(struct elfquery *q)
{
	struct elfobj *o = q->o;
	size_t i, sec = 0, strtab;
	Elf_Data *d;

	for (i = 1; i < o->shnum && !sec; i++)
		if (o->secs[i].type == SHT_DYNSYM)
			sec = i;
	if (!sec)
		return 0;
	strtab = o->secs[sec].link;
	if (strtab >= o->shnum || o->secs[strtab].type != SHT_STRTAB)
		return eo_fail(o, -EINVAL, "%s", "dynamic symbol table does not link to a string table");
	d = eo_sec_data(o, sec);
	if (!d)
		return eo_fail_elf(o, "cannot read the dynamic symbol table: %s");
	q->ndynsyms = d->d_size / gelf_fsize(o->elf, ELF_T_SYM, 1, EV_CURRENT);
	q->dynsyms = calloc(q->ndynsyms ? q->ndynsyms : 1, sizeof(*q->dynsyms));
	if (!q->dynsyms)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = 0; i < q->ndynsyms; i++) {
		struct eo_sym *s = &q->dynsyms[i];
		GElf_Sym sym;

		if (!gelf_getsym(d, (int)i, &sym))
			return eo_fail_elf(o, "cannot read a dynamic symbol: %s");
		s->name = elf_strptr(o->elf, strtab, sym.st_name);
		if (!s->name)
			return eo_fail(o, -EINVAL, "%s", "dynamic symbol name offset out of range");
		s->value = sym.st_value;
		s->size = sym.st_size;
		s->bind = GELF_ST_BIND(sym.st_info);
		s->type = GELF_ST_TYPE(sym.st_info);
		s->shndx = sym.st_shndx;
		s->defined = sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE &&
			     sym.st_shndx < o->shnum;
	}
	return 0;
}

static int cmp_rel(const void *a, const void *b)
{
	const struct eq_dynrel *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_dynrels(struct elfquery *q)
{
	struct elfobj *o = q->o;
	size_t i, k, n, total = 0;
	const struct eo_rel *rels;
	int err;

	for (i = 1; i < o->shnum; i++) {
		if (!elfobj_is_rel_sec(o, i) || !(o->secs[i].flags & SHF_ALLOC))
			continue;
		if ((err = elfobj_rels(o, i, &rels, &n)))
			return err;
		total += n;
	}
	q->rels = calloc(total ? total : 1, sizeof(*q->rels));
	if (!q->rels)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = 1; i < o->shnum; i++) {
		if (!elfobj_is_rel_sec(o, i) || !(o->secs[i].flags & SHF_ALLOC))
			continue;
		if ((err = elfobj_rels(o, i, &rels, &n)))
			return err;
		for (k = 0; k < n && q->nrels < total; k++)
			q->rels[q->nrels++] = (struct eq_dynrel){
				.addr = rels[k].offset, .addend = rels[k].addend,
				.sym = rels[k].sym, .type = rels[k].type,
				.rela = o->secs[i].type == SHT_RELA,
			};
	}
	qsort(q->rels, q->nrels, sizeof(*q->rels), cmp_rel);
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct secrange *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int index_sections(struct elfquery *q)
{
	struct elfobj *o = q->o;
	size_t i;

	q->ranges = calloc(o->shnum ? o->shnum : 1, sizeof(*q->ranges));
	if (!q->ranges)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = 1; i < o->shnum; i++) {
		const struct eo_sec *s = &o->secs[i];

		if (!(s->flags & SHF_ALLOC) || s->type == SHT_NOBITS || !s->size ||
		    s->addr + s->size < s->addr)
			continue;
		q->ranges[q->nranges++] = (struct secrange){ s->addr, s->addr + s->size, i };
	}
	qsort(q->ranges, q->nranges, sizeof(*q->ranges), cmp_range);
	return 0;
}

int elfquery_open(struct elfobj *o, struct elfquery **out)
{
	struct elfquery *q = calloc(1, sizeof(*q));
	int err;

	*out = NULL;
	if (!q)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	q->o = o;
	err = read_dynsyms(q);
	if (!err)
		err = read_dynrels(q);
	if (!err)
		err = index_sections(q);
	if (err) {
		elfquery_close(q);
		return err;
	}
	*out = q;
	return 0;
}

void elfquery_close(struct elfquery *q)
{
	if (!q)
		return;
	free(q->dynsyms);
	free(q->rels);
	free(q->ranges);
	free(q);
}

size_t elfquery_ndynsyms(const struct elfquery *q) { return q->ndynsyms; }
size_t elfquery_ndynrels(const struct elfquery *q) { return q->nrels; }

const struct eo_sym *elfquery_dynsym(const struct elfquery *q, size_t idx)
{
	return idx < q->ndynsyms ? &q->dynsyms[idx] : NULL;
}

const struct eq_dynrel *elfquery_dynrel(const struct elfquery *q, size_t idx)
{
	return idx < q->nrels ? &q->rels[idx] : NULL;
}

const struct eq_dynrel *elfquery_dynrel_at(const struct elfquery *q, uint64_t addr)
{
	size_t lo = 0, hi = q->nrels;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->rels[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < q->nrels && q->rels[lo].addr == addr ? &q->rels[lo] : NULL;
}

uint64_t elfquery_got_addr(const struct elfquery *q)
{
	size_t i, sec;

	for (i = 1; i < q->o->nsyms; i++) {
		const struct eo_sym *s = &q->o->syms[i];

		if (s->defined && !strcmp(s->name, "_GLOBAL_OFFSET_TABLE_"))
			return s->value;
	}
	sec = elfobj_find_sec(q->o, ".got.plt");
	if (!sec)
		sec = elfobj_find_sec(q->o, ".got");
	return sec ? q->o->secs[sec].addr : 0;
}

size_t elfquery_sec_by_addr(const struct elfquery *q, uint64_t addr)
{
	size_t lo = 0, hi = q->nranges;

	/* The last range starting at or before addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->ranges[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < q->ranges[lo - 1].end ? q->ranges[lo - 1].idx : 0;
}
