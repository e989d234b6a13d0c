/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The common entry probe, recorded in assembly (issue 27's speed goal:
 * the function tracer's cost + 10 ns).  events/probe_fast.c's C path
 * (hit) did the same in about 185 instructions, most of them its checks
 * and the values' packing through the generic loop; here the checks are
 * the same, in the same order, and the packing keeps the word being
 * built in a register.
 *
 * ps_x86_64_probe_fast is what the probe trampoline is (arch.c
 * tramp_probe).  It takes a hit only when everything probe_fast.c's hit
 * would record straight is there: the thread set up and not in a
 * recursion, the site's one probe with a fast layout, its event's
 * recorder alone and unfiltered, the time stretch the same and room in the
 * budget.  A return probe's entry (pf->ret) calls probe_fast.c's
 * ret_entry from there (ps_probe_fast_ret), which hooks the return.  For
 * anything else it restores the registers and jumps, as the stub would
 * have, to tramp.S's ps_x86_64_probe_entry, whose C path decides again
 * (marks, lost events, filters, return probes) and whose own fallback is
 * the generic trampoline.  A disabled or gone event, or tracing off,
 * records nothing here, as in the C path.
 *
 * The record is the one probe_fast.c writes (PSD_EXT_EVENT, or
 * PSD_EXT_EVENT_PACKED when the fields fit beside the id: patchsite-
 * data(5)): the mark word pf->head with the time stamp's lower half, then
 * the payload words, word 0 the event's id, field i being saved register
 * reg[i] masked (mask[i]) at bit pos[i] of payload word word[i] (words in
 * order, none skipped: probe.c fast_of and fast_packed); a packed
 * record's first fields share word 0 with the id.
 *
 * The thread is a reader in the grace-period sense (t->seq odd) while it
 * reads the hit table and the event, and holds its recursion guard
 * (t->depth) as the C path does, with plain stores: only the thread
 * writes them, and no locked instruction is needed on x86-64 for the
 * reader side (the writer's sync is ps_sync_dispatchers').
 *
 * The offsets it reads by are asm_offsets.h's (events/probe_tramp_layout.c
 * checks them against the C).
 */
#include "asm_offsets.h"

#ifndef __SANITIZE_THREAD__
	.text
	.globl	ps_x86_64_probe_fast
	.hidden	ps_x86_64_probe_fast
	.type	ps_x86_64_probe_fast, @function
	.p2align 4
/*
 * Stack on entry: 0 the stub's id << 2, 8 return into the function, 16
 * into its caller.  The nine pushes lay the call-clobbered general
 * registers out in struct patchsite_regs' order (rdi at 0 .. r11 at 64,
 * the id at 72), the frame probe_fast.c reads, so reg[i] indexes it.
 */
ps_x86_64_probe_fast:
	.cfi_startproc
	.cfi_def_cfa_offset 16
	.irp	r, r11, r10, rax, r9, r8, rcx, rdx, rsi, rdi
	pushq	%\r
	.cfi_adjust_cfa_offset 8
	.endr
/* t = ps_self: set up, not in a recursion; then the guard and the reader section */
	movq	ps_self@gottpoff(%rip), %rax
	movq	%fs:(%rax), %r8
	testq	%r8, %r8
	jz	9f
	cmpl	$0, PST_DEPTH(%r8)
	jne	9f
	movl	$1, PST_DEPTH(%r8)
	addq	$1, PST_SEQ(%r8)	/* odd: only this thread writes it */
	cmpb	$0, ps+PS_TRACING_ON(%rip)
	je	7f			/* as the dispatcher: nothing called */
/*
 * h: an entry of the sorted table with the site's id.  Several on a site
 * are all marked not fast, so any of them will do: the range [base, base +
 * len) keeps the id while it is halved, one compare a step, no branch.
 */
	movq	ps_probe_hits(%rip), %rsi
	testq	%rsi, %rsi
	jz	8f
	movl	72(%rsp), %edx
	shrl	$2, %edx		/* the stub pushed id << 2 */
	movq	HITS_N(%rsi), %rdi	/* len */
	addq	$HITS_E, %rsi		/* base */
	testq	%rdi, %rdi
	jz	8f
1:	cmpq	$1, %rdi
	jbe	2f
	movq	%rdi, %rax
	shrq	$1, %rax		/* half */
	imulq	$HIT_SIZE, %rax, %r9
	addq	%rsi, %r9		/* mid = base + half */
	subq	%rax, %rdi		/* len - half: from mid on */
	cmpl	%edx, HIT_ID(%r9)
	cmovbeq	%r9, %rsi		/* mid's id <= id: from mid on */
	cmovaq	%rax, %rdi		/* else: before mid, half of them */
	jmp	1b
