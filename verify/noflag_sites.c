// SPDX-License-Identifier: GPL-2.0-only
/*
 * Site forms (x86-64), in order of proof strength; each entry gets the
 * first that holds, or the name of the check that refused it.
 *
 *   a  the entry instruction (after endbr64, which stays so that indirect
 *      calls still land on it) is 5 bytes or more: one instruction is
 *      displaced, so the only proof needed is that no element of H lies
 *      inside it (overlapping code, another entry).
 *   b  the first instruction of 5 bytes or more in the entry block: no
 *      element of H between the entry and the end of that instruction (else
 *      the site could run twice per call, or not at all), no jump, return or
 *      call before it, the stack depth known at it (push, pop, sub/add rsp
 *      by a constant, lea rsp,[rsp+c]: the stub finds the return address at
 *      [rsp+DEPTH]), and no table-like jump in the function whose table
 *      the sweep could not read (noflag_sweep.c, noflag_hazards.c): a PIC
 *      table's targets are in no other source of H (refused as
 *      unbounded-jump-table).
 *
 *   c  a window of whole instructions from the entry (after endbr64) of 5
 *      bytes or more, when b fails: no element of H inside, no call but as
 *      the last instruction, nothing ending the flow before the last, every
 *      instruction relocatable, no unread table-like jump in the function.
 *      The runtime must also move threads' PCs out of the window when it
 *      arms.
 *
 *   p  the same window when its flow ends (ret, jmp, ud2...) before 5
 *      bytes: it may run on over the padding after that instruction, past
 *      the function's range (its FDE's, else its symbol's) or inside it
 *      (the alignment before a loop head that the entry jumps over), when
 *      each byte there is padding (nop forms, int3, zeros) and nothing in
 *      H lies inside; else short-no-padding.  The padding never runs:
 *      nothing falls into it, and H holds every other way in, as it does
 *      for every window.
 *
 * An entry refused is named by the check of the last form tried (c or p
 * when a did not apply).  Every displaced instruction is described for the runtime (noflag_proof.h: its length, and where its
 * disp32 or branch displacement sits); one this cannot describe is refused
 * as unrelocatable.
 */
#include <string.h>

#include "diag.h"
#include "noflag_x86.h"

#define B_MAX_INSNS 32	/* how far the b walk looks into the entry block */

static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };

/* The check H refutes, named by the strongest source of the element found. */
static const char *hazard_check(const struct nf_hazard *h)
{
	if (h->why & HZ_BRANCH)
		return "direct-target-in-window";
	if (h->why & HZ_CODEADDR)
		return "code-address-in-window";
	if (h->why & HZ_TABLE)
		return "table-target-in-window";
	if (h->why & HZ_LANDING)
		return "landing-pad-in-window";
	return "entry-in-window";
}

/* The n-byte little-endian signed field at off of insn's bytes is v. */
static bool field_is(const cs_insn *insn, unsigned off, unsigned n, int64_t v)
{
	uint64_t u = 0;

	if (!n || off + n > insn->size)
		return false;
	for (unsigned i = 0; i < n; i++)
		u |= (uint64_t)insn->bytes[off + i] << (8 * i);
	if (n < 8 && (u >> (8 * n - 1)) & 1)
		u |= ~(uint64_t)0 << (8 * n);
	return (int64_t)u == v;
}

/* The proof file's description of one displaced instruction; false if it cannot relocate. */
static bool describe(const cs_insn *insn, struct nf_insn *d)
{
	const cs_x86_encoding *enc = &insn->detail->x86.encoding;
	uint64_t t;

	*d = (struct nf_insn){ .len = (uint8_t)insn->size, .kind = NF_PLAIN };
	if (nf_x86_branch_target(insn, &t)) {
		d->off = enc->imm_offset;
		if (insn->id == X86_INS_CALL && enc->imm_size == 4)
			d->kind = NF_CALL;
		else if (insn->id == X86_INS_JMP)
			d->kind = enc->imm_size == 4 ? NF_JMP : NF_JMP8;
		else if (insn->id >= X86_INS_JAE && insn->id <= X86_INS_JS && insn->id != X86_INS_JMP &&
			 insn->id != X86_INS_JCXZ && insn->id != X86_INS_JECXZ && insn->id != X86_INS_JRCXZ)
			d->kind = enc->imm_size == 4 ? NF_JCC : NF_JCC8;
		else
			return false;	/* loop, jrcxz, xbegin: no form the stub re-encodes */
		return (enc->imm_size == 4 || enc->imm_size == 1) &&
		       field_is(insn, enc->imm_offset, enc->imm_size,
				(int64_t)(t - insn->address - insn->size));
	}
	if (nf_x86_rip_target(insn, &t)) {
		/*
		 * A rip-relative displacement is always 4 bytes; Capstone 4 says 2
		 * after a 66 prefix (movdqa), so its place is checked against the
		 * value instead: the bytes there must encode it.
		 */
		d->kind = NF_RIP;
		d->off = enc->disp_offset;
		return enc->disp_offset && field_is(insn, enc->disp_offset, 4,
						    (int64_t)(t - insn->address - insn->size));
	}
	return true;
}

