// SPDX-License-Identifier: GPL-2.0-only
/*
 * MIPS, 32-bit (o32) and 64-bit (n64), both byte orders.
 *
 * Kernel code (-mno-abicalls -fno-pic) calls the hook with "jal _mcount"
 * (R_MIPS_26).  Modules use -mlong-calls, which loads the address first:
 *   32-bit:  lui R_MIPS_HI16, addiu R_MIPS_LO16, ..., jalr
 *   64-bit:  R_MIPS_HIGHEST, R_MIPS_HI16, R_MIPS_HIGHER, R_MIPS_LO16 on
 *            consecutive instructions, then jalr
 * Each relocation of a sequence sits 4 bytes after the previous one; only
 * the first starts a site (the kernel NOPs that instruction).  This rule is
 * applied within one section only: with -ffunction-sections a real call at
 * offset 4 of the next section is not part of the previous sequence.
 *
 * n64 r_info is not the generic ELF64 one: r_sym(32) r_ssym(8) r_type3(8)
 * r_type2(8) r_type(8), stored as bytes, so on a little-endian file the
 * 64-bit value read by libelf has the type in its top byte.
 */
#include <elf.h>

#include "arch_list.h"
#include "bytes.h"

#define MIPS_OP(insn)	((insn) >> 26)
#define MIPS_OP_JAL	0x03
#define MIPS_OP_LUI	0x0f

static enum reloc_role mips_call_site(const struct arch *a, const struct reloc_view *rv,
				      struct call_site *cs)
{
	bool start_type = rv->type == R_MIPS_26 || rv->type == R_MIPS_HI16 ||
			  rv->type == R_MIPS_HIGHEST;
	bool part_type = rv->type == R_MIPS_LO16 || rv->type == R_MIPS_HIGHER ||
			 rv->type == R_MIPS_HI16;
	uint32_t insn;

	(void)a;
	cs->site = rv->offset;
	cs->len = 4;
	cs->align = 4;
	if (rv->have_prev && rv->offset == rv->prev_offset + 4 && part_type)
		return RELOC_PART;
	cs->why = rv->type == R_MIPS_CALL16 || rv->type == R_MIPS_JALR
			  ? "a PIC call through the GOT (compile with -mno-abicalls -fno-pic)"
			  : "a relocation type that no call uses";
	if (!start_type)
		return RELOC_BAD;
	cs->why = "a call that runs past the end of its section";
	if (!in_bounds(rv->offset, 4, rv->code_size))
		return RELOC_BAD;
	insn = get32(rv->code + rv->offset, rv->big_endian);
	cs->why = rv->type == R_MIPS_26 ? "not a jal instruction" : "not a lui instruction";
	if (rv->type == R_MIPS_26)
		return MIPS_OP(insn) == MIPS_OP_JAL ? RELOC_CALL : RELOC_BAD;
	return MIPS_OP(insn) == MIPS_OP_LUI ? RELOC_CALL : RELOC_BAD;
}

static uint64_t mips64_rinfo_make(uint32_t sym, uint32_t type, bool big_endian)
{
	if (big_endian)
		return (uint64_t)sym << 32 | (type & 0xff);
	return (uint64_t)(type & 0xff) << 56 | sym;
}

static void mips64_rinfo_split(uint64_t info, bool big_endian, uint32_t *sym, uint32_t *type)
{
	if (big_endian) {
		*sym = (uint32_t)(info >> 32);
		*type = (uint32_t)info & 0xff;
	} else {
		*sym = (uint32_t)info;
		*type = (uint32_t)(info >> 56);
	}
}

static const struct reloc_name mips_relocs[] = {
	RELOC_NAME(R_MIPS_NONE), RELOC_NAME(R_MIPS_32), RELOC_NAME(R_MIPS_26),
	RELOC_NAME(R_MIPS_HI16), RELOC_NAME(R_MIPS_LO16), RELOC_NAME(R_MIPS_CALL16),
	RELOC_NAME(R_MIPS_64), RELOC_NAME(R_MIPS_HIGHER), RELOC_NAME(R_MIPS_HIGHEST),
	RELOC_NAME(R_MIPS_JALR), { 0, NULL },
};

static const char *mips_reloc_name(uint32_t type)
{
	return reloc_name_lookup(mips_relocs, type);
}

static const char *const mips_hooks[] = { "_mcount", "__fentry__", NULL };

const struct arch arch_mips = {
	.name		= "mips",
	.machine	= EM_MIPS,
	.elfclass	= ELFCLASS32,
	.hooks		= mips_hooks,
	.abs_reloc	= R_MIPS_32,
	.none_reloc	= R_MIPS_NONE,
	.call_site	= mips_call_site,
	.reloc_name	= mips_reloc_name,
	.insn_align	= 4,
	.mcount_window	= 64,
};

const struct arch arch_mips64 = {
	.name		= "mips64",
	.machine	= EM_MIPS,
	.elfclass	= ELFCLASS64,
	.hooks		= mips_hooks,
	.abs_reloc	= R_MIPS_64,
	.none_reloc	= R_MIPS_NONE,
	.call_site	= mips_call_site,
	.rinfo_make	= mips64_rinfo_make,
	.rinfo_split	= mips64_rinfo_split,
	.reloc_name	= mips_reloc_name,
	.insn_align	= 4,
	.mcount_window	= 64,
};
