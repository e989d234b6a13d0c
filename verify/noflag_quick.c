// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sweep's quick decoder (x86-64): the length of the instructions
 * compilers emit most, and what the sweep asks of them (a direct branch's
 * target, a rip-relative operand's address, the raw displacement and
 * immediate fields), without Capstone, which prints every instruction it
 * decodes and copies its details: most of the sweep's time.
 *
 * It answers only for the encodings listed below and declines every other
 * (VEX, EVEX, x87, 0F 38, 0F 3A, far and string-port forms, indirect jumps,
 * branches with prefixes, 67 and unusual prefix runs): the sweep asks
 * Capstone then, so the answer is always Capstone's.  That it is the same
 * answer where it does answer is checked by tests/verify/nfquick_check.c
 * over every ModRM byte of every opcode under every prefix run it accepts,
 * and by fuzz_noflag on arbitrary bytes.
 *
 * Encodings: Intel SDM vol. 2, appendix A (opcode maps) and 2.1-2.2
 * (prefixes, REX, ModRM, SIB, displacement and immediate sizes).
 */
#include <string.h>

#include "noflag_x86.h"

/* What follows the opcode (one of the sizes) and which ModRM forms are taken. */
enum {
	M = 1 << 0,	/* ModRM follows */
	I8 = 1 << 1,	/* imm8 */
	IZ = 1 << 2,	/* imm16 with 66, else imm32 */
	IV = 1 << 3,	/* imm64 with REX.W, imm16 with 66, else imm32 (mov r, imm) */
	I16 = 1 << 4,	/* imm16 (ret imm16) */
	R8 = 1 << 5,	/* rel8 branch */
	R32 = 1 << 6,	/* rel32 branch */
	REG = 1 << 7,	/* ModRM: register form (mod 3) only */
	MEM = 1 << 8,	/* ModRM: memory form only */
	G0 = 1 << 9,	/* ModRM reg field: only /0 */
	G01 = 1 << 10,	/* only /0 and /1 */
	NOPFX = 1 << 11,	/* no 66, F2, F3 */
	F3ONLY = 1 << 12,	/* needs F3 (popcnt) */
	IMMIF01 = 1 << 13,	/* F6/F7: an immediate for /0 and /1 only (test) */
	FFGRP = 1 << 14,	/* FF: /0 /1 /2 /6 only */
	G47 = 1 << 15,	/* 0F BA: /4 to /7 only */
	G03 = 1 << 16,	/* 0F 18: /0 to /3 only */
	V = 1 << 17,	/* taken, nothing follows the opcode */
	P66 = 1 << 18,	/* needs 66 alone (punpcklqdq, movq store) */
};

static const uint32_t map1[256] = {
	/* 00 */ M, M, M, M, I8, IZ, 0, 0, M, M, M, M, I8, IZ, 0, 0,
	/* 10 */ M, M, M, M, I8, IZ, 0, 0, M, M, M, M, I8, IZ, 0, 0,
	/* 20 */ M, M, M, M, I8, IZ, 0, 0, M, M, M, M, I8, IZ, 0, 0,
	/* 30 */ M, M, M, M, I8, IZ, 0, 0, M, M, M, M, I8, IZ, 0, 0,
	/* 40 REX */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 50 push, pop */
	[0x50] = NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX,
	NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX,
	[0x63] = M,			/* movsxd */
	[0x68] = IZ | NOPFX,		/* push imm32 */
	[0x69] = M | IZ,		/* imul r, r/m, imm */
	[0x6a] = I8 | NOPFX,		/* push imm8 */
	[0x6b] = M | I8,
	[0x70] = R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8, R8,	/* jcc rel8 */
	[0x80] = M | I8, M | IZ, 0, M | I8,	/* group 1 */
	[0x84] = M, M, M, M,		/* test, xchg */
	[0x88] = M, M, M, M,		/* mov */
	[0x8d] = M | MEM,		/* lea */
	[0x8f] = M | G0,		/* pop r/m */
	[0x90] = V,		/* nop (pause with F3), xchg */
	[0x91] = NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX,
	[0x98] = NOPFX, NOPFX,		/* cdqe, cqo */
	[0x9c] = NOPFX, NOPFX,		/* pushf, popf */
	[0xa8] = I8, IZ,		/* test al/eax, imm */
	[0xb0] = I8, I8, I8, I8, I8, I8, I8, I8,	/* mov r8, imm8 */
	[0xb8] = IV, IV, IV, IV, IV, IV, IV, IV,	/* mov r, imm */
	[0xc0] = M | I8, M | I8,	/* shifts by imm8 */
	[0xc2] = I16 | NOPFX,		/* ret imm16 */
	[0xc3] = NOPFX,			/* ret */
	[0xc6] = M | I8 | G0, M | IZ | G0,	/* mov r/m, imm */
	[0xc9] = NOPFX,			/* leave */
	[0xcc] = NOPFX,			/* int3 */
	[0xd0] = M, M, M, M,		/* shifts by 1, cl */
	[0xe8] = R32,			/* call rel32 */
	[0xe9] = R32,			/* jmp rel32 */
	[0xeb] = R8,			/* jmp rel8 */
	[0xf4] = NOPFX,			/* hlt */
	[0xf6] = M | I8 | IMMIF01, M | IZ | IMMIF01,	/* group 3 */
	[0xfe] = M | G01,		/* inc, dec r/m8 */
	[0xff] = M | FFGRP,		/* inc, dec, call *, push r/m */
};

