// SPDX-License-Identifier: GPL-2.0-only
/*
 * Editing and writing an object once its sites are known:
 *   1. calls in untraced code become NOPs (where the arch has a build-time
 *      NOP) and their relocations R_*_NONE, so they cost nothing and the
 *      linker leaves them alone;
 *   2. each traced section gets a reference symbol: its section symbol,
 *      else a local or global non-weak symbol in it (a weak one can be
 *      overridden at link time, which would move every entry), else a new
 *      section symbol; where the linker relaxes code (RISC-V), an entry
 *      that would reach across a relaxable spot uses its function instead;
 *   3. __mcount_loc gets one word per traced site, relocated by the arch's
 *      absolute word relocation against the reference symbol; REL or RELA
 *      as the object's own code relocations are;
 *   4. the object is written whole to a temporary file and renamed.
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

static bool usable_ref(const struct record *r, const struct eo_sym *s)
{
	if (s->type == EO_STT_SECTION)
		return true;
	if (s->bind != EO_STB_LOCAL && s->bind != EO_STB_GLOBAL)
		return false;
	return !(r->a->ref_skips_func && s->type == EO_STT_FUNC);
}

/* refs[sec]: the reference symbol of each section, 0 where none; one pass. */
static void choose_refs(const struct record *r, size_t *refs)
{
	size_t i, n = elfobj_nsyms(r->o), shnum = elfobj_shnum(r->o);

	for (i = 0; i < shnum; i++)
		refs[i] = 0;
	for (i = 1; i < n; i++) {
		const struct eo_sym *s = elfobj_sym(r->o, i);
		size_t cur;

		if (!s->defined || s->shndx >= shnum || !usable_ref(r, s))
			continue;
		cur = refs[s->shndx];
		if (!cur || (s->type == EO_STT_SECTION &&
			     elfobj_sym(r->o, cur)->type != EO_STT_SECTION))
			refs[s->shndx] = i;
	}
}

static int find_refs(struct record *r, size_t *refs)
{
	size_t i, added = 0;

	choose_refs(r, refs);
	for (i = 0; i < r->nsites; i++) {
		size_t sec = r->sites[i].sec;

		if (!r->sites[i].traced || refs[sec])
			continue;
		/* Only weak symbols here: a section symbol of our own is safe. */
		if (elfobj_add_section_symbol(r->o, sec) < 0)
			return -EINVAL;
		refs[sec] = 1;	/* placeholder until the pass below */
		added++;
	}
	if (added)
		choose_refs(r, refs);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorted offsets of the relaxable relocations of one relocation section. */
struct relax_spots {
	size_t relsec;
	uint64_t *off;
	size_t n;
};

static int load_relax(struct record *r, size_t relsec, struct relax_spots *rs)
{
	const struct eo_rel *rels;
	size_t k, n;

	free(rs->off);
	*rs = (struct relax_spots){ .relsec = relsec };
	if (elfobj_rels(r->o, relsec, &rels, &n))
		return -EINVAL;
	rs->off = malloc((n ? n : 1) * sizeof(*rs->off));
	if (!rs->off)
		return -ENOMEM;
	for (k = 0; k < n; k++)
		if (rels[k].type == r->a->relax_reloc)
			rs->off[rs->n++] = rels[k].offset;
	qsort(rs->off, rs->n, sizeof(*rs->off), cmp_u64);
	return 0;
}

/* Is there a relaxable spot in [from, to)? */
static bool relax_within(const struct relax_spots *rs, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->off[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rs->n && rs->off[lo] < to;
}

/*
 * The reference symbol of one site.  Where code can shrink at link time,
 * the section's reference serves only if nothing relaxable lies between
 * it and the call; else the (non-weak) function holding the call, which
 * the linker moves with its code.
 */
static long site_ref(struct record *r, const struct site *s, const size_t *refs,
		     struct relax_spots *rs)
{
	const struct eo_sym *ref = elfobj_sym(r->o, refs[s->sec]), *fn;
	uint64_t delta;
	char w[256];

	if (!r->a->relax_reloc)
		return (long)refs[s->sec];
	if (rs->relsec != s->relsec && load_relax(r, s->relsec, rs))
		return -ENOMEM;
	if (ref->value <= s->off && !relax_within(rs, ref->value, s->off))
		return (long)refs[s->sec];
	fn = symindex_covering(record_symindex(r), s->sec, s->off, &delta);
	if (fn && fn->type == EO_STT_FUNC && fn->bind != EO_STB_WEAK &&
	    !relax_within(rs, fn->value, s->off))
		return (long)elfobj_sym_index(r->o, fn);
	diag_err(r->path, "%s: no symbol to record this call against: the linker may relax "
		 "code between %s and the call (a weak function cannot serve); compile with "
		 "-mno-relax", where(r, s, w, sizeof(w)), fn ? fn->name : "the section start");
	return -EINVAL;
}

static enum rmc_status add_table(struct record *r)
{
	const struct eo_hdr *h = elfobj_hdr(r->o);
	size_t *refs = calloc(elfobj_shnum(r->o), sizeof(*refs));
	uint64_t *words = calloc(r->ntraced, sizeof(*words));
	struct eo_rel *rels = calloc(r->ntraced, sizeof(*rels));
	struct relax_spots rs = { .relsec = 0 };
	enum rmc_status st = RMC_SYSERR;
	long name, loc, ref;
	size_t i, j = 0;

	if (!refs || !words || !rels) {
		diag_err(r->path, "out of memory");
		goto out;
	}
	st = RMC_REJECTED;
	if (find_refs(r, refs))
		goto out;
	for (i = 0; i < r->nsites; i++) {
		const struct site *s = &r->sites[i];
		int64_t val;

		if (!s->traced)
			continue;
		ref = site_ref(r, s, refs, &rs);
		if (ref < 0)
			goto out;
		val = (int64_t)(s->off - elfobj_sym(r->o, (size_t)ref)->value);
		rels[j] = (struct eo_rel){ .offset = j * h->word, .sym = (uint32_t)ref,
					   .type = r->a->abs_reloc, .addend = r->rela ? val : 0 };
		words[j++] = r->rela ? 0 : (uint64_t)val;
	}
	/* One name serves both sections: "__mcount_loc" is its own suffix. */
	name = elfobj_add_shstr(r->o, r->rela ? ".rela__mcount_loc" : ".rel__mcount_loc");
	if (name < 0)
		goto out;
	loc = elfobj_add_section(r->o, &(struct eo_newsec){
		.name = (uint32_t)name + (r->rela ? 5 : 4), .type = EO_SHT_PROGBITS,
		.flags = EO_SHF_ALLOC, .addralign = h->word, .entsize = h->word,
		.words = words, .count = j });
	if (loc < 0 || elfobj_add_section(r->o, &(struct eo_newsec){
		.name = (uint32_t)name, .type = r->rela ? EO_SHT_RELA : EO_SHT_REL,
		.link = (uint32_t)elfobj_symtab_index(r->o), .info = (uint32_t)loc,
		.addralign = h->word, .entsize = (r->rela ? 3 : 2) * h->word,
		.rels = rels, .count = j }) < 0)
		goto out;
	st = RMC_OK;
out:
	free(rs.off);
	free(refs);
	free(words);
	free(rels);
	return st;
}

enum rmc_status emit_object(struct record *r, const struct options *opt)
{
	enum rmc_status st = RMC_OK;
	bool changed;
	size_t i;

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
	return elfobj_write(r->o, opt->out ? opt->out : r->path) ? RMC_SYSERR : RMC_OK;
}
