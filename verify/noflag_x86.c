// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x86-64 decoder patchverify --noflag shares (noflag_x86.h): one
 * Capstone handle with operand details, opened on first use, and the
 * questions the sweep, its table-like jumps and the site forms ask of an
 * instruction: its direct target, its rip-relative address, a register's
 * family.
 */
#include <stdlib.h>
#include <string.h>

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

/* A general register's family 0-15 (rax..r15, whatever part), or -1: by its name. */
static int family_by_name(unsigned reg)
{
	const char *n = cs_reg_name(*nf_x86_handle(), reg);
	static const char *const legacy[] = { "ax", "cx", "dx", "bx", "sp", "bp", "si", "di" };
	char base[4] = { 0 };

	if (!n)
		return -1;
	if (n[0] == 'r' && n[1] >= '0' && n[1] <= '9')
		return (int)strtol(n + 1, NULL, 10);		/* r8, r10d, r15b */
	size_t len = strlen(n);
	if (len == 3 && (n[0] == 'r' || n[0] == 'e'))
		memcpy(base, n + 1, 2);				/* rax, eax -> ax */
	else if (len == 2 && (n[1] == 'l' || n[1] == 'h') && strchr("abcd", n[0]))
		base[0] = n[0], base[1] = 'x';			/* al, ah -> ax */
	else if (len == 3 && n[2] == 'l')
		memcpy(base, n, 2);				/* sil, dil, bpl, spl */
	else if (len == 2)
		memcpy(base, n, 2);				/* ax, si */
	for (int i = 0; i < 8; i++)
		if (!strcmp(base, legacy[i]))
			return i;
	return -1;
}

/* family_by_name(), looked up once per register: the sweep asks for every instruction. */
int nf_x86_family(unsigned reg)
{
	static signed char cache[X86_REG_ENDING];
	static bool filled;

	if (!filled) {
		for (unsigned r = 0; r < X86_REG_ENDING; r++)
			cache[r] = (signed char)family_by_name(r);
		filled = true;
	}
	return reg < X86_REG_ENDING ? cache[reg] : -1;
}
