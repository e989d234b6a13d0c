// SPDX-License-Identifier: GPL-2.0-only
/*
 * s390x (z/Architecture, 64-bit).
 *
 * gcc emits "brasl %r14,_mcount" for -pg and "brasl %r0,__fentry__" for
 * -mfentry: c0 r5 <imm32>, 6 bytes, with R_390_PLT32DBL (or PC32DBL) on the
 * immediate at site+2.  The site is the brasl itself.  The kernel's
 * recordmcount subtracts 14 from every offset instead, which is 6 or 12
 * bytes off for gcc 12 code.  Instructions are 2-aligned, big-endian.
 */
#include <elf.h>

#include "arch_list.h"
#include "bytes.h"

static enum reloc_role s390x_call_site(const struct arch *a, const struct reloc_view *rv,
				       struct call_site *cs)
{
	const uint8_t *p;

	(void)a;
	cs->align = 2;
	cs->why = "a relocation type that no call uses";
	if (rv->type != R_390_PLT32DBL && rv->type != R_390_PC32DBL)
		return RELOC_BAD;
	cs->why = "no room for a call before the relocation";
	if (rv->offset < 2 || !in_bounds(rv->offset - 2, 6, rv->code_size))
		return RELOC_BAD;
	cs->site = rv->offset - 2;
	cs->len = 6;
	p = rv->code + cs->site;
	if (p[0] == 0xc0 && (p[1] & 0x0f) == 0x05)	/* brasl */
		return RELOC_CALL;
	cs->why = p[0] == 0xc0 && (p[1] & 0x0f) == 0x04 ? "a branch (tail call), not a call"
							 : "not a brasl instruction";
	return RELOC_BAD;
}

static const struct reloc_name s390_relocs[] = {
	RELOC_NAME(R_390_NONE), RELOC_NAME(R_390_64), RELOC_NAME(R_390_PC32DBL),
	RELOC_NAME(R_390_PLT32DBL), RELOC_NAME(R_390_GOTENT), { 0, NULL },
};

static const char *s390_reloc_name(uint32_t type)
{
	return reloc_name_lookup(s390_relocs, type);
}

static const char *const s390_hooks[] = { "_mcount", "__fentry__", NULL };

const struct arch arch_s390x = {
	.name		= "s390x",
	.machine	= EM_S390,
	.elfclass	= ELFCLASS64,
	.hooks		= s390_hooks,
	.abs_reloc	= R_390_64,
	.none_reloc	= R_390_NONE,
	.call_site	= s390x_call_site,
	.reloc_name	= s390_reloc_name,
	.insn_align	= 2,
	.mcount_window	= 32,
};
