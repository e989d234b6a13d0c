// SPDX-License-Identifier: GPL-2.0-only
/*
 * PowerPC, 32-bit and 64-bit (ELFv1 big-endian and ELFv2 little-endian).
 *
 * gcc -pg emits "mflr r0; ... bl _mcount" (R_PPC_REL24 / R_PPC64_REL24; a
 * PIC ppc32 call is R_PPC_PLTREL24).  With -mprofile-kernel the bl comes
 * right after the global entry point's TOC setup.  ELFv1 may name the hook
 * "._mcount" (its code entry), which names the same hook.  Instructions
 * are 4 bytes, 4-aligned.  The kernel's recordmcount NOPs nothing here.
 */
#include <elf.h>

#include "arch_list.h"

#ifndef R_PPC64_REL24_NOTOC
#define R_PPC64_REL24_NOTOC 116
#endif

#define PPC_BL_MASK	0xfc000003
#define PPC_BL		0x48000001	/* bl <target> */

static enum reloc_role ppc_call_site(const struct arch *a, const struct reloc_view *rv,
				     struct call_site *cs)
{
	(void)a;
	return word_call_site(rv, cs, rv->type == R_PPC_REL24 || rv->type == R_PPC_PLTREL24,
			      PPC_BL_MASK, PPC_BL);
}

static enum reloc_role ppc64_call_site(const struct arch *a, const struct reloc_view *rv,
				       struct call_site *cs)
{
	(void)a;
	return word_call_site(rv, cs,
			      rv->type == R_PPC64_REL24 || rv->type == R_PPC64_REL24_NOTOC,
			      PPC_BL_MASK, PPC_BL);
}

static const struct reloc_name ppc_relocs[] = {
	RELOC_NAME(R_PPC_NONE), RELOC_NAME(R_PPC_ADDR32), RELOC_NAME(R_PPC_REL24),
	RELOC_NAME(R_PPC_PLTREL24), { 0, NULL },
};

static const struct reloc_name ppc64_relocs[] = {
	RELOC_NAME(R_PPC64_NONE), RELOC_NAME(R_PPC64_ADDR64), RELOC_NAME(R_PPC64_REL24),
	RELOC_NAME(R_PPC64_REL24_NOTOC), RELOC_NAME(R_PPC64_TOC16_HA),
	RELOC_NAME(R_PPC64_TOC16_LO), { 0, NULL },
};

static const char *ppc_reloc_name(uint32_t type)
{
	return reloc_name_lookup(ppc_relocs, type);
}

static const char *ppc64_reloc_name(uint32_t type)
{
	return reloc_name_lookup(ppc64_relocs, type);
}

static const char *const ppc_hooks[] = { "_mcount", "__fentry__", NULL };

const struct arch arch_ppc = {
	.name		= "ppc",
	.machine	= EM_PPC,
	.elfclass	= ELFCLASS32,
	.hooks		= ppc_hooks,
	.strip_dot	= true,
	.abs_reloc	= R_PPC_ADDR32,
	.none_reloc	= R_PPC_NONE,
	.call_site	= ppc_call_site,
	.reloc_name	= ppc_reloc_name,
	.insn_align	= 4,
	.mcount_window	= 64,
};

const struct arch arch_ppc64 = {
	.name		= "ppc64",
	.machine	= EM_PPC64,
	.elfclass	= ELFCLASS64,
	.hooks		= ppc_hooks,
	.strip_dot	= true,
	.abs_reloc	= R_PPC64_ADDR64,
	.none_reloc	= R_PPC64_NONE,
	.call_site	= ppc64_call_site,
	.reloc_name	= ppc64_reloc_name,
	.insn_align	= 4,
	.mcount_window	= 64,
};
