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
	RELOC_NAME(R_ARM_MOVT_ABS), RELOC_NAME(R_ARM_RELATIVE), { 0, NULL },
};

static const char *arm_reloc_name(uint32_t type)
{
	return reloc_name_lookup(arm_relocs, type);
}

static const char *const arm_hooks[] = { "__gnu_mcount_nc", "mcount", "__fentry__", NULL };

/* patchverify hooks, defined at the end of the file. */
static unsigned arm_site_nop(const struct arch *a, const struct insn_view *iv);
static bool arm_decode_branch(const struct arch *a, const struct insn_view *iv, struct branch *b);
static unsigned arm_make_call(const struct arch *a, const struct insn_view *iv,
			      const uint64_t *target, uint8_t *buf);
static unsigned arm_sled_nop(const struct arch *a, const struct insn_view *iv);

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
	.site_nop	= arm_site_nop,
	.decode_branch	= arm_decode_branch,
	.make_call	= arm_make_call,
	.sled_nop	= arm_sled_nop,
	.relative_reloc	= R_ARM_RELATIVE,
	.decodes_linked	= true,
	.insn_align	= 2,
	.mcount_window	= 32,
	.thumb_bit	= true,
};

/*
 * For patchverify: the forms a site takes in built code.  A site holds the
 * BL to the hook, ftrace's "add sp, sp, #4", or two NOPs:
 *   ARM:    ebxxxxxx bl    e28dd004 add sp, sp, #4   e1a00000 / e320f000 nop
 *   Thumb:  f000 d000 bl   f10d 0d04 add.w sp, sp, #4    bf00 bf00 nop; nop
 * A -fpatchable-function-entry sled is nop (e1a00000 or e320f000) or bf00.
 * A PLT entry (ARM code; ld's short and --long-plt forms) loads the GOT word
 * into pc:
 *   e28fc6xx  add ip, pc, #xx, 12      (pc reads as the entry + 8)
 *   e28ccaxx  add ip, ip, #xx, 20      (--long-plt: e28cc6xx first)
 *   e5bcfxxx  ldr pc, [ip, #xxx]!
 * A Thumb caller reaches an ARM target with blx (and the reverse): the
 * state of a target is bit 0 of its address, as in a symbol's value.
 */
#define ARM_NOP_HINT	0xe320f000	/* nop (ARMv6K and later) */
#define ARM_BL_COND	0x0b000000	/* bl<cond>; a branch has 0x0a000000 */
#define ARM_ADD_IP_PC	0xe28fc000	/* add ip, pc, #imm  (mask 0xfffff000) */
#define ARM_ADD_IP_IP	0xe28cc000	/* add ip, ip, #imm  (mask 0xfffff000) */
#define ARM_LDR_PC_IP	0xe5bcf000	/* ldr pc, [ip, #imm12]!  (mask 0xfffff000) */

static bool arm_word(const struct insn_view *iv, uint64_t at, uint32_t *insn)
{
	if (!in_bounds(at, 4, iv->size))
		return false;
	*insn = get32(iv->code + at, iv->big_endian);
	return true;
}

static bool thumb_pair(const struct insn_view *iv, uint64_t at, uint16_t *hw1, uint16_t *hw2)
{
	if (!in_bounds(at, 4, iv->size))
		return false;
	*hw1 = get16(iv->code + at, iv->big_endian);
	*hw2 = get16(iv->code + at + 2, iv->big_endian);
	return true;
}

static unsigned arm_site_nop(const struct arch *a, const struct insn_view *iv)
{
	uint16_t hw1, hw2;
	uint32_t insn;

	(void)a;
	if (iv->thumb)
		return thumb_pair(iv, iv->off, &hw1, &hw2) &&
			       (((uint32_t)hw1 << 16 | hw2) == THUMB_ADD_SP4 ||
				(hw1 == THUMB_NOP && hw2 == THUMB_NOP)) ? 4 : 0;
	return arm_word(iv, iv->off, &insn) &&
		       (insn == ARM_ADD_SP4 || insn == ARM_NOP || insn == ARM_NOP_HINT) ? 4 : 0;
}

