// SPDX-License-Identifier: GPL-2.0-only
/*
 * pv-defect: make one precise defect in a copy of a clean file, for
 * patchverify's tests.
 *
 *   pv-defect DEFECT IN OUT [ENTRY]
 *
 * DEFECT is one of
 *   shift     entry ENTRY points one byte later (inside its call)
 *   misalign  entry ENTRY points two bytes later
 *   drop      entry ENTRY is removed (the last entry takes its slot)
 *   dup       entry ENTRY names the same site as the next entry
 *   data      entry ENTRY points at the start of a data section
 *   nocall    the call at entry ENTRY's site is overwritten by the next instruction
 *   live      a call that recordmcount NOPed in an untraced section is put back
 *   reltype   entry ENTRY's relocation gets the type of a call relocation
 *             (linked file: its dynamic relocation becomes R_*_NONE)
 *   sled      entry ENTRY points one sled NOP later (patchable entries)
 *   swap      the first two entries from ENTRY on with ascending, different
 *             sites trade places (linked files: the table is then unsorted)
 * The table edited is __mcount_loc, or __patchable_function_entries when
 * the file has no __mcount_loc (or PV_DEFECT_TABLE names the section).
 * "dup" and "data" also NOP the call the entry named (as recordmcount does
 * for an untraced call), so that the one defect is all that is wrong.
 *
 * The file is edited as bytes; the core's elfobj (read-only) says where
 * things are, and the arch tables say how words, relocations, calls and
 * NOPs are encoded.  Exit 0 done, 1 the defect does not apply, 2 error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bytes.h"
#include "diag.h"
#include "elfobj.h"
#include "elfquery.h"
#include "symindex.h"

struct ctx {
	struct elfobj *o;
	const struct eo_hdr *h;
	const struct arch *a;
	uint8_t *buf;		/* the whole file */
	size_t size;
	size_t table;		/* __mcount_loc section */
	size_t trel;		/* its relocation section (objects) */
	bool linked;
	struct elfquery *q;	/* linked files: .dynsym, for a stripped file's functions */
	struct symindex *si;	/* ARM: is the code at a site Thumb? */
};

static uint64_t rd(const struct ctx *c, uint64_t off, unsigned n)
{
	const uint8_t *p = c->buf + off;
	bool be = c->h->big_endian;

	if (n == 8)
		return be ? (uint64_t)get32(p, be) << 32 | get32(p + 4, be)
			  : (uint64_t)get32(p + 4, be) << 32 | get32(p, be);
	return get32(p, be);
}

static void wr(struct ctx *c, uint64_t off, unsigned n, uint64_t v)
{
	uint8_t *p = c->buf + off;
	bool be = c->h->big_endian;

	if (n == 8) {
		put32(p + (be ? 0 : 4), (uint32_t)(v >> 32), be);
		put32(p + (be ? 4 : 0), (uint32_t)v, be);
	} else {
		put32(p, (uint32_t)v, be);
	}
}

/* Section header field offsets for the file's class. */
static uint64_t shdr_off(const struct ctx *c, size_t idx)
{
	bool is64 = c->h->elfclass == 2;
	uint64_t shoff = rd(c, is64 ? 0x28 : 0x20, is64 ? 8 : 4);
	unsigned shentsize = get16(c->buf + (is64 ? 0x3a : 0x2e), c->h->big_endian);

	return shoff + idx * shentsize;
}

static void set_sec_size(struct ctx *c, size_t idx, uint64_t size)
{
	bool is64 = c->h->elfclass == 2;

	wr(c, shdr_off(c, idx) + (is64 ? 32 : 20), is64 ? 8 : 4, size);
}

/* Relocation entry k of section rs: file offset and layout. */
struct relpos {
	uint64_t at;
	unsigned w;		/* word size */
	bool rela;
};

