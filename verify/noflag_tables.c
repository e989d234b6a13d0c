// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sweep's table-like jumps (x86-64, noflag_sweep.c finds them): which
 * are switches whose table can be read (the PIC pattern, its bound, a base
 * hoisted out of a loop), which are jumps through a whole pointer
 * (nf_ptrjumps proves them once H is whole), and which stay unrecovered.
 * Each is read from the instructions of the sweep's run just before it.
 */
#include <errno.h>

#include "noflag_x86.h"

/*
 * The instructions just decoded in this run of the sweep, for the PIC
 * switch pattern gcc and clang emit:
 *     lea   TABLE(%rip), X
 *     movslq (X, I, 4), R
 *     add   X, R
 *     jmp   *R
 * whose table holds 32-bit offsets from TABLE, other instructions (the
 * scheduler's) in between, and conditional jumps out after the lea, within
 * NF_X86_HIST of them.
 * Registers are compared by family (al, eax and rax are one), so a write
 * to any part of X between the lea and the add, or of R between the load
 * and the jump, breaks the pattern; so does any element of H between the
 * lea and the jmp (checked after the sweep, when H is whole: another path
 * could bring another X).
 */

struct hinsn {
	uint64_t addr;
	unsigned id;
	int dst;		/* family of op 0 when it is a register written, else -1 */
	unsigned dsize;		/* its size in bytes */
	int mbase, mindex;	/* op 1 memory: families, -1 when none */
	int64_t mdisp;
	unsigned mscale;	/* op 1 memory: its scale (1 without index); 0: op 1 is no memory */
	int src;		/* op 1 register family, else -1 */
	uint64_t rip_target;	/* lea [rip+d]: the address, else 0 */
	uint32_t implicit;	/* families written implicitly, one bit each */
	bool flow;		/* a jump, call or return */
	int r0;			/* family of op 0 when a register, read or written, else -1 */
	unsigned r0size, ssize;	/* its size; op 1's size (register or memory) */
	bool imm1;		/* op 1 is an immediate, imm */
	int64_t imm;
};

static struct hinsn hist[NF_X86_HIST];
static unsigned nhist;

/*
 * The families that hold a whole pointer after insn, given those before:
 * a 64-bit mov's destination does (as pointer_jump() below reads it); any
 * other write, implicit ones included, ends it; a call ends them all.
 */
static uint32_t ptr_mask(uint32_t m, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	if (cs_insn_group(*nf_x86_handle(), insn, CS_GRP_CALL))
		return 0;
	for (unsigned i = 0; i < insn->detail->regs_write_count; i++) {
		int fam = nf_x86_family(insn->detail->regs_write[i]);
		if (fam >= 0)
			m &= ~(1u << fam);
	}
	if (x->op_count >= 1 && x->operands[0].type == X86_OP_REG &&
	    (x->operands[0].access & CS_AC_WRITE)) {
		int fam = nf_x86_family(x->operands[0].reg);
		if (fam >= 0)
			m = insn->id == X86_INS_MOV && x->operands[0].size == 8 ? m | 1u << fam :
			    m & ~(1u << fam);
	}
	return m;
}

