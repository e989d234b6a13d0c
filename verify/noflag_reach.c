// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hoisted switch bases (x86-64): `lea T(%rip), X` before a loop, `movslq
 * (X, I, 4), R; add X, R; jmp *R` inside it, and X written otherwise too in
 * the function (a pointer before the lea, another address after the
 * switch), which hoisted_tables() in noflag_sweep.c, asking every write of
 * X to be such a lea, refuses.  Here the writes of X that may reach the
 * jump are found by walking back from it over the function's control flow
 * once H is whole: each must be a rip-relative lea, whose address is read as
 * a table (noflag_hazards.c; a candidate that is no table stops its read at
 * once, and the switch is then unrecovered: over-reading only refuses more).
 *
 * The walk is sound when it knows every way into each instruction it
 * passes:
 *  - the instruction before, unless that is a jmp or a ret (a call, ud2 or
 *    hlt is taken to fall through: more paths only find more writes);
 *  - the function's direct branches, each at an instruction boundary of its
 *    linear decoding (else no trace);
 *  - at an instruction passed, H may hold only direct branches, all from the
 *    function (their count is H's), and this switch's own table targets,
 *    entered from the jump itself, which carries the X that reaches it; any
 *    other element (an entry, a code address, a landing pad, a target of
 *    another table) and there is no trace.
 * The function's entry brings the caller's X: no trace.  A call keeps X
 * only when X is callee-saved (rbx, rbp, r12-r15).  Another hoisted switch
 * in the function or in any fragment (whose targets are not in H when this
 * one is traced) and there is no trace either.  nf_hoisted_recheck() walks
 * again when H is whole, its own targets in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "noflag_x86.h"

struct step {
	uint64_t addr;
	uint64_t lea;		/* a rip-relative lea writing X: its address, else 0 */
	bool falls;		/* the next instruction may follow it */
	bool writes;		/* writes X otherwise */
	bool call;
	uint64_t target;	/* a direct branch's target, else 0 */
};

struct nf_walk {
	struct step *s;
	size_t n;
	size_t *pred, *first;	/* branch sources by target: pred[first[i] .. first[i+1]) */
	bool *seen;
	size_t *stack;
};

static void walk_free(struct nf_walk *w)
{
	free(w->s);
	free(w->pred);
	free(w->first);
	free(w->seen);
	free(w->stack);
}

/* The index of the step at addr, or n. */
static size_t step_at(const struct nf_walk *w, uint64_t addr)
{
	size_t a = 0, b = w->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (w->s[m].addr < addr)
			a = m + 1;
		else
			b = m;
	}
	return a < w->n && w->s[a].addr == addr ? a : w->n;
}

/* Does in write any part of family fam, explicitly or not (when Capstone cannot say: yes)? */
static bool writes_fam(const cs_insn *in, int fam)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;

	if (cs_regs_access(*nf_x86_handle(), in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true;
	for (unsigned i = 0; i < nwr; i++)
		if (nf_x86_family(wr[i]) == fam)
			return true;
	return false;
}

/* Decode fn linearly into w: false when a byte does not decode or a branch lands between boundaries. */
static bool decode_fn(const struct nf_file *f, const struct nf_ent *fn, int fam, struct nf_walk *w)
{
	static cs_insn *in;
	size_t cap = 0, *count;
	uint64_t pos, avail, t;

	if (!in && !(in = cs_malloc(*nf_x86_handle())))
		return false;
	for (pos = fn->addr; pos < fn->end; pos += in->size) {
		const uint8_t *p = nf_code_at(f, pos, &avail);
		if (!p || !nf_x86_decode(p, avail, pos, in))
			return false;
		if (nf_grow(&w->s, &cap, w->n, sizeof(*w->s)))
			return false;
		const cs_x86 *x = &in->detail->x86;
		struct step st = { .addr = pos, .falls = in->id != X86_INS_JMP &&
				   !cs_insn_group(*nf_x86_handle(), in, CS_GRP_RET) };
		st.call = cs_insn_group(*nf_x86_handle(), in, CS_GRP_CALL);
		if (writes_fam(in, fam)) {
			if (in->id == X86_INS_LEA && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
			    nf_x86_family(x->operands[0].reg) == fam && nf_x86_rip_target(in, &t) && t)
				st.lea = t;
			else
				st.writes = true;
		}
		if (nf_x86_branch_target(in, &t))
			st.target = t;
		w->s[w->n++] = st;
	}
	if (!w->n || pos != fn->end)
		return false;
	/* The branch sources of each step, by counting. */
	count = calloc(w->n + 1, sizeof(*count));
	w->first = calloc(w->n + 1, sizeof(*w->first));
	w->seen = calloc(w->n, sizeof(*w->seen));
	w->stack = malloc(w->n * sizeof(*w->stack));
	if (!count || !w->first || !w->seen || !w->stack) {
		free(count);
		return false;
	}
	size_t nb = 0;
	for (size_t i = 0; i < w->n; i++) {
		t = w->s[i].target;
		if (!t || t < fn->addr || t >= fn->end)
			continue;
		size_t k = step_at(w, t);
		if (k == w->n) {
			free(count);
			return false;	/* into the middle of an instruction */
		}
		count[k]++;
		nb++;
	}
	w->pred = malloc((nb ? nb : 1) * sizeof(*w->pred));
	if (!w->pred) {
		free(count);
		return false;
	}
	for (size_t i = 0, sum = 0; i <= w->n; i++) {
		w->first[i] = sum;
		sum += i < w->n ? count[i] : 0;
		if (i < w->n)
			count[i] = w->first[i];
	}
	for (size_t i = 0; i < w->n; i++) {
		t = w->s[i].target;
		if (t && t >= fn->addr && t < fn->end)
			w->pred[count[step_at(w, t)]++] = i;
	}
	free(count);
	return true;
}

/*
 * The function holding each table's jump and each hoisted switch's
 * (pictable's, then hoisted's), found once per pass: a walk asks often.
 */
static const struct nf_ent **owner;
static size_t nowned;	/* the tables then: those added after are not read yet */

static int owners(const struct nf_file *f)
{
	free(owner);
	owner = malloc((f->npictable + f->nhoisted + 1) * sizeof(*owner));
	if (!owner)
		return -ENOMEM;
	nowned = f->npictable;
	for (size_t i = 0; i < f->npictable; i++)
		owner[i] = nf_ent_holding(f, f->pictable[i].jmp);
	for (size_t i = 0; i < f->nhoisted; i++)
		owner[nowned + i] = nf_ent_holding(f, f->hoisted[i].pt.jmp);
	return 0;
}

/* Is t among the entries read of table pt? */
static bool table_has(const struct nf_file *f, const struct nf_pictable *pt, uint64_t t)
{
	size_t idx = elfquery_sec_by_addr(f->q, pt->table);
	const struct eo_sec *s = idx ? elfobj_sec(f->o, idx) : NULL;
	const uint8_t *p = idx ? elfobj_sec_bytes(f->o, idx) : NULL;

	for (size_t k = 0; p && k < pt->nread; k++) {
		int32_t rel;
		uint64_t off = pt->table - s->addr + 4 * k;
		if (off + 4 > s->size)
			break;
		memcpy(&rel, p + off, 4);	/* x86-64: the file's order is the host's */
		if (pt->table + (uint64_t)(int64_t)rel == t)
			return true;
	}
	return false;
}

/*
 * Is t a target of ho's own tables (entered from its jump) and of no other
 * table read whose targets may land in fn (its switches, its fragments')?
 */
static bool own_target(const struct nf_file *f, const struct nf_hoisted *ho, const struct nf_ent *fn,
		       uint64_t t)
{
	bool own = false;

	for (size_t i = 0; i < nowned; i++) {
		const struct nf_pictable *pt = &f->pictable[i];
		bool mine = i >= ho->first && i < ho->first + ho->n;
		const struct nf_ent *e = mine ? fn : owner[i];
		if (!pt->nread || (!mine && e && e != fn && !e->fragment) || !table_has(f, pt, t))
			continue;
		if (!mine)
			return false;
		own = true;
	}
	return own;
}

/* May step k be entered only as w knows: H's element there explained. */
static bool ways_in_known(const struct nf_file *f, const struct nf_hoisted *ho, const struct nf_ent *fn,
			  const struct nf_walk *w, size_t k)
{
	const struct nf_hazard *h = nf_hazard_in(f, w->s[k].addr - 1, w->s[k].addr + 1);

	if (!h)
		return true;
	if (h->why & ~(HZ_BRANCH | HZ_TABLE))
		return false;
	if ((h->why & HZ_TABLE) && !own_target(f, ho, fn, h->addr))
		return false;
	return h->nbranch == w->first[k + 1] - w->first[k];
}

static bool callee_saved(int fam)
{
	return fam == 3 || fam == 5 || fam >= 12;	/* rbx, rbp, r12-r15 */
}

/*
 * Walk back from ho's jump: the rip-relative leas of X that reach it, into
 * leas (*nleas of them, at most max), or false when some other write may.
 */
static bool trace(const struct nf_file *f, const struct nf_hoisted *ho, const struct nf_ent *fn,
		  struct nf_walk *w, uint64_t *leas, size_t *nleas, size_t max)
{
	size_t j = step_at(w, ho->pt.jmp), top = 0;

	*nleas = 0;
	if (j == w->n)
		return false;
	for (size_t i = 0; i < w->n; i++)
		w->seen[i] = false;
	w->seen[j] = true;
	w->stack[top++] = j;
	while (top) {
		size_t k = w->stack[--top];
		const struct step *st = &w->s[k];
		if (k != j) {
			if (st->writes)
				return false;
			if (st->lea) {
				size_t i = 0;
				while (i < *nleas && leas[i] != st->lea)
					i++;
				if (i == *nleas) {
					if (*nleas == max)
						return false;
					leas[(*nleas)++] = st->lea;
				}
				continue;	/* X is set here: not further back */
			}
			if (st->call && !callee_saved(ho->fam))
				return false;
		}
		if (st->addr == fn->addr || !ways_in_known(f, ho, fn, w, k))
			return false;
		if (k && w->s[k - 1].falls && !w->seen[k - 1]) {
			w->seen[k - 1] = true;
			w->stack[top++] = k - 1;
		}
		for (size_t p = w->first[k]; p < w->first[k + 1]; p++)
			if (!w->seen[w->pred[p]]) {
				w->seen[w->pred[p]] = true;
				w->stack[top++] = w->pred[p];
			}
	}
	return *nleas > 0;
}

/* Another hoisted switch that could bring targets unseen into fn: in fn, or in a fragment. */
static bool alone(const struct nf_file *f, const struct nf_hoisted *ho, const struct nf_ent *fn)
{
	for (size_t i = 0; i < f->nhoisted; i++) {
		const struct nf_ent *e = owner[nowned + i];
		if (&f->hoisted[i] != ho && (!e || e == fn || e->fragment))
			return false;
	}
	return true;
}

#define MAX_LEAS 16

int nf_hoisted(struct nf_file *f, size_t (*read)(struct nf_file *, struct nf_pictable *, int *))
{
	int err = 0;

	/* Every trace first, on H as it stands (sorted): then the tables, which add to it. */
	err = owners(f);
	for (size_t i = 0; i < f->nhoisted && !err; i++) {
		struct nf_hoisted *ho = &f->hoisted[i];
		const struct nf_ent *fn = nf_ent_holding(f, ho->pt.jmp);
		struct nf_walk w = { 0 };
		uint64_t leas[MAX_LEAS];
		size_t nleas = 0;
		bool ok = fn && !fn->fragment && alone(f, ho, fn) && decode_fn(f, fn, ho->fam, &w) &&
			  trace(f, ho, fn, &w, leas, &nleas, MAX_LEAS);
		if (ok && (ho->walk = malloc(sizeof(w))))
			*ho->walk = w;	/* for nf_hoisted_recheck() */
		else
			walk_free(&w);
		ho->first = f->npictable;
		ho->n = ok ? nleas : 0;
		for (size_t k = 0; k < ho->n && !err; k++) {
			struct nf_pictable pt = ho->pt;
			pt.table = leas[k];
			err = nf_pictable_add(f, &pt);
		}
	}
	for (size_t i = 0; i < f->nhoisted && !err; i++) {
		struct nf_hoisted *ho = &f->hoisted[i];
		bool ok = ho->n != 0;
		for (size_t k = ho->first; ok && k < ho->first + ho->n && !err; k++) {
			size_t n = f->pictable[k].nread = read(f, &f->pictable[k], &err);
			f->tables_read += n != 0;
			f->table_targets += n;
			ok = n != 0;
		}
		if (!ok && !err) {
			ho->n = 0;
			err = nf_tablejmp_add(f, ho->pt.jmp);
		}
	}
	free(owner);
	owner = NULL;
	return err;
}

void nf_hoisted_free(struct nf_file *f)
{
	for (size_t i = 0; i < f->nhoisted; i++)
		if (f->hoisted[i].walk) {
			walk_free(f->hoisted[i].walk);
			free(f->hoisted[i].walk);
			f->hoisted[i].walk = NULL;
		}
}

int nf_hoisted_recheck(struct nf_file *f)
{
	int err = owners(f);

	for (size_t i = 0; i < f->nhoisted && !err; i++) {
		const struct nf_hoisted *ho = &f->hoisted[i];
		const struct nf_ent *fn = nf_ent_holding(f, ho->pt.jmp);
		struct nf_walk w = { 0 };
		uint64_t leas[MAX_LEAS];
		size_t nleas = 0;
		if (!ho->n)
			continue;	/* refused already */
		bool ok = ho->walk ? trace(f, ho, fn, ho->walk, leas, &nleas, MAX_LEAS) :
			  decode_fn(f, fn, ho->fam, &w) && trace(f, ho, fn, &w, leas, &nleas, MAX_LEAS);
		ok = ok && nleas == ho->n;
		walk_free(&w);
		if (!ok)
			err = nf_tablejmp_add(f, ho->pt.jmp);
	}
	free(owner);
	owner = NULL;
	return err;
}
