/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The common return probe's record at its hooked return, in assembly as
 * the graph tracer's exit word is.  A frame events/probe_fast.c hooked
 * (PS_FS_PROBE_FAST: its entry values integer registers, its fields those
 * and an integer $retval) returns to tramp.S's ps_x86_64_graph_return,
 * which checks it is the top frame and that the time stamp is in this
 * stretch, and calls this.  The record is written straight into the ring
 * with the probe's precomputed layout (events/probe_hits.h struct
 * ps_probe_fast, packed as events/probe_fast.h ps_probe_put does), the
 * frame popped and the real return address put back in the slot.
 * Anything else answers 1 before anything is written (no thread yet, a
 * recursion, tracing off, the event disabled, gone, filtered or with
 * another probe, no room), and the trampoline goes on to graph.c's C path,
 * which handles any frame (record/retprobe.c).
 *
 * The C version (about 95 instructions and a call with three more
 * registers saved) spent them on the compiler's register saves and the
 * general loop; here the six registers the trampoline already saved are
 * enough but for two (r9: the thread, r10: the previous field's word).  As the C did: the thread's recursion guard is held
 * (a signal handler's probe goes to the generic path, which counts it
 * missed; it would write at the same ring position) and it is a reader in
 * the grace-period sense (its seq odd) while it reads the event's probe
 * list.  x86-64 keeps stores in order: the record's words are stored
 * before the write pointer and the seq that end it.  No vector register
 * is touched (xmm0/xmm1 and st0 may hold the function's return value).
 *
 * In:  %rdi x (struct ps_fslow), %eax the time stamp's lower half, %rcx
 *      ps_fast's TLS offset; the stack (after the call) 8 r8, 16 rdi,
 *      24 rsi, 32 rcx, 40 rdx, 48 rax (the return value), 56 the slot.
 * Out: %eax 0 recorded, 1 the C path.  Clobbers rax, rcx, rdx, rsi, rdi,
 *      r8 (the trampoline restores them).
 * The offsets it reads by are asm_offsets.h's (events/probe_tramp_layout.c
 * checks them against the C).
 */
#include "asm_offsets.h"

#if !defined(__SANITIZE_THREAD__)

/* the caller's saved registers, once r9 is pushed too */
#define RETVAL		56
#define SLOT		64

	.text
	.globl	ps_retprobe_fast_exit
	.hidden	ps_retprobe_fast_exit
	.type	ps_retprobe_fast_exit, @function
	.p2align 4
ps_retprobe_fast_exit:
	.cfi_startproc
/* t = ps_self: set up, and not inside another record of this thread */
	movq	ps_self@gottpoff(%rip), %rsi
	movq	%fs:(%rsi), %rsi
	testq	%rsi, %rsi
	jz	1f
	cmpl	$0, PST_DEPTH(%rsi)
	jne	1f
	pushq	%r9
	.cfi_adjust_cfa_offset 8
	movq	%rsi, %r9
	movl	$1, PST_DEPTH(%r9)
	addq	$1, PST_SEQ(%r9)		/* odd: reading the event's probe list */
	cmpb	$0, ps+PS_TRACING_ON(%rip)
	je	2f
/* pf = x->rfast, its event recorded by the recorder alone, unfiltered */
	movq	FS_RFAST(%rdi), %r8
	movq	PRF_EV(%r8), %rsi
	movq	EV_PROBES(%rsi), %rdx
	testq	%rdx, %rdx
	jz	2f
	cmpb	$0, EV_GONE(%rsi)
	jne	2f
	cmpl	$1, PL_N(%rdx)
	jne	2f
	cmpq	%rsi, PL_DATA(%rdx)
	jne	2f
	cmpq	$0, EV_FILTER(%rsi)
	jne	2f
	leaq	ps_event_record(%rip), %rsi
	cmpq	%rsi, PL_FN(%rdx)
	jne	2f
/* room: budget >= units, then taken */
	movzbl	PRF_UNITS(%r8), %esi
	movl	%fs:PSF_BUDGET(%rcx), %edx
	subl	%esi, %edx
	jl	2f
	movl	%edx, %fs:PSF_BUDGET(%rcx)
/* the head word and the id; %rdx the payload (wp + 1) */
	movq	%fs:PSF_WP(%rcx), %rdx
	shlq	$32, %rax
	orq	PRF_HEAD(%r8), %rax
	movq	%rax, (%rdx)
	addq	$8, %rdx
	movq	PRF_EV(%r8), %rax
	movl	EV_ID(%rax), %eax
	movq	%rax, (%rdx)
/*
 * Field i (%esi) into payload word word[i] (%ecx): its value (edata[reg[i]],
 * or the return value) masked and shifted; the first field of a word
 * stores it whole, the others add to it (%r10d: the previous field's
 * word), so no word is cleared first.
 */
	xorl	%esi, %esi
	cmpb	$0, PRF_N(%r8)
	je	5f
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	xorl	%r10d, %r10d		/* the previous field's word: the id's (0) at first */
3:	movzbl	PRF_REG(%r8,%rsi), %eax
	cmpl	$PRF_RETVAL, %eax
	je	6f
	cmpl	$PRF_CALLER, %eax
	je	8f
	movq	(%rdi,%rax,8), %rax
4:	andq	PRF_MASK(%r8,%rsi,8), %rax
	movzbl	PRF_POS(%r8,%rsi), %ecx
	shlq	%cl, %rax
	movzbl	PRF_WORD(%r8,%rsi), %ecx
	cmpl	%ecx, %r10d
	jne	7f
	orq	(%rdx,%rcx,8), %rax
7:	movq	%rax, (%rdx,%rcx,8)
	movl	%ecx, %r10d
	addl	$1, %esi
	cmpb	PRF_N(%r8), %sil
	jb	3b
	popq	%r10
	.cfi_adjust_cfa_offset -8
/* the words are stored: the write pointer past them, the section ended */
5:	movzbl	PRF_WORDS(%r8), %eax
	leaq	(%rdx,%rax,8), %rax
	movq	ps_fast@gottpoff(%rip), %rcx
	movq	%rax, %fs:PSF_WP(%rcx)
	addq	$1, PST_SEQ(%r9)
	movl	$0, PST_DEPTH(%r9)
/* the slot's real return address before the frame goes: a signal's frames go above it */
	movq	%fs:PSF_FP(%rcx), %rdx
	movq	-24(%rdx), %rax
	movq	%rax, SLOT(%rsp)
	subq	$24, %fs:PSF_FP(%rcx)
	xorl	%eax, %eax
	popq	%r9
	.cfi_adjust_cfa_offset -8
	ret
/* the C path, nothing written */
2:	.cfi_adjust_cfa_offset 8
	addq	$1, PST_SEQ(%r9)
	movl	$0, PST_DEPTH(%r9)
	popq	%r9
	.cfi_adjust_cfa_offset -8
1:	movl	$1, %eax
	ret
/* $retval: the saved rax (the stack moved by the pushed r10) */
6:	.cfi_adjust_cfa_offset 16
	movq	RETVAL+8(%rsp), %rax
	jmp	4b
/* the caller: the top frame's saved return address (no tracer: never the graph's hook) */
8:	movq	ps_fast@gottpoff(%rip), %rax
	movq	%fs:PSF_FP(%rax), %rax
	movq	-24(%rax), %rax
	jmp	4b
	.cfi_endproc
	.size	ps_retprobe_fast_exit, . - ps_retprobe_fast_exit

#endif
	.section .note.GNU-stack, "", %progbits