static void remember(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;
	struct hinsn h = { .addr = insn->address, .id = insn->id, .dst = -1, .mbase = -1, .mindex = -1,
			   .src = -1, .r0 = -1 };
	csh cs = *nf_x86_handle();

	if (x->op_count >= 1 && x->operands[0].type == X86_OP_REG) {
		h.r0 = nf_x86_family(x->operands[0].reg), h.r0size = x->operands[0].size;
		if (x->operands[0].access & CS_AC_WRITE)
			h.dst = h.r0, h.dsize = h.r0size;
	}
	if (x->op_count >= 2) {
		h.ssize = x->operands[1].size;
		h.imm1 = x->operands[1].type == X86_OP_IMM;
		h.imm = x->operands[1].imm;
	}
	if (x->op_count >= 2 && x->operands[1].type == X86_OP_MEM) {
		const x86_op_mem *m = &x->operands[1].mem;
		h.mbase = m->base == X86_REG_INVALID ? -1 : nf_x86_family(m->base);
		h.mindex = m->index == X86_REG_INVALID ? -1 : nf_x86_family(m->index);
		h.mdisp = m->disp;
		h.mscale = (unsigned)m->scale;
		if (insn->id == X86_INS_LEA && m->base == X86_REG_RIP && m->index == X86_REG_INVALID)
			h.rip_target = insn->address + insn->size + (uint64_t)m->disp;
	}
	if (x->op_count >= 2 && x->operands[1].type == X86_OP_REG)
		h.src = nf_x86_family(x->operands[1].reg);
	for (unsigned i = 0; i < insn->detail->regs_write_count; i++) {
		int fam = nf_x86_family(insn->detail->regs_write[i]);
		if (fam >= 0)
			h.implicit |= 1u << fam;
	}
	h.flow = cs_insn_group(cs, insn, CS_GRP_JUMP) || cs_insn_group(cs, insn, CS_GRP_CALL) ||
		 cs_insn_group(cs, insn, CS_GRP_RET);
	hist[nhist++ % NF_X86_HIST] = h;
}

/* The k-th instruction before the one being noted (1: the one just before), or NULL. */
static const struct hinsn *back(unsigned k)
{
	return k <= nhist && k <= NF_X86_HIST ? &hist[(nhist - k) % NF_X86_HIST] : NULL;
}

static bool clobbers(const struct hinsn *h, int fam)
{
	return h->dst == fam || (h->implicit & (1u << fam));
}

static bool writes(const struct hinsn *h, int fam)
{
	return h->dst == fam || (h->implicit & (1u << fam)) || h->flow;
}

/* A conditional jump: it writes no register, so a walk back over a run may step over it. */
static bool is_jcc(unsigned id)
{
	static const unsigned jcc[] = {
		X86_INS_JA, X86_INS_JAE, X86_INS_JB, X86_INS_JBE, X86_INS_JE, X86_INS_JNE,
		X86_INS_JG, X86_INS_JGE, X86_INS_JL, X86_INS_JLE, X86_INS_JO, X86_INS_JNO,
		X86_INS_JP, X86_INS_JNP, X86_INS_JS, X86_INS_JNS,
	};

	for (size_t i = 0; i < sizeof(jcc) / sizeof(jcc[0]); i++)
		if (id == jcc[i])
			return true;
	return false;
}

/*
 * The compare `cmp C, B` (at back(kc)) bounds the low w' bytes of C (its
 * size) unsigned; the index needs the low w bytes of C.  When w' < w the
 * bytes between must be zero: the last writer of C before the compare, in
 * this run, wrote it zero-extended from at most w' bytes (a 32-bit write,
 * or a movzx).  Returns the entries allowed (B + 1, less one for jae), or
 * 0; *from: the first instruction relied on.
 */
static uint64_t bounded(unsigned kc, unsigned jcc, unsigned w, bool sext, uint64_t *from)
{
	const struct hinsn *cmp = back(kc);
	unsigned wc = cmp->r0size;
	uint64_t b = wc >= 8 ? (uint64_t)cmp->imm : (uint64_t)cmp->imm & ((1ull << (8 * wc)) - 1);

	*from = cmp->addr;
	for (unsigned k = kc + 1; wc < w; k++) {
		const struct hinsn *h = back(k);
		if (!h || (h->flow && !is_jcc(h->id)) || (h->implicit & (1u << cmp->r0)))
			return 0;
		if (h->dst != cmp->r0)
			continue;
		unsigned z = h->id == X86_INS_MOVZX && h->src >= 0 && h->dsize >= 4 ? h->ssize :
			     h->dsize == 4 ? 4 : 8;
		if (z > wc)
			return 0;
		*from = h->addr;
		break;
	}
	if (jcc == X86_INS_JAE && b-- == 0)
		return 0;
	if ((sext && b >= 1ull << 31) || b >= UINT64_MAX - 1)
		return 0;
	return b + 1;
}

