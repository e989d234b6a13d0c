/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct patchsite_regs on riscv64: the frame the generic trampoline (tramp.S)
 * builds, read by arch.c and by regs.c (the probes' register map).
 */
#ifndef PS_FRAME_H
#define PS_FRAME_H

#include <stddef.h>

/* The frame tramp.S builds at sp (offsets used there). */
struct patchsite_regs {
	unsigned long a[8];			/* 0: a0..a7 */
	unsigned long *parent_loc;		/* 64 */
	unsigned long t2_6[5];			/* 72: t2 (the static chain)..t6 */
	unsigned long fa[8];			/* 112: fa0..fa7 (as stored by fsd) */
	unsigned long s0;			/* 176 */
	unsigned long w[3];			/* 184: stub word, resume, return address */
};

#endif
