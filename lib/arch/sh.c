// SPDX-License-Identifier: GPL-2.0-only
/*
 * SuperH (sh4, 32-bit).
 *
 * SH cannot call a far symbol directly.  gcc -pg loads the hook's address
 * from a literal pool word and jumps through a register:
 *   mov.l  .L1,r1      ! d1xx: pc-relative load of the word below
 *   ...
 *   jmp    @r1 (or jsr)
 *   ...
 *   .L1: .long mcount  ! R_SH_DIR32
 * The kernel's ftrace on SH patches that literal word, so the word is the
 * recorded site (as the kernel's recordmcount records it).  We check that a
 * mov.l in front of it really loads it.  Words are 4-aligned.
 */
#include <elf.h>

#include "arch_list.h"
#include "bytes.h"

#define SH_MOVL_PC_MASK	0xf000
#define SH_MOVL_PC	0xd000	/* mov.l @(disp,pc),rn */
#define SH_MOVL_REACH	1024	/* disp8 * 4 */

/* Is the word at off the target of a mov.l @(disp,pc) before it? */
static bool loaded_by_movl(const struct reloc_view *rv)
{
	uint64_t pos = rv->offset;
	uint64_t low = pos > SH_MOVL_REACH ? pos - SH_MOVL_REACH : 0;

	while (pos >= low + 2) {
		uint16_t hw;

		pos -= 2;
		hw = get16(rv->code + pos, rv->big_endian);
		if ((hw & SH_MOVL_PC_MASK) == SH_MOVL_PC &&
		    ((pos + 4) & ~3ull) + (uint64_t)(hw & 0xff) * 4 == rv->offset)
			return true;
	}
	return false;
}

static enum reloc_role sh_call_site(const struct arch *a, const struct reloc_view *rv,
				    struct call_site *cs)
{
	(void)a;
	cs->site = rv->offset;
	cs->len = 4;
	cs->align = 4;
	cs->why = "a relocation type that no call uses";
	if (rv->type != R_SH_DIR32)
		return RELOC_BAD;
	cs->why = "a literal word that runs past the end of its section";
	if (!in_bounds(rv->offset, 4, rv->code_size))
		return RELOC_BAD;
	cs->why = "a word that no mov.l loads (not a call's literal)";
	return loaded_by_movl(rv) ? RELOC_CALL : RELOC_BAD;
}

static const struct reloc_name sh_relocs[] = {
	RELOC_NAME(R_SH_NONE), RELOC_NAME(R_SH_DIR32), RELOC_NAME(R_SH_REL32),
	RELOC_NAME(R_SH_PLT32), { 0, NULL },
};

static const char *sh_reloc_name(uint32_t type)
{
	return reloc_name_lookup(sh_relocs, type);
}

static const char *const sh_hooks[] = { "mcount", "__fentry__", NULL };

const struct arch arch_sh = {
	.name		= "sh",
	.machine	= EM_SH,
	.elfclass	= ELFCLASS32,
	.hooks		= sh_hooks,
	.abs_reloc	= R_SH_DIR32,
	.none_reloc	= R_SH_NONE,
	.call_site	= sh_call_site,
	.reloc_name	= sh_reloc_name,
	.insn_align	= 2,
};