/*
 * The bound of a switch whose index register has family idx, from the
 * instructions of this run before back(k0): walking back over copies of the
 * index (mov, movzx, movsxd from a register) to `cmp C, imm` followed
 * directly by `ja` or `jae`, whose fall-through leads here.  (w, below: how
 * many low bytes of the current register, zero-extended, make the index;
 * sext: a movsxd made it, so the bound must be under 2^31 for its sign to
 * be clear.)  Any other write of the index register, a call or an
 * unconditional jump on the way, and there is no bound: 0.
 */
static uint64_t switch_bound(int idx, unsigned k0, uint64_t *from)
{
	int c = idx;
	unsigned w = 8;
	bool sext = false;

	for (unsigned k = k0; k < NF_X86_HIST; k++) {
		const struct hinsn *h = back(k), *cmp = back(k + 1);
		if (!h)
			return 0;
		if ((h->id == X86_INS_JA || h->id == X86_INS_JAE) && cmp && cmp->id == X86_INS_CMP &&
		    cmp->r0 == c && cmp->imm1)
			return bounded(k + 1, h->id, w, sext, from);
		if (is_jcc(h->id))
			continue;
		if (h->flow || (h->implicit & (1u << c)))
			return 0;
		if (h->dst != c)
			continue;
		if ((h->id == X86_INS_MOV || h->id == X86_INS_MOVZX) && h->src >= 0 && h->dsize >= 4) {
			w = h->ssize < w ? h->ssize : w;
		} else if (h->id == X86_INS_MOVSXD && h->src >= 0 && h->ssize == 4) {
			sext |= w > 4;
			w = w > 4 ? 4 : w;
		} else {
			return 0;
		}
		c = h->src;
	}
	return 0;
}

/*
 * jmp *R at the end of the PIC switch pattern: the table's address and the
 * lea's, or 0; *hoisted = X's family when the pattern holds but the lea is
 * not in this run (a loop kept X from before it), else -1.  pt->entries
 * and pt->from: the switch's bound, when one is found (switch_bound()).
 */
static uint64_t pic_table(const cs_insn *insn, struct nf_pictable *pt, int *hoisted)
{
	int r = nf_x86_family(insn->detail->x86.operands[0].reg), x = -1;
	const struct hinsn *add = NULL, *ld = NULL, *h;
	unsigned k = 1;

	*hoisted = -1;
	for (; r >= 0 && !add && (h = back(k)); k++) {
		if (h->id == X86_INS_ADD && h->dst == r && h->src >= 0)
			add = h, x = h->src;
		else if ((h->flow && !is_jcc(h->id)) || clobbers(h, r))
			return 0;
	}
	for (; add && !ld && (h = back(k)); k++) {
		if (h->id == X86_INS_MOVSXD && h->dst == r && h->mbase == x && h->mindex >= 0 &&
		    h->mscale == 4 && h->mdisp == 0)
			ld = h;
		else if ((h->flow && !is_jcc(h->id)) || clobbers(h, r) || clobbers(h, x))
			return 0;
	}
	if (!ld)
		return 0;
	pt->entries = switch_bound(ld->mindex, k, &pt->from);
	for (; k <= NF_X86_HIST; k++) {
		h = back(k);
		if (!h || h->flow) {
			*hoisted = x;	/* the base may come in by more than one path: all its leas */
			return 0;
		}
		if (h->id == X86_INS_LEA && h->dst == x && h->rip_target) {
			pt->lea = h->addr;
			if (!pt->entries || pt->from > pt->lea)
				pt->from = pt->lea;
			return h->rip_target;
		}
		if (clobbers(h, x))
			return 0;
	}
	return 0;
}

/*
 * jmp *R where R was last written, in this run, by a 64-bit mov (a whole
 * pointer loaded from memory or copied from another register: a tail call
 * through a vtable or a function pointer), conditional jumps out of the
 * run between them: not a switch, once nf_ptrjumps() finds that every
 * branch into the run after the mov also brings a pointer in R.  A code address
 * kept in memory or a register was made by a relocation, a rip-relative
 * lea or (ET_EXEC) an immediate or data word, all in H already; compilers
 * make code addresses by arithmetic only for switch tables, whose sum goes
 * straight to the jump (the movslq/add pattern above).  A jump whose
 * register is written otherwise, or not in this run, stays table-like.
 */
