// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which symbol each table entry is relative to.
 *
 * An entry is "symbol + offset".  The symbol must stay with the code it
 * names through the link:
 *   - a section symbol, or else a local or global non-weak symbol of the
 *     section (a weak one can be overridden, which would move every entry);
 *     a section with neither gets a section symbol of its own;
 *   - where the linker shrinks code (RISC-V relaxation), only symbols move
 *     with it, so an entry may not reach across a relaxable spot: it then
 *     uses its (non-weak) function, or else an unnamed local symbol placed
 *     on the call itself.
 * Every symbol is added before any index is taken, because an addition
 * renumbers the first global symbol.
 */
#include <errno.h>
#include <stdlib.h>

#include "arch.h"
#include "diag.h"
#include "elfobj.h"
#include "record.h"
#include "symindex.h"

enum ref_how { BY_SECTION, BY_FUNCTION, BY_ANCHOR };

#define REF_TO_ADD ((size_t)-1)	/* the section symbol this pass will add */

static bool usable_ref(const struct record *r, const struct eo_sym *s)
{
	if (s->type == EO_STT_SECTION)
		return true;
	if (s->bind != EO_STB_LOCAL && s->bind != EO_STB_GLOBAL)
		return false;
	/* A place-relative entry against a global would need a dynamic relocation in a .so. */
	if (r->pcrel && s->bind != EO_STB_LOCAL)
		return false;
	return !(r->a->ref_skips_func && s->type == EO_STT_FUNC);
}

/* refs[sec]: the reference symbol of each section, 0 where none; one pass. */
static void section_refs(const struct record *r, size_t *refs)
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

/* The non-weak function holding the call, if nothing relaxable precedes it there. */
static const struct eo_sym *safe_function(struct record *r, const struct site *s,
					  const struct relax_spots *rs)
{
	uint64_t delta;
	const struct eo_sym *fn = symindex_covering(record_symindex(r), s->sec, s->off, &delta);

	if (fn && fn->type == EO_STT_FUNC && fn->bind != EO_STB_WEAK &&
	    !relax_within(rs, fn->value, s->off))
		return fn;
	return NULL;
}

static int decide(struct record *r, const struct site *s, const size_t *refs,
		  struct relax_spots *rs, enum ref_how *how)
{
	uint64_t base;

	*how = BY_SECTION;
	if (!r->a->relax_reloc)
		return 0;
	if (rs->relsec != s->relsec && load_relax(r, s->relsec, rs))
		return -ENOMEM;
	base = refs[s->sec] == REF_TO_ADD ? 0 : elfobj_sym(r->o, refs[s->sec])->value;
	if (base <= s->off && !relax_within(rs, base, s->off))
		return 0;
	*how = safe_function(r, s, rs) ? BY_FUNCTION : BY_ANCHOR;
	return 0;
}

/* Add every symbol the entries need; out[i] gets the anchors' indices. */
static int add_symbols(struct record *r, size_t *refs, const enum ref_how *how, long *out)
{
	size_t i, shnum = elfobj_shnum(r->o);
	bool added = false;

	for (i = 0; i < shnum; i++) {
		if (refs[i] != REF_TO_ADD)
			continue;
		if (elfobj_add_section_symbol(r->o, i) < 0)
			return -EINVAL;
		added = true;
	}
	for (i = 0; i < r->nsites; i++) {
		if (!r->sites[i].traced || how[i] != BY_ANCHOR)
			continue;
		out[i] = elfobj_add_local_symbol(r->o, r->sites[i].sec, r->sites[i].off,
						 EO_STT_NOTYPE);
		if (out[i] < 0)
			return -EINVAL;
		added = true;
	}
	if (added) {
		record_symindex_reset(r);	/* its pointers went with the old array */
		section_refs(r, refs);
	}
	return 0;
}

long *refs_choose(struct record *r)
{
	size_t i, *refs = calloc(elfobj_shnum(r->o) + 1, sizeof(*refs));
	enum ref_how *how = calloc(r->nsites + 1, sizeof(*how));
	long *out = calloc(r->nsites + 1, sizeof(*out));
	struct relax_spots rs = { .relsec = 0 };
	int err = -ENOMEM;

	if (!refs || !how || !out)
		goto out;
	section_refs(r, refs);
	for (i = 0, err = 0; i < r->nsites && !err; i++) {
		if (!r->sites[i].traced)
			continue;
		if (!refs[r->sites[i].sec])
			refs[r->sites[i].sec] = REF_TO_ADD;
		err = decide(r, &r->sites[i], refs, &rs, &how[i]);
	}
	if (!err)
		err = add_symbols(r, refs, how, out);
	for (i = 0; i < r->nsites && !err; i++) {
		const struct site *s = &r->sites[i];
		const struct eo_sym *fn;

		if (s->traced && how[i] == BY_SECTION)
			out[i] = (long)refs[s->sec];
		if (!s->traced || how[i] != BY_FUNCTION)
			continue;
		/* The spots of this site's section, not of the last one decided. */
		if (rs.relsec != s->relsec && (err = load_relax(r, s->relsec, &rs)))
			break;
		fn = safe_function(r, s, &rs);
		if (!fn) {
			diag_err(r->path, "no reference symbol for a call in %s",
				 elfobj_sec(r->o, s->sec)->name);
			err = -EINVAL;
			break;
		}
		out[i] = (long)elfobj_sym_index(r->o, fn);
	}
out:
	if (err == -ENOMEM)
		diag_err(r->path, "out of memory");
	free(rs.off);
	free(refs);
	free(how);
	if (err) {
		free(out);
		return NULL;
	}
	return out;
}
