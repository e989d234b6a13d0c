// SPDX-License-Identifier: GPL-2.0-only
/*
 * AArch64.
 *
 * gcc -pg emits "bl _mcount" after the frame record is saved
 * (R_AARCH64_CALL26 on the BL; gcc has no -mfentry here).  Instructions are
 * 4 bytes, 4-aligned, always little-endian in the object for LE targets.
 * The NOP is the architectural one, which ftrace swaps with the BL in a
 * single store.
 */
#include <elf.h>
#include <errno.h>

#include "arch_list.h"
#include "bytes.h"

#define A64_NOP		0xd503201f	/* nop */
#define A64_BL_MASK	0xfc000000
#define A64_BL		0x94000000	/* bl <imm26> */
#define A64_B		0x14000000	/* b <imm26> */

static enum reloc_role aarch64_call_site(const struct arch *a, const struct reloc_view *rv,
					 struct call_site *cs)
{
	uint32_t insn;

	(void)a;
	cs->site = rv->offset;
	cs->len = 4;
	cs->align = 4;
	cs->why = rv->type == R_AARCH64_JUMP26 ? "a branch (tail call), not a call"
					       : "a relocation type that no call uses";
	if (rv->type != R_AARCH64_CALL26)
		return RELOC_BAD;
	cs->why = "a call that runs past the end of its section";
	if (!in_bounds(rv->offset, 4, rv->code_size))
		return RELOC_BAD;
	insn = get32(rv->code + rv->offset, rv->big_endian);
	cs->why = (insn & A64_BL_MASK) == A64_B ? "a branch (tail call), not a call"
						 : "not a BL instruction";
	return (insn & A64_BL_MASK) == A64_BL ? RELOC_CALL : RELOC_BAD;
}

static int aarch64_make_nop(const struct arch *a, uint8_t *code, uint64_t size,
			    const struct call_site *cs, bool be)
{
	(void)a;
	if (!in_bounds(cs->site, 4, size) ||
	    (get32(code + cs->site, be) & A64_BL_MASK) != A64_BL)
		return -EINVAL;
	put32(code + cs->site, A64_NOP, be);
	return 0;
}

static const struct reloc_name aarch64_relocs[] = {
	RELOC_NAME(R_AARCH64_NONE), RELOC_NAME(R_AARCH64_ABS64),
	RELOC_NAME(R_AARCH64_CALL26), RELOC_NAME(R_AARCH64_JUMP26),
	RELOC_NAME(R_AARCH64_ADR_PREL_PG_HI21), RELOC_NAME(R_AARCH64_ADD_ABS_LO12_NC),
	RELOC_NAME(R_AARCH64_ADR_GOT_PAGE), RELOC_NAME(R_AARCH64_LD64_GOT_LO12_NC),
	{ 0, NULL },
};

static const char *aarch64_reloc_name(uint32_t type)
{
	return reloc_name_lookup(aarch64_relocs, type);
}

static const char *const aarch64_hooks[] = { "_mcount", "__fentry__", NULL };

const struct arch arch_aarch64 = {
	.name		= "aarch64",
	.machine	= EM_AARCH64,
	.elfclass	= ELFCLASS64,
	.hooks		= aarch64_hooks,
	.abs_reloc	= R_AARCH64_ABS64,
	.none_reloc	= R_AARCH64_NONE,
	.call_site	= aarch64_call_site,
	.make_nop	= aarch64_make_nop,
	.reloc_name	= aarch64_reloc_name,
};
