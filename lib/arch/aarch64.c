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
#include "a64_insn.h"
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
	RELOC_NAME(R_AARCH64_RELATIVE), RELOC_NAME(R_AARCH64_PREL32), { 0, NULL },
};

static const char *aarch64_reloc_name(uint32_t type)
{
	return reloc_name_lookup(aarch64_relocs, type);
}

static const char *const aarch64_hooks[] = { "_mcount", "__fentry__", NULL };

/* patchverify hooks, defined at the end of the file. */
static unsigned aarch64_site_nop(const struct arch *a, const struct insn_view *iv);
static bool aarch64_decode_branch(const struct arch *a, const struct insn_view *iv,
				  struct branch *b);
static unsigned aarch64_make_call(const struct arch *a, const struct insn_view *iv,
				  const uint64_t *target, uint8_t *buf);
static unsigned aarch64_entry_pad(const struct arch *a, const struct insn_view *iv);
static bool aarch64_mcount_setup(const struct arch *a, const struct insn_view *iv, uint64_t site,
				 uint64_t *stop);

const struct arch arch_aarch64 = {
	.name		= "aarch64",
	.machine	= EM_AARCH64,
	.elfclass	= ELFCLASS64,
	.hooks		= aarch64_hooks,
	.abs_reloc	= R_AARCH64_ABS64,
	.none_reloc	= R_AARCH64_NONE,
	.pcrel32_reloc	= R_AARCH64_PREL32,
	.call_site	= aarch64_call_site,
	.make_nop	= aarch64_make_nop,
	.reloc_name	= aarch64_reloc_name,
	.site_nop	= aarch64_site_nop,
	.decode_branch	= aarch64_decode_branch,
	.make_call	= aarch64_make_call,
	.entry_pad	= aarch64_entry_pad,
	.sled_nop	= aarch64_site_nop,
	.relative_reloc	= R_AARCH64_RELATIVE,
	.decodes_linked	= true,
	.insn_align	= 4,
	.mcount_setup	= aarch64_mcount_setup,
	.mcount_window	= 64,
};

/*
 * For patchverify: the forms a site takes in built code.  A site holds
 * "bl _mcount" or the NOP; an entry site may follow a landing pad:
 *   d503245f  bti c     d50324df  bti jc     d503233f  paciasp     d503237f  pacibsp
 * A PLT entry loads the GOT word and branches through it:
 *   adrp x16, page; ldr x17, [x16, #lo]; add x16, x16, #lo; br x17
 */
#define A64_BTI_C	0xd503245f	/* bti c */
#define A64_BTI_JC	0xd50324df	/* bti jc */
#define A64_PACIASP	0xd503233f	/* paciasp */
#define A64_PACIBSP	0xd503237f	/* pacibsp */
#define A64_ADRP_X16	0x90000010	/* adrp x16, <page>  (mask 0x9f00001f) */
#define A64_LDR_X17_X16	0xf9400211	/* ldr x17, [x16, #imm12*8]  (mask 0xffc003ff) */
#define A64_BR_X17	0xd61f0220	/* br x17 */

static bool a64_word(const struct insn_view *iv, uint64_t at, uint32_t *insn)
{
	if (!in_bounds(at, 4, iv->size))
		return false;
	*insn = get32(iv->code + at, iv->big_endian);
	return true;
}

static int64_t a64_sext(uint64_t v, unsigned bits)
{
	return (int64_t)(v << (64 - bits)) >> (64 - bits);
}

static unsigned aarch64_site_nop(const struct arch *a, const struct insn_view *iv)
{
	uint32_t insn;

	(void)a;
	return a64_word(iv, iv->off, &insn) && insn == A64_NOP ? 4 : 0;
}

static bool aarch64_decode_branch(const struct arch *a, const struct insn_view *iv,
				  struct branch *b)
{
	uint32_t insn, w[4] = { 0 };

	(void)a;
	if (!a64_word(iv, iv->off, &insn))
		return false;
	if ((insn & 0x7c000000) == A64_B) {	/* b / bl <imm26> */
		b->kind = (insn & A64_BL_MASK) == A64_BL ? BRANCH_CALL : BRANCH_JUMP;
		b->indirect = false;
		b->len = 4;
		b->target = iv->addr + (uint64_t)(a64_sext(insn & 0x3ffffff, 26) * 4);
		return true;
	}
	w[0] = insn;
	if (!a64_word(iv, iv->off + 4, &w[1]) || !a64_word(iv, iv->off + 12, &w[3]) ||
	    !a64_plt_entry(w, iv->addr, &b->target))
		return false;
	b->kind = BRANCH_JUMP;
	b->indirect = true;
	b->len = 16;
	return true;
}

