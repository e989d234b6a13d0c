// SPDX-License-Identifier: GPL-2.0-only
/*
 * -fpatchable-function-entry=N[,M] tables: each entry names a sled of N
 * NOPs, M of them before its function's entry (the rest at it, after any
 * landing pad).  N is the table's most common sled unless --sled says; an
 * entry is checked for its sled and its place, and, since such a table has
 * no calls to compare with, every function whose entry holds the sled must
 * be named by an entry (missing-site).  Beside an __mcount_loc the table
 * is call padding (struct table's padding): its NOPs must end at the
 * entry, and it is not ftrace's, so it is not checked for completeness.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

/* Count the sled's NOPs; a landing pad where a function starts is skipped. */
static unsigned sled_run(const struct audit *au, const struct site *st, uint64_t *bytes)
{
	struct insn_view iv = calls_view(au, st->sec, st->off, st->thumb);
	unsigned n = 0, l;

	*bytes = 0;
	if (!au->a->sled_nop || !iv.code)
		return 0;
	while (n < 64 && iv.off < iv.size) {
		l = au->a->sled_nop(au->a, &iv);
		if (!l && au->a->entry_pad) {
			const struct si_func *f = symindex_func_next(au->si, st->sec, iv.off);

			if (f && f->off == iv.off && (l = au->a->entry_pad(au->a, &iv))) {
				iv.off += l;
				continue;
			}
			break;
		}
		if (!l)
			break;
		n++;
		iv.off += l;
	}
	*bytes = iv.off - st->off;
	return n;
}

unsigned sleds_expected(const struct audit *au)
{
	unsigned hist[65] = { 0 }, best = 0, i;
	size_t k;

	if (au->opt->sled_total >= 0)
		return (unsigned)au->opt->sled_total;
	for (k = 0; k < au->nsites; k++) {
		const struct site *st = &au->sites[k];
		uint64_t b;

		if (!st->settled && au->tables[st->table].kind == TABLE_PATCHABLE)
			hist[sled_run(au, st, &b)]++;
	}
	for (i = 1; i < 65; i++)
		if (hist[i] >= hist[best] || !best)
			best = hist[i] ? i : best;
	return best;
}

struct pad_end {
	size_t sec;
	uint64_t off;
};