2:	cmpl	%edx, HIT_ID(%rsi)
	jne	8f
	addq	$HIT_FAST, %rsi		/* pf */
/* a fast probe (several on a site: none is) with a field (n - 1 below PRF_NO - 1) */
	movzbl	PRF_N(%rsi), %r9d
	leal	-1(%r9), %eax
	cmpl	$PRF_NO - 1, %eax
	jae	8f
/* its event enabled, recorded alone, unfiltered */
	movq	PRF_EV(%rsi), %rdi
	movq	EV_PROBES(%rdi), %rax
	testq	%rax, %rax
	jz	7f			/* disabled: nothing fetched */
	cmpb	$0, EV_GONE(%rdi)
	jne	7f
	cmpl	$1, PL_N(%rax)
	jne	8f
	cmpq	%rdi, PL_DATA(%rax)
	jne	8f
	leaq	ps_event_record(%rip), %rdx
	cmpq	%rdx, PL_FN(%rax)
	jne	8f
	cmpq	$0, EV_FILTER(%rdi)
	jne	8f
	cmpb	$0, PRF_RET(%rsi)
	jne	10f
/* the time stretch and the ring's room (else the C path marks or finds them) */
	movq	ps_fast@gottpoff(%rip), %rcx
	rdtsc
	cmpl	%edx, %fs:PSF_HI(%rcx)
	jne	8f
	movzbl	PRF_UNITS(%rsi), %edx
	movl	%fs:PSF_BUDGET(%rcx), %r8d
	subl	%edx, %r8d
	jl	8f			/* budget < units, signed as in C */
	movl	%r8d, %fs:PSF_BUDGET(%rcx)
/* the record: head word, then the id word and the fields, built a word at a time in %rax */
	movq	%fs:PSF_WP(%rcx), %r10
	shlq	$32, %rax
	orq	PRF_HEAD(%rsi), %rax
	movq	%rax, (%r10)
	movl	EV_ID(%rdi), %eax	/* payload word 0: the id, zero-extended */
	movq	%rcx, %rdi		/* ps_fast's offset; %cl is the shift below */
	xorl	%r11d, %r11d		/* the payload word %rax is */
	xorl	%r8d, %r8d		/* i; n >= 1 */
4:	movzbl	PRF_WORD(%rsi,%r8), %edx
	cmpl	%r11d, %edx
	je	5f
	movq	%rax, 8(%r10,%r11,8)	/* the field starts the next word */
	movl	%edx, %r11d
	xorl	%eax, %eax
5:	movzbl	PRF_REG(%rsi,%r8), %edx
	movq	(%rsp,%rdx,8), %rdx
	andq	PRF_MASK(%rsi,%r8,8), %rdx
	movzbl	PRF_POS(%rsi,%r8), %ecx
	shlq	%cl, %rdx
	orq	%rdx, %rax
	addl	$1, %r8d
	cmpl	%r9d, %r8d
	jb	4b
6:	movq	%rax, 8(%r10,%r11,8)
	movzbl	PRF_WORDS(%rsi), %edx
	leaq	8(%r10,%rdx,8), %r10
	movq	%r10, %fs:PSF_WP(%rdi)	/* after the words: the writer's release */
/* done: out of the reader section, the guard dropped, the call goes on */
7:	movq	ps_self@gottpoff(%rip), %rax
	movq	%fs:(%rax), %r8
	addq	$1, PST_SEQ(%r8)
	movl	$0, PST_DEPTH(%r8)
	.irp	r, rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11
	popq	%\r
	.cfi_adjust_cfa_offset -8
	.endr
	leaq	8(%rsp), %rsp		/* drop the id; keeps flags */
	.cfi_adjust_cfa_offset -8
	ret
/* anything else: out of the section, then the C path as if the stub had come there */
8:	.cfi_adjust_cfa_offset 80
	movq	ps_self@gottpoff(%rip), %rax
	movq	%fs:(%rax), %r8
	addq	$1, PST_SEQ(%r8)
	movl	$0, PST_DEPTH(%r8)
9:	.irp	r, rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11
	popq	%\r
	.cfi_adjust_cfa_offset -8
	.endr
	jmp	ps_x86_64_probe_entry
/*
 * A return probe: probe_fast.c's ret_entry keeps its entry values and
 * hooks the return, still in the reader section (the nine pushes keep the
 * call aligned, and r the frame it reads); non-zero: the C path.
 */
10:	.cfi_adjust_cfa_offset 72
	leaq	-HIT_FAST(%rsi), %rdi
	movq	%rsp, %rsi
	call	ps_probe_fast_ret
	testl	%eax, %eax
	jnz	8b
	jmp	7b
	.cfi_endproc
	.size	ps_x86_64_probe_fast, . - ps_x86_64_probe_fast
#endif

	.section .note.GNU-stack, "", %progbits