static struct relpos rel_pos(const struct ctx *c, size_t rs, size_t k)
{
	const struct eo_sec *s = elfobj_sec(c->o, rs);
	unsigned w = c->h->word;
	bool rela = s->type == EO_SHT_RELA;

	return (struct relpos){ s->offset + k * (rela ? 3 * w : 2 * w), w, rela };
}

static void rel_write(struct ctx *c, size_t rs, size_t k, const struct eo_rel *r)
{
	struct relpos p = rel_pos(c, rs, k);

	wr(c, p.at, p.w, r->offset);
	/* ELF32 packs r_info as sym << 8 | type; ELF64 as the arch says (MIPS64 differs). */
	wr(c, p.at + p.w, p.w, p.w == 4 ? (uint64_t)r->sym << 8 | (r->type & 0xff)
				      : arch_rinfo_make(c->a, r->sym, r->type, c->h->big_endian));
	if (p.rela)
		wr(c, p.at + 2 * p.w, p.w, (uint64_t)r->addend);
}

/* The relocation of table entry k (objects): its index, or -1. */
static long table_rel(struct ctx *c, size_t k, const struct eo_rel **rels, size_t *n)
{
	size_t i;

	if (elfobj_rels(c->o, c->trel, rels, n))
		return -1;
	for (i = 0; i < *n; i++)
		if ((*rels)[i].offset == k * c->h->word)
			return (long)i;
	return -1;
}

/* Where entry k points: section and offset. */
static int entry_site(struct ctx *c, size_t k, size_t *sec, uint64_t *off)
{
	const struct eo_sec *t = elfobj_sec(c->o, c->table);
	unsigned w = c->h->word;
	uint64_t v = rd(c, t->offset + k * w, w);
	const struct eo_rel *rels;
	size_t n, i;
	long r;

	if (!c->linked) {
		const struct eo_sym *s;

		if ((r = table_rel(c, k, &rels, &n)) < 0)
			return -1;
		s = elfobj_sym(c->o, rels[r].sym);
		*sec = s->shndx;
		*off = s->value + (elfobj_sec(c->o, c->trel)->type == EO_SHT_RELA
					   ? (uint64_t)rels[r].addend : v);
		if (c->a->thumb_bit)
			*off &= ~1ull;
		return 0;
	}
	if (!v) {	/* a PIE: the value is in a RELATIVE relocation */
		for (i = 1; i < elfobj_shnum(c->o) && !v; i++) {
			if (!elfobj_is_rel_sec(c->o, i) || elfobj_rels(c->o, i, &rels, &n))
				continue;
			for (size_t j = 0; j < n; j++)
				if (rels[j].offset == t->addr + k * w)
					v = (uint64_t)rels[j].addend;
		}
	}
	for (i = 1; i < elfobj_shnum(c->o); i++) {
		const struct eo_sec *s = elfobj_sec(c->o, i);

		if ((s->flags & EO_SHF_ALLOC) && v >= s->addr && v < s->addr + s->size &&
		    s->type != EO_SHT_NOBITS) {
			*sec = i;
			*off = v - s->addr;
			return 0;
		}
	}
	return -1;
}

