// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding the patch-site tables and turning each entry into "section +
 * offset".  In an object an entry is what its relocation makes of it
 * (symbol + addend, or + the word itself for REL); in a linked file it is
 * the word, or what a dynamic relocation writes there at load time (a PIE's
 * words are zero until R_*_RELATIVE fills them).  The checks that need only
 * the table are made here: bad-reloc, zero-entry, site-not-exec.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "verify.h"

#define MCOUNT_SEC	"__mcount_loc"
#define PATCHABLE_SEC	"__patchable_function_entries"

/* Entry k of table t, as stored (a pcrel entry sign-extended). */
static uint64_t get_entry(const struct audit *au, const struct table *t, size_t k)
{
	const uint8_t *p = t->bytes + k * t->entsize;
	bool be = au->h->big_endian;

	if (t->pcrel)
		return (uint64_t)(int64_t)(int32_t)get32(p, be);
	if (t->entsize == 8)
		return be ? (uint64_t)get32(p, be) << 32 | get32(p + 4, be)
			  : (uint64_t)get32(p + 4, be) << 32 | get32(p, be);
	return get32(p, be);
}

static int add_table(struct audit *au, const struct table *t)
{
	struct table *n = realloc(au->tables, (au->ntables + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	au->tables = n;
	au->tables[au->ntables++] = *t;
	return 0;
}

/* Table-level facts: the section must be allocated data made of whole words. */
static void check_table_section(struct audit *au, const struct table *t, const struct eo_sec *s)
{
	unsigned w = t->entsize;

	if (s->type != EO_SHT_PROGBITS)
		report_table(au, CHK_BAD_RELOC, t->name,
			     "table section is not PROGBITS (type %u): it has no contents", s->type);
	if (!(s->flags & EO_SHF_ALLOC))
		report_table(au, CHK_BAD_RELOC, t->name,
			     "table section is not allocated (flag A missing): it is not loaded");
	if (s->flags & EO_SHF_EXECINSTR)
		report_table(au, CHK_BAD_RELOC, t->name, "table section is executable (flag X)");
	if (s->size % w)
		report_table(au, CHK_BAD_RELOC, t->name,
			     "table size 0x%llx is not a multiple of the %u-byte word",
			     (unsigned long long)s->size, w);
	if (s->entsize && s->entsize != w)
		report_table(au, CHK_BAD_RELOC, t->name,
			     "table entry size %llu, expected %u (or 0)",
			     (unsigned long long)s->entsize, w);
	if (s->addralign & (s->addralign - 1))
		report_table(au, CHK_BAD_RELOC, t->name, "table alignment %llu is not a power of two",
			     (unsigned long long)s->addralign);
	/*
	 * gcc's -mrecord-mcount emits __mcount_loc with alignment 1 and relies
	 * on the kernel's linker script to align it; in a user-space link it
	 * lands wherever it falls.  Every good -mrecord-mcount program has it,
	 * and libpatchsite reads entries byte-wise, so it is information for
	 * whoever asks (--note=table-align), not a defect of the file.
	 */
	if (au->linked && s->addr % w)
		report_table_note(au, CHK_TABLE_ALIGN, t->name,
				  "the table starts at 0x%llx, off its %u-byte words (the section's "
				  "alignment is %llu, as gcc emits it; read byte-wise, not a defect)",
				  (unsigned long long)s->addr, w, (unsigned long long)s->addralign);
}

/* A kernel image keeps the table inside .init.data between two symbols. */
static int find_range_table(struct audit *au)
{
	const struct eo_sym *start = NULL, *stop = NULL;
	struct table t = { .name = MCOUNT_SEC, .kind = TABLE_MCOUNT, .entsize = au->h->word };
	uint64_t vstart = 0, vstop = 0;
	size_t i, sec;

	for (i = 1; i < elfobj_nsyms(au->o); i++) {
		const struct eo_sym *s = elfobj_sym(au->o, i);

		if (!strcmp(s->name, "__start_mcount_loc"))
			start = s;
		else if (!strcmp(s->name, "__stop_mcount_loc"))
			stop = s;
	}
	if (start && stop) {
		vstart = start->value;
		vstop = stop->value;
	} else if (!sysmap_addr(au->sysmap, "__start_mcount_loc", &vstart) ||
		   !sysmap_addr(au->sysmap, "__stop_mcount_loc", &vstop)) {
		return 0;	/* a stripped image: --system-map gives the bounds */
	}
	if (vstop <= vstart)
		return 0;
	sec = elfquery_sec_by_addr(au->q, vstart);
	if (!sec)
		return 0;
	t.addr = vstart;
	t.size = vstop - vstart;
	if (t.size > elfobj_sec(au->o, sec)->size - (t.addr - elfobj_sec(au->o, sec)->addr)) {
		report_table(au, CHK_BAD_RELOC, MCOUNT_SEC,
			     "__start_mcount_loc..__stop_mcount_loc runs past the end of %s",
			     elfobj_sec(au->o, sec)->name);
		return 0;
	}
	t.bytes = elfobj_sec_bytes(au->o, sec);
	if (!t.bytes)
		return 0;
	t.bytes += t.addr - elfobj_sec(au->o, sec)->addr;
	t.nentries = t.size / au->h->word;
	return add_table(au, &t);
}

/* With an __mcount_loc there, a patchable table is padding, not ftrace's. */
static void mark_padding(struct audit *au)
{
	bool mcount = false;
	size_t i;

	for (i = 0; i < au->ntables; i++)
		mcount |= au->tables[i].kind == TABLE_MCOUNT;
	for (i = 0; i < au->ntables; i++)
		au->tables[i].padding = mcount && au->tables[i].kind == TABLE_PATCHABLE;
}

int table_find(struct audit *au)
{
	size_t i;
	int err;

	for (i = 1; i < elfobj_shnum(au->o); i++) {
		const struct eo_sec *s = elfobj_sec(au->o, i);
		struct table t = { .sec = i, .name = s->name, .entsize = au->h->word };

		if (!strcmp(s->name, MCOUNT_SEC))
			t.kind = TABLE_MCOUNT;
		else if (!strcmp(s->name, PCREL_TABLE))
			t = (struct table){ .sec = i, .name = s->name, .kind = TABLE_MCOUNT,
					    .pcrel = true, .entsize = 4 };
		else if (!strcmp(s->name, PATCHABLE_SEC))
			t.kind = TABLE_PATCHABLE;
		else
			continue;
		check_table_section(au, &t, s);
		t.addr = au->linked ? s->addr : 0;
		t.size = s->size;
		t.bytes = elfobj_sec_bytes(au->o, i);
		if (!t.bytes)
			t.size = 0;
		t.nentries = t.size / t.entsize;
		if ((err = add_table(au, &t)))
			return err;
	}
	if (au->linked && !au->ntables && (err = find_range_table(au)))
		return err;
	mark_padding(au);
	return 0;
}

/* table_resolve() sized the array for every entry of every table. */
static int add_site(struct audit *au, const struct site *s)
{
	au->sites[au->nsites++] = *s;
	return 0;
}

static void entry_where(const struct audit *au, const struct table *t, size_t k, char *buf,
			size_t len)
{
	(void)au;
	snprintf(buf, len, "%s+0x%zx (entry %zu)", t->name, k * t->entsize, k);
}

/* Point the site at the section holding it, or report why it is not code. */
static void place_site(struct audit *au, const struct table *t, struct site *st)
{
	char where[160];
	const struct eo_sec *s;

	if (au->a->thumb_bit && (st->value & 1)) {
		st->value &= ~1ull;
		st->lsb = true;
	}
	if (au->linked) {
		st->sec = elfquery_sec_by_addr(au->q, st->value);
		if (!st->sec) {
			entry_where(au, t, st->entry, where, sizeof(where));
			report_table(au, CHK_SITE_NOT_EXEC, where,
				     "0x%llx is in no section of the file",
				     (unsigned long long)st->value);
			st->settled = true;
			return;
		}
		st->off = st->value - elfobj_sec(au->o, st->sec)->addr;
	} else {
		st->off = st->value;
	}
	s = elfobj_sec(au->o, st->sec);
	if (!(s->flags & EO_SHF_EXECINSTR) || s->type == EO_SHT_NOBITS) {
		report(au, CHK_SITE_NOT_EXEC, st->sec, st->off,
		       "%s entry %zu points into %s, which is not executable code",
		       t->name, st->entry, s->name);
		st->settled = true;
	} else if (st->off >= s->size) {
		report(au, CHK_SITE_NOT_EXEC, st->sec, st->off,
		       "%s entry %zu points past the end of %s (size 0x%llx)", t->name,
		       st->entry, s->name, (unsigned long long)s->size);
		st->settled = true;
	}
}

/* Per entry of an object's table: the index of its relocation, or -1. */
static int object_relocs(struct audit *au, const struct table *t, const struct eo_rel ***relp,
			 bool **relap)
{
	const struct eo_rel **rel = calloc(t->nentries + 1, sizeof(*rel));
	bool *rela = calloc(t->nentries + 1, sizeof(*rela));
	unsigned w = t->entsize;
	char buf[48], where[160];
	size_t i, k, n;
	int err = 0;

	*relp = rel;
	*relap = rela;
	if (!rel || !rela)
		return -ENOMEM;
	for (i = 1; i < elfobj_shnum(au->o); i++) {
		const struct eo_sec *rs = elfobj_sec(au->o, i);
		const struct eo_rel *r;

		if (!elfobj_is_rel_sec(au->o, i) || rs->info != t->sec)
			continue;
		if ((err = elfobj_rels(au->o, i, &r, &n)))
			return err;
		if (rs->link != elfobj_symtab_index(au->o)) {
			report_table(au, CHK_BAD_RELOC, rs->name,
				     "relocations of %s do not use the symbol table", t->name);
			continue;
		}
		for (k = 0; k < n; k++) {
			snprintf(where, sizeof(where), "%s+0x%llx", t->name,
				 (unsigned long long)r[k].offset);
			if (r[k].offset % w || !in_bounds(r[k].offset, w, t->size)) {
				report_table(au, CHK_BAD_RELOC, where,
					     "%s does not cover one whole %u-byte entry",
					     arch_reloc_str(au->a, r[k].type, buf, sizeof(buf)), w);
				continue;
			}
			if (rel[r[k].offset / w]) {
				report_table(au, CHK_BAD_RELOC, where,
					     "a second relocation for the same entry");
				continue;
			}
			rel[r[k].offset / w] = &r[k];
			rela[r[k].offset / w] = rs->type == EO_SHT_RELA;
		}
	}
	return 0;
}

static int resolve_object(struct audit *au, size_t ti)
{
	const struct table *t = &au->tables[ti];
	const struct eo_rel **rel = NULL;
	unsigned w = t->entsize;
	uint32_t want_type = t->pcrel ? au->a->pcrel32_reloc : au->a->abs_reloc;
	bool *rela = NULL;
	char buf[48], want[48], where[160];
	size_t k;
	int err;

	if ((err = object_relocs(au, t, &rel, &rela)))
		goto out;
	for (k = 0; k < t->nentries; k++) {
		struct site st = { .table = ti, .entry = k, .state = SITE_UNCHECKED };
		uint64_t word = get_entry(au, t, k);
		const struct eo_sym *sym;

		entry_where(au, t, k, where, sizeof(where));	/* objects are small */
		if (!rel[k]) {
			if (word)
				report_table(au, CHK_BAD_RELOC, where,
					     "entry has no relocation: it holds 0x%llx, which no link "
					     "will adjust", (unsigned long long)word);
			else
				report_table(au, CHK_ZERO_ENTRY, where,
					     "zero entry (no relocation): ftrace skips it");
			st.settled = true;
			goto add;
		}
		if (rel[k]->type != want_type)
			report_table(au, CHK_BAD_RELOC, where, "relocation %s, expected %s",
				     arch_reloc_str(au->a, rel[k]->type, buf, sizeof(buf)),
				     arch_reloc_str(au->a, want_type, want, sizeof(want)));
		sym = elfobj_sym(au->o, rel[k]->sym);
		if (!sym || !rel[k]->sym || !sym->defined) {
			report_table(au, CHK_SITE_NOT_EXEC, where,
				     "entry refers to %s%s, not to code in this object",
				     sym && rel[k]->sym ? "undefined symbol " : "no symbol",
				     sym && rel[k]->sym ? sym->name : "");
			st.settled = true;
			goto add;
		}
		if (w == 4 && !rela[k])
			word = (uint64_t)(int64_t)(int32_t)word;
		/* A pcrel entry is S + A - P: the site is S + A, P is the entry's own place. */
		st.sec = sym->shndx;
		st.value = sym->value + (rela[k] ? (uint64_t)rel[k]->addend : word);
		if (au->a->thumb_bit && sym->type == EO_STT_FUNC && (sym->value & 1))
			st.value &= ~1ull;	/* the function's Thumb bit, not the site's */
		if (au->h->word == 4)
			st.value &= 0xffffffffull;
		place_site(au, t, &st);
add:
		if ((err = add_site(au, &st)))
			goto out;
	}
out:
	free(rel);
	free(rela);
	return err;
}

/* A linked pcrel entry: the site is the entry's address plus it; nothing fills it at load. */
static void resolve_pcrel(struct audit *au, const struct table *t, struct site *st)
{
	uint64_t ea = t->addr + st->entry * t->entsize;
	char where[160];

	st->value = ea + get_entry(au, t, st->entry);
	if (elfquery_dynrel_at(au->q, ea)) {
		entry_where(au, t, st->entry, where, sizeof(where));
		report_table(au, CHK_BAD_RELOC, where, "a dynamic relocation on a place-relative "
			     "entry, which needs none");
	}
	if (au->h->word == 4)
		st->value &= 0xffffffffull;
}

static int resolve_linked(struct audit *au, size_t ti)
{
	const struct table *t = &au->tables[ti];
	unsigned w = t->entsize;
	char buf[48], want[48], where[160];
	size_t k;
	int err;

	for (k = 0; k < t->nentries; k++) {
		struct site st = { .table = ti, .entry = k, .state = SITE_UNCHECKED };
		uint64_t ea = t->addr + k * w;
		const struct eq_dynrel *dr = t->pcrel ? NULL : elfquery_dynrel_at(au->q, ea);

		st.value = get_entry(au, t, k);
		if (t->pcrel) {
			resolve_pcrel(au, t, &st);
			place_site(au, t, &st);
			goto add;
		}
		if (dr && dr->type == au->a->relative_reloc) {
			if (dr->rela)
				st.value = (uint64_t)dr->addend;
		} else if (dr && dr->type == au->a->abs_reloc && dr->sym) {
			const struct eo_sym *s = elfquery_dynsym(au->q, dr->sym);

			if (!s || !s->defined) {
				entry_where(au, t, k, where, sizeof(where));
				report_table(au, CHK_SITE_NOT_EXEC, where,
					     "entry is filled at load time from symbol %s, which is "
					     "not defined here", s ? s->name : "(bad index)");
				st.settled = true;
				goto add;
			}
			st.value = s->value + (dr->rela ? (uint64_t)dr->addend : st.value);
		} else if (dr) {
			entry_where(au, t, k, where, sizeof(where));
			report_table(au, CHK_BAD_RELOC, where,
				     "dynamic relocation %s, expected %s",
				     arch_reloc_str(au->a, dr->type, buf, sizeof(buf)),
				     arch_reloc_str(au->a, au->a->relative_reloc, want, sizeof(want)));
			if (dr->rela)
				st.value = (uint64_t)dr->addend;
		} else if (au->h->type == EO_ET_DYN && st.value) {
			entry_where(au, t, k, where, sizeof(where));
			report_table(au, CHK_BAD_RELOC, where,
				     "entry 0x%llx has no dynamic relocation: it stays a link-time "
				     "address in a position-independent file",
				     (unsigned long long)st.value);
		}
		if (au->h->word == 4)
			st.value &= 0xffffffffull;
		if (!st.value) {
			entry_where(au, t, k, where, sizeof(where));
			report_table(au, CHK_ZERO_ENTRY, where, "zero entry: ftrace skips it");
			st.settled = true;
			goto add;
		}
		place_site(au, t, &st);
add:
		if ((err = add_site(au, &st)))
			return err;
	}
	return 0;
}

int table_resolve(struct audit *au)
{
	size_t i, total = 0;
	int err;

	for (i = 0; i < au->ntables; i++)
		total += au->tables[i].nentries;
	au->sites = calloc(total ? total : 1, sizeof(*au->sites));
	if (!au->sites)
		return -ENOMEM;

	for (i = 0; i < au->ntables; i++) {
		err = au->linked ? resolve_linked(au, i) : resolve_object(au, i);
		if (err)
			return err;
	}
	return 0;
}
