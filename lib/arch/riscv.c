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
#include "rv_insn.h"

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
	RELOC_NAME(R_RISCV_RELATIVE), RELOC_NAME(R_RISCV_JUMP_SLOT), RELOC_NAME(R_RISCV_ALIGN),
	{ 0, NULL },
};

static const char *riscv_reloc_name(uint32_t type)
{
	return reloc_name_lookup(riscv_relocs, type);
}

static const char *const riscv_hooks[] = { "_mcount", "mcount", "__fentry__", NULL };

/* One NOP of a -fpatchable-function-entry sled: nop (addi x0, x0, 0) or, with C, c.nop. */
static unsigned riscv_sled_nop(const struct arch *a, const struct insn_view *iv)
{
	(void)a;
	if (in_bounds(iv->off, 4, iv->size) &&
	    get32(iv->code + iv->off, iv->big_endian) == rv_nop())
		return 4;
	if (in_bounds(iv->off, 2, iv->size) &&
	    get16(iv->code + iv->off, iv->big_endian) == rv_c_nop())
		return 2;
	return 0;
}

/*
 * The ISA manual's length encoding: low bits 11 (and bits 4:2 not 111) are a
 * 32-bit instruction, anything else but 11 a 16-bit one.  Longer encodings
 * are reserved and unused on Linux: 0, the walk stops trusting lengths.
 */
static unsigned riscv_insn_len(const struct arch *a, const struct insn_view *iv)
{
	uint16_t h;

	(void)a;
	if (!in_bounds(iv->off, 2, iv->size))
		return 0;
	h = get16(iv->code + iv->off, iv->big_endian);
	if ((h & 3) != 3)
		return 2;
	return (h & 0x1c) != 0x1c && in_bounds(iv->off, 4, iv->size) ? 4 : 0;
}

/* patchverify's linked-file hooks, defined after the table. */
static unsigned riscv_site_nop(const struct arch *a, const struct insn_view *iv);
static bool riscv_decode_branch(const struct arch *a, const struct insn_view *iv,
				struct branch *b);
static unsigned riscv_make_call(const struct arch *a, const struct insn_view *iv,
				const uint64_t *target, uint8_t *buf);
static bool riscv_mcount_setup(const struct arch *a, const struct insn_view *iv, uint64_t site,
			       uint64_t *stop);

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
	.sled_nop	= riscv_sled_nop,
	.site_nop	= riscv_site_nop,
	.decode_branch	= riscv_decode_branch,
	.make_call	= riscv_make_call,
	.insn_len	= riscv_insn_len,
	.mcount_setup	= riscv_mcount_setup,
	.relative_reloc	= R_RISCV_RELATIVE,
	.decodes_linked	= true,
	.site_align	= 4,
	.site_align_flags = EF_RISCV_RVC,
	.align_reloc	= R_RISCV_ALIGN,
};

/*
 * For patchverify: the forms a hook call takes once linked.  ld relaxes
 * "call _mcount" (auipc ra + jalr ra) to "jal ra, <target>" when the target
 * is within 1 MiB, else keeps the pair; the target is the hook or its PLT
 * entry, which binutils makes (the RISC-V psABI's PLT):
 *   auipc t3, %pcrel_hi(slot); ld t3, %pcrel_lo(slot)(t3); jalr t1, t3; nop
 * A call links through any register but x0 (gcc: ra; the kernel's ftrace: t0);
 * rd = x0 is a jump (a tail call).  A site's NOP is the 4-byte nop (c.nop in
 * a sled: riscv_sled_nop).  RISC-V code is little-endian on every Linux.
 */
#define RV_T3	28

static bool rv_word(const struct insn_view *iv, uint64_t at, uint32_t *insn)
{
	if (!in_bounds(at, 4, iv->size))
		return false;
	*insn = get32(iv->code + at, iv->big_endian);
	/* A 32-bit instruction has its low two bits set; else it is a 16-bit one. */
	return (*insn & 3) == 3;
}

static unsigned riscv_site_nop(const struct arch *a, const struct insn_view *iv)
{
	uint32_t insn;

	(void)a;
	return rv_word(iv, iv->off, &insn) && insn == rv_nop() ? 4 : 0;
}

static bool riscv_decode_branch(const struct arch *a, const struct insn_view *iv,
				struct branch *b)
{
	uint32_t insn, next, jalr, nop;
	unsigned rd;

