// SPDX-License-Identifier: GPL-2.0-only
/*
 * The arch tables against the documented encodings of each call form
 * (oracle: the architecture manuals' instruction encodings, as bytes in the
 * object's byte order).  Each row is a relocation against a hook over a
 * few bytes of code, and what call_site() must say about it.
 */
#include <check.h>
#include <elf.h>
#include <string.h>

#include "arch.h"
#include "suites.h"

struct site_case {
	const char *what;
	uint16_t machine;
	uint8_t cls;
	bool be;
	uint8_t code[16];
	unsigned size;
	uint64_t offset;
	uint32_t type;
	enum reloc_role role;
	uint64_t site;
	unsigned len, align;
};

static const struct site_case site_cases[] = {
	{ "x86_64 call rel32", EM_X86_64, 2, false, { 0xe8, 0, 0, 0, 0 }, 5, 1,
	  R_X86_64_PLT32, RELOC_CALL, 0, 5, 1 },
	{ "x86_64 PIE call via GOT", EM_X86_64, 2, false, { 0xff, 0x15, 0, 0, 0, 0 }, 6, 2,
	  R_X86_64_GOTPCRELX, RELOC_CALL, 0, 6, 1 },
	{ "x86_64 tail jmp", EM_X86_64, 2, false, { 0xe9, 0, 0, 0, 0 }, 5, 1,
	  R_X86_64_PLT32, RELOC_BAD, 0, 5, 1 },
	{ "x86_64 address load", EM_X86_64, 2, false, { 0x48, 0xc7, 0xc0, 0, 0, 0, 0 }, 7, 3,
	  R_X86_64_32S, RELOC_BAD, 0, 0, 1 },
	{ "x86_64 reloc at offset 0", EM_X86_64, 2, false, { 0, 0, 0, 0 }, 4, 0,
	  R_X86_64_PC32, RELOC_BAD, 0, 0, 1 },
	{ "i386 REL call", EM_386, 1, false, { 0xe8, 0xfc, 0xff, 0xff, 0xff }, 5, 1,
	  R_386_PC32, RELOC_CALL, 0, 5, 1 },
	{ "i386 PIC call via GOT", EM_386, 1, false, { 0xff, 0x93, 0, 0, 0, 0 }, 6, 2,
	  R_386_GOT32X, RELOC_CALL, 0, 6, 1 },
	{ "aarch64 bl", EM_AARCH64, 2, false, { 0x00, 0x00, 0x00, 0x94 }, 4, 0,
	  R_AARCH64_CALL26, RELOC_CALL, 0, 4, 4 },
	{ "aarch64 b (tail)", EM_AARCH64, 2, false, { 0x00, 0x00, 0x00, 0x14 }, 4, 0,
	  R_AARCH64_JUMP26, RELOC_BAD, 0, 4, 4 },
	{ "arm bl", EM_ARM, 1, false, { 0x04, 0xe0, 0x2d, 0xe5, 0xfe, 0xff, 0xff, 0xeb }, 8, 4,
	  R_ARM_CALL, RELOC_CALL, 4, 4, 4 },
	{ "thumb bl", EM_ARM, 1, false, { 0x00, 0xb5, 0xff, 0xf7, 0xfe, 0xff }, 6, 2,
	  R_ARM_THM_PC22, RELOC_CALL, 2, 4, 2 },
	{ "arm b (tail)", EM_ARM, 1, false, { 0xfe, 0xff, 0xff, 0xea }, 4, 0,
	  R_ARM_JUMP24, RELOC_BAD, 0, 4, 4 },
	{ "mips jal (BE)", EM_MIPS, 1, true, { 0x0c, 0, 0, 0 }, 4, 0,
	  R_MIPS_26, RELOC_CALL, 0, 4, 4 },
	{ "mips lui long call (LE)", EM_MIPS, 1, false, { 0, 0, 0x01, 0x3c }, 4, 0,
	  R_MIPS_HI16, RELOC_CALL, 0, 4, 4 },
	{ "mips PIC call16", EM_MIPS, 2, false, { 0, 0, 0x99, 0xdf }, 4, 0,
	  R_MIPS_CALL16, RELOC_BAD, 0, 4, 4 },
	{ "ppc64le bl", EM_PPC64, 2, false, { 0x01, 0, 0, 0x48 }, 4, 0,
	  R_PPC64_REL24, RELOC_CALL, 0, 4, 4 },
	{ "ppc64 b (tail)", EM_PPC64, 2, true, { 0x48, 0, 0, 0 }, 4, 0,
	  R_PPC64_REL24, RELOC_BAD, 0, 4, 4 },
	{ "ppc32 bl", EM_PPC, 1, true, { 0x48, 0, 0, 0x01 }, 4, 0,
	  R_PPC_REL24, RELOC_CALL, 0, 4, 4 },
	{ "sparc64 call", EM_SPARCV9, 2, true, { 0x40, 0, 0, 0 }, 4, 0,
	  R_SPARC_WDISP30, RELOC_CALL, 0, 4, 4 },
	{ "s390x brasl", EM_S390, 2, true, { 0xc0, 0x05, 0, 0, 0, 0 }, 6, 2,
	  R_390_PLT32DBL, RELOC_CALL, 0, 6, 2 },
	{ "s390x jg (tail)", EM_S390, 2, true, { 0xc0, 0xf4, 0, 0, 0, 0 }, 6, 2,
	  R_390_PLT32DBL, RELOC_BAD, 0, 6, 2 },
	/* mov.l @(2*4+4 = 12 from pc 0),r1 ... literal word at 12 */
	{ "sh literal", EM_SH, 1, false, { 0x02, 0xd1, 0x09, 0, 0x09, 0, 0x09, 0, 0x09, 0, 0x09,
	  0, 0, 0, 0, 0 }, 16, 12, R_SH_DIR32, RELOC_CALL, 12, 4, 4 },
	{ "sh word nobody loads", EM_SH, 1, false, { 0x09, 0, 0x09, 0, 0, 0, 0, 0 }, 8, 4,
	  R_SH_DIR32, RELOC_BAD, 4, 4, 4 },
	{ "riscv64 auipc+jalr", EM_RISCV, 2, false, { 0x97, 0, 0, 0, 0xe7, 0x80, 0, 0 }, 8, 0,
	  R_RISCV_CALL_PLT, RELOC_CALL, 0, 8, 2 },
	{ "riscv64 not a call", EM_RISCV, 2, false, { 0x13, 0, 0, 0, 0x13, 0, 0, 0 }, 8, 0,
	  R_RISCV_CALL_PLT, RELOC_BAD, 0, 8, 2 },
};

