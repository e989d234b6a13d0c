// SPDX-License-Identifier: GPL-2.0-only
/*
 * The linear sweep (x86-64): decode every executable section from its
 * start, restarting at every known start (entry or fragment) an
 * instruction would run over, and add to H what each instruction says code
 * may reach: direct branch targets, rip-relative operands naming the text,
 * and in an ET_EXEC file immediates and absolute displacements that fall
 * in the text (such a file has no relocations to say which numbers are
 * code addresses).  Table-like indirect jumps are listed for the b form.
 *
 * Bytes Capstone 4 cannot decode (some VEX/EVEX forms) are stepped over
 * one at a time: decoding from inside an instruction adds only spurious
 * targets, which refuse more, and x86 code falls back in step within a
 * few instructions.  The count is reported (--summary) so that it is seen.
 */
#include <errno.h>
#include <stdlib.h>

#include "diag.h"
#include "noflag_x86.h"

static csh handle;
static bool opened, usable;

csh *nf_x86_handle(void)
{
	if (!opened) {
		opened = true;
		usable = cs_open(CS_ARCH_X86, CS_MODE_64, &handle) == CS_ERR_OK &&
			 cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON) == CS_ERR_OK;
	}
	return usable ? &handle : NULL;
}

void nf_decoder_close(void)
{
	if (usable)
		cs_close(&handle);
	opened = usable = false;
}

bool nf_x86_decode(const uint8_t *p, uint64_t avail, uint64_t addr, cs_insn *insn)
{
	size_t left = avail < 15 ? (size_t)avail : 15;

	return cs_disasm_iter(*nf_x86_handle(), &p, &left, &addr, insn);
}

bool nf_x86_branch_target(const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;

	if (!cs_insn_group(handle, insn, CS_GRP_BRANCH_RELATIVE) || x->op_count != 1 ||
	    x->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x->operands[0].imm;
	return true;
}

bool nf_x86_rip_target(const cs_insn *insn, uint64_t *target)
{
	const cs_x86 *x = &insn->detail->x86;

	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP) {
			*target = insn->address + insn->size + (uint64_t)x->operands[i].mem.disp;
			return true;
		}
	return false;
}

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

static int note(struct nf_file *f, const cs_insn *insn)
{
	uint64_t t;

	if (nf_x86_branch_target(insn, &t)) {
		const struct nf_ent *to = nf_ent_holding(f, t);
		if (nf_in_text(f, t) && nf_hazard_add(f, t, HZ_BRANCH))
			return -ENOMEM;
		if (to && to->fragment && nf_fragref_add(f, (size_t)(to - f->ents), insn->address))
			return -ENOMEM;
		return 0;	/* its operand is the target: no other number */
	}
	if (nf_x86_rip_target(insn, &t) && nf_in_text(f, t) && nf_hazard_add(f, t, HZ_CODEADDR))
		return -ENOMEM;
	if (table_like(insn) && nf_tablejmp_add(f, insn->address))
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

static int sweep_text(struct nf_file *f, const struct nf_text *t, cs_insn *insn)
{
	uint64_t pos = t->addr, end = t->addr + t->size;
	size_t k = first_start(f, pos);

	while (pos < end) {
		while (k < f->nents && f->ents[k].addr <= pos)
			k++;
		uint64_t next = k < f->nents && f->ents[k].addr < end ? f->ents[k].addr : end;
		if (!nf_x86_decode(t->bytes + (pos - t->addr), end - pos, pos, insn)) {
			f->undecodable++;
			pos++;
			continue;
		}
		f->insns++;
		if (note(f, insn))
			return -ENOMEM;
		pos += insn->size;
		if (pos > next)
			pos = next;	/* it ran over a start: restart there */
	}
	return 0;
}

int nf_sweep(struct nf_file *f)
{
	csh *h = nf_x86_handle();
	cs_insn *insn;
	int err = 0;

	if (!h || !(insn = cs_malloc(*h))) {
		diag_err(f->path, "cannot open the x86-64 decoder (Capstone)");
		return -EINVAL;
	}
	for (size_t i = 0; i < f->ntext && !err; i++)
		if (f->text[i].bytes)
			err = sweep_text(f, &f->text[i], insn);
	cs_free(insn, 1);
	return err;
}