static const uint32_t map2[256] = {	/* 0F xx */
	[0x05] = NOPFX,			/* syscall */
	[0x0b] = NOPFX,			/* ud2 */
	[0x10] = M, M, M, M | MEM, M, M, M, M | MEM,	/* movups .. movhps */
	[0x18] = M | MEM | G03 | NOPFX,	/* prefetch */
	[0x1f] = M | MEM | G0,		/* nop r/m */
	[0x28] = M, M, M, M | MEM, M, M, M, M,	/* movaps .. comiss */
	[0x40] = M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,	/* cmovcc */
	[0x50] = M | REG,		/* movmskps */
	[0x51] = M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,	/* sqrt .. max */
	[0x60] = M, M, M, M, M, M, M, M, M, M, M, M, M | P66, M | P66, M, M,	/* punpck .. movdqa */
	[0x70] = M | I8,		/* pshufd */
	[0x74] = M, M, M,		/* pcmpeq */
	[0x7e] = M, M,			/* movd, movq, movdqa store */
	[0x80] = R32, R32, R32, R32, R32, R32, R32, R32,	/* jcc rel32 */
	R32, R32, R32, R32, R32, R32, R32, R32,
	[0x90] = M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,	/* setcc */
	[0xa2] = NOPFX,			/* cpuid */
	[0xa3] = M, M | I8, M,		/* bt, shld */
	[0xab] = M, M | I8, M, 0, M,	/* bts, shrd, imul */
	[0xb0] = M, M, 0, M, 0, 0, M, M,	/* cmpxchg, btr, movzx */
	[0xb8] = M | F3ONLY,		/* popcnt */
	[0xba] = M | I8 | G47,		/* bt group, imm8 */
	[0xbb] = M, M, M, M, M,		/* btc, bsf/tzcnt, bsr/lzcnt, movsx */
	[0xc0] = M, M,			/* xadd */
	[0xc6] = M | I8,		/* shufps */
	[0xc8] = NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX, NOPFX,	/* bswap */
	[0xd4] = M, M, M | P66,		/* paddq, pmullw, movq */
	[0xd8] = M, M, M, M, M, M, M, M,	/* psubus .. pandn */
	[0xe0] = M, M, M, M, M, M, 0, 0, M, M, M, M, M, M, M, M,	/* pavg .. pxor */
	[0xf4] = M, M, M, 0, M, M, M, M, M, M, M,	/* pmuludq .. paddd */
};

/* The prefix runs taken (REX aside): those of compiled code; any other, Capstone decodes. */
static const char *const runs[] = {
	"", "\x66", "\xf2", "\xf3", "\xf0", "\x64", "\x65", "\x66\x2e", "\x66\x66\x2e",
	"\x66\x66\x66\x2e", "\x66\x66\x66\x66\x2e", "\x66\x66\x66\x66\x66\x2e", "\x64\x66",
};

/* How many bytes of p are a prefix run taken above (REX not counted); -1: another. */
static int prefix_run(const uint8_t *p, size_t avail, bool *p66, int *rep)
{
	size_t n = 0;

	while (n < avail && n < 6 && (p[n] == 0x66 || p[n] == 0xf2 || p[n] == 0xf3 ||
				      p[n] == 0x2e || p[n] == 0x64 || p[n] == 0x65))
		n++;
	if (!n) {
		*p66 = false;
		*rep = 0;
		return 0;	/* most instructions */
	}
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		if (strlen(runs[i]) == n && !memcmp(runs[i], p, n)) {
			*p66 = memchr(p, 0x66, n) != NULL;
			*rep = memchr(p, 0xf3, n) ? 0xf3 : memchr(p, 0xf2, n) ? 0xf2 : 0;
			return (int)n;
		}
	return -1;
}

