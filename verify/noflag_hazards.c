// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hazard set H of a file: every address that code may reach other than
 * by falling through from the instruction before it.  A jump written over
 * bytes holding an element of H (inside the written bytes, or between the
 * entry and a later site) could be entered in the middle, or run twice, or
 * not at all.  Sources: every entry and fragment start; the landing pads of
 * each FDE's LSDA (noflag_ehframe.c); the sweep's direct
 * branch targets, rip-relative references into the text and (ET_EXEC) code
 * addresses in immediates (noflag_sweep.c); code addresses the loader
 * writes (dynamic relocations); for an ET_EXEC file, which has no
 * relocations to say where its pointers are, every aligned data word that
 * falls in the text.  Over-approximating only refuses more.  Switch tables
 * are read once the sweep is done (a hoisted base's, once H is whole:
 * noflag_reach.c, checked again when the last targets are in).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "noflag.h"

/*
 * Which functions have a table-like jump: their own, or one in a fragment
 * (a .cold part) they branch into, since a cold part's switch may land in
 * its parent's body.  A fragment's owners are the functions holding the
 * branches into it, followed through fragments reached from fragments
 * until nothing changes.  A fragment with such a jump and no owner found
 * leaves every function of the file in doubt (orphan_table).
 */
static void mark_tables(struct nf_file *f)
{
	bool changed = true;

	for (size_t i = 0; i < f->nents; i++)
		f->ents[i].table = nf_tablejmp_in(f, f->ents[i].addr, f->ents[i].end);
	while (changed) {
		changed = false;
		for (size_t k = 0; k < f->nfragref; k++) {
			struct nf_ent *src = nf_ent_holding(f, f->fragref[k].src);
			if (f->ents[f->fragref[k].frag].table && src && !src->table)
				src->table = changed = true;
		}
	}
	for (size_t i = 0; i < f->nents; i++) {
		const struct nf_ent *e = &f->ents[i];
		bool owned = false;
		if (!e->fragment || !e->table)
			continue;
		for (size_t k = 0; k < f->nfragref && !owned; k++) {
			const struct nf_ent *src = nf_ent_holding(f, f->fragref[k].src);
			owned = f->fragref[k].frag == i && src && src != e;
		}
		if (!owned)
			f->orphan_table = true;
	}
}

/* May a switch in function fn jump to t: fn itself, any fragment, or fn's parent when fn is one. */
static bool switch_may_land(const struct nf_file *f, const struct nf_ent *fn, uint64_t t)
{
	const struct nf_ent *next = fn + 1;
	/* Most land in fn itself: nf_ent_holding()'s answer without its search. */
	const struct nf_ent *to = t >= fn->addr && t < fn->end &&
				  (next == f->ents + f->nents || t < next->addr) ? fn : nf_ent_holding(f, t);

	if (!to)
		return false;
	if (to == fn || to->fragment)
		return true;
	for (size_t k = 0; fn->fragment && k < f->nfragref; k++)
		if (&f->ents[f->fragref[k].frag] == fn && nf_ent_holding(f, f->fragref[k].src) == to)
			return true;
	return false;
}

#define TABLE_MAX 65536	/* entries read of one table at most */

/*
 * Table targets of this file already in H, by a hash of the address: a
 * table repeats its targets (every case that goes to the default), and a
 * repeated (address, HZ_TABLE) would only merge into the same element when
 * H settles (libLLVM's tables gave 4.2 million, 80,000 of them new).
 */
#define SEEN 4096
static uint64_t seen[SEEN];

static bool seen_before(uint64_t t)
{
	uint64_t *s = &seen[(t ^ (t >> 12)) % SEEN];

	if (*s == t)
		return true;
	*s = t;		/* never UINT64_MAX, the empty slot: t lies inside an entry */
	return false;
}

/*
 * Read one PIC switch table: its 32-bit offsets from the table's start.
 * While each lands where the switch may jump (every real entry of a
 * compiler's switch does), and with a bound (a compare before the jump,
 * noflag_sweep.c) no more than it allows.  Without a bound the read goes
 * on into whatever follows the table: more targets, some inside
 * instructions, more refusals, never fewer.  (A candidate table of a hoisted
 * base that is not the switch's may stop early: only the real one's entries
 * must all be read.)  Each target goes into H.  Returns the entries read, 0
 * when the table cannot be trusted (its bytes are not in the file, its
 * first entry lands elsewhere, or some path enters
 * between the first instruction the recovery relies on and the jump).  A
 * bound some other path may skip (an element of H after its compare) is
 * dropped, and the table read as without one.
 */
