// SPDX-License-Identifier: GPL-2.0-only
/*
 * The aarch64 encodings libpatchsite writes (include/a64_insn.h, defined in
 * lib/arch/aarch64.c).  Oracle: the Arm ARM (DDI 0487) A64 encoding index,
 * each expected word given as its bit fields; the literal words were also
 * checked with GNU as/ld for aarch64 (binutils 2.40: objdump -d of the same
 * instructions, the BL and ADRP targets resolved by ld --defsym).
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "a64_insn.h"
#include "suites.h"

/* BL: 1 00101 imm26 (C6.2.34).  B would be 0 00101. */
#define BL(imm26)	(0x25u << 26 | ((uint32_t)(imm26) & 0x3ffffff))
/* HINT: 1101010100 0 00 011 0010 CRm op2 11111; NOP is CRm=0 op2=0, BTI c is CRm=4 op2=2. */
#define HINT(crm, op2)	(0xd503201fu | (uint32_t)(crm) << 8 | (uint32_t)(op2) << 5)
/* ORR (shifted register), 64-bit: 1 01 01010 shift 0 Rm imm6 Rn Rd; MOV Xd, Xm is Rn=31. */
#define ORR64(rd, rn, rm)	(0xaa000000u | (uint32_t)(rm) << 16 | (uint32_t)(rn) << 5 | (rd))

START_TEST(hints)
{
	ck_assert_uint_eq(a64_nop(), HINT(0, 0));
	ck_assert_uint_eq(a64_nop(), 0xd503201f);
	ck_assert_uint_eq(a64_bti_c(), HINT(4, 2));
	ck_assert_uint_eq(a64_bti_c(), 0xd503245f);
}
END_TEST

START_TEST(mov_x9_lr)
{
	ck_assert_uint_eq(a64_mov_x9_lr(), ORR64(9, 31, 30));
	ck_assert_uint_eq(a64_mov_x9_lr(), 0xaa1e03e9);
}
END_TEST

START_TEST(bl_reach)
{
	const uint64_t at = 0x10000008;
	uint32_t w = 0;

	ck_assert(a64_bl(at, at, &w));
	ck_assert_uint_eq(w, BL(0));
	ck_assert(a64_bl(at, at + 4, &w));
	ck_assert_uint_eq(w, BL(1));
	ck_assert(a64_bl(at, at - 4, &w));
	ck_assert_uint_eq(w, BL(0x3ffffff));
	/* The ends of imm26 * 4: +128 MiB - 4 and -128 MiB (ld: 95ffffff, 96000000). */
	ck_assert(a64_bl(at, at + 0x7fffffc, &w));
	ck_assert_uint_eq(w, 0x95ffffff);
	ck_assert_uint_eq(a64_bl_target(at, w), at + 0x7fffffc);
	ck_assert(a64_bl(at + 4, at + 4 - 0x8000000, &w));
	ck_assert_uint_eq(w, 0x96000000);
	ck_assert_uint_eq(a64_bl_target(at + 4, w), at + 4 - 0x8000000);
	ck_assert(a64_is_bl(w));
	ck_assert(!a64_is_bl(0x14000000));	/* b */
	ck_assert(!a64_is_bl(a64_nop()));
	/* One word further either way, or a target that is not word-aligned: refused, untouched. */
	w = 0x12345678;
	ck_assert(!a64_bl(at, at + 0x8000000, &w));
	ck_assert(!a64_bl(at, at - 0x8000004, &w));
	ck_assert(!a64_bl(at, at + 2, &w));
	ck_assert(!a64_bl(at + 1, at + 8, &w));
	ck_assert_uint_eq(w, 0x12345678);
}
END_TEST

START_TEST(stub_words)
{
	uint32_t w = 0;

	/* MOVZ/MOVK, 32-bit: sf=0 opc(10/11) 100101 hw imm16 Rd (C6.2.226, C6.2.225). */
	ck_assert_uint_eq(a64_movz_w(16, 0x1234, 0), 0x52800000u | 0x1234u << 5 | 16);
	ck_assert_uint_eq(a64_movz_w(16, 0x1234, 0), 0x52824690);
	ck_assert_uint_eq(a64_movk_w(16, 0xabcd, 1), 0x72800000u | 1u << 21 | 0xabcdu << 5 | 16);
	ck_assert_uint_eq(a64_movk_w(16, 0xabcd, 1), 0x72b579b0);
	/* BR: 1101011 0000 11111 000000 Rn 00000; BRK: 11010100 001 imm16 000 00. */
	ck_assert_uint_eq(a64_br(17), 0xd61f0220);
	ck_assert_uint_eq(a64_brk(0x5053), 0xd4200000u | 0x5053u << 5);
	ck_assert_uint_eq(a64_brk(0x5053), 0xd42a0a60);
	/* LDR (immediate, unsigned offset), 64-bit: 11 111 0 01 01 imm12 Rn Rt, offset imm12 * 8. */
	ck_assert(a64_ldr_x_imm(17, 17, 8, &w));
	ck_assert_uint_eq(w, 0xf9400631);
	ck_assert(a64_ldr_x_imm(17, 17, 0xff8, &w));
	ck_assert_uint_eq(w, 0xf947fe31);
	ck_assert(a64_ldr_x_imm(17, 17, 0x7ff8, &w));
	ck_assert_uint_eq(w, 0xf9400000u | 0xfffu << 10 | 17u << 5 | 17);
	ck_assert(!a64_ldr_x_imm(17, 17, 0x8000, &w));
	ck_assert(!a64_ldr_x_imm(17, 17, 4, &w));
	/* ADRP: 1 immlo 10000 immhi Rd, pages from the instruction's page (ld: b0091a31, f0fffff1). */
	ck_assert(a64_adrp(17, 0x10000000, 0x22345000, &w));
	ck_assert_uint_eq(w, 0xb0091a31);
	ck_assert(a64_adrp(17, 0x10000004, 0x0ffff123, &w));
	ck_assert_uint_eq(w, 0xf0fffff1);
	/* +-4 GB: 2^20 pages each way (the last page forward, the first beyond). */
	ck_assert(a64_adrp(17, 0x100000000ull, 0x100000000ull + 0xfffff000ull, &w));
	ck_assert(!a64_adrp(17, 0x100000000ull, 0x200000000ull, &w));
	ck_assert(a64_adrp(17, 0x200000000ull, 0x100000000ull, &w));
	ck_assert(!a64_adrp(17, 0x200000000ull, 0xfffff000ull, &w));
}
END_TEST

