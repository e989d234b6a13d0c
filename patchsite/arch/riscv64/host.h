/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What generic runtime code needs from the host at run time, on riscv64:
 * the event clock and glibc's longjmp target.
 */
#ifndef PS_HOST_H
#define PS_HOST_H

#include <stdint.h>

/* A function reached by a ret: sp is what the caller left, 16-byte aligned (the psABI's). */
#define PS_REACHED_BY_RET

/* Does the loader leave every d_ptr of a dynamic section unrelocated (arch/dyn.h)? glibc's DL_RO_DYN_SECTION: the ABI keeps .dynamic read-only, as MIPS does. */
#define PS_DYN_READONLY 1

/*
 * The time CSR (rdtime, Zicntr), which Linux lets user mode read (it sets
 * scounteren.TM, or emulates the read).  Its rate is the device tree's
 * timebase-frequency, which user space cannot read without /proc: 0 here,
 * core/clock.c measures it as on x86-64.
 */
static inline uint64_t ps_clock(void)
{
	uint64_t v;

	__asm__ volatile("rdtime %0" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t ps_clock_hz(void)
{
	return 0;
}

/*
 * The stack pointer a longjmp to env restores: glibc's riscv __jmp_buf is
 * { pc, s0..s11, sp, fs0..fs11 }, sp in word 13, not mangled (glibc has no
 * pointer guard on RISC-V).
 */
static inline uintptr_t ps_longjmp_sp(const void *env)
{
	return ((const uintptr_t *)env)[13];
}

#endif