START_TEST(test_call_site)
{
	const struct site_case *c = &site_cases[_i];
	const struct arch *a = arch_find(c->machine, c->cls, 0);
	struct reloc_view rv = { .code = c->code, .code_size = c->size, .offset = c->offset,
				 .type = c->type, .big_endian = c->be };
	struct call_site cs = { 0 };
	enum reloc_role role;

	ck_assert_msg(a != NULL, "%s: no arch table", c->what);
	role = a->call_site(a, &rv, &cs);
	ck_assert_msg(role == c->role, "%s: role %d, expected %d", c->what, role, c->role);
	if (role == RELOC_CALL) {
		ck_assert_msg(cs.site == c->site, "%s: site %llu", c->what,
			      (unsigned long long)cs.site);
		ck_assert_uint_eq(cs.len, c->len);
		ck_assert_uint_eq(cs.align, c->align);
	} else if (role == RELOC_BAD) {
		ck_assert_msg(cs.why && *cs.why, "%s: no reason given", c->what);
	}
}
END_TEST

/* A MIPS -mlong-calls sequence: only its first relocation starts a site. */
START_TEST(test_mips_long_call_chain)
{
	const struct arch *a = arch_find(EM_MIPS, 2, 0);
	static const uint8_t code[16] = { 0, 0, 0x01, 0x3c, 0, 0, 0x03, 0x3c };
	struct reloc_view rv = { .code = code, .code_size = 16, .type = R_MIPS_HIGHEST };
	struct call_site cs;

	ck_assert_int_eq(a->call_site(a, &rv, &cs), RELOC_CALL);
	rv.have_prev = true;
	rv.prev_offset = 0;
	rv.offset = 4;
	rv.type = R_MIPS_HI16;
	ck_assert_int_eq(a->call_site(a, &rv, &cs), RELOC_PART);
	/* Not chained (8 bytes on): a lone LO16 is no call. */
	rv.offset = 12;
	rv.prev_offset = 4;
	rv.type = R_MIPS_LO16;
	ck_assert_int_eq(a->call_site(a, &rv, &cs), RELOC_BAD);
}
END_TEST