static unsigned aarch64_make_call(const struct arch *a, const struct insn_view *iv,
				  const uint64_t *target, uint8_t *buf)
{
	uint32_t imm = target ? (uint32_t)((*target - iv->addr) >> 2) & 0x3ffffff : 0;

	(void)a;
	put32(buf, A64_BL | imm, iv->big_endian);
	return 4;
}

static unsigned aarch64_entry_pad(const struct arch *a, const struct insn_view *iv)
{
	uint32_t insn;

	(void)a;
	if (!a64_word(iv, iv->off, &insn))
		return 0;
	return insn == A64_BTI_C || insn == A64_BTI_JC || insn == A64_PACIASP ||
			       insn == A64_PACIBSP ? 4 : 0;
}

/*
 * gcc -pg calls _mcount once the frame record is saved and x29 points at
 * it (arm64's _mcount finds the caller's return address through x29):
 *   a9bf7bfd  stp x29, x30, [sp, #-16]!    (any offset, pre-index or not)
 *   910003fd  mov x29, sp                  (add x29, sp, #imm)
 * Callee-saved stores, stack-protector loads and argument moves may come
 * before or after them (Linux 6.1's ZSTD_buildSeqTable: 17 instructions);
 * no branch may: the call must run once on every entry.
 */
#define A64_STP_FP_LR_MASK	0xfe407fff	/* stp (64-bit) of x29, x30 at sp, L = 0 */
#define A64_STP_FP_LR		0xa8007bfd	/* bits 24:23: 1 post-, 2 offset, 3 pre-index */
#define A64_ADD_FP_SP_MASK	0xff8003ff
#define A64_ADD_FP_SP		0x910003fd	/* add x29, sp, #imm (mov x29, sp) */

static bool a64_is_branch(uint32_t insn)
{
	return (insn & 0x7c000000) == 0x14000000 ||	/* b, bl */
	       (insn & 0xff000010) == 0x54000000 ||	/* b.cond */
	       (insn & 0x7e000000) == 0x34000000 ||	/* cbz, cbnz */
	       (insn & 0x7e000000) == 0x36000000 ||	/* tbz, tbnz */
	       (insn & 0xfe000000) == 0xd6000000 ||	/* br, blr, ret, eret (and PAC forms) */
	       (insn & 0xff000000) == 0xd4000000;	/* svc, hvc, smc, brk, hlt */
}

static bool aarch64_mcount_setup(const struct arch *a, const struct insn_view *iv, uint64_t site,
				 uint64_t *stop)
{
	bool saved = false, fp = false;
	uint32_t insn;
	uint64_t at;

	(void)a;
	for (at = iv->off; at < site; at += 4) {
		if (!a64_word(iv, at, &insn) || a64_is_branch(insn)) {
			*stop = at;
			return false;
		}
		saved |= (insn & A64_STP_FP_LR_MASK) == A64_STP_FP_LR && (insn >> 23 & 3);
		fp |= saved && (insn & A64_ADD_FP_SP_MASK) == A64_ADD_FP_SP;
	}
	*stop = site;
	return saved && fp;
}

/*
 * Encodings for the runtime (include/a64_insn.h), from the Arm ARM (DDI
 * 0487) A64 encoding index: the hint space (NOP, BTI), BL imm26,
 * ORR (shifted register) as MOV, MOVZ/MOVK, ADRP, LDR (immediate,
 * unsigned offset), BR, BRK.  tests/unit/check_a64.c checks each against
 * the manual's bit patterns.
 */
#define A64_MOV_X9_LR	0xaa1e03e9	/* orr x9, xzr, x30 */
#define A64_BRK		0xd4200000	/* brk #imm16 (imm16 at bit 5) */
#define A64_BR		0xd61f0000	/* br xN (Rn at bit 5) */
#define A64_MOVZ_W	0x52800000	/* movz wd, #imm16, lsl #(hw*16) */
#define A64_MOVK_W	0x72800000	/* movk wd, #imm16, lsl #(hw*16) */
#define A64_ADRP	0x90000000	/* adrp xd, immhi:immlo pages */
#define A64_LDR_X_UOFF	0xf9400000	/* ldr xt, [xn, #imm12*8] */

