/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86 encodings both the build tools (lib/arch/x86.c) and the runtime
 * (patchsite/arch/x86_64/arch.c) read or write: one copy, so that both accept
 * the same sites and the runtime holds no encoding of its own.  Opcodes
 * from the Intel SDM vol. 2.
 *
 * NOPs a compiler or the kernel leaves where a function may be traced.
 *
 * 5 bytes, nopl disp8(%rax,%rax,1) (0f 1f /0 with SIB and disp8; any disp8
 * is the same NOP, Intel SDM vol. 2B "NOP"):
 *   0f 1f 44 00 00   gcc -mnop-mcount, binutils, the kernel's ftrace
 *   0f 1f 44 00 08   clang -fpatchable-function-entry=5 (LLVM's X86 NOP
 *                    of 5 bytes, checked with clang 14's objdump)
 * The first is what we write; the others are accepted where they are found.
 */
#ifndef X86_INSN_H
#define X86_INSN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define X86_OP_CALL_REL32	0xe8	/* call rel32 */
#define X86_OP_JMP_REL32	0xe9	/* jmp rel32 */
#define X86_OP_PUSH_IMM32	0x68	/* push $imm32 */
#define X86_OP_NOP		0x90	/* nop */
#define X86_OP_INT3		0xcc	/* int3 */

static const uint8_t x86_endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };	/* endbr64 */
static const uint8_t x86_endbr32[] = { 0xf3, 0x0f, 0x1e, 0xfb };	/* endbr32 */
static const uint8_t x86_nop6_64[] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };	/* nopw 0x0(%rax,%rax,1) */
static const uint8_t x86_nops5[] = { 0x90, 0x90, 0x90, 0x90, 0x90 };	/* 5 x nop (gcc's sled) */
static const uint8_t x86_call_rip[] = { 0xff, 0x15 };		/* call *disp32(%rip) */
static const uint8_t x86_jmp_rip[] = { 0xff, 0x25 };		/* jmp *disp32(%rip) */
static const uint8_t x86_bnd_jmp_rip[] = { 0xf2, 0xff, 0x25 };	/* bnd jmp *disp32(%rip) */

/*
 * The frame-pointer prologue gcc -pg emits before its call to mcount
 * (the call follows the rest of the prologue: pushes, sub $n,%rsp), so
 * that the return address is at 8(%rbp) when mcount runs:
 *   55           push %rbp
 *   48 89 e5     mov %rsp,%rbp
 */
static const uint8_t x86_frame_setup[] = { 0x55, 0x48, 0x89, 0xe5 };

/*
 * gcc -pg without -mfentry calls mcount after the prologue, which -pg
 * gives a frame pointer (issue 12):
 *   55                       push %rbp
 *   48 89 e5                 mov %rsp,%rbp
 * with callee-saved pushes and the stack allocation around them, and, for a
 * function that realigns its stack, the DRAP set-up before them.
 */
struct x86_setup {
	uint8_t len, imm;	/* opcode bytes, then immediate bytes */
	bool fp;		/* mov %rsp,%rbp: the frame is set up once %rbp was pushed */
	uint8_t bytes[5];
};
static const struct x86_setup x86_64_setup[] = {
	{ 3, 0, true, { 0x48, 0x89, 0xe5 } },		/* mov %rsp,%rbp */
	{ 5, 0, false, { 0x4c, 0x8d, 0x54, 0x24, 0x08 } },	/* lea 0x8(%rsp),%r10 */
	{ 4, 0, false, { 0x41, 0xff, 0x72, 0xf8 } },	/* push -0x8(%r10) */
	{ 3, 1, false, { 0x48, 0x83, 0xe4 } },		/* and $imm8,%rsp */
	{ 3, 1, false, { 0x48, 0x83, 0xec } },		/* sub $imm8,%rsp */
	{ 3, 4, false, { 0x48, 0x81, 0xec } },		/* sub $imm32,%rsp */
};

/*
 * Length of the prologue instruction at p (left bytes readable), 0 when
 * it is none of the above; *push_bp once %rbp was pushed, *fp once the
 * frame pointer is set after that.
 */
static inline unsigned x86_64_setup_len(const uint8_t *p, uint64_t left, bool *push_bp, bool *fp)
{
	if (left >= 1 && p[0] >= 0x50 && p[0] <= 0x57) {	/* push %rax..%rdi */
		*push_bp |= p[0] == 0x55;			/* push %rbp */
		return 1;
	}
	if (left >= 2 && p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57)	/* push %r8..%r15 */
		return 2;
	for (unsigned i = 0; i < sizeof(x86_64_setup) / sizeof(x86_64_setup[0]); i++) {
		const struct x86_setup *s = &x86_64_setup[i];

		if (left < (uint64_t)s->len + s->imm || memcmp(p, s->bytes, s->len))
			continue;
		*fp |= s->fp && *push_bp;
		return s->len + s->imm;
	}
	return 0;
}

/*
 * clang -pg calls mcount as an ordinary call, after the prologue and after
 * copying the argument registers it needs into callee-saved ones or the frame:
 *   41 89 fe     mov %edi,%r14d         ([REX] 89 or 8b, ModRM mod 11)
 *   4c 89 4d d0  mov %r9,-0x30(%rbp)    ([REX] 89, ModRM mod 01 r/m 101, disp8)
 * Length of such a mov at p, else 0.
 */
static inline unsigned x86_64_regmov_len(const uint8_t *p, uint64_t left)
{
	unsigned rex = left >= 1 && (p[0] & 0xf0) == 0x40;

	if (left < rex + 2u || (p[rex] != 0x89 && p[rex] != 0x8b))
		return 0;
	if ((p[rex + 1] & 0xc0) == 0xc0)
		return rex + 2;
	if (p[rex] == 0x89 && (p[rex + 1] & 0xc7) == 0x45 && left >= rex + 3u)
		return rex + 3;
	return 0;
}

/* The 5-byte NOPs; the first, nopl 0x0(%rax,%rax,1), is what we write. */
static const uint8_t x86_nop5_forms[][5] = {
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x08 },
};

/* p (at least 5 bytes) is one of the 5-byte NOPs above. */
static inline int x86_is_nop5(const uint8_t *p)
{
	for (unsigned i = 0; i < sizeof(x86_nop5_forms) / sizeof(x86_nop5_forms[0]); i++)
		if (!memcmp(p, x86_nop5_forms[i], 5))
			return 1;
	return 0;
}

#endif
