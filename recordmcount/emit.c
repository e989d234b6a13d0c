// SPDX-License-Identifier: GPL-2.0-only
/*
 * Editing and writing an object once its sites are known:
 *   1. calls in untraced code become NOPs (where the arch has a build-time
 *      NOP) and their relocations R_*_NONE, so they cost nothing and the
 *      linker leaves them alone;
 *   2. each entry gets a symbol it is relative to (refs.c);
 *   3. __mcount_loc gets one word per traced site, relocated by the arch's
 *      absolute word relocation against the reference symbol (--pie-table:
 *      __mcount_loc_pcrel, 32-bit words site - &word, relocated by the
 *      arch's place-relative data relocation against a local symbol, which
 *      ld resolves at link time: no dynamic relocation, no text
 *      relocation in a PIE or shared library); REL or RELA
 *      as the object's own code relocations are; sites in a COMDAT group
 *      get a __mcount_loc of their own in that group;
 *   4. the object is written: into itself where that is safe (the new
 *      sections and header table appended, the ELF header last: see
 *      lib/elfupdate.c), else whole to a temporary file that is renamed.
 */
#include <errno.h>
#include <stdlib.h>

#include "arch.h"
#include "diag.h"
#include "elfobj.h"
#include "record.h"
#include "symindex.h"

typedef int (*nop_fn)(const struct arch *a, uint8_t *code, uint64_t size,
		      const struct call_site *cs, bool big_endian);

/* Replace one call with a NOP and turn its relocation into R_*_NONE. */
static int nop_site(struct record *r, struct site *s, nop_fn make)
{
	struct call_site cs = { .site = s->off, .len = s->len, .align = s->align };
	uint8_t *code = elfobj_sec_bytes_rw(r->o, s->sec);
	const struct eo_rel *rels;
	struct eo_rel rel;
	size_t n;

	if (!code)
		return -ENOMEM;
	if (make(r->a, code, elfobj_sec(r->o, s->sec)->size, &cs, elfobj_hdr(r->o)->big_endian))
		return -EINVAL;
	if (elfobj_rels(r->o, s->relsec, &rels, &n) || s->rel >= n)
		return -EINVAL;
	/*
	 * No symbol either: ld refuses an R_*_NONE against a hook that a
	 * shared library defines ("unresolvable R_X86_64_NONE relocation"),
	 * as glibc's __fentry__ is in a PIE.  The kernel's tool keeps the
	 * symbol, which only its own vmlinux link tolerates.
	 */
	rel = rels[s->rel];
	rel.type = r->a->none_reloc;
	rel.sym = 0;
	s->nopped = true;
	return elfobj_set_rel(r->o, s->relsec, s->rel, &rel);
}

static const char *where(struct record *r, const struct site *s, char *buf, size_t len)
{
	return symindex_where(record_symindex(r), r->o, s->sec, s->off, buf, len);
}

static void nop_untraced(struct record *r, const struct options *opt)
{
	size_t i, warned = 0;
	char w[256];

	for (i = 0; i < r->nsites; i++) {
		struct site *s = &r->sites[i];

		if (s->traced)
			continue;
		if (opt->warn && warned != s->sec) {
			diag_warn(r->path, "section %s calls %s but is not traced%s",
				  elfobj_sec(r->o, s->sec)->name, s->hook,
				  r->a->make_nop ? "; its calls become NOPs" : "");
			warned = s->sec;
		}
		if (r->a->make_nop && nop_site(r, s, r->a->make_nop))
			diag_warn(r->path, "%s: call to %s in untraced code left live: "
				  "the code around it is not the form %s NOPs",
				  where(r, s, w, sizeof(w)), s->hook, r->a->name);
	}
}

static enum rmc_status nop_traced(struct record *r)
{
	nop_fn make = r->a->make_site_nop ? r->a->make_site_nop : r->a->make_nop;
	enum rmc_status st = RMC_OK;
	size_t i;
	char w[256];

	if (!make) {
		diag_err(r->path, "--nop-all is not supported on %s: it has no build-time NOP",
			 r->a->name);
		return RMC_REJECTED;
	}
	for (i = 0; i < r->nsites; i++) {
		if (r->sites[i].traced && nop_site(r, &r->sites[i], make)) {
			diag_err(r->path, "%s: cannot NOP the call to %s",
				 where(r, &r->sites[i], w, sizeof(w)), r->sites[i].hook);
			st = RMC_REJECTED;
		}
	}
	return st;
}

/*
 * One __mcount_loc and its relocation section for the n traced sites in
 * idx, all in section group g (0: in none).  A group's table joins the
 * group, so the linker discards it with the code when it keeps another
 * object's copy of an inline or template function.
 */
