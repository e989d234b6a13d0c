// SPDX-License-Identifier: GPL-2.0-only
/*
 * The quick decoder against Capstone, the oracle (the decoder the sweep
 * asks whenever the quick one declines): for the bytes it takes, the same
 * length, the same direct branch target, the same rip-relative address, no
 * table-like jump, and every number Capstone gives an operand (an ET_EXEC
 * file's code addresses are read from them) among the values its raw
 * fields may take, or under 256 (see quick_usable() in noflag_sweep.c).
 */
#include <stdio.h>

#include "noflag_x86.h"
#include "nfquick_agree.h"

static bool among(uint64_t v, const struct nf_quick *q)
{
	uint64_t vals[4];

	if (v < 256)
		return true;
	for (unsigned i = 0; i < q->nfield; i++)
		for (unsigned n = nf_x86_field_values(&q->field[i], vals); n--;)
			if (vals[n] == v)
				return true;
	return false;
}

static int differ(char *why, size_t len, const char *what, const cs_insn *in)
{
	snprintf(why, len, "%s (Capstone: %s %s, %u bytes)", what, in->mnemonic, in->op_str, in->size);
	return -1;
}

int nfq_agree(const uint8_t *p, size_t avail, uint64_t addr, char *why, size_t len)
{
	static cs_insn *in;
	struct nf_quick q;
	uint64_t t;

	if (!nf_x86_quick(p, avail, addr, &q))
		return 0;
	if (!in && !(in = cs_malloc(*nf_x86_handle()))) {
		snprintf(why, len, "cannot open Capstone");
		return -1;
	}
	if (!nf_x86_decode(p, avail, addr, in)) {
		snprintf(why, len, "Capstone does not decode it; quick says %u bytes", q.len);
		return -1;
	}
	if (in->size != q.len)
		return differ(why, len, "length", in);
	bool br = nf_x86_branch_target(in, &t);
	if (br != q.branch || (br && t != q.target))
		return differ(why, len, "branch target", in);
	if (br)
		return 1;	/* the sweep asks nothing else of a branch */
	bool rip = nf_x86_rip_target(in, &t);
	if (rip != q.rip || (rip && t != q.target))
		return differ(why, len, "rip-relative address", in);
	const cs_x86 *x = &in->detail->x86;
	if (in->id == X86_INS_JMP)
		return differ(why, len, "an indirect jump", in);
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];
		if ((op->type == X86_OP_IMM && !among((uint64_t)op->imm, &q)) ||
		    (op->type == X86_OP_MEM && op->mem.base != X86_REG_RIP && !among((uint64_t)op->mem.disp, &q)))
			return differ(why, len, "an operand's number", in);
	}
	return 1;
}
