/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -finstrument-functions on aarch64 (gcc and clang): each instrumented
 * function calls __cyg_profile_func_enter(this_fn, call_site) after its
 * prologue and __cyg_profile_func_exit(this_fn, call_site) before it
 * returns (and from a cleanup while an exception unwinds it).  These are
 * ordinary calls (AAPCS64: the caller keeps nothing in x0..x18 or the low
 * vector registers' upper halves across them), so nothing is restored; we
 * define both (exported under glibc's GLIBC_2.17, whose no-op definitions
 * they take the place of) and hand ps_cyg_dispatch(this_fn, exit, regs,
 * call_site) a struct patchsite_regs laid out as tramp.S's frame (frame.h).
 *
 * regs->parent_loc, function_graph's frame key, is the function's sp at
 * the call (never written through: these frames hook nothing), as on
 * x86-64 (arch/x86_64/cyg.S): it lies within the function's own frame, so
 * a landing pad in the function itself does not close the call, and it is
 * the CFA of any function it calls, whose calls record/unwind.c closes
 * when an exception lands here.  key_slot is 0, not &a[2]: the argument
 * registers are this_fn and call_site, not the function's arguments
 * (patchsite_regs_arg says ENODATA).  `bti c`: reached through the PLT's
 * `br x17` (a NOP on cores without BTI).
 */
#define FRAME	304

	.macro	PS_CYG name, local, exit
	.globl	\name
	.type	\name, %function
	.globl	\local
	.hidden	\local
	.p2align 2
\name:
\local:
	.cfi_startproc
	bti	c
	sub	sp, sp, #FRAME
	.cfi_def_cfa_offset FRAME
	stp	x29, x30, [sp]
	.cfi_offset x29, -FRAME
	.cfi_offset x30, -FRAME + 8
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	str	x8, [sp, #80]
	add	x9, sp, #FRAME
	str	x9, [sp, #88]		/* parent_loc: the function's sp at its call */
	stp	q0, q1, [sp, #96]
	stp	q2, q3, [sp, #128]
	stp	q4, q5, [sp, #160]
	stp	q6, q7, [sp, #192]
	stp	x10, x11, [sp, #224]
	stp	x12, x13, [sp, #240]
	stp	x14, x15, [sp, #256]
	str	xzr, [sp, #272]		/* key_slot: no arguments here */
	mov	x3, x1			/* call_site */
	mov	w1, #\exit
	add	x2, sp, #16
	bl	ps_cyg_dispatch
	ldp	x29, x30, [sp]
	add	sp, sp, #FRAME
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	\name, . - \name
	.endm

	.text
	PS_CYG	__cyg_profile_func_enter, ps_aarch64_cyg_enter, 0
	PS_CYG	__cyg_profile_func_exit, ps_aarch64_cyg_exit, 1

	.section .note.GNU-stack, "", %progbits