static enum rmc_status add_one_table(struct record *r, const long *refs, const size_t *idx,
				     size_t n, size_t g, long name)
{
	const struct eo_hdr *h = elfobj_hdr(r->o);
	unsigned w = r->pcrel ? 4 : h->word;
	uint64_t *words = calloc(n, sizeof(*words));
	struct eo_rel *rels = calloc(n, sizeof(*rels));
	uint64_t grp = g ? EO_SHF_GROUP : 0;
	enum rmc_status st = RMC_REJECTED;
	long loc, rel = -1;
	size_t j;

	if (!words || !rels) {
		diag_err(r->path, "out of memory");
		st = RMC_SYSERR;
		goto out;
	}
	for (j = 0; j < n; j++) {
		const struct site *s = &r->sites[idx[j]];
		size_t ref = (size_t)refs[idx[j]];
		int64_t val = (int64_t)(s->off - elfobj_sym(r->o, ref)->value);

		rels[j] = (struct eo_rel){ .offset = j * w, .sym = (uint32_t)ref,
					   .type = r->pcrel ? r->a->pcrel32_reloc : r->a->abs_reloc,
					   .addend = r->rela ? val : 0 };
		words[j] = r->rela ? 0 : (uint64_t)val;
	}
	/* One name serves both sections: "__mcount_loc" is its own suffix. */
	loc = elfobj_add_section(r->o, &(struct eo_newsec){
		.name = (uint32_t)name + (r->rela ? 5 : 4), .type = EO_SHT_PROGBITS,
		.flags = EO_SHF_ALLOC | grp, .addralign = w, .entsize = w,
		.words = words, .word32 = r->pcrel, .count = n });
	if (loc >= 0)
		rel = elfobj_add_section(r->o, &(struct eo_newsec){
			.name = (uint32_t)name, .type = r->rela ? EO_SHT_RELA : EO_SHT_REL,
			.flags = grp, .link = (uint32_t)elfobj_symtab_index(r->o),
			.info = (uint32_t)loc, .addralign = h->word,
			.entsize = (r->rela ? 3 : 2) * h->word, .rels = rels, .count = n });
	if (rel >= 0 && (!g || (!elfobj_group_add(r->o, g, (size_t)loc) &&
				!elfobj_group_add(r->o, g, (size_t)rel))))
		st = RMC_OK;
out:
	free(words);
	free(rels);
	return st;
}

/*
 * The traced sites bucketed by section group (a counting sort, stable, so
 * each table keeps the sites' order), then one table per bucket: objects
 * without groups (all the kernel's) get exactly one.
 */
static enum rmc_status add_tables(struct record *r, const long *refs, long name)
{
	size_t shnum = elfobj_shnum(r->o), i, g, *start = calloc(shnum + 1, sizeof(*start));
	size_t *idx = calloc(r->ntraced ? r->ntraced : 1, sizeof(*idx));
	enum rmc_status st = RMC_OK;

	if (!start || !idx) {
		diag_err(r->path, "out of memory");
		st = RMC_SYSERR;
		goto out;
	}
	for (i = 0; i < r->nsites; i++)
		if (r->sites[i].traced)
			start[elfobj_sec_group(r->o, r->sites[i].sec) + 1]++;
	for (g = 1; g <= shnum; g++)
		start[g] += start[g - 1];
	for (i = 0; i < r->nsites; i++)
		if (r->sites[i].traced)
			idx[start[elfobj_sec_group(r->o, r->sites[i].sec)]++] = i;
	/* start[g] is now the end of bucket g, and so the start of g + 1. */
	for (g = 0; g < shnum && st == RMC_OK; g++) {
		size_t from = g ? start[g - 1] : 0;

		if (start[g] > from)
			st = add_one_table(r, refs, idx + from, start[g] - from, g, name);
	}
out:
	free(start);
	free(idx);
	return st;
}

static enum rmc_status add_table(struct record *r)
{
	long *refs = refs_choose(r);
	enum rmc_status st = RMC_REJECTED;
	long name;

	if (!refs)
		return st;
	if (r->pcrel)
		name = elfobj_add_shstr(r->o, r->rela ? ".rela" PCREL_TABLE : ".rel" PCREL_TABLE);
	else
		name = elfobj_add_shstr(r->o, r->rela ? ".rela__mcount_loc" : ".rel__mcount_loc");
	if (name >= 0)
		st = add_tables(r, refs, name);
	free(refs);
	return st;
}

enum rmc_status emit_object(struct record *r, const struct options *opt)
{
	enum rmc_status st = RMC_OK;
	bool changed;
	size_t i;

	/*
	 * Refused only when there is a table to write: an object without a
	 * call may have no relocation section to tell REL from RELA by.
	 */
	if (opt->pie_table && r->ntraced && (!r->a->pcrel32_reloc || !r->rela)) {
		diag_err(r->path, "--pie-table is not supported on %s: no 32-bit place-relative "
			 "RELA data relocation known for it (x86_64 and aarch64 have one)",
			 r->a->name);
		return RMC_REJECTED;
	}

	nop_untraced(r, opt);
	if (opt->nop_all)
		st = nop_traced(r);
	if (st == RMC_OK && r->ntraced)
		st = add_table(r);
	if (st != RMC_OK)
		return st;
	changed = r->ntraced > 0;
	for (i = 0; i < r->nsites && !changed; i++)
		changed = r->sites[i].nopped;
	if (!changed && !opt->out)
		return RMC_OK;	/* nothing to do: the file keeps its inode and time */
	if (opt->out || opt->replace)
		return elfobj_write(r->o, opt->out ? opt->out : r->path) ? RMC_SYSERR : RMC_OK;
	return elfobj_update(r->o, NULL) ? RMC_SYSERR : RMC_OK;
}
