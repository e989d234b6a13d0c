// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RISC-V encodings libpatchsite writes (include/rv_insn.h, defined in
 * lib/arch/riscv.c).  Oracle: the RISC-V unprivileged ISA manual's base
 * formats (U, I and J types; C.NOP in quadrant 1), each expected word given
 * as its bit fields; the literal words were also checked with GNU as for
 * riscv64 (binutils 2.40, riscv64-linux-gnu-as, objdump -d of the same
 * instructions; the JAL ends assembled at the distances shown).
 */
#include <check.h>
#include <stdint.h>

#include "rv_insn.h"
#include "suites.h"

/* U-type: imm[31:12] rd opcode;  I-type: imm[11:0] rs1 funct3 rd opcode. */
#define UTYPE(imm20, rd, op)	((uint32_t)(imm20) << 12 | (uint32_t)(rd) << 7 | (op))
#define ITYPE(imm12, rs1, f3, rd, op) \
	(((uint32_t)(imm12) & 0xfff) << 20 | (uint32_t)(rs1) << 15 | (uint32_t)(f3) << 12 | \
	 (uint32_t)(rd) << 7 | (op))
#define AUIPC(rd, imm20)	UTYPE(imm20, rd, 0x17)
#define JALR(rd, rs1, imm)	ITYPE(imm, rs1, 0, rd, 0x67)
#define LD(rd, rs1, imm)	ITYPE(imm, rs1, 3, rd, 0x03)
/* J-type: imm[20] imm[10:1] imm[11] imm[19:12] rd 1101111. */
#define JAL(rd, d) \
	(((uint32_t)(d) >> 20 & 1) << 31 | ((uint32_t)(d) >> 1 & 0x3ff) << 21 | \
	 ((uint32_t)(d) >> 11 & 1) << 20 | ((uint32_t)(d) >> 12 & 0xff) << 12 | (uint32_t)(rd) << 7 | 0x6f)

START_TEST(nops)
{
	ck_assert_uint_eq(rv_nop(), ITYPE(0, 0, 0, 0, 0x13));	/* addi x0, x0, 0 */
	ck_assert_uint_eq(rv_nop(), 0x00000013);
	/* C.NOP: 000 0 00000 00000 01 (CI format, quadrant 1, funct3 000, rd 0, imm 0). */
	ck_assert_uint_eq(rv_c_nop(), 0x0001);
	ck_assert_uint_eq(rv_ebreak(), 0x00100073);
	ck_assert_uint_eq(rv_addi(RV_T0, RV_RA, 0), 0x00008293);	/* mv t0, ra */
}
END_TEST

START_TEST(auipc_jalr_words)
{
	ck_assert_uint_eq(rv_auipc(RV_T0, 0x7ffff), AUIPC(5, 0x7ffff));
	ck_assert_uint_eq(rv_auipc(RV_T0, 0x7ffff), 0x7ffff297);
	ck_assert_uint_eq(rv_auipc(RV_T0, 0x80000), 0x80000297);
	ck_assert_uint_eq(rv_auipc(RV_T0, 0xfffff), 0xfffff297);
	ck_assert_uint_eq(rv_jalr(RV_T0, RV_T0, -2048), JALR(5, 5, -2048));
	ck_assert_uint_eq(rv_jalr(RV_T0, RV_T0, -2048), 0x800282e7);
	ck_assert_uint_eq(rv_jalr(RV_T0, RV_T0, 2047), 0x7ff282e7);
	ck_assert_uint_eq(rv_jalr(RV_T0, RV_T0, -4), 0xffc282e7);
	ck_assert_uint_eq(rv_jalr(RV_T1, RV_T1, 0), 0x00030367);
	ck_assert_uint_eq(rv_ld(RV_T1, RV_T1, 2040), LD(6, 6, 2040));
	ck_assert_uint_eq(rv_ld(RV_T1, RV_T1, 2040), 0x7f833303);
	ck_assert_uint_eq(rv_ld(RV_T1, RV_T1, -8), 0xff833303);
	ck_assert(rv_is_auipc(0x7ffff297, RV_T0));
	ck_assert(rv_is_auipc(0x7ffff297, -1));
	ck_assert(!rv_is_auipc(0x7ffff297, RV_T1));
	ck_assert(!rv_is_auipc(rv_nop(), -1));
	ck_assert(rv_is_jalr(0xffc282e7, RV_T0, RV_T0));
	ck_assert(!rv_is_jalr(0xffc282e7, RV_RA, -1));
	ck_assert_int_eq(rv_i_imm(0xffc282e7), -4);
	ck_assert_int_eq(rv_i_imm(0x7ff282e7), 2047);
	ck_assert_int_eq(rv_auipc_disp(0x80000297), -(int64_t)0x80000000);
	ck_assert_int_eq(rv_auipc_disp(0x7ffff297), 0x7ffff000);
}
END_TEST

/*
 * hi20 is rounded by bit 11 of the displacement: a low part of 0x800 or more
 * is negative as jalr sign-extends it, so hi takes one more page.
 */
