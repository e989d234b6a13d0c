/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86 encodings both the build tools (lib/arch/x86.c) and the runtime
 * (patchsite/x86_64/arch.c) read or write: one copy, so that both accept
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