/* Ends the entry block before a site could be found there. */
static bool ends_block(const cs_insn *insn)
{
	csh h = *nf_x86_handle();

	return cs_insn_group(h, insn, CS_GRP_JUMP) || cs_insn_group(h, insn, CS_GRP_CALL) ||
	       cs_insn_group(h, insn, CS_GRP_RET) || cs_insn_group(h, insn, CS_GRP_INT) ||
	       cs_insn_group(h, insn, CS_GRP_IRET) || insn->id == X86_INS_HLT ||
	       insn->id == X86_INS_UD2 || insn->id == X86_INS_INT3 || insn->id == X86_INS_SYSCALL;
}

static bool writes_rsp(const cs_insn *insn)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;

	if (cs_regs_access(*nf_x86_handle(), insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true;
	for (unsigned i = 0; i < nwr; i++)
		if (wr[i] == X86_REG_RSP || wr[i] == X86_REG_ESP || wr[i] == X86_REG_SP ||
		    wr[i] == X86_REG_SPL)
			return true;
	return false;
}

/*
 * The stack depth after insn, from depth *d below the entry's stack pointer:
 * false when insn changes rsp in a way not known here.
 */
static bool track_depth(const cs_insn *insn, int64_t *d)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *op = x->operands;
	bool rsp0 = x->op_count >= 1 && op[0].type == X86_OP_REG && op[0].reg == X86_REG_RSP;

	switch (insn->id) {
	case X86_INS_PUSH:
		*d += x->op_count == 1 && op[0].size == 2 ? 2 : 8;
		return true;
	case X86_INS_POP:
		if (rsp0 || (x->op_count == 1 && op[0].type == X86_OP_MEM))
			return false;	/* pop rsp; pop [rsp+x] addresses after the pop */
		*d -= x->op_count == 1 && op[0].size == 2 ? 2 : 8;
		return *d >= 0;
	case X86_INS_SUB:
	case X86_INS_ADD:
		if (!rsp0)
			break;
		if (x->op_count != 2 || op[1].type != X86_OP_IMM)
			return false;
		*d += insn->id == X86_INS_SUB ? op[1].imm : -op[1].imm;
		return *d >= 0;
	case X86_INS_LEA:
		if (!rsp0)
			break;
		if (op[1].mem.base != X86_REG_RSP || op[1].mem.index != X86_REG_INVALID)
			return false;
		*d -= op[1].mem.disp;
		return *d >= 0;
	}
	return !writes_rsp(insn);
}

/* Form a: the entry instruction alone. Returns the refusing check, or NULL with e filled. */
static const char *form_a(const struct nf_file *f, struct nf_ent *e, const cs_insn *insn)
{
	const struct nf_hazard *h = nf_hazard_in(f, insn->address, insn->address + insn->size);

	if (h)
		return hazard_check(h);
	if (!describe(insn, &e->insns[0]))
		return "unrelocatable";
	e->form = 'a';
	e->site = insn->address;
	e->nbytes = (uint8_t)insn->size;
	e->ninsns = 1;
	return NULL;
}

/* Form b: walk the entry block from s0 (after endbr64), whose instruction insn holds. */
static const char *form_b(const struct nf_file *f, struct nf_ent *e, uint64_t s0, cs_insn *insn)
{
	uint64_t pos = s0, avail;
	int64_t depth = 0;

	for (unsigned n = 0; n < B_MAX_INSNS; n++) {
		const uint8_t *p = nf_code_at(f, pos, &avail);
		if (!p || pos >= e->end || (n && !nf_x86_decode(p, avail, pos, insn)))
			return !p || pos >= e->end ? "needs-window" : "undecodable";
		if (insn->size >= 5) {
			const struct nf_hazard *h = nf_hazard_in(f, s0, pos + insn->size);
			if (h)
				return hazard_check(h);
			if (e->table || f->orphan_table)
				return "unbounded-jump-table";
			if (!describe(insn, &e->insns[0]))
				return "unrelocatable";
			e->form = 'b';
			e->site = pos;
			e->depth = (uint32_t)depth;
			e->nbytes = (uint8_t)insn->size;
			e->ninsns = 1;
			return NULL;
		}
		if (ends_block(insn))
			return "needs-window";
		if (!track_depth(insn, &depth) || depth > UINT32_MAX)
			return "stack-depth-unknown";
		pos += insn->size;
	}
	return "needs-window";
}