static int cmp_pad(const void *a, const void *b)
{
	const struct pad_end *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/*
 * Where the link pads code to site_align or more (the arch's align_reloc:
 * its addend is the padding the assembler left, the alignment less the
 * smallest instruction), collected once per relocatable file.
 */
static int read_pads(struct audit *au)
{
	const struct arch *a = au->a;
	size_t cap = 0;

	au->pads_read = true;
	for (size_t i = 1; i < elfobj_shnum(au->o); i++) {
		const struct eo_sec *rs = elfobj_sec(au->o, i);
		const struct eo_rel *r;
		size_t n;
		int err;

		if (!elfobj_is_rel_sec(au->o, i) || !rs)
			continue;
		if ((err = elfobj_rels(au->o, i, &r, &n)))
			return err;
		for (size_t k = 0; k < n; k++) {
			if (r[k].type != a->align_reloc || r[k].addend < 0 ||
			    (uint64_t)r[k].addend + a->insn_align < a->site_align)
				continue;
			if (au->npads == cap) {
				size_t c = cap ? cap * 2 : 64;
				struct pad_end *p = realloc(au->pads, c * sizeof(*p));

				if (!p)
					return -ENOMEM;
				au->pads = p;
				cap = c;
			}
			au->pads[au->npads++] = (struct pad_end){
				rs->info, r[k].offset + (uint64_t)r[k].addend,
			};
		}
	}
	if (au->npads)	/* qsort and bsearch take no NULL array, even empty */
		qsort(au->pads, au->npads, sizeof(*au->pads), cmp_pad);
	return 0;
}

/*
 * A site the runtime switches with one aligned store must be aligned once
 * linked (riscv64 with compressed code: gcc aligns functions to 2 only,
 * unless -falign-functions=4).  Linked: its address says.  Relocatable:
 * the linker's relaxation moves code by 2 bytes, so only a pad to the
 * alignment ending at the site (or the start of an aligned section) says.
 */
static void check_align(struct audit *au, const struct site *st)
{
	const struct arch *a = au->a;
	const struct eo_sec *sec = elfobj_sec(au->o, st->sec);
	struct pad_end key = { st->sec, st->off };
	bool ok;

	if (!a->site_align || !(au->h->flags & a->site_align_flags) || !sec)
		return;
	if (au->linked) {
		ok = audit_addr(au, st->sec, st->off) % a->site_align == 0;
	} else {
		if (!au->pads_read && read_pads(au))
			return;		/* out of memory: no accusation */
		ok = (st->off == 0 && sec->addralign >= a->site_align) ||
		     (au->npads && bsearch(&key, au->pads, au->npads, sizeof(key), cmp_pad));
	}
	if (!ok)
		report(au, CHK_MISALIGNED, st->sec, st->off,
		       "%s entry %zu is only %u-byte aligned%s (compressed code): libpatchsite "
		       "switches a site with one aligned %u-byte store; build with "
		       "-falign-functions=%u", au->tables[st->table].name, st->entry,
		       a->insn_align, au->linked ? "" : " once linked", a->site_align,
		       a->site_align);
}

/* Call padding ends where its function starts: no NOP at the entry (after a landing pad). */
static bool padding_runs_on(const struct audit *au, const struct site *st,
			    const struct si_func *f)
{
	struct insn_view ev = calls_view(au, st->sec, f->off, st->thumb);

	ev.off += au->a->entry_pad ? au->a->entry_pad(au->a, &ev) : 0;
	return au->a->sled_nop && au->a->sled_nop(au->a, &ev);
}

void sleds_check(struct audit *au, struct site *st, unsigned want)
{
	struct insn_view iv = calls_view(au, st->sec, st->off, st->thumb);
	const struct si_func *f = symindex_func_at(au->si, st->sec, st->off), *nf;
	uint64_t bytes, to_entry;
	unsigned n = sled_run(au, st, &bytes);
	char found[192];

	if (n < want || !n) {
		report_view_bytes(au, &iv, bytes, 4, found, sizeof(found));
		if (!want)	/* no entry of the table starts with a NOP the arch lists */
			report(au, CHK_PATCHABLE_SLED, st->sec, st->off,
			       "%s entry %zu: expected a NOP sled, found %s",
			       au->tables[st->table].name, st->entry, found);
		else
			report(au, CHK_PATCHABLE_SLED, st->sec, st->off,
			       "%s entry %zu: expected a sled of %u NOP%s, found %u NOP%s then %s",
			       au->tables[st->table].name, st->entry, want, want == 1 ? "" : "s",
			       n, n == 1 ? "" : "s", found);
		st->settled = true;
		return;
	}
	st->state = SITE_NOP;
	st->len = (unsigned)bytes;
	check_align(au, st);
	/* The entry is where the sled starts: at the function, or M NOPs before it. */
	if (f && f->off < st->off) {
		struct insn_view fv = calls_view(au, st->sec, f->off, st->thumb);
		unsigned pad = au->a->entry_pad ? au->a->entry_pad(au->a, &fv) : 0;

		if (f->off + pad == st->off)
			return;
		report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
		       "%s entry %zu is %llu bytes into %s, expected its entry%s",
		       au->tables[st->table].name, st->entry,
		       (unsigned long long)(st->off - f->off), f->name,
		       pad ? " (after its landing pad)" : "");
		return;
	}
	nf = symindex_func_next(au->si, st->sec, st->off);
	/*
	 * objtool names call padding (__pfx_NAME, __cfi_NAME with kCFI): a
	 * symbol that lies wholly inside the sled is the padding's own, and the
	 * function is the one after it.  (A size that wraps around would not
	 * move on: a corrupt symbol stops the walk.)
	 */
	while (nf && nf->size && nf->off + nf->size > nf->off && nf->off + nf->size <= st->off + bytes)
		nf = symindex_func_next(au->si, st->sec, nf->off + nf->size);
	to_entry = nf ? nf->off - st->off : ~0ull;
	if ((!nf || to_entry > bytes) && !f && symindex_nfuncs(au->si)) {
		deadcopy_check(au, st, FORM_SLED);
		return;
	}
	if (!nf || to_entry > bytes) {
		report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
		       "%s entry %zu: no function starts within its %u-NOP sled",
		       au->tables[st->table].name, st->entry, n);
		return;
	}
	if (au->tables[st->table].padding && padding_runs_on(au, st, nf)) {
		report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
		       "%s entry %zu (call padding beside __mcount_loc): its NOPs run on into "
		       "%s, expected to end at its entry", au->tables[st->table].name,
		       st->entry, nf->name);
		return;
	}
	if (au->opt->sled_before >= 0 && n && to_entry != (uint64_t)au->opt->sled_before * (bytes / n))
		report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
		       "%s entry %zu starts %llu bytes before %s, expected %d NOP%s before it",
		       au->tables[st->table].name, st->entry, (unsigned long long)to_entry,
		       nf->name, au->opt->sled_before, au->opt->sled_before == 1 ? "" : "s");
}