	(void)a;
	if (!rv_word(iv, iv->off, &insn))
		return false;
	if (RV_OPCODE(insn) == RV_JAL) {
		rd = insn >> 7 & 31;
		b->kind = rd ? BRANCH_CALL : BRANCH_JUMP;
		b->indirect = false;
		b->len = 4;
		b->target = rv_jal_target(iv->addr, insn);
		return true;
	}
	if (!rv_is_auipc(insn, -1) || !rv_word(iv, iv->off + 4, &next))
		return false;
	rd = insn >> 7 & 31;
	/* auipc rd; jalr link, lo(rd): a call (link != x0) or a far jump. */
	if (rd && rv_is_jalr(next, -1, (int)rd)) {
		b->kind = (next >> 7 & 31) ? BRANCH_CALL : BRANCH_JUMP;
		b->indirect = false;
		b->len = 8;
		b->target = iv->addr + (uint64_t)(rv_auipc_disp(insn) + rv_i_imm(next));
		return true;
	}
	/* The PLT entry: auipc t3; ld t3, lo(t3); jalr t1, t3; nop. */
	if (rd != RV_T3 || (next & 0x000fffff) != (rv_ld(RV_T3, RV_T3, 0) & 0x000fffff) ||
	    !rv_word(iv, iv->off + 8, &jalr) || jalr != rv_jalr(RV_T1, RV_T3, 0) ||
	    !rv_word(iv, iv->off + 12, &nop) || nop != rv_nop())
		return false;
	b->kind = BRANCH_JUMP;
	b->indirect = true;
	b->len = 16;
	b->target = iv->addr + (uint64_t)(rv_auipc_disp(insn) + rv_i_imm(next));
	return true;
}

/*
 * The call as ld leaves it: jal ra when the target is within its reach, else
 * auipc ra + jalr ra; as the assembler leaves it (no target): auipc ra, 0;
 * jalr ra, 0(ra), for R_RISCV_CALL_PLT.
 */
static unsigned riscv_make_call(const struct arch *a, const struct insn_view *iv,
				const uint64_t *target, uint8_t *buf)
{
	uint32_t w0 = rv_auipc(RV_RA, 0), w1 = rv_jalr(RV_RA, RV_RA, 0);

	(void)a;
	if (target && rv_jal(iv->addr, *target, RV_RA, &w0)) {
		put32(buf, w0, iv->big_endian);
		return 4;
	}
	if (target && !rv_auipc_jalr(iv->addr, *target, RV_RA, RV_RA, &w0, &w1))
		return 0;
	put32(buf, w0, iv->big_endian);
	put32(buf + 4, w1, iv->big_endian);
	return 8;
}

/*
 * gcc -pg calls _mcount once ra is saved, with the caller's return address
 * in a0 (glibc's riscv _mcount takes frompc there):
 *   sd ra, off(sp)   (c.sdsp ra: 111 imm 00001 10)
 *   mv a0, ra        (c.mv a0, ra 0x8506, or addi a0, ra, 0)
 * in either order, among callee-saved stores, argument moves and the stack
 * protector's load (gcc 12 -O2, prologue.c: 25 instructions); at -O0 the copy
 * goes through another register (mv a5, ra; ... mv a0, a5), so the registers
 * moves have filled from ra are followed.  No branch may come before the
 * call: it must run once on every entry.
 */
#define RV_SD_RA_SP_MASK	0x01fff07f
#define RV_SD_RA_SP		0x00113023	/* sd ra, imm(sp) */
#define RV_C_SDSP_RA_MASK	0xe07f
#define RV_C_SDSP_RA		0xe006		/* c.sdsp ra, imm(sp) */
#define RV_C_MV_MASK		0xf003		/* c.mv rd, rs2: 1000 rd rs2 10, rs2 != 0 */
#define RV_C_MV			0x8002
#define RV_MV_MASK		0xfff0707f	/* addi rd, rs1, 0 */
#define RV_A0			10

/* A register move rd <- rs (c.mv, or addi with 0): ra's copies follow it. */
static void rv_track_move(uint32_t *ra_in, unsigned rd, unsigned rs)
{
	if (*ra_in >> rs & 1)
		*ra_in |= 1u << rd;
	else
		*ra_in &= ~(1u << rd);
}

static bool rv_is_branch32(uint32_t insn)
{
	uint32_t op = RV_OPCODE(insn);

	return op == 0x63 || op == RV_JAL || op == RV_JALR || op == 0x73;	/* b*, jal, jalr, system */
}

static bool rv_is_branch16(uint16_t h)
{
	unsigned f3 = h >> 13;

	if ((h & 3) == 1)		/* quadrant 1: c.j, c.beqz, c.bnez (001 is c.addiw on RV64) */
		return f3 >= 5;
	/* quadrant 2, 100: c.jr, c.jalr (rs2 = 0, rs1 != 0), c.ebreak (both 0, bit 12) */
	return (h & 3) == 2 && f3 == 4 && !(h >> 2 & 31) && ((h >> 7 & 31) || (h >> 12 & 1));
}

static bool riscv_mcount_setup(const struct arch *a, const struct insn_view *iv, uint64_t site,
			       uint64_t *stop)
{
	struct insn_view at = *iv;
	uint32_t ra_in = 1u << RV_RA;	/* registers holding the caller's return address */
	bool saved = false;
	unsigned len;

	for (; at.off < site; at.off += len) {
		len = riscv_insn_len(a, &at);
		if (len == 2) {
			uint16_t h = get16(at.code + at.off, at.big_endian);

			if (rv_is_branch16(h))
				break;
			saved |= (h & RV_C_SDSP_RA_MASK) == RV_C_SDSP_RA;
			if ((h & RV_C_MV_MASK) == RV_C_MV && (h >> 2 & 31))
				rv_track_move(&ra_in, h >> 7 & 31, h >> 2 & 31);
		} else if (len == 4) {
			uint32_t w = get32(at.code + at.off, at.big_endian);

			if (rv_is_branch32(w))
				break;
			saved |= (w & RV_SD_RA_SP_MASK) == RV_SD_RA_SP;
			if ((w & RV_MV_MASK) == rv_addi(0, 0, 0))
				rv_track_move(&ra_in, w >> 7 & 31, w >> 15 & 31);
		} else {
			break;
		}
	}
	*stop = at.off;
	return at.off == site && saved && (ra_in >> RV_A0 & 1);
}