static const struct {
	int64_t d;
	uint32_t hi;
	int32_t lo;
} splits[] = {
	{ 0, 0, 0 },
	{ 8, 0, 8 },
	{ 0x7ff, 0, 0x7ff },
	{ 0x800, 1, -0x800 },		/* bit 11 set: rounds up */
	{ 0xfff, 1, -1 },
	{ 0x1000, 1, 0 },
	{ 0x12345678, 0x12345, 0x678 },
	{ 0x12345878, 0x12346, -0x788 },
	{ -4, 0, -4 },
	{ -0x800, 0, -0x800 },
	{ -0x801, 0xfffff, 0x7ff },	/* hi -1 (sign-extended), lo +2047 */
	{ -0x1000, 0xfffff, 0 },
	{ RV_PCREL_MAX, 0x7ffff, 0x7ff },		/* +2 GiB - 2 KiB - 1 */
	{ RV_PCREL_MIN, 0x80000, -0x800 },		/* -2 GiB - 2 KiB */
	{ (int64_t)0x7ffff000, 0x7ffff, 0 },
	{ -(int64_t)0x80000000, 0x80000, 0 },
};

START_TEST(split)
{
	uint32_t hi = 0;
	int32_t lo = 0;
	int64_t back;

	ck_assert(rv_pcrel_split(splits[_i].d, &hi, &lo));
	ck_assert_uint_eq(hi, splits[_i].hi);
	ck_assert_int_eq(lo, splits[_i].lo);
	/* What the pair computes: sext32(hi << 12) + sext12(lo). */
	back = (int64_t)(int32_t)(hi << 12) + lo;
	ck_assert_int_eq(back, splits[_i].d);
}
END_TEST

START_TEST(split_range)
{
	uint32_t hi = 0x12345, w0 = 1, w1 = 2;
	int32_t lo = 7;

	ck_assert(!rv_pcrel_split(RV_PCREL_MAX + 1, &hi, &lo));
	ck_assert(!rv_pcrel_split(RV_PCREL_MIN - 1, &hi, &lo));
	ck_assert(!rv_pcrel_split((int64_t)1 << 32, &hi, &lo));
	ck_assert_uint_eq(hi, 0x12345);
	ck_assert_int_eq(lo, 7);
	/* A site at 0x10000 calling a stub 0x1800 above: auipc t0, 0x2; jalr t0, -2048(t0). */
	ck_assert(rv_auipc_jalr(0x10000, 0x11800, RV_T0, RV_T0, &w0, &w1));
	ck_assert_uint_eq(w0, AUIPC(5, 2));
	ck_assert_uint_eq(w1, JALR(5, 5, -2048));
	/* Below: 0x10000 - 0x10 */
	ck_assert(rv_auipc_jalr(0x10000, 0xfff0, RV_T0, RV_T0, &w0, &w1));
	ck_assert_uint_eq(w0, AUIPC(5, 0));
	ck_assert_uint_eq(w1, JALR(5, 5, -16));
	w0 = w1 = 1;
	ck_assert(!rv_auipc_jalr(0x10000, 0x10000 + (uint64_t)RV_PCREL_MAX + 1, RV_T0, RV_T0, &w0,
				 &w1));
	ck_assert(!rv_auipc_jalr(0x100000000ul, 0x100000000ul + (uint64_t)RV_PCREL_MIN - 1, RV_T0,
				 RV_T0, &w0, &w1));
	ck_assert_uint_eq(w0 + w1, 2);
	ck_assert(rv_auipc_jalr(0x100000000ul, 0x100000000ul + (uint64_t)RV_PCREL_MIN, RV_T0,
				RV_T0, &w0, &w1));
	ck_assert_uint_eq(w0, 0x80000297);
	ck_assert_uint_eq(w1, 0x800282e7);
}
END_TEST

START_TEST(jal_reach)
{
	uint32_t w = 0;

	ck_assert(rv_jal(0x1000, 0x1000 - 4, RV_RA, &w));
	ck_assert_uint_eq(w, JAL(1, -4));
	ck_assert_uint_eq(w, 0xffdff0ef);			/* jal ra, .-4 (as) */
	ck_assert_uint_eq(rv_jal_target(0x1000, w), 0x1000 - 4);
	/* The ends: +1 MiB - 2 and -1 MiB (as: 7ffff06f, 8000006f). */
	ck_assert(rv_jal(0xffffe, 0x1ffffc, RV_ZERO, &w));
	ck_assert_uint_eq(w, 0x7ffff06f);
	ck_assert_uint_eq(rv_jal_target(0xffffe, w), 0x1ffffc);
	ck_assert(rv_jal(0x100000, 0, RV_ZERO, &w));
	ck_assert_uint_eq(w, 0x8000006f);
	ck_assert_uint_eq(rv_jal_target(0x100000, w), 0);
	ck_assert(rv_jal(0x2000, 0x2000 + 0x800, RV_ZERO, &w));
	ck_assert_uint_eq(w, JAL(0, 0x800));
	/* One parcel further either way, or an odd address: refused, untouched. */
	w = 0x12345678;
	ck_assert(!rv_jal(0x100000, 0x200000, RV_ZERO, &w));
	ck_assert(!rv_jal(0x100002, 0, RV_ZERO, &w));
	ck_assert(!rv_jal(0x1000, 0x1001, RV_ZERO, &w));
	ck_assert_uint_eq(w, 0x12345678);
}
END_TEST

Suite *rv_suite(void)
{
	Suite *s = suite_create("rv_insn");
	TCase *tc = tcase_create("encodings");

	tcase_add_test(tc, nops);
	tcase_add_test(tc, auipc_jalr_words);
	tcase_add_loop_test(tc, split, 0, sizeof(splits) / sizeof(splits[0]));
	tcase_add_test(tc, split_range);
	tcase_add_test(tc, jal_reach);
	suite_add_tcase(s, tc);
	return s;
}