static int cmp_place(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Is an entry of v (sorted by place) within [at, at + len) of at's section? */
static bool site_within(const struct site *v, size_t n, const struct site *at, uint64_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_place(&v[mid], at) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].sec == at->sec && v[lo].off < at->off + len;
}

/* The most common of a few values: count v in a table of up to 8. */
struct tally {
	uint64_t val[8];
	unsigned n[8];
};

static void tally_add(struct tally *t, uint64_t v)
{
	unsigned i;

	for (i = 0; i < 8 && t->n[i] && t->val[i] != v; i++)
		;
	if (i < 8) {
		t->val[i] = v;
		t->n[i]++;
	}
}

static uint64_t tally_mode(const struct tally *t)
{
	unsigned i, best = 0;

	for (i = 1; i < 8; i++)
		best = t->n[i] > t->n[best] ? i : best;
	return t->val[best];
}

static bool is_patchable(const struct audit *au, const struct site *st)
{
	const struct table *t = &au->tables[st->table];

	return t->kind == TABLE_PATCHABLE && !t->padding;
}

/*
 * Where a good patchable entry starts relative to its function, in bytes
 * before the entry (the M of -fpatchable-function-entry=N,M), and the
 * sled's length: the most common of each over the table.
 */
static void sled_shape(const struct audit *au, uint64_t *before, uint64_t *len)
{
	struct tally b, l;
	size_t k;

	memset(&b, 0, sizeof(b));
	memset(&l, 0, sizeof(l));
	for (k = 0; k < au->nsites; k++) {
		const struct site *st = &au->sites[k];
		const struct si_func *f = symindex_func_next(au->si, st->sec, st->off);

		if (st->settled || st->state != SITE_NOP || !is_patchable(au, st))
			continue;
		if (symindex_func_at(au->si, st->sec, st->off))
			tally_add(&b, 0);	/* at the entry (after a landing pad) */
		else if (f && f->off - st->off < st->len)
			tally_add(&b, f->off - st->off);
		else
			continue;
		tally_add(&l, st->len);
	}
	*before = tally_mode(&b);
	*len = tally_mode(&l);
}

/* f starts where the function before it does (an alias): judged once. */
static bool alias_of_previous(const struct symindex *si, size_t i)
{
	const struct si_func *f = symindex_func_nth(si, i);
	const struct si_func *p = i ? symindex_func_nth(si, i - 1) : NULL;

	return p && p->sec == f->sec && p->off == f->off;
}

/* The function's entry holds a sled no entry in v names: missing-site. */
static void check_named(struct audit *au, const struct site *v, size_t n,
			const struct si_func *f, uint64_t before, uint64_t len)
{
	struct insn_view iv = calls_view(au, f->sec, f->off, f->thumb);
	unsigned pad = au->a->entry_pad ? au->a->entry_pad(au->a, &iv) : 0, nops;
	struct site at = { .sec = f->sec, .off = f->off - before, .thumb = f->thumb };
	uint64_t bytes;

	/* An entry anywhere in the sled names it (a wrong one is reported already). */
	if (site_within(v, n, &at, pad + len))
		return;
	at.off = f->off + pad;
	nops = sled_run(au, &at, &bytes);
	if (!nops || bytes < len - before)
		return;
	report(au, CHK_MISSING_SITE, f->sec, at.off,
	       "%s's entry holds a %u-NOP sled, but no __patchable_function_entries entry "
	       "names it", f->name, nops);
}

/*
 * Patchable tables have no call to compare with: a function is missing
 * when its entry holds the sled's NOPs after the entry (N - M of them) but
 * no entry names it.  With all of the sled before the entry (x86 call
 * padding, 16,16) an entry holds nothing to tell: not checked.
 */
int sleds_complete(struct audit *au)
{
	struct site *v = malloc((au->nsites + 1) * sizeof(*v));
	bool *traced = calloc(elfobj_shnum(au->o) + 1, sizeof(*traced));
	const struct si_func *f;
	uint64_t before, len;
	size_t i, n = 0;
	int err = 0;

	if (!v || !traced) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < au->nsites; i++) {
		if (!is_patchable(au, &au->sites[i]) || !au->sites[i].sec)
			continue;
		v[n++] = au->sites[i];
		traced[au->sites[i].sec] = true;
	}
	sled_shape(au, &before, &len);
	if (!n || len <= before)
		goto out;
	qsort(v, n, sizeof(*v), cmp_place);
	for (i = 0; (f = symindex_func_nth(au->si, i)); i++)
		if (traced[f->sec] && f->off >= before && !alias_of_previous(au->si, i))
			check_named(au, v, n, f, before, len);
out:
	free(v);
	free(traced);
	return err;
}
