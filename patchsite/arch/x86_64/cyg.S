/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * -finstrument-functions (gcc and clang): each instrumented function calls
 * __cyg_profile_func_enter(this_fn, call_site) after its prologue and
 * __cyg_profile_func_exit(this_fn, call_site) before it returns (and from a
 * cleanup while an exception unwinds it).  These are ordinary calls, so the
 * caller keeps nothing in the registers the ABI lets a callee clobber; we
 * define both (exported under glibc's version, whose no-op definitions they
 * take the place of) and hand ps_cyg_dispatch(this_fn, exit, regs) a struct
 * patchsite_regs (arch.c) like the generic trampoline's.
 *
 * call_site (the function's return address into its caller) is the
 * parent, passed on as it is.  regs->parent_loc, function_graph's frame
 * key, is the function's %rsp at the call (never written through: these
 * frames hook nothing).  It is the same at the enter and the exit of one
 * activation while the function's %rsp is (the usual case), as an entry
 * site's slot is for its exit sites, and it lies within the function's own
 * frame, so a landing pad in the function itself (its cleanup calling
 * __cyg_profile_func_exit during unwinding) does not close the call
 * (record/unwind.c closes the frames below the landing's stack pointer).
 */
	.macro	PS_CYG name, local, exit
	.globl	\name
	.type	\name, @function
	.globl	\local
	.hidden	\local
	.p2align 4
\name:
\local:
	.cfi_startproc
	endbr64
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$224, %rsp
	andq	$-16, %rsp
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movq	%rax, 48(%rsp)
	movq	%r10, 56(%rsp)
	movq	%r11, 64(%rsp)
	leaq	16(%rbp), %rax
	movq	%rax, 72(%rsp)	/* parent_loc: the function's %rsp at its call */
	.irp	i, 0, 1, 2, 3, 4, 5, 6, 7
	movaps	%xmm\i, 96 + 16 * \i(%rsp)
	.endr
	movq	%rsi, %rcx	/* call_site */
	movl	$\exit, %esi
	movq	%rsp, %rdx
	call	ps_cyg_dispatch
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	\name, . - \name
	.endm

	.text
	PS_CYG	__cyg_profile_func_enter, ps_x86_64_cyg_enter, 0
	PS_CYG	__cyg_profile_func_exit, ps_x86_64_cyg_exit, 1

	.section .note.GNU-stack, "", %progbits