/* Write a new value into entry k: a word, a RELATIVE addend, or a symbol + addend. */
static int entry_set(struct ctx *c, size_t k, size_t sec, uint64_t off)
{
	const struct eo_sec *t = elfobj_sec(c->o, c->table);
	unsigned w = c->h->word;
	const struct eo_rel *rels;
	size_t n, i;
	long r;

	if (!c->linked) {
		struct eo_rel nr;

		if ((r = table_rel(c, k, &rels, &n)) < 0)
			return -1;
		nr = rels[r];
		for (i = 1; i < elfobj_nsyms(c->o); i++) {
			const struct eo_sym *s = elfobj_sym(c->o, i);

			if (s->defined && s->shndx == sec && (s->type == EO_STT_SECTION || !s->value))
				break;
		}
		if (i == elfobj_nsyms(c->o))
			return -1;
		nr.sym = (uint32_t)i;
		off -= elfobj_sym(c->o, i)->value;
		if (elfobj_sec(c->o, c->trel)->type == EO_SHT_RELA)
			nr.addend = (int64_t)off;
		else
			wr(c, t->offset + k * w, w, off);
		rel_write(c, c->trel, (size_t)r, &nr);
		return 0;
	}
	off += elfobj_sec(c->o, sec)->addr;
	if (rd(c, t->offset + k * w, w))
		wr(c, t->offset + k * w, w, off);
	for (i = 1; i < elfobj_shnum(c->o); i++) {
		if (!elfobj_is_rel_sec(c->o, i) || elfobj_rels(c->o, i, &rels, &n))
			continue;
		for (size_t j = 0; j < n; j++) {
			if (rels[j].offset == t->addr + k * w) {
				struct eo_rel nr = rels[j];

				nr.addend = (int64_t)off;
				rel_write(c, i, j, &nr);
			}
		}
	}
	return 0;
}

/* The hook relocation that makes the call at (sec, off), objects only. */
static int call_rel(struct ctx *c, size_t sec, uint64_t off, size_t *rs, size_t *k,
		    struct call_site *cs)
{
	size_t i, j, n;
	const struct eo_rel *rels;

	for (i = 1; i < elfobj_shnum(c->o); i++) {
		const struct eo_sec *s = elfobj_sec(c->o, i);

		if (!elfobj_is_rel_sec(c->o, i) || s->info != sec || elfobj_rels(c->o, i, &rels, &n))
			continue;
		for (j = 0; j < n; j++) {
			const struct eo_sym *sym = elfobj_sym(c->o, rels[j].sym);
			const struct eo_sec *ts = elfobj_sec(c->o, sec);
			struct reloc_view rv = {
				.code = c->buf + ts->offset, .code_size = ts->size,
				.offset = rels[j].offset, .type = rels[j].type,
				.big_endian = c->h->big_endian,
			};

			if (!sym || !arch_is_hook(c->a, sym->name))
				continue;
			if (c->a->call_site(c->a, &rv, cs) == RELOC_CALL && cs->site == off) {
				*rs = i;
				*k = j;
				return 0;
			}
		}
	}
	return -1;
}

/* The instruction at (sec, off), in the state of the code there (ARM or Thumb). */
static struct insn_view code_view(const struct ctx *c, size_t sec, uint64_t off)
{
	const struct eo_sec *s = elfobj_sec(c->o, sec);

	return (struct insn_view){ .code = c->buf + s->offset, .size = s->size, .off = off,
				   .addr = s->addr + off, .big_endian = c->h->big_endian,
				   .thumb = symindex_thumb_at(c->si, sec, off),
				   .got = c->q ? elfquery_got_addr(c->q) : 0 };
}

/* Make the call at (sec, off) the arch's NOP, as recordmcount does for untraced calls. */
static int nop_call(struct ctx *c, size_t sec, uint64_t off)
{
	const struct eo_sec *s = elfobj_sec(c->o, sec);
	struct call_site cs = { .site = off, .len = 4, .align = 4 };
	int (*mk)(const struct arch *, uint8_t *, uint64_t, const struct call_site *, bool) =
		c->a->make_site_nop ? c->a->make_site_nop : c->a->make_nop;
	const struct eo_rel *rels;
	size_t rs, k, n;

	if (!mk)
		return -1;
	if (!c->linked) {
		struct eo_rel r;

		if (call_rel(c, sec, off, &rs, &k, &cs))
			return -1;
		if (mk(c->a, c->buf + s->offset, s->size, &cs, c->h->big_endian))
			return -1;
		elfobj_rels(c->o, rs, &rels, &n);
		r = rels[k];
		r.type = c->a->none_reloc;
		rel_write(c, rs, k, &r);
		return 0;
	}
	{
		struct insn_view iv = code_view(c, sec, off);
		struct branch b;

		if (!c->a->decode_branch || !c->a->decode_branch(c->a, &iv, &b))
			return -1;
		cs.len = b.len;
		cs.align = iv.thumb ? 2 : 4;
		return mk(c->a, c->buf + s->offset, s->size, &cs, c->h->big_endian);
	}
}