static int pointer_jump(struct nf_file *f, const cs_insn *insn)
{
	struct nf_ptrjump pj = { .jmp = insn->address, .from = insn->address,
				 .fam = nf_x86_family(insn->detail->x86.operands[0].reg), .fallthrough = true };

	for (unsigned k = 1; pj.fam >= 0 && k <= NF_X86_HIST; k++) {
		const struct hinsn *h = back(k);
		if (!h || (h->flow && !is_jcc(h->id)))
			return 0;
		if (h->dst == pj.fam) {
			if (h->id != X86_INS_MOV || h->dsize != 8)
				return 0;	/* a whole pointer, not a sum */
			return nf_ptrjump_add(f, &pj) ? -ENOMEM : 1;
		}
		if (h->implicit & (1u << pj.fam))
			return 0;
		pj.from = h->addr;
	}
	return 0;
}

/*
 * jmp *R with nothing before it in its block that writes R, the block
 * entered only by branches (an unconditional jump or a return ends the
 * code before it): the devirtualised call's fallback a compiler puts after
 * the function's return, `cmp SLOT, R; jne L; ...; ret; L: jmp *R`.
 * Listed, and proven a pointer jump by nf_ptrjumps() when every branch
 * into the block comes from where R holds a whole pointer.  0: not this
 * form; 1: listed; -ENOMEM.
 */
static int branch_entered(struct nf_file *f, const cs_insn *insn)
{
	struct nf_ptrjump pj = { .jmp = insn->address, .from = insn->address,
				 .fam = nf_x86_family(insn->detail->x86.operands[0].reg) };

	for (unsigned k = 1; pj.fam >= 0 && k <= NF_X86_HIST; k++) {
		const struct hinsn *h = back(k);
		if (!h)
			return 0;
		if (h->id == X86_INS_JMP || h->id == X86_INS_RET)
			return nf_ptrjump_add(f, &pj) ? -ENOMEM : 1;
		if (writes(h, pj.fam))
			return 0;
		pj.from = h->addr;
	}
	return 0;
}

/* How many direct jumps in fn land on t, or -1 when one does from where R (family fam) may not hold a pointer. */
static long pointer_jumps_to(const struct nf_file *f, const struct nf_ent *fn, uint64_t t, int fam)
{
	static cs_insn *in;
	uint64_t pos, avail, to;
	uint32_t m = 0;
	long n = 0;

	if (!in && !(in = cs_malloc(*nf_x86_handle())))
		return -1;
	for (pos = fn->addr; pos < fn->end; pos += in->size) {
		const uint8_t *p = nf_code_at(f, pos, &avail);
		if (!p || !nf_x86_decode(p, avail, pos, in))
			return -1;
		if (nf_x86_branch_target(in, &to) && to == t) {
			if (cs_insn_group(*nf_x86_handle(), in, CS_GRP_CALL) || !(m & (1u << fam)))
				return -1;
			n++;
		}
		m = ptr_mask(m, in);
		if (in->id == X86_INS_JMP || in->id == X86_INS_RET)
			m = 0;	/* what follows is entered by branches only */
	}
	return n;
}