uint32_t a64_nop(void) { return A64_NOP; }
uint32_t a64_mov_x9_lr(void) { return A64_MOV_X9_LR; }
uint32_t a64_bti_c(void) { return A64_BTI_C; }
uint32_t a64_brk(uint16_t imm) { return A64_BRK | (uint32_t)imm << 5; }
uint32_t a64_br(unsigned rn) { return A64_BR | (rn & 31) << 5; }

bool a64_is_bl(uint32_t insn)
{
	return (insn & A64_BL_MASK) == A64_BL;
}

bool a64_bl(uint64_t from, uint64_t to, uint32_t *insn)
{
	int64_t d = (int64_t)(to - from);

	if ((from | to) & 3 || d < -(int64_t)A64_BRANCH_REACH || d >= (int64_t)A64_BRANCH_REACH)
		return false;
	*insn = A64_BL | ((uint32_t)(d >> 2) & 0x3ffffff);
	return true;
}

uint64_t a64_bl_target(uint64_t from, uint32_t insn)
{
	return from + (uint64_t)(a64_sext(insn & 0x3ffffff, 26) * 4);
}

uint32_t a64_movz_w(unsigned rd, uint16_t imm, unsigned hw)
{
	return A64_MOVZ_W | (hw & 1) << 21 | (uint32_t)imm << 5 | (rd & 31);
}

uint32_t a64_movk_w(unsigned rd, uint16_t imm, unsigned hw)
{
	return A64_MOVK_W | (hw & 1) << 21 | (uint32_t)imm << 5 | (rd & 31);
}

/* movk xd: the 32-bit form with sf (bit 31) set, hw 0..3. */
uint32_t a64_movk_x(unsigned rd, uint16_t imm, unsigned hw)
{
	return A64_MOVK_W | 1u << 31 | (hw & 3) << 21 | (uint32_t)imm << 5 | (rd & 31);
}

bool a64_adrp(unsigned rd, uint64_t from, uint64_t to, uint32_t *insn)
{
	int64_t pages = (int64_t)(to >> 12) - (int64_t)(from >> 12);
	uint32_t imm;

	if (pages < -(1l << 20) || pages >= (1l << 20))
		return false;
	imm = (uint32_t)pages & 0x1fffff;
	*insn = A64_ADRP | (imm & 3) << 29 | (imm >> 2) << 5 | (rd & 31);
	return true;
}

bool a64_ldr_x_imm(unsigned rt, unsigned rn, uint64_t off, uint32_t *insn)
{
	if (off & 7 || off >> 3 > 0xfff)
		return false;
	*insn = A64_LDR_X_UOFF | (uint32_t)(off >> 3) << 10 | (rn & 31) << 5 | (rt & 31);
	return true;
}

bool a64_plt_entry(const uint32_t w[4], uint64_t addr, uint64_t *slot)
{
	uint64_t pages;

	if ((w[0] & 0x9f00001f) != A64_ADRP_X16 || (w[1] & 0xffc003ff) != A64_LDR_X17_X16 ||
	    w[3] != A64_BR_X17)
		return false;
	/* Unsigned: the page offset may be negative (the GOT below the PLT). */
	pages = (uint64_t)a64_sext((w[0] >> 29 & 3) | (w[0] >> 3 & 0x1ffffc), 21);
	*slot = (addr & ~0xfffull) + (pages << 12) + ((w[1] >> 10 & 0xfff) << 3);
	return true;
}

/*
 * gcc -pg's call and its prologue, for the runtime (include/a64_insn.h
 * struct a64_pg).  gcc 12 -O0..-O3 emits, after an optional landing pad
 * or return-address signing (bti c, paciasp, pacibsp):
 *   a9bd7bfd  stp x29, x30, [sp, #-48]!      frame record, sp lowered
 *   910003fd  mov x29, sp
 *   ...       callee-saved stores, argument copies, xpaclri
 *   aa1e03e0  mov x0, x30                    _mcount's argument
 *   ...       (at -O2 another instruction may be scheduled between)
 *   94000000  bl _mcount
 * or, for frames too big for one stp's offset,
 *   d10883ff  sub sp, sp, #0x220
 *   a9007bfd  stp x29, x30, [sp]
 *   910003fd  mov x29, sp
 * The return address is then in the frame record at x29 + 8, and the sp
 * at entry (what paciasp signed with) is x29 + frame: both are what the
 * late trampolines need.  The site is the bl and the word before it (the
 * runtime keeps that word and switches the bl).  The sp changes before the mov to x29 are summed;
 * any other write to sp or x29, or a branch, before the call ends the walk.
 */
