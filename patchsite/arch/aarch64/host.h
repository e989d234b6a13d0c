/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What generic runtime code needs from the host at run time, on aarch64:
 * the event clock and glibc's longjmp target.
 */
#ifndef PS_HOST_H
#define PS_HOST_H

#include <stdint.h>

/* A function reached by a ret: sp is what the caller left, 16-byte aligned. */
#define PS_REACHED_BY_RET

/* Does the loader leave every d_ptr of a dynamic section unrelocated (arch/dyn.h)? glibc relocates them where the dynamic section is writable. */
#define PS_DYN_READONLY 0

/*
 * The generic timer's virtual count (cntvct_el0, readable at EL0 on Linux),
 * at the rate cntfrq_el0 gives (set by firmware, read-only at EL0).  The isb keeps the read from being done early, as the
 * kernel's __arch_counter_get_cntvct does.
 */
static inline uint64_t ps_clock(void)
{
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t ps_clock_hz(void)
{
	uint64_t v;

	__asm__("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

/*
 * The stack pointer a longjmp to env restores: glibc's aarch64 jmp_buf
 * keeps it in word 13 (JB_SP), xor'ed with the pointer guard, which ld.so
 * exports as __pointer_chk_guard (GLIBC_PRIVATE; weak here: without it
 * the target is unknown, 0, and record/unwind.c ignores it).
 */
extern uintptr_t __pointer_chk_guard __attribute__((weak));

static inline uintptr_t ps_longjmp_sp(const void *env)
{
	if (!&__pointer_chk_guard)
		return 0;
	return ((const uintptr_t *)env)[13] ^ __pointer_chk_guard;
}

/* arch/aarch64/cyg.S defines __cyg_profile_func_enter/exit (-finstrument-functions). */
#define PS_HAVE_CYG 1
void ps_aarch64_cyg_enter(void *fn, void *call_site);
#define PS_CYG_ENTER ps_aarch64_cyg_enter
#define PS_CYG_VERSION "GLIBC_2.17"	/* glibc's no-op definitions, which ours replace */

#endif