struct nop_case {
	const char *what;
	uint16_t machine;
	uint8_t cls;
	uint8_t before[12], after[12];
	unsigned size;
	uint64_t site;
	unsigned len, align;
	bool site_nop;		/* make_site_nop instead of make_nop */
};

static const struct nop_case nop_cases[] = {
	{ "x86_64 nop5", EM_X86_64, 2, { 0xe8, 0, 0, 0, 0 }, { 0x0f, 0x1f, 0x44, 0, 0 }, 5, 0, 5, 1, false },
	{ "x86_64 nop6", EM_X86_64, 2, { 0xff, 0x15, 0, 0, 0, 0 },
	  { 0x66, 0x0f, 0x1f, 0x44, 0, 0 }, 6, 0, 6, 1, false },
	{ "i386 nop5", EM_386, 1, { 0xe8, 0xfc, 0xff, 0xff, 0xff },
	  { 0x3e, 0x8d, 0x74, 0x26, 0x00 }, 5, 0, 5, 1, false },
	{ "aarch64 nop", EM_AARCH64, 2, { 0, 0, 0, 0x94 }, { 0x1f, 0x20, 0x03, 0xd5 }, 4, 0, 4, 4, false },
	{ "arm push+bl", EM_ARM, 1, { 0x04, 0xe0, 0x2d, 0xe5, 0xfe, 0xff, 0xff, 0xeb },
	  { 0, 0, 0xa0, 0xe1, 0, 0, 0xa0, 0xe1 }, 8, 4, 4, 4, false },
	{ "thumb push+bl", EM_ARM, 1, { 0x00, 0xb5, 0xff, 0xf7, 0xfe, 0xff },
	  { 0x00, 0xbf, 0x00, 0xbf, 0x00, 0xbf }, 6, 2, 4, 2, false },
	{ "arm site: add sp,#4", EM_ARM, 1, { 0x04, 0xe0, 0x2d, 0xe5, 0xfe, 0xff, 0xff, 0xeb },
	  { 0x04, 0xe0, 0x2d, 0xe5, 0x04, 0xd0, 0x8d, 0xe2 }, 8, 4, 4, 4, true },
	{ "thumb site: add.w sp,#4", EM_ARM, 1, { 0x00, 0xb5, 0xff, 0xf7, 0xfe, 0xff },
	  { 0x00, 0xb5, 0x0d, 0xf1, 0x04, 0x0d }, 6, 2, 4, 2, true },
};

START_TEST(test_make_nop)
{
	const struct nop_case *c = &nop_cases[_i];
	const struct arch *a = arch_find(c->machine, c->cls, 0);
	struct call_site cs = { .site = c->site, .len = c->len, .align = c->align };
	uint8_t buf[12];
	int err;

	memcpy(buf, c->before, sizeof(buf));
	err = c->site_nop ? a->make_site_nop(a, buf, c->size, &cs, false)
			  : a->make_nop(a, buf, c->size, &cs, false);
	ck_assert_msg(err == 0, "%s: make_nop failed", c->what);
	ck_assert_msg(!memcmp(buf, c->after, c->size), "%s: wrong NOP bytes", c->what);
}
END_TEST

START_TEST(test_nop_refuses_non_call)
{
	const struct arch *a = arch_find(EM_X86_64, 2, 0);
	struct call_site cs = { .site = 0, .len = 5, .align = 1 };
	uint8_t buf[5] = { 0x90, 0x90, 0x90, 0x90, 0x90 };

	ck_assert_int_ne(a->make_nop(a, buf, 5, &cs, false), 0);
	ck_assert_uint_eq(buf[0], 0x90);
}
END_TEST

START_TEST(test_hooks_and_lookup)
{
	const struct arch *ppc64 = arch_find(EM_PPC64, 2, 0);
	const struct arch *x86 = arch_find(EM_X86_64, 2, 0);

	ck_assert_ptr_nonnull(ppc64);
	ck_assert(arch_is_hook(ppc64, "._mcount"));
	ck_assert(arch_is_hook(ppc64, "_mcount"));
	ck_assert(!arch_is_hook(x86, "_mcount"));
	ck_assert(arch_is_hook(x86, "__fentry__"));
	ck_assert(arch_is_hook(arch_find(EM_ARM, 1, 0), "__gnu_mcount_nc"));
	ck_assert_ptr_null(arch_find(EM_X86_64, 1, 0));	/* x32 */
	ck_assert_ptr_null(arch_find(258, 2, 0));		/* loongarch */
	ck_assert_str_eq(arch_machine_name(258, 2), "loongarch");
	ck_assert_str_eq(arch_machine_name(EM_X86_64, 1), "x32");
}
END_TEST