int nf_ptrjumps(struct nf_file *f)
{
	for (size_t i = 0; i < f->nptrjump; i++) {
		const struct nf_ptrjump *pj = &f->ptrjump[i];
		const struct nf_ent *fn = nf_ent_holding(f, pj->jmp);
		const struct nf_hazard *h = nf_hazard_in(f, pj->from - 1, pj->jmp + 1);
		bool ok = !h ? pj->fallthrough : fn && !fn->fragment;
		for (; ok && h && h < f->hz + f->nhz && h->addr <= pj->jmp; h++)
			ok = h->why == HZ_BRANCH && pointer_jumps_to(f, fn, h->addr, pj->fam) == h->nbranch;
		if (!ok && nf_tablejmp_add(f, pj->jmp))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A switch whose base X was set before a loop: its tables are those of
 * every `lea T(%rip), X` in the function, when nothing else in it writes X
 * (a pop, restoring a caller's X on the way out, aside; calls too: no
 * compiler keeps a table base in a register a call may change).  Each
 * candidate is read like any table (over-reading only refuses more).
 * 1 when at least one was found and every write was such a lea, else 0.
 */
static int hoisted_tables(struct nf_file *f, const struct nf_pictable *sw, int fam, int *err)
{
	uint64_t jmp = sw->jmp;
	static cs_insn *in;
	const struct nf_ent *fn = nf_ent_holding(f, jmp);
	uint64_t pos, avail;
	size_t found = 0, first = f->npictable;

	if (!fn || fn->fragment || (!in && !(in = cs_malloc(*nf_x86_handle()))))
		return 0;
	for (pos = fn->addr; pos < fn->end; pos += in->size) {
		const uint8_t *p = nf_code_at(f, pos, &avail);
		if (!p || !nf_x86_decode(p, avail, pos, in))
			break;
		const cs_x86 *x = &in->detail->x86;
		if (x->op_count < 1 || x->operands[0].type != X86_OP_REG ||
		    !(x->operands[0].access & CS_AC_WRITE) || nf_x86_family(x->operands[0].reg) != fam)
			continue;
		uint64_t t;
		if (in->id == X86_INS_LEA && nf_x86_rip_target(in, &t)) {
			struct nf_pictable pt = *sw;
			pt.table = t;
			*err = nf_pictable_add(f, &pt);
			if (*err)
				return 0;
			found++;
		} else if (in->id != X86_INS_POP) {
			break;
		}
	}
	if (pos < fn->end || !found) {
		f->npictable = first;	/* not trusted: none of them */
		return 0;
	}
	return 1;
}

/*
 * A table-like jump: recovered when its table can be read (the PIC
 * pattern: read after the sweep, noflag_hazards.c), or when its entries
 * are absolute addresses the loader relocates or (ET_EXEC) data words in a
 * data section, which are in H already; else listed as unrecovered.
 */
int nf_x86_table_jump(struct nf_file *f, const cs_insn *insn)
{
	const cs_x86_op *op = &insn->detail->x86.operands[0];

	if (op->type == X86_OP_REG) {
		int listed = pointer_jump(f, insn);
		if (!listed)
			listed = branch_entered(f, insn);
		if (listed)
			return listed < 0 ? listed : 0;
		struct nf_pictable pt = { .jmp = insn->address, .lea = insn->address, .from = insn->address };
		int hoisted, err = 0;
		if ((pt.table = pic_table(insn, &pt, &hoisted)))
			return nf_pictable_add(f, &pt);
		if (!pt.entries)
			pt.from = insn->address;
		if (hoisted >= 0 && hoisted_tables(f, &pt, hoisted, &err))
			return 0;
		if (err)
			return err;
		if (hoisted >= 0)	/* traced when H is whole (noflag_reach.c) */
			return nf_hoisted_add(f, &(struct nf_hoisted){ .pt = pt, .fam = hoisted });
	} else if (op->mem.scale == 8 && op->mem.base != X86_REG_RIP) {
		uint64_t avail;
		bool in_data = !nf_code_at(f, (uint64_t)op->mem.disp, &avail) &&
			       elfquery_sec_by_addr(f->q, (uint64_t)op->mem.disp);
		if (f->h->type == EO_ET_DYN || (op->mem.base == X86_REG_INVALID && in_data))
			return 0;
	}
	return nf_tablejmp_add(f, insn->address);
}

/* hist[] as remember() would have made it over the sweep's run (ring: its instructions' addresses, nrun so far): false when a byte is missing. */
bool nf_x86_replay(const struct nf_file *f, const uint64_t *ring, unsigned nrun, cs_insn *in)
{
	unsigned m = nrun < NF_X86_HIST ? nrun : NF_X86_HIST;
	uint64_t avail;

	nhist = nrun - m;
	for (unsigned k = m; k >= 1; k--) {
		uint64_t a = ring[(nrun - k) % NF_X86_HIST];
		const uint8_t *p = nf_code_at(f, a, &avail);
		if (!p || !nf_x86_decode(p, avail, a, in))
			return false;	/* cannot happen: each decoded before */
		remember(in);
	}
	return true;
}
