/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86 NOPs a compiler or the kernel leaves where a function may be traced:
 * the one table the build tools (lib/arch/x86.c) and the runtime
 * (patchsite/arch_x86_64.c) read, so that both accept the same sites.
 *
 * 5 bytes, nopl disp8(%rax,%rax,1) (0f 1f /0 with SIB and disp8; any disp8
 * is the same NOP, Intel SDM vol. 2B "NOP"):
 *   0f 1f 44 00 00   gcc -mnop-mcount, binutils, the kernel's ftrace
 *   0f 1f 44 00 08   clang -fpatchable-function-entry=5 (LLVM's X86 NOP
 *                    of 5 bytes, checked with clang 14's objdump)
 * The first is what we write; the others are accepted where they are found.
 */
#ifndef X86_NOP_H
#define X86_NOP_H

#include <stdint.h>
#include <string.h>

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