static size_t read_table(struct nf_file *f, struct nf_pictable *pt, int *err)
{
	const struct nf_ent *fn = nf_ent_holding(f, pt->jmp);
	size_t idx = elfquery_sec_by_addr(f->q, pt->table), n = 0;
	const struct eo_sec *s = idx ? elfobj_sec(f->o, idx) : NULL;
	const uint8_t *p = idx ? elfobj_sec_bytes(f->o, idx) : NULL;
	uint64_t off = s ? pt->table - s->addr : 0;

	if (pt->entries && nf_hazard_in(f, pt->from, pt->jmp + 1)) {
		pt->entries = 0;	/* another path may skip the compare: read as without it */
		pt->from = pt->lea;
	}
	if (!fn || !p || nf_hazard_in(f, pt->from, pt->jmp + 1) || pt->entries > TABLE_MAX)
		return 0;
	for (; off + 4 <= s->size && n < (pt->entries ? pt->entries : TABLE_MAX); off += 4) {
		int32_t rel;
		memcpy(&rel, p + off, 4);	/* x86-64: the file's order is the host's */
		uint64_t t = pt->table + (uint64_t)(int64_t)rel;
		if (!switch_may_land(f, fn, t))
			break;
		if (!seen_before(t) && nf_hazard_add(f, t, HZ_TABLE)) {
			*err = -ENOMEM;
			return 0;
		}
		n++;
	}
	return n;
}

/* Read every PIC switch table; those that cannot be read are unrecovered table-like jumps. */
static int read_tables(struct nf_file *f)
{
	int err = 0;
	size_t n;

	for (size_t i = 0; i < f->npictable && !err; i++) {
		n = f->pictable[i].nread = read_table(f, &f->pictable[i], &err);
		f->tables_read += n != 0;
		f->table_targets += n;
		if (!n && !err)
			err = nf_tablejmp_add(f, f->pictable[i].jmp);
	}
	return err;
}

/*
 * A bounded table with an element of H that came from another table's
 * targets after its compare: some path may skip the compare, so the bound
 * is dropped and the table read again without it (its targets only grow).
 * *again: one was, and H must be settled and looked at once more.
 */
static int drop_skipped_bounds(struct nf_file *f, bool *again)
{
	int err = 0;

	*again = false;
	for (size_t i = 0; i < f->npictable && !err; i++) {
		struct nf_pictable *pt = &f->pictable[i];
		if (!pt->nread || !pt->entries || !nf_hazard_in(f, pt->from, pt->jmp + 1))
			continue;
		pt->entries = 0;
		pt->from = pt->lea;
		size_t n = read_table(f, pt, &err);
		f->table_targets += n > pt->nread ? n - pt->nread : 0;
		pt->nread = n > pt->nread ? n : pt->nread;
		*again = true;
	}
	return err;
}

