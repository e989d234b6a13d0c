/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What generic runtime code needs from the host at run time, on x86-64:
 * the event clock and glibc's longjmp target.
 */
#ifndef PS_HOST_H
#define PS_HOST_H

#include <stdint.h>
#include <x86intrin.h>

/* A function reached by a ret, not a call: the stack may be misaligned by 8. */
#define PS_REACHED_BY_RET __attribute__((force_align_arg_pointer))

/* Does the loader leave every d_ptr of a dynamic section unrelocated (arch/dyn.h)? glibc relocates them where the dynamic section is writable. */
#define PS_DYN_READONLY 0

/* The TSC: constant and non-stop on the machines we target (core/clock.c converts it). */
static inline uint64_t ps_clock(void)
{
	return __rdtsc();
}

/* The TSC's rate is not architectural: core/clock.c measures it. */
static inline uint64_t ps_clock_hz(void)
{
	return 0;
}

/*
 * The stack pointer a longjmp to env restores: glibc keeps it in jmp_buf
 * word 6, mangled with the thread's pointer guard (%fs:0x30): xor, then
 * rotate left 17.
 */
static inline uintptr_t ps_longjmp_sp(const void *env)
{
	uintptr_t w = ((const uintptr_t *)env)[6], guard;

	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	return ((w >> 17) | (w << 47)) ^ guard;
}

/* arch/x86_64/cyg.S defines __cyg_profile_func_enter/exit (-finstrument-functions). */
#define PS_HAVE_CYG 1
void ps_x86_64_cyg_enter(void *fn, void *call_site);
#define PS_CYG_ENTER ps_x86_64_cyg_enter
#define PS_CYG_VERSION "GLIBC_2.2.5"	/* glibc's no-op definitions, which ours replace */

#endif