/* MOVK (64-bit): 1 11 100101 hw imm16 Rd (C6.2.226); movk x16, #0x8003, lsl #32 (as: f2d00070). */
START_TEST(movk_x)
{
	ck_assert_uint_eq(a64_movk_x(16, 0x8003, 2), 0xf2800000u | 2u << 21 | 0x8003u << 5 | 16);
	ck_assert_uint_eq(a64_movk_x(16, 0x8003, 2), 0xf2d00070);
}
END_TEST

/* Little-endian words of a function, as the runtime reads them. */
static void put_words(uint8_t *p, const uint32_t *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < 4; b++)
			p[4 * i + b] = (uint8_t)(w[i] >> (8 * b));
}

/*
 * gcc -pg's prologues, the words from aarch64-linux-gnu-gcc 12.2.0 -O2 -pg
 * (objdump -d of testdata/patchsite/basic.c, texit.c and a frame of 0x220
 * bytes), with and without -mbranch-protection=standard.  Expected: the site
 * is the word before the first bl; the frame the bytes the stp/sub took off
 * sp before x29 was set (the Arm ARM's imm7 * 8, imm12).
 */
static size_t pg_site(const uint32_t *w, size_t n, size_t site, struct a64_pg *pg)
{
	uint8_t code[64 * 4];

	put_words(code, w, n);
	return a64_pg_site(code, 4 * n, site, pg);
}

START_TEST(pg_prologues)
{
	static const uint32_t leaf[] = {	/* work_leaf */
		0xa9be7bfd, 0x910003fd, 0xf9000bf3, 0xd50320ff, 0x2a0003f3,
		0xaa1e03e0, 0x97ffff7a, 0x11000660,
	};
	static const uint32_t sched[] = {	/* texit's main: adrp between mov x0, x30 and bl */
		0xa9bc7bfd, 0x910003fd, 0xf9000bf3, 0xd50320ff, 0x90000013,
		0xaa1e03e0, 0x91000273, 0x94000000, 0xaa1303e2,
	};
	static const uint32_t big[] = {		/* sub sp, sp, #0x220; stp x29, x30, [sp] */
		0xd10883ff, 0xa9007bfd, 0x910003fd, 0xa90153f3, 0xd50320ff,
		0xaa0003f4, 0x2a0103f3, 0xaa1e03e0, 0x94000000,
	};
	static const uint32_t pac[] = {		/* paciasp first */
		0xd503233f, 0xa9be7bfd, 0x910003fd, 0xa90153f3, 0x2a0103f4,
		0xd50320ff, 0x2a0003f3, 0xaa1e03e0, 0x94000000,
	};
	static const uint32_t nofp[] = {	/* -fomit-frame-pointer style: no record */
		0xf81f0ffe, 0xaa1e03e0, 0x94000000,
	};
	static const uint32_t branch[] = {	/* cbz before the call */
		0xa9bf7bfd, 0x910003fd, 0xb4000040, 0xaa1e03e0, 0x94000000,
	};
	struct a64_pg pg;

	ck_assert_uint_eq(pg_site(leaf, 8, 0, &pg), 5 * 4);
	ck_assert_uint_eq(pg.frame, 32);
	ck_assert_uint_eq(pg.sign, 0);
	ck_assert_uint_eq(pg_site(sched, 9, 0, &pg), 6 * 4);
	ck_assert_uint_eq(pg.frame, 64);
	ck_assert_uint_eq(pg_site(big, 9, 0, &pg), 7 * 4);
	ck_assert_uint_eq(pg.frame, 0x220);
	ck_assert_uint_eq(pg_site(pac, 9, 0, &pg), 7 * 4);
	ck_assert_uint_eq(pg.frame, 32);
	ck_assert_uint_eq(pg.sign, 1);
	/* The site named: found again after the runtime wrote the bl (a NOP here). */
	{
		uint32_t again[9];

		for (unsigned i = 0; i < 9; i++)
			again[i] = pac[i];
		again[8] = 0xd503201f;
		ck_assert_uint_eq(pg_site(again, 9, 7 * 4, &pg), 7 * 4);
		ck_assert_uint_eq(pg.frame, 32);
	}
	ck_assert_uint_eq(pg_site(nofp, 3, 0, &pg), 0);
	ck_assert_ptr_nonnull(pg.why);
	ck_assert_uint_eq(pg_site(branch, 5, 0, &pg), 0);
	ck_assert_str_eq(pg.why, "a branch before its call to _mcount");
}
END_TEST

Suite *a64_suite(void)
{
	Suite *s = suite_create("a64 encodings");
	TCase *tc = tcase_create("encode");

	tcase_add_test(tc, hints);
	tcase_add_test(tc, mov_x9_lr);
	tcase_add_test(tc, bl_reach);
	tcase_add_test(tc, stub_words);
	tcase_add_test(tc, movk_x);
	tcase_add_test(tc, pg_prologues);
	suite_add_tcase(s, tc);
	return s;
}
