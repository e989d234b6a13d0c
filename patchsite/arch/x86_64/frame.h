/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct patchsite_regs on x86_64: the frame the generic trampoline (tramp.S)
 * builds, read by arch.c and by regs.c (the probes' register map).
 */
#ifndef PS_FRAME_H
#define PS_FRAME_H

#include <stddef.h>

/* The register block the trampoline builds; offsets are used in tramp.S. */
struct patchsite_regs {
	unsigned long rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11;	/* 0 .. 64 */
	unsigned long *parent_loc;					/* 72 */
	unsigned long pad[2];						/* 80 */
	unsigned char xmm[8][16];					/* 96 .. 223 */
};

#endif