/* Ends control flow where it stands: nothing after it runs by falling through. */
static bool ends_flow(const cs_insn *insn)
{
	csh h = *nf_x86_handle();

	return insn->id == X86_INS_JMP || cs_insn_group(h, insn, CS_GRP_RET) ||
	       cs_insn_group(h, insn, CS_GRP_IRET) || insn->id == X86_INS_HLT ||
	       insn->id == X86_INS_UD2 || insn->id == X86_INS_INT3;
}

/* Dead padding a linker or assembler put after a function: nop forms, int3, zeros. */
static bool is_padding(const cs_insn *insn)
{
	bool zeros = true;

	for (unsigned i = 0; i < insn->size; i++)
		zeros = zeros && !insn->bytes[i];
	return zeros || insn->id == X86_INS_NOP || insn->id == X86_INS_INT3;
}

/*
 * Form c: whole instructions from s0 until 5 bytes or more, each
 * relocatable; a call only as the last (its return address is then the
 * window's end), a jcc anywhere (the stub re-targets it), nothing that ends
 * the flow before the last (that window would run into what follows the
 * function: the padding form, not proven here); no element of H inside and
 * no table-like jump in the function, as for b.
 */
static const char *form_c(const struct nf_file *f, struct nf_ent *e, uint64_t s0, cs_insn *insn)
{
	csh h = *nf_x86_handle();
	uint64_t pos = s0, avail;
	unsigned n = 0;
	char form = 'c';

	while (pos - s0 < 5) {
		const uint8_t *p = nf_code_at(f, pos, &avail);
		if (!p || (form == 'c' && pos >= e->end))
			return "needs-window";
		if (n == NF_MAX_INSNS)
			return "short-no-padding";
		if (!nf_x86_decode(p, avail, pos, insn))
			return "undecodable";
		bool last = pos + insn->size - s0 >= 5;
		if (form == 'p' && !is_padding(insn))
			return "short-no-padding";
		if (!last && cs_insn_group(h, insn, CS_GRP_CALL))
			return "call-in-window";
		if (!describe(insn, &e->insns[n]))
			return "unrelocatable";
		n++;
		pos += insn->size;
		if (form == 'c' && !last && ends_flow(insn))
			form = 'p';	/* only padding may follow, inside the function or past it */
	}
	const struct nf_hazard *hz = nf_hazard_in(f, s0, pos);
	if (hz)
		return hazard_check(hz);
	if (e->table || f->orphan_table)
		return "unbounded-jump-table";
	e->form = form;
	e->site = s0;
	e->depth = 0;
	e->nbytes = (uint8_t)(pos - s0);
	e->ninsns = (uint8_t)n;
	return NULL;
}

static const char *prove(const struct nf_file *f, struct nf_ent *e, cs_insn *insn)
{
	uint64_t s0 = e->addr, avail;
	const uint8_t *p = nf_code_at(f, s0, &avail);

	if (!p)
		return "undecodable";	/* no bytes in the file (cannot happen for a text entry) */
	if (avail >= 4 && !memcmp(p, endbr64, 4)) {
		s0 += 4;
		p += 4;
		avail -= 4;
	}
	if (!avail || !nf_x86_decode(p, avail, s0, insn))
		return "undecodable";
	if (insn->size >= 5)
		return form_a(f, e, insn);	/* c would displace the same instruction and more */
	if (!form_b(f, e, s0, insn))
		return NULL;
	return form_c(f, e, s0, insn);		/* named by c's check: the last form tried */
}

int nf_sites(struct nf_file *f)
{
	csh *h = nf_x86_handle();
	cs_insn *insn;

	if (!h || !(insn = cs_malloc(*h))) {
		diag_err(f->path, "cannot open the x86-64 decoder (Capstone)");
		return -1;
	}
	for (size_t i = 0; i < f->nents; i++) {
		struct nf_ent *e = &f->ents[i];
		if (e->fragment)
			continue;
		e->check = prove(f, e, insn);
		if (e->check)
			e->form = 0;
	}
	cs_free(insn, 1);
	return 0;
}