/* n64 r_info: r_sym, then r_ssym, r_type3, r_type2, r_type bytes. */
START_TEST(test_mips64_rinfo)
{
	const struct arch *a = arch_find(EM_MIPS, 2, 0);
	uint32_t sym, type;

	ck_assert_uint_eq(arch_rinfo_make(a, 0x12, R_MIPS_64, false), 0x1200000000000012ull);
	ck_assert_uint_eq(arch_rinfo_make(a, 0x12, R_MIPS_64, true), 0x0000001200000012ull);
	arch_rinfo_split(a, 0x0400000000000007ull, false, &sym, &type);
	ck_assert_uint_eq(sym, 7);
	ck_assert_uint_eq(type, R_MIPS_26);
	arch_rinfo_split(a, 0x0000000700000004ull, true, &sym, &type);
	ck_assert_uint_eq(sym, 7);
	ck_assert_uint_eq(type, R_MIPS_26);
}
END_TEST

/*
 * decode_branch() on the forms ld leaves in linked code (patchverify).
 * Oracle: the manuals' encodings, and objdump's reading of the same bytes
 * in testdata/verify (arm-exe: "blx 0x468" at 0x5a6; the PLT entry of
 * __gnu_mcount_nc at 0x468 loads the GOT word at 0x201c).
 */
struct branch_case {
	const char *what;
	uint16_t machine;
	uint8_t cls;
	uint8_t code[16];
	unsigned size;
	uint64_t addr, got;
	bool thumb, ok;
	enum branch_kind kind;
	bool indirect;
	uint64_t target;
	unsigned len;
};