/* A table's target between another table's lea and its jump: that one is not trusted after all. */
static int recheck_tables(struct nf_file *f)
{
	for (size_t i = 0; i < f->npictable; i++) {
		const struct nf_hazard *h = nf_hazard_in(f, f->pictable[i].from, f->pictable[i].jmp + 1);
		if (h && nf_tablejmp_add(f, f->pictable[i].jmp))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_hz(const void *a, const void *b)
{
	const struct nf_hazard *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * Sort v (n elements) by address, tmp as scratch: by 16-bit digits, lowest
 * first, each pass stable (a sweep adds millions, which qsort took most of a
 * second to order).  The order of equal addresses does not matter: settle()
 * merges them.
 */
#define DIGIT 16

static void radix(struct nf_hazard *v, struct nf_hazard *tmp, size_t n, size_t *count)
{
	struct nf_hazard *from = v, *to = tmp, *t;
	uint64_t top = 0;

	for (size_t i = 0; i < n; i++)
		top |= v[i].addr;
	for (unsigned shift = 0; shift < 64 && top >> shift; shift += DIGIT) {
		size_t sum = 0;
		memset(count, 0, sizeof(*count) << DIGIT);
		for (size_t i = 0; i < n; i++)
			count[(from[i].addr >> shift) & ((1u << DIGIT) - 1)]++;
		for (size_t d = 0; d < (1u << DIGIT); d++) {
			size_t c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			to[count[(from[i].addr >> shift) & ((1u << DIGIT) - 1)]++] = from[i];
		t = from, from = to, to = t;
	}
	if (from != v)
		memcpy(v, from, n * sizeof(*v));
}

/* Sort v (n elements) by address. */
static int sort_hz(struct nf_hazard *v, size_t n)
{
	struct nf_hazard *tmp;
	size_t *count;

	if (n < 4096) {
		if (n)	/* qsort wants a non-null array even for none */
			qsort(v, n, sizeof(*v), cmp_hz);
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	count = malloc(sizeof(*count) << DIGIT);
	if (tmp && count)
		radix(v, tmp, n, count);
	free(count);
	free(tmp);
	return tmp && count ? 0 : -ENOMEM;
}

/* H's settled part (sorted, one per address) and the elements added since, into one sorted array. */
static int merge_added(struct nf_file *f)
{
	size_t s = f->hzsorted, i = 0, j = s, k = 0;
	struct nf_hazard *out;

	if (sort_hz(f->hz + s, f->nhz - s))
		return -ENOMEM;
	if (!s)
		return 0;
	out = malloc(f->nhz * sizeof(*out));
	if (!out)
		return -ENOMEM;
	while (i < s || j < f->nhz)
		out[k++] = j == f->nhz || (i < s && f->hz[i].addr <= f->hz[j].addr) ? f->hz[i++] : f->hz[j++];
	free(f->hz);
	f->hz = out;
	f->hzcap = f->nhz;
	return 0;
}

/*
 * Sort H and merge duplicates, or-ing their sources and adding their
 * branches: only what was added since the last time is sorted, then merged.
 */
static int settle(struct nf_file *f)
{
	size_t n = 0;

	if (f->nhz > f->hzsorted) {
		if (merge_added(f))
			return -ENOMEM;
		for (size_t i = 0; i < f->nhz; i++) {
			if (n && f->hz[n - 1].addr == f->hz[i].addr) {
				f->hz[n - 1].why |= f->hz[i].why;
				f->hz[n - 1].nbranch += f->hz[i].nbranch;
			} else {
				f->hz[n++] = f->hz[i];
			}
		}
		f->nhz = n;
	}
	f->hzsorted = f->nhz;
	if (f->ntablejmp)
		qsort(f->tablejmp, f->ntablejmp, sizeof(*f->tablejmp), cmp_u64);
	return 0;
}

/* x86-64 relocation types whose value the loader computes as a code address. */
enum { R_64 = 1, R_GLOB_DAT = 6, R_JUMP_SLOT = 7, R_RELATIVE = 8, R_IRELATIVE = 37 };

static int add_relocs(struct nf_file *f)
{
	for (size_t i = 0; i < elfquery_ndynrels(f->q); i++) {
		const struct eq_dynrel *r = elfquery_dynrel(f->q, i);
		uint64_t v;

		if (r->type == R_RELATIVE || r->type == R_IRELATIVE) {
			v = (uint64_t)r->addend;
		} else if (r->type == R_64 || r->type == R_GLOB_DAT || r->type == R_JUMP_SLOT) {
			const struct eo_sym *s = r->sym < elfquery_ndynsyms(f->q) ?
						 elfquery_dynsym(f->q, r->sym) : NULL;
			if (!s || !s->defined)
				continue;	/* another object's address */
			v = s->value + (uint64_t)r->addend;
		} else {
			continue;
		}
		if (nf_in_text(f, v) && nf_hazard_add(f, v, HZ_CODEADDR))
			return -ENOMEM;
	}
	return 0;
}

/* ET_EXEC: every aligned 8-byte data word that is an address in the text. */
static int add_data_words(struct nf_file *f)
{
	for (size_t i = 1; i < elfobj_shnum(f->o); i++) {
		const struct eo_sec *s = elfobj_sec(f->o, i);
		const uint8_t *p = elfobj_sec_bytes(f->o, i);

		if (!(s->flags & EO_SHF_ALLOC) || (s->flags & EO_SHF_EXECINSTR) || !p ||
		    s->type == EO_SHT_NOBITS)
			continue;
		for (uint64_t off = (8 - (s->addr & 7)) & 7; off + 8 <= s->size; off += 8) {
			uint64_t v;
			memcpy(&v, p + off, 8);	/* x86-64: the file's order is the host's */
			if (nf_in_text(f, v) && nf_hazard_add(f, v, HZ_CODEADDR))
				return -ENOMEM;
		}
	}
	return 0;
}

int nf_hazards(struct nf_file *f)
{
	int err = 0;

	memset(seen, 0xff, sizeof(seen));	/* none yet: UINT64_MAX in each */
	for (size_t i = 0; i < f->nents && !err; i++)
		err = nf_hazard_add(f, f->ents[i].addr, HZ_START);
	if (!err)
		err = add_relocs(f);
	if (!err && f->h->type == EO_ET_EXEC)
		err = add_data_words(f);
	if (!err)
		err = nf_sweep(f);
	if (!err)
		err = settle(f);
	if (!err)
		err = read_tables(f);
	if (!err)
		err = settle(f);
	if (!err)
		err = nf_hoisted(f, read_table);
	for (bool again = true; again && !err;) {
		err = settle(f);
		if (!err)
			err = drop_skipped_bounds(f, &again);
	}
	if (!err)
		err = recheck_tables(f);
	if (!err)
		err = nf_ptrjumps(f);
	if (!err)
		err = settle(f);
	if (!err)
		err = nf_hoisted_recheck(f);
	if (!err)
		err = settle(f);	/* the table-like jumps it added, sorted */
	if (err) {
		if (err == -ENOMEM)
			diag_err(f->path, "out of memory");
		return -1;
	}
	mark_tables(f);
	return 0;
}

