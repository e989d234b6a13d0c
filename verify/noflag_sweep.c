// SPDX-License-Identifier: GPL-2.0-only
/*
 * The linear sweep (x86-64): decode every executable section from its
 * start, restarting at every known start (entry or fragment) an
 * instruction would run over, and add to H what each instruction says code
 * may reach: direct branch targets, rip-relative operands naming the text,
 * and in an ET_EXEC file immediates and absolute displacements that fall
 * in the text (such a file has no relocations to say which numbers are
 * code addresses).  Table-like indirect jumps are listed for the b form
 * (noflag_tables.c tells switches and pointer jumps among them).
 *
 * Most instructions are decoded by the quick decoder (noflag_quick.c),
 * which answers as Capstone would or declines; Capstone decodes the rest,
 * and the 16 before a table-like jump when its patterns are looked for.
 *
 * Bytes Capstone 4 cannot decode (some VEX/EVEX forms) are stepped over
 * one at a time: decoding from inside an instruction adds only spurious
 * targets, which refuse more, and x86 code falls back in step within a
 * few instructions.  The count is reported (--summary) so that it is seen.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "noflag_x86.h"


/*
 * `jmp REG` or `jmp [.. + INDEX*S]`: the forms a switch's table jump takes
 * (the PIC table holds offsets no relocation names, so its targets are in
 * no other source of H).  `jmp [rip+x]` reads one fixed word, whose value a
 * relocation or an ET_EXEC data word already put in H.
 */
static bool table_like(const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	if (insn->id != X86_INS_JMP || x->op_count != 1)
		return false;
	if (x->operands[0].type == X86_OP_REG)
		return true;
	return x->operands[0].type == X86_OP_MEM && x->operands[0].mem.index != X86_REG_INVALID;
}

/* ET_EXEC: numbers in the instruction that fall in the text are code addresses. */
static int absolute_numbers(struct nf_file *f, const cs_insn *insn)
{
	const cs_x86 *x = &insn->detail->x86;

	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		uint64_t v;
		if (op->type == X86_OP_IMM)
			v = (uint64_t)op->imm;
		else if (op->type == X86_OP_MEM && op->mem.base != X86_REG_RIP)
			v = (uint64_t)op->mem.disp;
		else
			continue;
		if (nf_in_text(f, v) && nf_hazard_add(f, v, HZ_CODEADDR))
			return -ENOMEM;
	}
	return 0;
}
/*
 * The entries' starts, in one array for the sweep's lookups (an entry's
 * record is large); NULL when no entry is a fragment, and none is looked up.
 */
static uint64_t *starts;

/* nf_ent_holding(f, t) when it is a fragment, else NULL. */
static const struct nf_ent *fragment_holding(const struct nf_file *f, uint64_t t)
{
	size_t a = 0, b = f->nents;

	if (!starts)
		return NULL;
	while (a < b) {		/* the first entry after t */
		size_t m = a + (b - a) / 2;
		if (starts[m] <= t)
			a = m + 1;
		else
			b = m;
	}
	const struct nf_ent *e = a ? &f->ents[a - 1] : NULL;
	return e && t < e->end && e->fragment ? e : NULL;
}

/* A direct branch at src to t. */
static int note_branch(struct nf_file *f, uint64_t src, uint64_t t)
{
	const struct nf_ent *to = fragment_holding(f, t);

	if (nf_in_text(f, t) && nf_hazard_add(f, t, HZ_BRANCH))
		return -ENOMEM;
	if (to && nf_fragref_add(f, (size_t)(to - f->ents), src))
		return -ENOMEM;
	return 0;
}

static int note(struct nf_file *f, const cs_insn *insn)
{
	uint64_t t;

	if (nf_x86_branch_target(insn, &t))
		return note_branch(f, insn->address, t);	/* its operand is the target: no other number */
	if (nf_x86_rip_target(insn, &t) && nf_in_text(f, t) && nf_hazard_add(f, t, HZ_CODEADDR))
		return -ENOMEM;
	if (table_like(insn) && nf_x86_table_jump(f, insn))
		return -ENOMEM;
	if (f->h->type == EO_ET_EXEC)
		return absolute_numbers(f, insn);
	return 0;
}