static const struct branch_case branch_cases[] = {
	{ "x86_64 call *disp(%rip)", EM_X86_64, 2, { 0xff, 0x15, 0x10, 0, 0, 0 }, 6, 0x1000, 0,
	  false, true, BRANCH_CALL, true, 0x1016, 6 },
	{ "x86_64 PLT jmp *disp(%rip)", EM_X86_64, 2, { 0xff, 0x25, 0xfa, 0xff, 0xff, 0xff }, 6,
	  0x1000, 0, false, true, BRANCH_JUMP, true, 0x1000, 6 },
	{ "i386 call rel32", EM_386, 1, { 0xe8, 0xfb, 0xff, 0xff, 0xff }, 5, 0x1000, 0,
	  false, true, BRANCH_CALL, false, 0x1000, 5 },
	{ "i386 PLT jmp *abs32", EM_386, 1, { 0xff, 0x25, 0x0c, 0xc0, 0x04, 0x08 }, 6, 0x8049030,
	  0, false, true, BRANCH_JUMP, true, 0x804c00c, 6 },
	{ "i386 PIC call *disp(%ebx)", EM_386, 1, { 0xff, 0x93, 0xf0, 0xff, 0xff, 0xff }, 6,
	  0x1200, 0x3ff4, false, true, BRANCH_CALL, true, 0x3fe4, 6 },
	{ "i386 PIC PLT jmp *disp(%ebx)", EM_386, 1, { 0xff, 0xa3, 0x0c, 0, 0, 0 }, 6, 0x1030,
	  0x3ff4, false, true, BRANCH_JUMP, true, 0x4000, 6 },
	{ "i386 %ebx form, GOT unknown", EM_386, 1, { 0xff, 0x93, 0x10, 0, 0, 0 }, 6, 0x1200, 0,
	  false, false, BRANCH_CALL, false, 0, 0 },
	{ "arm PLT entry", EM_ARM, 1,
	  { 0x00, 0xc6, 0x8f, 0xe2, 0x01, 0xca, 0x8c, 0xe2, 0xac, 0xfb, 0xbc, 0xe5 }, 12, 0x468, 0,
	  false, true, BRANCH_JUMP, true, 0x201c, 12 },
	{ "thumb blx to ARM", EM_ARM, 1, { 0xff, 0xf7, 0x60, 0xef }, 4, 0x5a6, 0, true, true,
	  BRANCH_CALL, false, 0x468, 4 },
	{ "aarch64 bl", EM_AARCH64, 2, { 0xff, 0xff, 0xff, 0x97 }, 4, 0x1000, 0, false, true,
	  BRANCH_CALL, false, 0xffc, 4 },
	/*
	 * A PLT entry whose GOT lies below it (a negative adrp), which the fuzzer
	 * found shifting a negative value.  aarch64-linux-gnu-objdump -D -b binary
	 * --adjust-vma=0x10010 of these bytes: "adrp x16, 0xf000; ldr x17, [x16, #24];
	 * add x16, x16, #0x18; br x17".
	 */
	{ "aarch64 PLT entry, GOT below", EM_AARCH64, 2,
	  { 0xf0, 0xff, 0xff, 0xf0, 0x11, 0x0e, 0x40, 0xf9, 0x10, 0x62, 0x00, 0x91,
	    0x20, 0x02, 0x1f, 0xd6 }, 16, 0x10010, 0, false, true, BRANCH_JUMP, true, 0xf018, 16 },
	/*
	 * riscv64: rv64-pg-exe, objdump -d: "jal 104a0 <_mcount@plt>" at 0x104ba;
	 * the PLT entry at 0x104a0 loads the GOT word at 0x12020; as(1) of
	 * "auipc ra,0x7ffff; jalr ra,-16(ra)" at 0 reaches 0x7fffeff0, and
	 * "auipc t1,0; jr 8(t1)" is a jump.  A 16-bit instruction (ret) is none.
	 */
	{ "riscv64 jal ra", EM_RISCV, 2, { 0xef, 0xf0, 0x7f, 0xfe }, 4, 0x104ba, 0, false, true,
	  BRANCH_CALL, false, 0x104a0, 4 },
	{ "riscv64 PLT entry", EM_RISCV, 2,
	  { 0x17, 0x2e, 0x00, 0x00, 0x03, 0x3e, 0x0e, 0xb8, 0x67, 0x03, 0x0e, 0x00,
	    0x13, 0x00, 0x00, 0x00 }, 16, 0x104a0, 0, false, true, BRANCH_JUMP, true, 0x12020, 16 },
	{ "riscv64 PLT entry without its nop", EM_RISCV, 2,
	  { 0x17, 0x2e, 0x00, 0x00, 0x03, 0x3e, 0x0e, 0xb8, 0x67, 0x03, 0x0e, 0x00 }, 12, 0x104a0,
	  0, false, false, BRANCH_JUMP, false, 0, 0 },
	{ "riscv64 auipc ra + jalr ra", EM_RISCV, 2, { 0x97, 0xf0, 0xff, 0x7f, 0xe7, 0x80, 0x00, 0xff },
	  8, 0, 0, false, true, BRANCH_CALL, false, 0x7fffeff0, 8 },
	{ "riscv64 auipc t1 + jr (tail)", EM_RISCV, 2,
	  { 0x17, 0x03, 0x00, 0x00, 0x67, 0x00, 0x83, 0x00 }, 8, 0x8, 0, false, true, BRANCH_JUMP,
	  false, 0x10, 8 },
	{ "riscv64 ret (16-bit)", EM_RISCV, 2, { 0x82, 0x80, 0x01, 0x00 }, 4, 0x1000, 0, false,
	  false, BRANCH_CALL, false, 0, 0 },
};

/*
 * riscv64 -pg set-up: gcc 12 -O0's sfun (objdump -d of sites.c): the copy of
 * ra reaches a0 through a5; a0 from elsewhere, or a branch (c.beqz a1) before
 * the call, is not set-up.
 */
START_TEST(test_riscv_mcount_setup)
{
	const struct arch *a = arch_find(EM_RISCV, 2, 0);
	uint8_t o0[] = {
		0x01, 0x11, 0x06, 0xec, 0x22, 0xe8, 0x00, 0x10,	/* addi sp; sd ra; sd s0; addi s0 */
		0x86, 0x87, 0x2a, 0x87,				/* mv a5, ra; mv a4, a0 */
		0x23, 0x26, 0xe4, 0xfe, 0x3e, 0x85,		/* sw a4, -20(s0); mv a0, a5 */
		0x97, 0x00, 0x00, 0x00, 0xe7, 0x80, 0x00, 0x00,	/* auipc ra; jalr ra (the call) */
	};
	struct insn_view iv = { .code = o0, .size = sizeof(o0) };
	uint64_t stop = 0;

	ck_assert_ptr_nonnull(a->mcount_setup);
	ck_assert(a->mcount_setup(a, &iv, 0x12, &stop));
	ck_assert_uint_eq(stop, 0x12);
	o0[16] = 0x2a;					/* mv a0, a0: not ra's copy */
	ck_assert(!a->mcount_setup(a, &iv, 0x12, &stop));
	ck_assert_uint_eq(stop, 0x12);
	o0[16] = 0x3e;
	o0[10] = 0x89, o0[11] = 0xc1;			/* c.beqz a1 in place of mv a4, a0 */
	ck_assert(!a->mcount_setup(a, &iv, 0x12, &stop));
	ck_assert_uint_eq(stop, 0xa);
}
END_TEST