/* Length of the call at (sec, off), or 0. */
static unsigned call_len(struct ctx *c, size_t sec, uint64_t off)
{
	struct insn_view iv = code_view(c, sec, off);
	struct call_site cs;
	struct branch b;
	size_t rs, k;

	if (!c->linked)
		return call_rel(c, sec, off, &rs, &k, &cs) ? 0 : cs.len;
	return c->a->decode_branch && c->a->decode_branch(c->a, &iv, &b) ? b.len : 0;
}

static int do_drop(struct ctx *c, size_t k)
{
	const struct eo_sec *t = elfobj_sec(c->o, c->table);
	unsigned w = c->h->word;
	size_t last = t->size / w - 1, lsec;
	uint64_t loff;
	const struct eo_rel *rels;
	size_t n, i, out;
	long rk, rl;

	if (k > last || entry_site(c, last, &lsec, &loff))
		return -1;
	if (c->linked) {
		if (k != last && entry_set(c, k, lsec, loff))
			return -1;
		set_sec_size(c, c->table, t->size - w);
		return 0;
	}
	rk = table_rel(c, k, &rels, &n);
	rl = table_rel(c, last, &rels, &n);
	if (rk < 0 || rl < 0)
		return -1;
	/* Rewrite the relocations without the last entry's; k's takes its target. */
	for (i = 0, out = 0; i < n; i++) {
		struct eo_rel r = rels[i];

		if ((long)i == rl)
			continue;
		if ((long)i == rk) {
			r = rels[rl];
			r.offset = k * w;
		}
		rel_write(c, c->trel, out++, &r);
	}
	if (k != last)
		wr(c, t->offset + k * w, w, rd(c, t->offset + last * w, w));
	set_sec_size(c, c->trel, elfobj_sec(c->o, c->trel)->size -
				     elfobj_sec(c->o, c->trel)->size / n);
	set_sec_size(c, c->table, t->size - w);
	return 0;
}

static int do_live(struct ctx *c)
{
	const struct eo_rel *rels;
	size_t i, j, n;
	uint32_t call_type = 0;
	int64_t delta = -1;

	/* Learn the call relocation type and its distance from the site from a live call. */
	for (i = 1; i < elfobj_shnum(c->o) && delta < 0; i++) {
		const struct eo_sec *s = elfobj_sec(c->o, i), *ts;

		if (!elfobj_is_rel_sec(c->o, i) || elfobj_rels(c->o, i, &rels, &n))
			continue;
		ts = elfobj_sec(c->o, s->info);
		if (!(ts->flags & EO_SHF_EXECINSTR))
			continue;
		for (j = 0; j < n; j++) {
			const struct eo_sym *sym = elfobj_sym(c->o, rels[j].sym);
			struct reloc_view rv = {
				.code = c->buf + ts->offset, .code_size = ts->size,
				.offset = rels[j].offset, .type = rels[j].type,
				.big_endian = c->h->big_endian,
			};
			struct call_site cs;

			if (sym && arch_is_hook(c->a, sym->name) &&
			    c->a->call_site(c->a, &rv, &cs) == RELOC_CALL) {
				call_type = rels[j].type;
				delta = (int64_t)(rels[j].offset - cs.site);
				break;
			}
		}
	}
	if (delta < 0)
		return -1;
	for (i = 1; i < elfobj_shnum(c->o); i++) {
		const struct eo_sec *s = elfobj_sec(c->o, i), *ts;

		if (!elfobj_is_rel_sec(c->o, i) || elfobj_rels(c->o, i, &rels, &n))
			continue;
		ts = elfobj_sec(c->o, s->info);
		for (j = 0; j < n; j++) {
			const struct eo_sym *sym = elfobj_sym(c->o, rels[j].sym);
			struct insn_view iv = { .code = c->buf + ts->offset, .size = ts->size,
						.off = rels[j].offset - (uint64_t)delta,
						.big_endian = c->h->big_endian };
			struct eo_rel r = rels[j];
			uint8_t call[16];
			unsigned len;

			if (!sym || !arch_is_hook(c->a, sym->name) || r.type != c->a->none_reloc)
				continue;
			iv.thumb = c->a->thumb_bit && (ts->flags & EO_SHF_EXECINSTR) &&
				   c->a->site_nop && c->a->site_nop(c->a, &iv) == 0;
			len = c->a->make_call(c->a, &iv, NULL, call);
			if (!in_bounds(iv.off, len, ts->size))
				return -1;
			memcpy(c->buf + ts->offset + iv.off, call, len);
			r.type = call_type;
			rel_write(c, i, j, &r);
			return 0;
		}
	}
	return -1;
}