/* The first entry at or after addr (entries are sorted), as an index. */
static size_t first_start(const struct nf_file *f, uint64_t addr)
{
	size_t a = 0, b = f->nents;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (f->ents[m].addr < addr)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/*
 * The addresses of the last NF_X86_HIST instructions of this run (nrun of
 * them so far): the history a table-like jump reads is made from them
 * (nf_x86_replay) only when one does, so that the instructions the quick
 * decoder took need no Capstone decoding.
 */
static uint64_t ring[NF_X86_HIST];
static unsigned nrun;


/* ET_EXEC: a number of q that may be an address in the text (Capstone says which). */
static bool number_in_text(const struct nf_file *f, const struct nf_quick *q)
{
	uint64_t v[4];

	for (unsigned i = 0; i < q->nfield; i++)
		for (unsigned n = nf_x86_field_values(&q->field[i], v); n--;)
			if (nf_in_text(f, v[n]))
				return true;
	return false;
}

/*
 * May the quick decoder's answers stand for Capstone's in this file: in an
 * ET_EXEC file Capstone may also give a number of its own under 256 (shl's
 * 1, a missing displacement's 0: nf_x86_field_values()), no code address
 * when the text lies above them.
 */
static bool quick_usable(const struct nf_file *f)
{
	for (size_t i = 0; f->h->type == EO_ET_EXEC && i < f->ntext; i++)
		if (f->text[i].addr < 256)
			return false;
	return true;
}

/* The instruction at pos, decoded by Capstone into insn, noted; its size, or 0 when it does not decode. */
static int sweep_slow(struct nf_file *f, const uint8_t *p, uint64_t avail, uint64_t pos, cs_insn *insn,
		      cs_insn *tmp, unsigned *size)
{
	*size = 0;
	if (!nf_x86_decode(p, avail, pos, insn))
		return 0;
	if (table_like(insn) && !nf_x86_replay(f, ring, nrun, tmp))
		return -EINVAL;
	*size = insn->size;
	return note(f, insn);
}

static int sweep_text(struct nf_file *f, const struct nf_text *t, cs_insn *insn, cs_insn *tmp)
{
	uint64_t pos = t->addr, end = t->addr + t->size;
	size_t k = first_start(f, pos);
	bool quick = quick_usable(f);
	struct nf_quick q;
	unsigned size;
	int err;

	nrun = 0;
	while (pos < end) {
		while (k < f->nents && f->ents[k].addr <= pos)
			k++;
		uint64_t next = k < f->nents && f->ents[k].addr < end ? f->ents[k].addr : end;
		const uint8_t *p = t->bytes + (pos - t->addr);
		if (quick && nf_x86_quick(p, end - pos, pos, &q) &&
		    (f->h->type != EO_ET_EXEC || !number_in_text(f, &q))) {
			size = q.len;
			err = q.branch ? note_branch(f, pos, q.target) :
			      q.rip && nf_in_text(f, q.target) ? nf_hazard_add(f, q.target, HZ_CODEADDR) : 0;
		} else {
			err = sweep_slow(f, p, end - pos, pos, insn, tmp, &size);
		}
		if (err)
			return err;
		if (!size) {
			nrun = 0;
			f->undecodable++;
			pos++;
			continue;
		}
		f->insns++;
		ring[nrun++ % NF_X86_HIST] = pos;
		pos += size;
		if (pos > next) {
			pos = next;	/* it ran over a start: restart there */
			nrun = 0;	/* a new run: nothing before it flows in */
		}
	}
	return 0;
}

int nf_sweep(struct nf_file *f)
{
	csh *h = nf_x86_handle();
	cs_insn *insn = h ? cs_malloc(*h) : NULL, *tmp = h ? cs_malloc(*h) : NULL;
	int err = 0;

	if (!insn || !tmp) {
		diag_err(f->path, "cannot open the x86-64 decoder (Capstone)");
		err = -EINVAL;
	}
	for (size_t i = 0; i < f->nents && !err && !starts; i++)
		if (f->ents[i].fragment && !(starts = malloc(f->nents * sizeof(*starts))))
			err = -ENOMEM;
	for (size_t i = 0; starts && i < f->nents; i++)
		starts[i] = f->ents[i].addr;
	for (size_t i = 0; i < f->ntext && !err; i++)
		if (f->text[i].bytes)
			err = sweep_text(f, &f->text[i], insn, tmp);
	if (err == -EINVAL && insn && tmp)
		diag_err(f->path, "an instruction decoded once did not decode again");
	free(starts);
	starts = NULL;
	if (insn)
		cs_free(insn, 1);
	if (tmp)
		cs_free(tmp, 1);
	return err;
}
