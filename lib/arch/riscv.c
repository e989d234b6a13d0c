// SPDX-License-Identifier: GPL-2.0-only
/*
 * RISC-V, 64-bit.  The kernel's recordmcount refuses this machine.
 *
 * gcc -pg emits "call _mcount", which the assembler expands to
 *   auipc ra, 0       R_RISCV_CALL_PLT (and R_RISCV_RELAX, symbol 0)
 *   jalr  ra, 0(ra)
 * The site is the auipc, 8 bytes long.  "jal _mcount" (R_RISCV_JAL, 4
 * bytes) is accepted too.  With the C extension (e_flags EF_RISCV_RVC, on
 * by default in Debian's rv64gc) instructions are 2-aligned, else 4.
 * No build-time NOP: the pair carries a linker-relaxation marker that must
 * keep its call relocation.
 *
 * ld relaxes auipc+jalr into jal (and more), shrinking code; it moves
 * symbols along but not section-relative addends in other sections, so an
 * entry "section + offset" past a relaxed call lands 4 bytes off.  Entries
 * are therefore made relative to the function holding the call.
 */
#include <elf.h>

#include "arch_list.h"
#include "bytes.h"

#define RV_OPCODE(insn)	((insn) & 0x7f)
#define RV_AUIPC	0x17
#define RV_JALR		0x67
#define RV_JAL		0x6f

static enum reloc_role riscv64_call_site(const struct arch *a, const struct reloc_view *rv,
					 struct call_site *cs)
{
	bool pair = rv->type == R_RISCV_CALL || rv->type == R_RISCV_CALL_PLT;
	uint32_t insn;

	(void)a;
	cs->site = rv->offset;
	cs->len = pair ? 8 : 4;
	cs->align = 2;
	cs->why = "a relocation type that no call uses";
	if (!pair && rv->type != R_RISCV_JAL)
		return RELOC_BAD;
	cs->why = "a call that runs past the end of its section";
	if (!in_bounds(rv->offset, cs->len, rv->code_size))
		return RELOC_BAD;
	insn = get32(rv->code + rv->offset, rv->big_endian);
	cs->why = "not an auipc+jalr call";
	if (pair)
		return RV_OPCODE(insn) == RV_AUIPC &&
		       RV_OPCODE(get32(rv->code + rv->offset + 4, rv->big_endian)) == RV_JALR
			       ? RELOC_CALL : RELOC_BAD;
	cs->why = "not a jal instruction";
	return RV_OPCODE(insn) == RV_JAL ? RELOC_CALL : RELOC_BAD;
}

static const struct reloc_name riscv_relocs[] = {
	RELOC_NAME(R_RISCV_NONE), RELOC_NAME(R_RISCV_64), RELOC_NAME(R_RISCV_JAL),
	RELOC_NAME(R_RISCV_CALL), RELOC_NAME(R_RISCV_CALL_PLT), RELOC_NAME(R_RISCV_RELAX),
	{ 0, NULL },
};

static const char *riscv_reloc_name(uint32_t type)
{
	return reloc_name_lookup(riscv_relocs, type);
}

static const char *const riscv_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

const struct arch arch_riscv64 = {
	.name		= "riscv64",
	.machine	= EM_RISCV,
	.elfclass	= ELFCLASS64,
	.hooks		= riscv_hooks,
	.abs_reloc	= R_RISCV_64,
	.none_reloc	= R_RISCV_NONE,
	.relax_reloc	= R_RISCV_RELAX,
	.call_site	= riscv64_call_site,
	.reloc_name	= riscv_reloc_name,
	.insn_align	= 2,
	.mcount_window	= 32,
};
