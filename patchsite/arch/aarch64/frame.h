/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * struct patchsite_regs on aarch64: the frame the generic trampoline (tramp.S)
 * builds, read by arch.c and by regs.c (the probes' register map).
 */
#ifndef PS_FRAME_H
#define PS_FRAME_H

#include <stddef.h>

/* The frame tramp.S builds at sp + 16 (offsets used there). */
struct patchsite_regs {
	unsigned long x[9];			/* 0: x0..x8 */
	unsigned long *parent_loc;		/* 72 */
	unsigned char q[8][16];			/* 80: q0..q7 */
	unsigned long x10_15[6];		/* 208: x10..x15 */
	unsigned long key_slot;			/* 256: sp at entry - 8 (aarch64_key_slot) */
	unsigned long a[3];			/* 264: stub word, resume, return address */
};

#endif