static bool reg_allowed(uint32_t fl, unsigned reg)
{
	if ((fl & G0) && reg != 0)
		return false;
	if ((fl & G01) && reg > 1)
		return false;
	if ((fl & G47) && reg < 4)
		return false;
	if ((fl & G03) && reg > 3)
		return false;
	if ((fl & FFGRP) && reg != 0 && reg != 1 && reg != 2 && reg != 6)
		return false;
	return true;
}

/* Little-endian field of n bytes at p. */
static uint64_t field(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int64_t sext(uint64_t v, unsigned n)
{
	return n >= 8 ? (int64_t)v : (int64_t)(v << (64 - 8 * n)) >> (64 - 8 * n);
}

bool nf_x86_quick(const uint8_t *p, uint64_t avail64, uint64_t addr, struct nf_quick *q)
{
	size_t avail = avail64 < 15 ? (size_t)avail64 : 15, i;
	bool p66, w = false, two = false;
	int rep, n = prefix_run(p, avail, &p66, &rep);
	uint32_t fl;

	if (n < 0)
		return false;
	i = (size_t)n;
	if (i < avail && (p[i] & 0xf0) == 0x40)
		w = (p[i++] & 8) != 0;		/* REX, right before the opcode */
	if (i >= avail)
		return false;
	uint8_t op = p[i++];
	if (op == 0x0f) {
		if (i >= avail)
			return false;
		two = true;
		op = p[i++];
	}
	fl = two ? map2[op] : map1[op];
	if (!fl)
		return false;
	if (((fl & NOPFX) || (fl & (R8 | R32))) && n)
		return false;		/* a prefix there: a form not listed, or bnd/hint */
	if ((fl & F3ONLY) && (rep != 0xf3 || p66))
		return false;
	if ((fl & P66) && (n != 1 || !p66))
		return false;
	*q = (struct nf_quick){ 0 };
	if (fl & M) {
		if (i >= avail)
			return false;
		unsigned modrm = p[i++], mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
		if (((fl & REG) && mod != 3) || ((fl & MEM) && mod == 3) || !reg_allowed(fl, reg))
			return false;
		if ((fl & IMMIF01) && reg > 1)
			fl &= ~(I8 | IZ);
		if (mod != 3) {
			unsigned disp = mod == 1 ? 1 : mod == 2 ? 4 : 0;
			if (rm == 4) {
				if (i >= avail)
					return false;
				if (mod == 0 && (p[i] & 7) == 5)
					disp = 4;	/* no base: disp32 */
				i++;
			} else if (mod == 0 && rm == 5) {
				disp = 4;
				q->rip = true;
			}
			if (i + disp > avail)
				return false;
			if (disp)
				q->field[q->nfield++] = (struct nf_field){ field(p + i, disp), (uint8_t)disp };
			i += disp;
		}
	}
	unsigned imm = (fl & I8) || (fl & R8) ? 1 : (fl & I16) ? 2 : (fl & R32) ? 4 :
		       (fl & IZ) ? (p66 && !w ? 2 : 4) : (fl & IV) ? (w ? 8 : p66 ? 2 : 4) : 0;
	if (i + imm > avail)
		return false;
	uint64_t v = field(p + i, imm);
	i += imm;
	q->len = (uint8_t)i;
	if (fl & (R8 | R32)) {
		q->branch = true;
		q->target = addr + i + (uint64_t)sext(v, imm);
		return true;
	}
	if (imm)
		q->field[q->nfield++] = (struct nf_field){ v, (uint8_t)imm };
	if (q->rip) {
		q->target = addr + i + (uint64_t)sext(q->field[0].raw, 4);
		q->nfield = (uint8_t)(q->nfield - 1);
		memmove(q->field, q->field + 1, sizeof(q->field[0]) * q->nfield);
	}
	return true;
}

/*
 * The values Capstone may give a field as an operand: zero- or sign-extended
 * to 16, 32 or 64 bits (an imm8 of a 32-bit operation is sign-extended to 32
 * bits, of a 64-bit one to 64).  Returns how many, into v[4].
 */
unsigned nf_x86_field_values(const struct nf_field *fd, uint64_t v[4])
{
	uint64_t s = (uint64_t)sext(fd->raw, fd->width);
	unsigned n = 0;

	v[n++] = fd->raw;
	v[n++] = s;
	if (fd->width < 4)
		v[n++] = s & 0xffffffffu;
	if (fd->width < 2)
		v[n++] = s & 0xffffu;
	return n;
}