static int64_t arm_sext(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* The value of an ARM data-processing immediate: imm8 rotated right by twice rot4. */
static uint32_t arm_rot_imm(uint32_t insn)
{
	uint32_t imm = insn & 0xff, rot = (insn >> 8 & 0xf) * 2;

	return rot ? imm >> rot | imm << (32 - rot) : imm;
}

/* A PLT entry at iv: an indirect jump through the GOT word it loads. */
static bool arm_plt_entry(const struct insn_view *iv, struct branch *b)
{
	uint32_t insn, got;
	unsigned n;

	if (!arm_word(iv, iv->off, &insn) || (insn & 0xfffff000) != ARM_ADD_IP_PC)
		return false;
	got = (uint32_t)iv->addr + 8 + arm_rot_imm(insn);
	for (n = 1; n < 4 && arm_word(iv, iv->off + 4 * n, &insn); n++) {
		if ((insn & 0xfffff000) == ARM_ADD_IP_IP) {
			got += arm_rot_imm(insn);
		} else if ((insn & 0xfffff000) == ARM_LDR_PC_IP) {
			b->kind = BRANCH_JUMP;
			b->indirect = true;
			b->target = (uint32_t)(got + (insn & 0xfff));
			b->len = 4 * (n + 1);
			return true;
		} else {
			break;
		}
	}
	return false;
}

static bool arm_decode_branch(const struct arch *a, const struct insn_view *iv, struct branch *b)
{
	uint16_t hw1, hw2;
	uint32_t insn, s, i1, i2, imm;

	(void)a;
	b->indirect = false;
	b->len = 4;
	if (iv->thumb) {
		if (!thumb_pair(iv, iv->off, &hw1, &hw2) || (hw1 & 0xf800) != 0xf000 ||
		    !(hw2 & 0x8000) || !(hw2 & 0x1000 || hw2 & 0x4000))
			return false;
		s = hw1 >> 10 & 1;
		i1 = !((hw2 >> 13 & 1) ^ s);
		i2 = !((hw2 >> 11 & 1) ^ s);
		imm = s << 24 | i1 << 23 | i2 << 22 | (uint32_t)(hw1 & 0x3ff) << 12 |
		      (uint32_t)(hw2 & 0x7ff) << 1;
		b->kind = hw2 & 0x4000 ? BRANCH_CALL : BRANCH_JUMP;
		b->target = (uint32_t)(iv->addr + 4 + (uint64_t)arm_sext(imm, 25));
		if ((hw2 & 0xd000) == 0xc000)	/* blx: to ARM code, word-aligned */
			b->target &= ~3ull;
		return true;
	}
	if (arm_plt_entry(iv, b))
		return true;
	if (!arm_word(iv, iv->off, &insn))
		return false;
	if ((insn & 0xfe000000) == 0xfa000000) {	/* blx <imm24:H> */
		b->kind = BRANCH_CALL;
		b->target = (uint32_t)(iv->addr + 8 + (uint64_t)arm_sext((insn & 0xffffff) << 2 |
									  (insn >> 23 & 2), 26));
		return true;
	}
	if ((insn & 0x0e000000) != 0x0a000000 || insn >> 28 == 0xf)
		return false;
	b->kind = (insn & 0x0f000000) == ARM_BL_COND ? BRANCH_CALL : BRANCH_JUMP;
	b->target = (uint32_t)(iv->addr + 8 + (uint64_t)arm_sext((insn & 0xffffff) << 2, 26));
	return true;
}

/*
 * Without a target, the REL addend the assembler leaves: ebfffffe, f7ff fffe.
 * With one, what ld leaves: bl to code of the caller's state, else blx
 * (bit 0 of *target is the target's Thumb state).
 */
static unsigned arm_make_call(const struct arch *a, const struct insn_view *iv,
			      const uint64_t *target, uint8_t *buf)
{
	bool to_thumb = target ? *target & 1 : iv->thumb;
	uint32_t off, s, j1, j2;

	(void)a;
	if (iv->thumb) {
		/* blx counts from the word-aligned pc and lands on a word. */
		off = !target ? (uint32_t)-4
		      : to_thumb ? (uint32_t)(*target - 1 - (iv->addr + 4))
				 : (uint32_t)(*target - ((iv->addr + 4) & ~3ull));
		s = off >> 24 & 1;
		j1 = !((off >> 23 & 1) ^ s);
		j2 = !((off >> 22 & 1) ^ s);
		put16(buf, (uint16_t)(0xf000 | s << 10 | (off >> 12 & 0x3ff)), iv->big_endian);
		put16(buf + 2, (uint16_t)((to_thumb ? 0xd000 : 0xc000) | j1 << 13 | j2 << 11 |
					  (off >> 1 & (to_thumb ? 0x7ff : 0x7fe))), iv->big_endian);
		return 4;
	}
	off = target ? (uint32_t)((*target & ~1ull) - (iv->addr + 8)) : (uint32_t)-8;
	if (to_thumb)	/* blx <imm24:H> */
		put32(buf, 0xfa000000 | (off >> 1 & 1) << 24 | (off >> 2 & 0xffffff),
		      iv->big_endian);
	else		/* bl */
		put32(buf, 0xeb000000 | (off >> 2 & 0xffffff), iv->big_endian);
	return 4;
}

static unsigned arm_sled_nop(const struct arch *a, const struct insn_view *iv)
{
	uint32_t insn;

	(void)a;
	if (iv->thumb)
		return in_bounds(iv->off, 2, iv->size) &&
			       get16(iv->code + iv->off, iv->big_endian) == THUMB_NOP ? 2 : 0;
	return arm_word(iv, iv->off, &insn) && (insn == ARM_NOP || insn == ARM_NOP_HINT) ? 4 : 0;
}