#define A64_SUB_SP_MASK	0xffc003ff
#define A64_SUB_SP	0xd10003ff	/* sub sp, sp, #imm12 (bit 22: lsl #12) */
#define A64_PRE_SP_MASK	0x3bc003e0	/* stp ..., [xn, #imm]!: bits 29:22 but V, and Rn */
#define A64_STP_PRE_SP	0x298003e0	/* stp (any size, GPR or SIMD&FP), pre-index, Rn = sp */
#define A64_WRITES_SP	0x1f		/* Rd = 31 in an add/sub (immediate): sp */

static uint32_t a64_le32(const uint8_t *p)
{
	return get32(p, false);
}

/* Bytes an stp pre-index moves sp down by (its negative imm7, scaled by the size). */
static uint32_t a64_stp_pre_drop(uint32_t insn)
{
	unsigned opc = insn >> 30, v = insn >> 26 & 1;
	unsigned scale = v ? 4u << opc : opc == 2 ? 8 : 4;
	int64_t imm = a64_sext(insn >> 15 & 0x7f, 7) * (int64_t)scale;

	return imm < 0 ? (uint32_t)-imm : 0;
}

/*
 * Writes to sp the walk does not follow: add/sub (immediate) into sp other
 * than sub sp, sp, #imm; a single-register load or store with writeback on
 * sp (str x19, [sp, #-16]!).
 */
static bool a64_other_sp_write(uint32_t insn)
{
	return ((insn & 0x1f000000) == 0x11000000 && (insn & A64_WRITES_SP) == A64_WRITES_SP &&
		(insn & A64_SUB_SP_MASK) != A64_SUB_SP) ||
	       ((insn & 0x3b200400) == 0x38000400 && (insn >> 5 & 31) == 31);
}

size_t a64_pg_site(const uint8_t *fn, size_t len, size_t site, struct a64_pg *pg)
{
	uint32_t drop = 0, rec = UINT32_MAX, insn;
	bool fp = false;
	size_t at = 0;

	pg->frame = 0;
	pg->sign = 0;
	pg->why = "no frame-pointer prologue (stp x29, x30, [sp, ...]; mov x29, sp) at its start";
	if (len >= 4 && ((insn = a64_le32(fn)) == A64_BTI_C || insn == A64_BTI_JC))
		at = 4;
	if (at + 4 <= len && ((insn = a64_le32(fn + at)) == A64_PACIASP || insn == A64_PACIBSP)) {
		pg->sign = insn == A64_PACIASP ? 1 : 2;
		at += 4;
	}
	for (; at + 4 <= len && at < 64 * 4; at += 4) {
		insn = a64_le32(fn + at);
		/* The site: the word before the first bl (or before the one the caller names). */
		if (at && (site ? at == site + 4 : a64_is_bl(insn))) {
			if (!fp)
				return 0;
			return at - 4;
		}
		if (a64_is_branch(insn)) {
			pg->why = fp ? "a branch before its call to _mcount" : pg->why;
			return 0;
		}
		if (fp)
			continue;	/* callee-saved stores, argument copies, xpaclri */
		if ((insn & A64_PRE_SP_MASK) == A64_STP_PRE_SP) {
			drop += a64_stp_pre_drop(insn);
			if ((insn & A64_STP_FP_LR_MASK) == A64_STP_FP_LR)
				rec = drop;
		} else if ((insn & A64_SUB_SP_MASK) == A64_SUB_SP) {
			drop += (insn >> 10 & 0xfff) << (insn >> 22 & 1 ? 12 : 0);
		} else if ((insn & A64_STP_FP_LR_MASK) == A64_STP_FP_LR && (insn >> 23 & 3) == 2) {
			int64_t off = a64_sext(insn >> 15 & 0x7f, 7) * 8;

			rec = off >= 0 && (uint32_t)off <= drop ? drop - (uint32_t)off : UINT32_MAX;
		} else if ((insn & A64_ADD_FP_SP_MASK) == A64_ADD_FP_SP && !(insn >> 22 & 1)) {
			uint32_t imm = insn >> 10 & 0xfff;

			if (rec == UINT32_MAX || imm > drop || drop - imm != rec)
				return 0;	/* x29 is not the frame record */
			pg->frame = rec;
			fp = true;
		} else if (a64_other_sp_write(insn)) {
			pg->why = "an sp change it does not follow, before its frame record";
			return 0;
		}
	}
	pg->why = fp ? "no call right after its prologue" : pg->why;
	return 0;
}
