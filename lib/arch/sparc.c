// SPDX-License-Identifier: GPL-2.0-only
/*
 * SPARC64 (V9).
 *
 * gcc -pg emits "call _mcount" in the prologue (R_SPARC_WDISP30, or
 * R_SPARC_WPLT30 for PIC), with a delay slot after it.  Instructions are
 * 4 bytes, 4-aligned, big-endian.  The kernel's recordmcount NOPs nothing.
 */
#include <elf.h>

#include "arch_list.h"

#define SPARC_CALL_MASK	0xc0000000
#define SPARC_CALL	0x40000000	/* call <disp30> */

static enum reloc_role sparc64_call_site(const struct arch *a, const struct reloc_view *rv,
					 struct call_site *cs)
{
	(void)a;
	return word_call_site(rv, cs, rv->type == R_SPARC_WDISP30 || rv->type == R_SPARC_WPLT30,
			      SPARC_CALL_MASK, SPARC_CALL);
}

static const struct reloc_name sparc_relocs[] = {
	RELOC_NAME(R_SPARC_NONE), RELOC_NAME(R_SPARC_64), RELOC_NAME(R_SPARC_WDISP30),
	RELOC_NAME(R_SPARC_WPLT30), RELOC_NAME(R_SPARC_HI22), RELOC_NAME(R_SPARC_LO10),
	{ 0, NULL },
};

static const char *sparc_reloc_name(uint32_t type)
{
	return reloc_name_lookup(sparc_relocs, type);
}

static const char *const sparc_hooks[] = { "_mcount", "__fentry__", NULL };

const struct arch arch_sparc64 = {
	.name		= "sparc64",
	.machine	= EM_SPARCV9,
	.elfclass	= ELFCLASS64,
	.hooks		= sparc_hooks,
	.abs_reloc	= R_SPARC_64,
	.none_reloc	= R_SPARC_NONE,
	.call_site	= sparc64_call_site,
	.reloc_name	= sparc_reloc_name,
	.insn_align	= 4,
	.mcount_window	= 32,
};