static int do_reltype(struct ctx *c, size_t k)
{
	const struct eo_sec *t = elfobj_sec(c->o, c->table);
	const struct eo_rel *rels;
	size_t i, j, n, sec, rs, rk;
	struct call_site cs;
	uint64_t off;
	long r;

	if (c->linked) {
		for (i = 1; i < elfobj_shnum(c->o); i++) {
			if (!elfobj_is_rel_sec(c->o, i) || elfobj_rels(c->o, i, &rels, &n))
				continue;
			for (j = 0; j < n; j++) {
				if (rels[j].offset == t->addr + k * c->h->word) {
					struct eo_rel nr = rels[j];

					nr.type = c->a->none_reloc;
					rel_write(c, i, j, &nr);
					return 0;
				}
			}
		}
		return -1;
	}
	if (entry_site(c, k, &sec, &off) || call_rel(c, sec, off, &rs, &rk, &cs))
		return -1;
	elfobj_rels(c->o, rs, &rels, &n);
	{
		uint32_t type = rels[rk].type;
		struct eo_rel nr;

		if ((r = table_rel(c, k, &rels, &n)) < 0)
			return -1;
		nr = rels[r];
		nr.type = type;
		rel_write(c, c->trel, (size_t)r, &nr);
	}
	return 0;
}

/*
 * Only a linked table has an order (an object's entries are per section
 * until the link), so swap applies to linked files only.
 */
static int do_swap(struct ctx *c, size_t k)
{
	size_t n = elfobj_sec(c->o, c->table)->size / c->h->word, s1, s2;
	uint64_t o1, o2;

	if (!c->linked)
		return -1;
	for (; k + 1 < n; k++) {
		if (entry_site(c, k, &s1, &o1) || entry_site(c, k + 1, &s2, &o2))
			return -1;
		if (elfobj_sec(c->o, s1)->addr + o1 < elfobj_sec(c->o, s2)->addr + o2)
			return entry_set(c, k, s2, o2) || entry_set(c, k + 1, s1, o1) ? -1 : 0;
	}
	return -1;
}

static size_t data_section(struct ctx *c)
{
	size_t i;

	for (i = 1; i < elfobj_shnum(c->o); i++) {
		const struct eo_sec *s = elfobj_sec(c->o, i);

		if (!strcmp(s->name, ".data") && s->size)
			return i;
	}
	return 0;
}

