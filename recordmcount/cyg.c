// SPDX-License-Identifier: GPL-2.0-only
/*
 * -finstrument-functions: the compiler's calls to __cyg_profile_func_enter
 * and __cyg_profile_func_exit are where such code is traced, but they need
 * no table (libpatchsite defines both functions, so the calls reach it) and
 * are never recorded in __mcount_loc, whose entries the runtime and the
 * kernel patch as calls to an entry hook.  --list and --json show them,
 * marked "interposed", so that the form is seen rather than an object
 * with no sites at all.  gcc may tail-call the exit hook (a jmp): listed
 * too, at the relocation's place.
 */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "diag.h"
#include "elfobj.h"
#include "record.h"

static bool is_cyg(const char *name)
{
	return !strcmp(name, "__cyg_profile_func_enter") ||
	       !strcmp(name, "__cyg_profile_func_exit");
}

static int add_cyg(struct record *r, const struct site *s)
{
	struct site *n = realloc(r->cyg, (r->ncyg + 1) * sizeof(*n));

	if (!n)
		return -1;
	r->cyg = n;
	r->cyg[r->ncyg++] = *s;
	return 0;
}

static enum rmc_status cyg_relsec(struct record *r, size_t relsec)
{
	const struct eo_sec *rs = elfobj_sec(r->o, relsec);
	const struct eo_sec *ts = elfobj_sec(r->o, rs->info);
	const struct eo_rel *rels;
	struct reloc_view rv = {
		.code = elfobj_sec_bytes(r->o, rs->info),
		.code_size = ts->size,
		.big_endian = elfobj_hdr(r->o)->big_endian,
	};
	size_t k, n;

	if (elfobj_rels(r->o, relsec, &rels, &n) || (!rv.code && ts->size))
		return RMC_REJECTED;
	for (k = 0; k < n; k++) {
		const struct eo_sym *sym;
		struct call_site cs = { 0 };
		struct site s;

		if (!rels[k].sym || !is_cyg((sym = elfobj_sym(r->o, rels[k].sym))->name))
			continue;
		rv.offset = rels[k].offset;
		rv.type = rels[k].type;
		if (r->a->call_site(r->a, &rv, &cs) == RELOC_PART)
			continue;
		s = (struct site){ .sec = rs->info, .off = cs.len ? cs.site : rels[k].offset,
				   .len = cs.len, .relsec = relsec, .rel = k, .hook = sym->name };
		if (add_cyg(r, &s)) {
			diag_err(r->path, "out of memory");
			return RMC_SYSERR;
		}
		rv.have_prev = true;
		rv.prev_offset = rels[k].offset;
	}
	return RMC_OK;
}

enum rmc_status cyg_scan(struct record *r)
{
	size_t symtab = elfobj_symtab_index(r->o);
	enum rmc_status st = RMC_OK;

	for (size_t i = 1; i < elfobj_shnum(r->o) && st == RMC_OK; i++) {
		const struct eo_sec *rs = elfobj_sec(r->o, i);
		const struct eo_sec *ts;

		if (!elfobj_is_rel_sec(r->o, i) || !symtab || rs->link != symtab)
			continue;
		ts = elfobj_sec(r->o, rs->info);
		if (ts->type == EO_SHT_PROGBITS && (ts->flags & EO_SHF_EXECINSTR))
			st = cyg_relsec(r, i);
	}
	return st;
}