/*
 * Encodings for the runtime (include/rv_insn.h), from the RISC-V
 * unprivileged ISA manual: U-type (AUIPC), I-type (JALR, LD, ADDI, ADDI
 * x0 as NOP), J-type (JAL), C.NOP (CI, quadrant 1), SYSTEM (EBREAK).
 * tests/unit/check_rv.c checks each against the manual's bit patterns.
 */

#define RV_LOAD		0x03
#define RV_OP_IMM	0x13
#define RV_SYSTEM	0x73
#define RV_F3_LD	3

static uint32_t rv_itype(uint32_t opcode, unsigned f3, unsigned rd, unsigned rs1, int32_t imm)
{
	return ((uint32_t)imm & 0xfff) << 20 | (rs1 & 31) << 15 | (f3 & 7) << 12 | (rd & 31) << 7 |
	       opcode;
}

uint32_t rv_nop(void) { return rv_itype(RV_OP_IMM, 0, 0, 0, 0); }
uint16_t rv_c_nop(void) { return 0x0001; }
uint32_t rv_ebreak(void) { return 1u << 20 | RV_SYSTEM; }

bool rv_pcrel_split(int64_t d, uint32_t *hi20, int32_t *lo12)
{
	int64_t hi;

	if (d < RV_PCREL_MIN || d > RV_PCREL_MAX)
		return false;
	hi = (d + 0x800) >> 12;		/* arithmetic: d's sign carries */
	*hi20 = (uint32_t)hi & 0xfffff;
	*lo12 = (int32_t)(d - hi * 4096);
	return true;
}

uint32_t rv_auipc(unsigned rd, uint32_t hi20)
{
	return (hi20 & 0xfffff) << 12 | (rd & 31) << 7 | RV_AUIPC;
}

uint32_t rv_jalr(unsigned rd, unsigned rs1, int32_t lo12)
{
	return rv_itype(RV_JALR, 0, rd, rs1, lo12);
}

uint32_t rv_ld(unsigned rd, unsigned rs1, int32_t lo12)
{
	return rv_itype(RV_LOAD, RV_F3_LD, rd, rs1, lo12);
}

uint32_t rv_addi(unsigned rd, unsigned rs1, int32_t lo12)
{
	return rv_itype(RV_OP_IMM, 0, rd, rs1, lo12);
}

bool rv_auipc_jalr(uint64_t from, uint64_t to, unsigned rd, unsigned link, uint32_t *auipc,
		   uint32_t *jalr)
{
	uint32_t hi;
	int32_t lo;

	if (!rv_pcrel_split((int64_t)(to - from), &hi, &lo))
		return false;
	*auipc = rv_auipc(rd, hi);
	*jalr = rv_jalr(link, rd, lo);
	return true;
}

bool rv_jal(uint64_t from, uint64_t to, unsigned rd, uint32_t *insn)
{
	int64_t d = (int64_t)(to - from);
	uint32_t u;

	if ((from | to) & 1 || d < -RV_JAL_REACH || d >= RV_JAL_REACH)
		return false;
	u = (uint32_t)d;
	/* imm[20|10:1|11|19:12] rd 1101111 */
	*insn = (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 |
		(u >> 12 & 0xff) << 12 | (rd & 31) << 7 | RV_JAL;
	return true;
}

bool rv_is_auipc(uint32_t insn, int rd)
{
	return RV_OPCODE(insn) == RV_AUIPC && (rd < 0 || (insn >> 7 & 31) == (unsigned)rd);
}

int64_t rv_auipc_disp(uint32_t insn)
{
	return (int64_t)(int32_t)(insn & 0xfffff000);
}

bool rv_is_jalr(uint32_t insn, int rd, int rs1)
{
	return RV_OPCODE(insn) == RV_JALR && (insn >> 12 & 7) == 0 &&
	       (rd < 0 || (insn >> 7 & 31) == (unsigned)rd) &&
	       (rs1 < 0 || (insn >> 15 & 31) == (unsigned)rs1);
}

int32_t rv_i_imm(uint32_t insn)
{
	return (int32_t)insn >> 20;
}

uint64_t rv_jal_target(uint64_t from, uint32_t insn)
{
	uint32_t u = (insn >> 31 & 1) << 20 | (insn >> 21 & 0x3ff) << 1 | (insn >> 20 & 1) << 11 |
		     (insn >> 12 & 0xff) << 12;

	return from + (uint64_t)(int64_t)((int32_t)(u << 11) >> 11);
}
