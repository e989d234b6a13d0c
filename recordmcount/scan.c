// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding the hook calls of an object.
 *
 * Every relocation section whose target is executable code is walked in
 * section-header order, then relocation order (the kernel's recordmcount
 * order).  A relocation against a hook symbol must be a call the arch
 * knows, at an aligned site; anything else is an error naming the place,
 * never a silent skip, because a wrong table entry only shows up at boot.
 */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "diag.h"
#include "elfobj.h"
#include "record.h"
#include "symindex.h"

/* The sections ftrace traces: prefix ".text", plus these exact names. */
static const char *const traced_names[] = {
	".init.text", ".ref.text", ".sched.text", ".spinlock.text", ".irqentry.text",
	".softirqentry.text", ".kprobes.text", ".cpuidle.text", NULL,
};

static bool scan_traced_section(const char *name)
{
	const char *const *n;

	if (!strncmp(name, ".text", 5))
		return true;
	for (n = traced_names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	return false;
}

static bool is_code(const struct eo_sec *s)
{
	return s->type == EO_SHT_PROGBITS && (s->flags & EO_SHF_EXECINSTR);
}

struct symindex *record_symindex(struct record *r)
{
	if (!r->si)
		r->si = symindex_build(r->o);
	return r->si;
}

void record_symindex_reset(struct record *r)
{
	symindex_free(r->si);
	r->si = NULL;
}

static int add_site(struct record *r, const struct site *s)
{
	if (r->nsites == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct site *n = realloc(r->sites, cap * sizeof(*n));

		if (!n)
			return -1;
		r->sites = n;
		r->cap = cap;
	}
	r->sites[r->nsites++] = *s;
	r->ntraced += s->traced;
	return 0;
}

/* Name the instruction where the arch found one, else the relocated field. */
static void report_bad(struct record *r, size_t sec, const struct eo_rel *rel,
		       const char *hook, const struct call_site *cs)
{
	uint64_t at = cs->len ? cs->site : rel->offset;
	char where[256], rname[32];

	diag_err(r->path, "%s: %s against %s is %s",
		 symindex_where(record_symindex(r), r->o, sec, at, where, sizeof(where)),
		 arch_reloc_str(r->a, rel->type, rname, sizeof(rname)), hook, cs->why);
}

static void report_misaligned(struct record *r, const struct site *s)
{
	char where[256];

	diag_err(r->path, "%s: call to %s is not %u-byte aligned",
		 symindex_where(record_symindex(r), r->o, s->sec, s->off, where, sizeof(where)), s->hook,
		 s->align);
}

/*
 * Which symbols are hooks, decided once per symbol rather than once per
 * relocation (an object has far more relocations than symbols; the names
 * were a sixth of the instructions on a 190 KB object).  NULL: no memory.
 */
static bool *hook_symbols(const struct record *r)
{
	size_t i, n = elfobj_nsyms(r->o);
	bool *hook = calloc(n ? n : 1, sizeof(*hook));

	for (i = 1; hook && i < n; i++)
		hook[i] = arch_is_hook(r->a, elfobj_sym(r->o, i)->name);
	return hook;
}

/* The hook calls made through one relocation section. */
static enum rmc_status scan_relsec(struct record *r, size_t relsec, const bool *hook)
{
	const struct eo_sec *rs = elfobj_sec(r->o, relsec);
	const struct eo_sec *ts = elfobj_sec(r->o, rs->info);
	const struct eo_rel *rels;
	struct reloc_view rv = {
		.code = elfobj_sec_bytes(r->o, rs->info),
		.code_size = ts->size,
		.big_endian = elfobj_hdr(r->o)->big_endian,
	};
	enum rmc_status st = RMC_OK;
	size_t k, n;

	if (elfobj_rels(r->o, relsec, &rels, &n))
		return RMC_REJECTED;
	if (!rv.code && ts->size)
		return RMC_REJECTED;
	for (k = 0; k < n; k++) {
		const struct eo_sym *sym;
		struct call_site cs = { 0 };
		struct site s;

		/* R_*_NONE: a call an earlier run made a NOP; a rerun leaves it be. */
		if (!rels[k].sym || rels[k].type == r->a->none_reloc || !hook[rels[k].sym])
			continue;
		sym = elfobj_sym(r->o, rels[k].sym);
		rv.offset = rels[k].offset;
		rv.type = rels[k].type;
		switch (r->a->call_site(r->a, &rv, &cs)) {
		case RELOC_PART:
			break;
		case RELOC_BAD:
			report_bad(r, rs->info, &rels[k], sym->name, &cs);
			st = RMC_REJECTED;
			break;
		case RELOC_CALL:
			s = (struct site){ .sec = rs->info, .off = cs.site, .len = cs.len,
					   .align = cs.align, .relsec = relsec, .rel = k,
					   .hook = sym->name,
					   .traced = scan_traced_section(ts->name) };
			if (cs.align > 1 && s.off % cs.align) {
				report_misaligned(r, &s);
				st = RMC_REJECTED;
			} else if (add_site(r, &s)) {
				diag_err(r->path, "out of memory");
				return RMC_SYSERR;
			}
			break;
		}
		rv.have_prev = true;
		rv.prev_offset = rels[k].offset;
	}
	return st;
}

static int by_place(const void *pa, const void *pb)
{
	const struct site *a = *(const struct site *const *)pa;
	const struct site *b = *(const struct site *const *)pb;

	if (a->sec != b->sec)
		return a->sec < b->sec ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

/*
 * Two hook relocations on one call (two relocation sections aimed at one
 * code section) would leave one live over a NOP, or record a site twice.
 */
static enum rmc_status check_distinct(struct record *r)
{
	const struct site **v = malloc((r->nsites ? r->nsites : 1) * sizeof(*v));
	enum rmc_status st = RMC_OK;
	char where[256];
	size_t i;

	if (!v) {
		diag_err(r->path, "out of memory");
		return RMC_SYSERR;
	}
	for (i = 0; i < r->nsites; i++)
		v[i] = &r->sites[i];
	qsort(v, r->nsites, sizeof(*v), by_place);
	for (i = 1; i < r->nsites && st == RMC_OK; i++) {
		if (v[i]->sec != v[i - 1]->sec || v[i]->off >= v[i - 1]->off + v[i - 1]->len)
			continue;
		diag_err(r->path, "%s: two relocations call %s at one place",
			 symindex_where(record_symindex(r), r->o, v[i]->sec, v[i]->off, where,
					sizeof(where)), v[i]->hook);
		st = RMC_REJECTED;
	}
	free(v);
	return st;
}

enum rmc_status scan_object(struct record *r)
{
	size_t i, shnum = elfobj_shnum(r->o), symtab = elfobj_symtab_index(r->o);
	enum rmc_status st = RMC_OK, s;
	bool rela_set = false, *hook = hook_symbols(r);

	if (!hook) {
		diag_err(r->path, "out of memory");
		return RMC_SYSERR;
	}
	for (i = 1; i < shnum; i++) {
		const struct eo_sec *rs = elfobj_sec(r->o, i);
		size_t before = r->ntraced;

		if (!elfobj_is_rel_sec(r->o, i))
			continue;
		if (!is_code(elfobj_sec(r->o, rs->info)) || rs->link != symtab || !symtab)
			continue;
		s = scan_relsec(r, i, hook);
		st = s > st ? s : st;
		if (r->ntraced > before && !rela_set) {
			r->rela = rs->type == EO_SHT_RELA;
			rela_set = true;
		}
	}
	free(hook);
	return st == RMC_OK ? check_distinct(r) : st;
}

bool scan_has_table(const struct record *r)
{
	return elfobj_find_sec(r->o, "__mcount_loc") || elfobj_find_sec(r->o, PCREL_TABLE);
}
