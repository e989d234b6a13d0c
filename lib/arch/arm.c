// SPDX-License-Identifier: GPL-2.0-only
/*
 * 32-bit ARM, ARM and Thumb-2 state.
 *
 * gcc -pg emits "push {lr}; bl __gnu_mcount_nc" (the hook pops lr itself):
 *   ARM:    e52de004  push {lr}       ebfffffe  bl  (R_ARM_CALL, REL addend -8)
 *   Thumb:  b500      push {lr}       f7ff fffe bl  (R_ARM_THM_CALL)
 * The site is the BL; ARM code is 4-aligned, Thumb code 2-aligned.
 * In untraced sections the kernel's recordmcount replaces push and BL with
 * NOPs; at a recorded site ftrace instead wants "add sp, sp, #4" in place
 * of the BL alone, which undoes the push and can be turned back into the
 * call.
 */
#include <elf.h>
#include <errno.h>

#include "arch_list.h"
#include "bytes.h"

#ifndef R_ARM_THM_CALL
#define R_ARM_THM_CALL	R_ARM_THM_PC22	/* the same type under its AAELF name */
#endif

#define ARM_PUSH_LR	0xe52de004	/* push {lr} */
#define ARM_NOP		0xe1a00000	/* mov r0, r0 */
#define ARM_ADD_SP4	0xe28dd004	/* add sp, sp, #4 */
#define THUMB_PUSH_LR	0xb500		/* push {lr} */
#define THUMB_NOP	0xbf00		/* nop */
#define THUMB_ADD_SP4	0xf10d0d04	/* add.w sp, sp, #4 */

static bool arm_is_bl(uint32_t insn)
{
	bool bl = (insn & 0x0f000000) == 0x0b000000 && insn >> 28 != 0xf;
	bool blx = (insn & 0xfe000000) == 0xfa000000;

	return bl || blx;
}

static bool thumb_is_bl(uint16_t hw1, uint16_t hw2)
{
	return (hw1 & 0xf800) == 0xf000 && ((hw2 & 0xd000) == 0xd000 || (hw2 & 0xd000) == 0xc000);
}

static enum reloc_role arm_call_site(const struct arch *a, const struct reloc_view *rv,
				     struct call_site *cs)
{
	bool thumb = rv->type == R_ARM_THM_CALL;
	bool ok;

	(void)a;
	cs->site = rv->offset;
	cs->len = 4;
	cs->align = thumb ? 2 : 4;
	if (rv->type == R_ARM_JUMP24 || rv->type == R_ARM_THM_JUMP24) {
		cs->why = "a branch (tail call), not a call";
		return RELOC_BAD;
	}
	if (rv->type != R_ARM_CALL && rv->type != R_ARM_PC24 && !thumb) {
		cs->why = "a relocation type that no call uses";
		return RELOC_BAD;
	}
	if (!in_bounds(rv->offset, 4, rv->code_size)) {
		cs->why = "a call that runs past the end of its section";
		return RELOC_BAD;
	}
	if (thumb)
		ok = thumb_is_bl(get16(rv->code + rv->offset, rv->big_endian),
				 get16(rv->code + rv->offset + 2, rv->big_endian));
	else
		ok = arm_is_bl(get32(rv->code + rv->offset, rv->big_endian));
	cs->why = "not a BL instruction";
	return ok ? RELOC_CALL : RELOC_BAD;
}

/* push {lr} + bl become NOPs (what the kernel's recordmcount writes). */
static int arm_make_nop(const struct arch *a, uint8_t *code, uint64_t size,
			const struct call_site *cs, bool be)
{
	uint8_t *p = code + cs->site;

	(void)a;
	if (cs->align == 2) {
		if (cs->site < 2 || !in_bounds(cs->site, 4, size) ||
		    get16(p - 2, be) != THUMB_PUSH_LR)
			return -EINVAL;
		put16(p - 2, THUMB_NOP, be);
		put16(p, THUMB_NOP, be);
		put16(p + 2, THUMB_NOP, be);
		return 0;
	}
	if (cs->site < 4 || !in_bounds(cs->site, 4, size) || get32(p - 4, be) != ARM_PUSH_LR)
		return -EINVAL;
	put32(p - 4, ARM_NOP, be);
	put32(p, ARM_NOP, be);
	return 0;
}

/* bl becomes "add sp, sp, #4", which drops what the push saved. */
static int arm_make_site_nop(const struct arch *a, uint8_t *code, uint64_t size,
			     const struct call_site *cs, bool be)
{
	uint8_t *p = code + cs->site;

	(void)a;
	if (!in_bounds(cs->site, 4, size))
		return -EINVAL;
	if (cs->align == 2) {
		if (!thumb_is_bl(get16(p, be), get16(p + 2, be)))
			return -EINVAL;
		put16(p, THUMB_ADD_SP4 >> 16, be);
		put16(p + 2, THUMB_ADD_SP4 & 0xffff, be);
		return 0;
	}
	if (!arm_is_bl(get32(p, be)))
		return -EINVAL;
	put32(p, ARM_ADD_SP4, be);
	return 0;
}

static const struct reloc_name arm_relocs[] = {
	RELOC_NAME(R_ARM_NONE), RELOC_NAME(R_ARM_PC24), RELOC_NAME(R_ARM_ABS32),
	RELOC_NAME(R_ARM_CALL), RELOC_NAME(R_ARM_JUMP24), RELOC_NAME(R_ARM_THM_CALL),
	RELOC_NAME(R_ARM_THM_JUMP24), RELOC_NAME(R_ARM_MOVW_ABS_NC),
	RELOC_NAME(R_ARM_MOVT_ABS), { 0, NULL },
};

static const char *arm_reloc_name(uint32_t type)
{
	return reloc_name_lookup(arm_relocs, type);
}

static const char *const arm_hooks[] = { "__gnu_mcount_nc", "mcount", "__fentry__", NULL };

const struct arch arch_arm = {
	.name		= "arm",
	.machine	= EM_ARM,
	.elfclass	= ELFCLASS32,
	.hooks		= arm_hooks,
	.abs_reloc	= R_ARM_ABS32,
	.none_reloc	= R_ARM_NONE,
	.ref_skips_func	= true,
	.call_site	= arm_call_site,
	.make_nop	= arm_make_nop,
	.make_site_nop	= arm_make_site_nop,
	.reloc_name	= arm_reloc_name,
};