/* riscv64 instruction lengths from the first parcel (ISA manual, "Base Instruction-Length Encoding"). */
START_TEST(test_riscv_insn_len)
{
	const struct arch *a = arch_find(EM_RISCV, 2, 0);
	static const uint8_t nop[] = { 0x13, 0, 0, 0 }, cnop[] = { 0x01, 0 }, wide[] = { 0x1f, 0, 0, 0 };
	struct insn_view iv = { .code = nop, .size = 4 };

	ck_assert_ptr_nonnull(a->insn_len);
	ck_assert_uint_eq(a->insn_len(a, &iv), 4);
	iv.size = 3;	/* a 32-bit instruction cut short */
	ck_assert_uint_eq(a->insn_len(a, &iv), 0);
	iv = (struct insn_view){ .code = cnop, .size = 2 };
	ck_assert_uint_eq(a->insn_len(a, &iv), 2);
	iv = (struct insn_view){ .code = wide, .size = 4 };	/* 48-bit and longer: not trusted */
	ck_assert_uint_eq(a->insn_len(a, &iv), 0);
}
END_TEST

START_TEST(test_decode_branch)
{
	const struct branch_case *c = &branch_cases[_i];
	const struct arch *a = arch_find(c->machine, c->cls, 0);
	struct insn_view iv = { .code = c->code, .size = c->size, .addr = c->addr,
				.thumb = c->thumb, .got = c->got };
	struct branch b = { 0 };
	bool ok;

	ck_assert_ptr_nonnull(a);
	ok = a->decode_branch(a, &iv, &b);
	ck_assert_msg(ok == c->ok, "%s: decoded %d", c->what, ok);
	if (!ok)
		return;
	ck_assert_msg(b.kind == c->kind && b.indirect == c->indirect && b.target == c->target &&
			      b.len == c->len, "%s: kind %d indirect %d target 0x%llx len %u",
		      c->what, b.kind, b.indirect, (unsigned long long)b.target, b.len);
}
END_TEST

/* ld's interworking call, encoded back: Thumb at 0x5a6 to the ARM PLT entry at 0x468. */
START_TEST(test_arm_make_call_interworking)
{
	const struct arch *a = arch_find(EM_ARM, 1, 0);
	static const uint8_t blx[] = { 0xff, 0xf7, 0x60, 0xef };	/* blx 0x468 */
	struct insn_view iv = { .addr = 0x5a6, .thumb = true };
	uint64_t arm_target = 0x468, thumb_target = 0x469;
	uint8_t buf[8];

	ck_assert_uint_eq(a->make_call(a, &iv, &arm_target, buf), 4);
	ck_assert_mem_eq(buf, blx, 4);
	/* To Thumb code it stays bl (hw2 0xd000 form). */
	a->make_call(a, &iv, &thumb_target, buf);
	ck_assert_uint_eq(buf[3] & 0xd0, 0xd0);
}
END_TEST

Suite *arch_suite(void)
{
	Suite *s = suite_create("arch");
	TCase *tc = tcase_create("tables");

	tcase_add_loop_test(tc, test_call_site, 0, sizeof(site_cases) / sizeof(site_cases[0]));
	tcase_add_loop_test(tc, test_make_nop, 0, sizeof(nop_cases) / sizeof(nop_cases[0]));
	tcase_add_test(tc, test_mips_long_call_chain);
	tcase_add_test(tc, test_nop_refuses_non_call);
	tcase_add_test(tc, test_hooks_and_lookup);
	tcase_add_test(tc, test_mips64_rinfo);
	tcase_add_loop_test(tc, test_decode_branch, 0,
			    sizeof(branch_cases) / sizeof(branch_cases[0]));
	tcase_add_test(tc, test_arm_make_call_interworking);
	tcase_add_test(tc, test_riscv_insn_len);
	tcase_add_test(tc, test_riscv_mcount_setup);
	suite_add_tcase(s, tc);
	return s;
}