static int apply(struct ctx *c, const char *what, size_t k)
{
	const struct eo_sec *t = elfobj_sec(c->o, c->table);
	size_t sec, sec2;
	uint64_t off, off2;

	if (!strcmp(what, "live"))
		return c->linked ? -1 : do_live(c);
	if (k >= t->size / c->h->word || entry_site(c, k, &sec, &off))
		return -1;
	if (!strcmp(what, "shift"))
		return entry_set(c, k, sec, off + 1);
	if (!strcmp(what, "misalign"))
		return entry_set(c, k, sec, off + 2);
	if (!strcmp(what, "drop"))
		return do_drop(c, k);
	if (!strcmp(what, "sled")) {
		struct insn_view iv = code_view(c, sec, off);
		unsigned len = c->a->sled_nop ? c->a->sled_nop(c->a, &iv) : 0;

		return len ? entry_set(c, k, sec, off + len) : -1;
	}
	if (!strcmp(what, "reltype"))
		return do_reltype(c, k);
	if (!strcmp(what, "swap"))
		return do_swap(c, k);
	if (!strcmp(what, "dup")) {
		if (entry_site(c, k + 1, &sec2, &off2) || nop_call(c, sec, off))
			return -1;
		return entry_set(c, k, sec2, off2);
	}
	if (!strcmp(what, "data")) {
		size_t d = data_section(c);

		if (!d || nop_call(c, sec, off))
			return -1;
		return entry_set(c, k, d, 0);
	}
	if (!strcmp(what, "nocall")) {
		/* The instruction after the call slides over it. */
		const struct eo_sec *s = elfobj_sec(c->o, sec);
		unsigned len = call_len(c, sec, off);

		if (!len || !in_bounds(off, 2 * len, s->size))
			return -1;
		memmove(c->buf + s->offset + off, c->buf + s->offset + off + len, len);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ctx c = { 0 };
	size_t k = argc > 4 ? strtoul(argv[4], NULL, 0) : 0, i;
	FILE *f = NULL;
	int rc = 2;

	diag_set_prog("pv-defect");
	if (argc < 4) {
		fprintf(stderr, "usage: pv-defect shift|misalign|drop|dup|data|nocall|live|reltype|sled|swap "
				"IN OUT [ENTRY]\n");
		return 2;
	}
	if (elfobj_open(argv[2], &c.o))
		return 2;
	c.h = elfobj_hdr(c.o);
	c.a = elfobj_arch(c.o);
	c.linked = c.h->type != EO_ET_REL;
	c.table = elfobj_find_sec(c.o, getenv("PV_DEFECT_TABLE") ? getenv("PV_DEFECT_TABLE")
								  : "__mcount_loc");
	if (!c.table)
		c.table = elfobj_find_sec(c.o, "__patchable_function_entries");
	for (i = 1; i < elfobj_shnum(c.o); i++)
		if (elfobj_is_rel_sec(c.o, i) && elfobj_sec(c.o, i)->info == c.table &&
		    !(elfobj_sec(c.o, i)->flags & EO_SHF_ALLOC))
			c.trel = i;
	if (c.linked && elfquery_open(c.o, &c.q))
		goto out;
	c.si = symindex_build_linked(c.o, c.q);
	f = fopen(argv[2], "rb");
	if (!c.a || !c.si || !c.table || (!c.linked && !c.trel) || !f) {
		fprintf(stderr, "pv-defect: %s: no table to edit\n", argv[2]);
		goto out;
	}
	fseek(f, 0, SEEK_END);
	c.size = (size_t)ftell(f);
	rewind(f);
	c.buf = malloc(c.size);
	if (!c.buf || fread(c.buf, 1, c.size, f) != c.size)
		goto out;
	fclose(f);
	f = NULL;
	if (apply(&c, argv[1], k)) {
		fprintf(stderr, "pv-defect: %s: defect '%s' does not apply\n", argv[2], argv[1]);
		rc = 1;
		goto out;
	}
	f = fopen(argv[3], "wb");
	if (!f || fwrite(c.buf, 1, c.size, f) != c.size)
		goto out;
	rc = 0;
out:
	if (f)
		fclose(f);
	free(c.buf);
	symindex_free(c.si);
	elfquery_close(c.q);
	elfobj_close(c.o);
	return rc;
}
