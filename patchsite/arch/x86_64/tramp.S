/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86-64 trampolines (arch.c describes the sites, the stubs and struct
 * patchsite_regs, and checks the layouts used here).  The generic one,
 * ps_x86_64_tramp, saves the argument registers and xmm0-7 into struct
 * patchsite_regs and calls ps_dispatch(id, ret, regs); the fast ones
 * (function, function_graph entry, return hook, exit sites) write ring
 * words themselves through the ps_fast TLS and call the C halves declared
 * in arch/entry.h only when their budget or time stretch runs out.
 */

/* The offsets it reads structures by (function, graph, profile): asm_offsets.h. */
#include "asm_offsets.h"

/*
 * The pieces every trampoline repeats, as assembler macros.
 *   PS_PUSH/PS_POP r...    push or pop registers, keeping the CFI right
 *   PS_GPRS save|load      the 9 argument and scratch registers of struct
 *                          patchsite_regs at 0..64(%rsp)
 *   PS_XMM save|load, off  xmm0-7 at off..off+127(%rsp) (16-byte aligned)
 *   PS_FAST_ENTER r...     save r..., %rcx = ps_fast's TLS offset
 *   PS_FAST_STAMP          rdtsc, to 9f (the slow path) if the time stamp's
 *                          upper half is not the one of this stretch
 *   PS_FAST_TAKE           one entry of the budget, else 9f
 *   PS_FAST_LEAVE          8: restore, drop the stub's id, return;
 *                          9: the slow path, slow(arg(%rsp)) through
 *                          ps_x86_64_call_saved, then back to 8
 * After PS_FAST_STAMP, %eax:%edx is the time stamp.
 */
/*
 * .Lps_f: 8 while assembling a fast path for no-flag sites, which keeps the
 * flags in a slot below the id (PS_FAST_FLAGS): the stack offsets of the id
 * and the return slot move by it, and PS_FAST_LEAVE loads them last.
 */
	.set	.Lps_f, 0
	.macro	PS_PUSH regs:vararg
	.irp	r, \regs
	pushq	%\r
	.cfi_adjust_cfa_offset 8
	.endr
	.endm
	.macro	PS_POP regs:vararg
	.irp	r, \regs
	popq	%\r
	.cfi_adjust_cfa_offset -8
	.endr
	.endm
	.macro	PS_GPRS op
	.set	.Lps_off, 0
	.irp	r, rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11
	.ifc	\op, save
	movq	%\r, .Lps_off(%rsp)
	.else
	movq	.Lps_off(%rsp), %\r
	.endif
	.set	.Lps_off, .Lps_off + 8
	.endr
	.endm
	.macro	PS_XMM op, off
	.irp	i, 0, 1, 2, 3, 4, 5, 6, 7
	.ifc	\op, save
	movaps	%xmm\i, \off + 16 * \i(%rsp)
	.else
	movaps	\off + 16 * \i(%rsp), %xmm\i
	.endif
	.endr
	.endm
	.macro	PS_FAST_ENTER regs:vararg
	PS_PUSH	\regs
	movq	ps_fast@gottpoff(%rip), %rcx
	.endm
	.macro	PS_FAST_STAMP
	rdtsc
	cmpl	%edx, %fs:PSF_HI(%rcx)
	jne	9f
	.endm
	.macro	PS_FAST_TAKE
	subl	$1, %fs:PSF_BUDGET(%rcx)
	js	9f
	.endm
/* Room for an event of size bytes at %rdx; %rax = tsc_lo << 32 | the stub's id word. */
	.macro	PS_FAST_WORD size
	movq	%fs:PSF_WP(%rcx), %rdx
	addq	$\size, %fs:PSF_WP(%rcx)
	shlq	$32, %rax
	orq	24 + .Lps_f(%rsp), %rax
	.endm
/* saved: bytes PS_FAST_ENTER pushed; rdi: 1 if it saved %rdi, else the slow path does */
	.macro	PS_FAST_LEAVE slow, arg, saved, rdi, regs:vararg
8:	.if	.Lps_f
	PS_FAST_FLAGS_LOAD (\saved-8)
	.endif
	PS_POP	\regs
	leaq	8 + .Lps_f(%rsp), %rsp	/* drop the id (and the flags' slot); keeps flags */
	.cfi_adjust_cfa_offset -8 - .Lps_f
	ret
9:	.cfi_adjust_cfa_offset \saved + 8
	.if	\rdi == 0
	PS_PUSH	rdi
	.endif
	leaq	\arg(%rsp), %rdi
	leaq	\slow(%rip), %rax
	call	ps_x86_64_call_saved
	.if	\rdi == 0
	PS_POP	rdi
	.endif
	jmp	8b
	.endm
	.macro	PS_FUNC name
	.globl	\name
	.hidden	\name
	.type	\name, @function
	.p2align 4
\name:
	.cfi_startproc
	.endm
	.macro	PS_ENDFUNC name
	.cfi_endproc
	.size	\name, . - \name
	.endm
/*
 * off (off32: its lower half): 24 n, n a frame's index in t's shadow
 * stack (t: struct ps_thread); off = &t->fslow[n].  24 n times the inverse of 3 modulo 2^32 is 8 n
 * (24 n is far below 2^32), scaled by 8 in the address: 64 n.
 */
	.macro	PS_PROF_SLOW off, off32, t
	imull	$0xaaaaaaab, %\off32, %\off32
	movq	PST_FSLOW(%\t), %\t
	leaq	(%\t,%\off,8), %\off
	.endm

	.text
/*
 * 0(%rsp): site id (from the stub), 8: return into the function, 16:
 * into its caller.  The id is part of this frame for the unwinder
 * (CFA = %rsp + 16 at entry, as in the fast paths): a walk from inside
 * an ops callback (the stacktrace filter command, a C++ throw) goes on
 * into the function, not to the id as if it were a return address.
 */
	PS_FUNC	ps_x86_64_tramp
	.cfi_def_cfa_offset 16
	endbr64
	pushq	%rbp
	.cfi_def_cfa_offset 24
	.cfi_offset %rbp, -24
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$224, %rsp
	andq	$-16, %rsp
	PS_GPRS	save
	leaq	24(%rbp), %rax
	movq	%rax, 72(%rsp)
	PS_XMM	save, 96
	movl	8(%rbp), %edi
	shrl	$2, %edi	/* the stub pushed id << 2 */
	movq	16(%rbp), %rsi
	movq	%rsp, %rdx
	call	ps_dispatch
	PS_XMM	load, 96
	PS_GPRS	load
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 16
	leaq	8(%rsp), %rsp	/* drop the id; keeps flags */
	.cfi_def_cfa_offset 8
	ret
	PS_ENDFUNC ps_x86_64_tramp

/*
 * The fast trampolines.  Stack on entry: 0 the stub's id << 2, 8 return
 * into the traced function, 16 return into its caller.  PSF_* are the
 * offsets in struct ps_fast; the shadow frame is { ret, key, idw }.
 */
	.text
/*
 * The vector state a call into C may change, by what the OS enables
 * (ps_x86_64_vec, noflag.c): 0 xmm0-15; 1 (AVX) ymm0-15; 2 (AVX-512)
 * zmm0-31 and k0-7; and MXCSR.  At 0(%rsp), PS_VEC_AREA bytes, 64-aligned.
 * Plain moves: XSAVE/XRSTOR cost 400-700 ns a pair on the machines we
 * measured (noflag.c).  The x87 stack is empty at every call (the ABI; gcc's
 * reg-stack pass keeps it so), so it holds nothing live across one.
 * Clobbers %eax and the flags (both saved before).
 */
	.set	PS_VEC_AREA, 2176
/* One kind of register, saved to or loaded from base + size * i(%rsp). */
	.macro	PS_VEC_MOVE op, insn, reg, base, size, regs:vararg
	.irp	i, \regs
	.ifc	\op, save
	\insn	%\reg\i, \base + \size * \i(%rsp)
	.else
	\insn	\base + \size * \i(%rsp), %\reg\i
	.endif
	.endr
	.endm
	.macro	PS_VEC op
	.ifc	\op, save
	stmxcsr	2112(%rsp)
	.endif
	movzbl	ps_x86_64_vec(%rip), %eax
	cmpl	$1, %eax
	je	31f
	ja	32f
	PS_VEC_MOVE \op, movaps, xmm, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	jmp	33f
31:	PS_VEC_MOVE \op, vmovdqa, ymm, 0, 32, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	jmp	33f
32:	PS_VEC_MOVE \op, vmovdqa64, zmm, 0, 64, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, \
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	PS_VEC_MOVE \op, kmovq, k, 2048, 8, 0, 1, 2, 3, 4, 5, 6, 7
33:
	.ifc	\op, load
	ldmxcsr	2112(%rsp)
	.endif
	.endm

/*
 * Call *%rax(%rdi) keeping rsi, r8-r11, xmm0-7 (the caller saved rax, rcx,
 * rdx, rdi); once a no-flag stub is written (ps_x86_64_vec_all, noflag.c)
 * the whole vector state (PS_VEC) instead of xmm0-7.
 */
	.p2align 4
	.type	ps_x86_64_call_saved, @function
ps_x86_64_call_saved:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	.irp	r, rsi, r8, r9, r10, r11	/* the CFA is %rbp-based here */
	pushq	%\r
	.endr
	cmpb	$0, ps_x86_64_vec_all(%rip)
	jne	1f
	subq	$128, %rsp
	andq	$-16, %rsp
	PS_XMM	save, 0
	call	*%rax
	PS_XMM	load, 0
	jmp	2f
1:	pushq	%rax			/* -48(%rbp): PS_VEC takes %eax */
	subq	$PS_VEC_AREA, %rsp
	andq	$-64, %rsp
	PS_VEC	save
	movq	-48(%rbp), %rax
	call	*%rax
	PS_VEC	load
2:	leaq	-40(%rbp), %rsp
	.irp	r, r11, r10, r9, r8, rsi
	popq	%\r
	.endr
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	ps_x86_64_call_saved, . - ps_x86_64_call_saved

/*
 * The entry paths save rax, rdx (rdtsc) and rcx, and work with rdx
 * once the time stamp's upper half is checked; only their slow paths
 * need rdi (the argument), and save it themselves.  Stack after the
 * three pushes: 24 the stub's id << 2, 32 return into the function,
 * 40 into its caller.
 */
/*
 * Each fast entry is assembled twice: for compiler sites, and for no-flag
 * sites whose stub slot is at the function's entry (forms a, c and p;
 * noflag.c).  Their stack on entry is a compiler site's (the id, the
 * return into the out-of-line stub, the return into the caller), and the
 * fast path keeps every register but the three it saves and restores, and
 * no vector register (its slow path keeps them all once a no-flag stub is
 * written: ps_x86_64_vec_all).  What differs is the flags: the ABI says no
 * caller keeps them across a call (gcc's -fipa-ra counts the flags among
 * the fixed registers every call clobbers), but hand-written assembly that
 * passes a carry into a helper is no compiler's code, and the site proof
 * does not look for it.  So the no-flag entries keep the ones they change
 * (PS_FAST_FLAGS), as ps_x86_64_tramp_noflag keeps them all.  (The hooked
 * return, ps_x86_64_graph_return, does not: a helper that hands a flag
 * back to its caller is not detected yet.)
 */
	.macro	PS_FAST_FLAGS f
	.set	.Lps_f, \f
	.if	\f
	leaq	-8(%rsp), %rsp	/* the flags' slot; lea keeps them */
	.cfi_adjust_cfa_offset 8
	.endif
	.endm
/*
 * The arithmetic flags, the only ones a fast path changes (DF, IF, TF and
 * AC stay), kept without pushfq/popfq: popfq alone cost 6-7 ns a call on
 * the bench loop.  lahf takes SF, ZF, AF, PF and CF into %ah, seto OF into
 * %al (after PS_FAST_ENTER saved %rax); back, 0x7f + %al overflows exactly
 * when OF was set, and sahf then sets the other five.
 */
	.macro	PS_FAST_FLAGS_SAVE off
	seto	%al
	lahf
	movw	%ax, \off(%rsp)
	.endm
	.macro	PS_FAST_FLAGS_LOAD off
	movzwl	\off(%rsp), %eax
	addb	$0x7f, %al
	sahf
	.endm

/* function: word = tsc_lo << 32 | id << 2 | PS_EV_FUNC, then the parent address. */
	.macro	PS_FUNC_ENTRY name, f
	PS_FUNC	\name
	.cfi_def_cfa_offset 16
	PS_FAST_FLAGS \f
	PS_FAST_ENTER rax, rdx, rcx
	.if	\f
	PS_FAST_FLAGS_SAVE 24
	.endif
	PS_FAST_STAMP
	PS_FAST_TAKE
	PS_FAST_WORD 16
	orq	$2, %rax	/* PS_EV_FUNC */
	movq	%rax, (%rdx)
	movq	40 + \f(%rsp), %rax
	movq	%rax, 8(%rdx)
	PS_FAST_LEAVE ps_func_entry_slow, 32 + \f, 24 + \f, 0, rcx, rdx, rax
	PS_ENDFUNC \name
	.set	.Lps_f, 0
	.endm
	PS_FUNC_ENTRY ps_x86_64_func_entry, 0
	PS_FUNC_ENTRY ps_x86_64_func_noflag, 8

/* function_graph entry: event, shadow frame, return address hooked. */
	.macro	PS_GRAPH_ENTRY name, f
	PS_FUNC	\name
	.cfi_def_cfa_offset 16
	PS_FAST_FLAGS \f
	PS_FAST_ENTER rax, rdx, rcx
	.if	\f
	PS_FAST_FLAGS_SAVE 24
	.endif
/* A return slot off the thread's own stack (a coroutine's, sigaltstack) is not hooked. */
	leaq	40 + \f(%rsp), %rdx
	subq	%fs:PSF_STACK_LO(%rcx), %rdx
	cmpq	%fs:PSF_STACK_SIZE(%rcx), %rdx
	jae	9f
	PS_FAST_STAMP
	PS_FAST_TAKE
	PS_FAST_WORD 8
	movq	%rax, (%rdx)	/* entry event */
	movq	%fs:PSF_FP(%rcx), %rdx
	addq	$24, %fs:PSF_FP(%rcx)
	orl	$1, %eax	/* PS_EV_EXIT; zero-extends */
	movq	%rax, 16(%rdx)	/* frame.idw */
	movq	40 + \f(%rsp), %rcx
	movq	%rcx, 0(%rdx)	/* frame.ret */
	leaq	16 + \f(%rsp), %rcx
	movq	%rcx, 8(%rdx)	/* frame.key: &ret - PS_FRAME_KEY_BIAS */
	leaq	ps_x86_64_graph_return(%rip), %rcx
	movq	%rcx, 40 + \f(%rsp)
	PS_FAST_LEAVE ps_graph_entry_slow, 32 + \f, 24 + \f, 0, rcx, rdx, rax
	PS_ENDFUNC \name
	.set	.Lps_f, 0
	.endm
	PS_GRAPH_ENTRY ps_x86_64_graph_entry, 0
	PS_GRAPH_ENTRY ps_x86_64_graph_noflag, 8

/*
 * A hooked function returns here, with %rsp just above the slot that
 * held its return address: reuse the slot for the real one (at
 * 24(%rsp) once rax, rdx, rcx are saved; that %rsp is the frame's
 * key).  rax/rdx (return values) are saved; xmm0/xmm1 are not
 * touched on the fast path.
 *
 * It leaves with an indirect jmp, not ret.  The hooked ret that came
 * here was mispredicted: the CPU's return stack expected the caller,
 * and popped it.  Another ret would pop the next, older prediction and
 * miss again, and so would every return above it; the jmp keeps the
 * return stack in step with the real calls.
 */
	PS_FUNC	ps_x86_64_graph_return
	.cfi_def_cfa_offset 0
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	PS_FAST_ENTER rax, rdx, rcx
	PS_FAST_STAMP
	movq	%fs:PSF_FP(%rcx), %rdx
	cmpq	%rsp, -16(%rdx)	/* top frame's key */
#ifndef __SANITIZE_THREAD__
	jne	6f
#else
	jne	9f
#endif
	shlq	$32, %rax
	orq	-8(%rdx), %rax	/* exit event */
	movq	-24(%rdx), %rdx
	movq	%rdx, 24(%rsp)	/* the real return address */
	movq	%fs:PSF_WP(%rcx), %rdx
	movq	%rax, (%rdx)
	addq	$8, %fs:PSF_WP(%rcx)
	subq	$24, %fs:PSF_FP(%rcx)
8:	PS_POP	rcx, rdx, rax
	leaq	8(%rsp), %rsp
	.cfi_adjust_cfa_offset -8
	jmp	*-8(%rsp)
#ifndef __SANITIZE_THREAD__
/*
 * Not the top frame's key as the fast path writes it.  function_profile's
 * frames (key bit PS_FRAME_SLOW) are counted here, in full, when their
 * slow info (x, parallel to the frame) says a profile call of this reset
 * generation: the counting of record/profile_counters.h (prof_to_caller,
 * prof_count, hist_add) done again in assembly, as the graph tracer's
 * words are, with three more registers saved and no call.  Anything else
 * (4:) goes on to the C path.  Stack after the pushes: 24 the key
 * (%rsp above), 48 the slot; %eax the time stamp's lower half, %rdx
 * f->fp.
 */
6:	.cfi_def_cfa_offset 32
	PS_PUSH	rsi, rdi, r8
	leaq	24+PS_FRAME_SLOW(%rsp), %rsi
	cmpq	%rsi, -16(%rdx)
	jne	4f
	movq	%fs:PSF_T(%rcx), %rsi	/* set: a frame is */
	leaq	-24(%rdx), %rdi
	subq	PST_FRAMES(%rsi), %rdi	/* 24 n; n = 0 is the sentinel */
	jbe	4f
	PS_PROF_SLOW rdi, edi, rsi
	cmpl	$PS_FS_PROFILE, FS_FLAGS(%rdi)
	jne	5f
	movq	FS_PROF(%rdi), %r8	/* fn, the counters */
	testq	%r8, %r8
	jz	4f
	movl	ps_prof_generation(%rip), %esi
	cmpl	%esi, FS_UNITS(%rdi)
	jne	4f
/* d = prof_ns(tsc - x->tsc), in %rax */
	movl	%fs:PSF_HI(%rcx), %esi
	shlq	$32, %rsi
	orq	%rsi, %rax
	subq	FS_TSC(%rdi), %rax
	movq	%rax, %rdx		/* keeps the flags */
	js	3f
	imulq	ps_prof_ns_mult(%rip), %rax	/* shorter than mulq and shrdq */
	jo	3f
	shrq	$32, %rax
2:
/* prof_to_caller: frame fr - 1's key at -40 from f->fp; its slow info x - 1 */
	movq	%fs:PSF_FP(%rcx), %rdx
	testb	$PS_FRAME_SLOW, -40(%rdx)
	jz	1f
	testl	$PS_FS_PROFILE, FS_FLAGS-FS_SIZE(%rdi)
	jz	1f
	addq	%rax, FS_CHILD-FS_SIZE(%rdi)
1:	movq	%rax, %rsi		/* self: d less the callees', at least 0 */
	subq	FS_CHILD(%rdi), %rsi
	jae	1f
	xorl	%esi, %esi
/* the real return address back in the slot, the frame popped: the rest is fn's */
1:	movq	-24(%rdx), %rdi
	movq	%rdi, 48(%rsp)
	subq	$24, %fs:PSF_FP(%rcx)
/* prof_count: open (recursion) first, then the counters under the sequence count */
	movl	PF_OPEN(%r8), %edx
	movq	%rax, %rdi		/* total's part: d, 0 when nested */
	cmpl	$1, %edx
	jbe	1f
	xorl	%edi, %edi
1:	subl	$1, %edx		/* open - 1, 0 stays 0 */
	adcl	$0, %edx
	movl	%edx, PF_OPEN(%r8)
/* x86-64 keeps stores in order: the odd count is seen before the changes */
	addl	$1, PF_SEQ(%r8)
	addq	%rdi, PF_TOTAL(%r8)
	addq	%rax, PF_SUM(%r8)
	addq	%rsi, PF_SELF(%r8)
	addq	$1, PF_HN(%r8)
	cmpq	PF_HMIN(%r8), %rax
	jae	1f
	movq	%rax, PF_HMIN(%r8)
1:	cmpq	PF_HMAX(%r8), %rax
	jbe	1f
	movq	%rax, PF_HMAX(%r8)
/*
 * The bucket is counted one call of fn late (fn->pend, bucket + 1, added
 * by readers: profile.c copy_fn): a store whose address waits on the time
 * stamp held the next call back (loop.c, best of 5: 26.5 ns a call, 25.5
 * this way); one whose address the last call stored does not.
 */
1:	movl	PF_PEND(%r8), %edx
	testl	%edx, %edx
	jz	1f
	addq	$1, PF_HCOUNT-8(%r8,%rdx,8)
/*
 * hist_bucket without a branch: k = the top bit of d | 8 (at least 3),
 * bucket 8 (k - 3) + (d >> (k - 3)); below 16 that is d itself, above it
 * is 8 + 8 (k - 3) + the three bits after the top one.
 */
1:	movq	%rax, %rdx
	orq	$8, %rdx
	bsrq	%rdx, %rcx
	subl	$3, %ecx
	movq	%rax, %rdx
	shrq	%cl, %rdx
	leal	1(%rdx,%rcx,8), %edx
	movl	%edx, PF_PEND(%r8)
	mulq	%rax			/* d * d, 128 bits */
	addq	%rax, PF_SUMSQ(%r8)
	adcq	%rdx, PF_SUMSQ+8(%r8)
	addl	$1, PF_SEQ(%r8)
	PS_POP	r8, rdi, rsi
	jmp	8b
/* ticks, or ticks * mult, of 2^63 or more: the product in 128 bits */
3:	.cfi_adjust_cfa_offset 24
	movq	%rdx, %rax
	mulq	ps_prof_ns_mult(%rip)
	shrdq	$32, %rdx, %rax
	jmp	2b
	.cfi_adjust_cfa_offset -24
/*
 * A return probe's frame that the probe trampoline hooked:
 * retprobe_tramp.S records it (x, the time stamp's lower half, the saved
 * rax and the slot on this stack), using only the registers saved here,
 * or answers 1 for the C path.
 */
5:	.cfi_adjust_cfa_offset 24
	cmpl	$PS_FS_PROBE + PS_FS_PROBE_FAST, FS_FLAGS(%rdi)
	jne	4f
	call	ps_retprobe_fast_exit
	testl	%eax, %eax
	jnz	4f
	PS_POP	r8, rdi, rsi
	jmp	8b
4:	.cfi_adjust_cfa_offset 24
	PS_POP	r8, rdi, rsi
#endif
9:	.cfi_def_cfa_offset 32
	PS_PUSH	rdi
	leaq	32(%rsp), %rdi
	leaq	ps_graph_exit_slow(%rip), %rax
	call	ps_x86_64_call_saved
	PS_POP	rdi
	jmp	8b
	PS_ENDFUNC ps_x86_64_graph_return

#ifndef __SANITIZE_THREAD__
/*
 * function_profile's entry, the common call in assembly as the graph
 * tracer's: the frame is taken, its slow info (x) says a profile call of
 * this reset generation with its counters (fn), and the return is hooked;
 * nothing is written elsewhere.  The C path (graph.c's entry, as the graph
 * entry's slow path) takes anything else: the thread's first call, a
 * function's first call in its thread (no counters yet), a reset, a
 * return slot off the thread's stack, no room or the depth asked reached,
 * a frame below that a longjmp left, notrace, tracing off or the tracer
 * switched away.  Stack after the pushes: 48 the stub's id << 2, 56
 * return into the function, 64 into its caller (the slot).
 */
	PS_FUNC	ps_x86_64_prof_entry
	.cfi_def_cfa_offset 16
	PS_PUSH	rax, rcx, rdx, rsi, rdi, r8
	movq	ps_fast@gottpoff(%rip), %rcx
	leaq	64(%rsp), %rdx
	subq	%fs:PSF_STACK_LO(%rcx), %rdx
	cmpq	%fs:PSF_STACK_SIZE(%rcx), %rdx
	jae	9f
/* f->fp and f->fp_end are NULL until f->t is set (record/ring.c) */
	movq	%fs:PSF_FP(%rcx), %rdx	/* fr, the frame to take */
	cmpq	%fs:PSF_FP_END(%rcx), %rdx
	jae	9f
	movq	%fs:PSF_T(%rcx), %rsi
	cmpl	$0, PST_NOTRACE(%rsi)
	jne	9f
	cmpb	$0, ps+PS_TRACING_ON(%rip)
	je	9f
	cmpb	$0, ps_graph_profile_on(%rip)	/* not switched away */
	je	9f
/* n = frames open below it (24 n bytes), n - 1 < ps_graph_max_depth */
	movq	%rdx, %rdi
	subq	PST_FRAMES(%rsi), %rdi
	movl	ps_graph_max_depth(%rip), %eax
	leaq	(%rax,%rax,2), %rax
	shlq	$3, %rax
	leaq	-24(%rdi), %r8
	cmpq	%rax, %r8
	jae	9f
/*
 * The frame below has its slot above this one: its key, low bits off, above
 * this one's (slot - 24).  Less one, the sentinel's (key 1, the first
 * frame's below) is above all.
 */
	movq	-16(%rdx), %rax
	andq	$-4, %rax
	subq	$1, %rax
	leaq	64-PS_FRAME_KEY_BIAS(%rsp), %r8
	cmpq	%r8, %rax
	jb	9f
	PS_PROF_SLOW rdi, edi, rsi
/* fn = ps_prof_me->mods[id >> PS_ID_SHIFT][id & PS_ID_MASK], of this generation */
	movq	ps_prof_me@gottpoff(%rip), %rax
	movq	%fs:(%rax), %rax
	testq	%rax, %rax
	jz	9f
	movl	ps_prof_generation(%rip), %r8d
	cmpl	%r8d, PPT_GEN(%rax)
	jne	9f
	movl	48(%rsp), %esi
	shrl	$PS_ID_SHIFT + 2, %esi
	movq	PPT_MODS(%rax,%rsi,8), %rax
	testq	%rax, %rax
	jz	9f
	movl	48(%rsp), %esi
	andl	$PS_ID_MASK << 2, %esi
	movq	(%rax,%rsi,2), %rsi
	testq	%rsi, %rsi
	jz	9f
/* The frame is taken before it is filled: a signal handler's calls push above it. */
	addq	$24, %fs:PSF_FP(%rcx)
	btsq	$32 + 4, %r8		/* flags PS_FS_PROFILE (1 << 4) above units = gen, one store */
	movq	%r8, FS_UNITS(%rdi)
	movq	$0, FS_CHILD(%rdi)
	movq	%rsi, FS_PROF(%rdi)
	addl	$1, PF_OPEN(%rsi)
	movq	64(%rsp), %rax
	movq	%rax, 0(%rdx)		/* frame.ret */
	leaq	64-PS_FRAME_KEY_BIAS+PS_FRAME_SLOW(%rsp), %rax
	movq	%rax, 8(%rdx)		/* frame.key */
	movl	48(%rsp), %eax
	andl	$-4, %eax
	orl	$1, %eax		/* PS_EV_EXIT */
	movq	%rax, 16(%rdx)		/* frame.idw */
	leaq	ps_x86_64_graph_return(%rip), %rax
	movq	%rax, 64(%rsp)
	rdtsc				/* last: the call's time leaves this path's out */
	shlq	$32, %rdx
	orq	%rdx, %rax
	movq	%rax, FS_TSC(%rdi)
8:	PS_POP	r8, rdi, rsi, rdx, rcx, rax
	leaq	8(%rsp), %rsp	/* drop the id; keeps flags */
	.cfi_adjust_cfa_offset -8
	ret
9:	.cfi_adjust_cfa_offset 56
	leaq	48(%rsp), %rdi
	leaq	ps_graph_entry_slow(%rip), %rax
	call	ps_x86_64_call_saved
	jmp	8b
	PS_ENDFUNC ps_x86_64_prof_entry
#endif

#ifndef __SANITIZE_THREAD__
/*
 * Dynamic probes alone: events/probe_fast.c records the common probe
 * (integer registers, straight into the ring) with only the call-clobbered
 * general registers saved, pushed so that they lie in struct
 * patchsite_regs' order (rdi at 0 .. r11 at 64; the stub's id at 72).  It
 * answers non-zero for anything else, and the call goes on, registers
 * restored, to the generic trampoline as if the stub had jumped there.
 * Nine pushes keep the ABI's alignment at the call.
 */
	PS_FUNC	ps_x86_64_probe_entry
	.cfi_def_cfa_offset 16
	PS_PUSH	r11, r10, rax, r9, r8, rcx, rdx, rsi, rdi
	movq	%rsp, %rdi
	call	ps_probe_fast_hit
	testl	%eax, %eax
	jnz	9f
	PS_POP	rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11
	leaq	8(%rsp), %rsp	/* drop the id; keeps flags */
	.cfi_adjust_cfa_offset -8
	ret
9:	.cfi_adjust_cfa_offset 80
	PS_POP	rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11
	jmp	ps_x86_64_tramp
	PS_ENDFUNC ps_x86_64_probe_entry
#endif

/*
 * Entry of a function with exit sites, and an exit site: one word,
 * tsc_lo << 32 | the stub's id << 2 | type (entry 0, exit 1); no
 * return hook, so calls and returns stay paired for the CPU.  The
 * entry also pushes a shadow frame that hooks nothing (key bit 0
 * set, ret unused; only on the thread's own stack, while frames are left)
 * and the exit pops it when it is on top: a call an exception leaves
 * is then closed where the exception lands (record/unwind.c).  Both see the
 * function's return slot at 40(%rsp): the entry's caller pushed it,
 * and an exit site sits before the ret or tail jmp.
 */
	PS_FUNC	ps_x86_64_graph_noret
	.cfi_def_cfa_offset 16
	PS_FAST_ENTER rax, rdx, rcx
	PS_FAST_STAMP
	PS_FAST_TAKE
	PS_FAST_WORD 8
	movq	%rax, (%rdx)
	leaq	40(%rsp), %rdx
	subq	%fs:PSF_STACK_LO(%rcx), %rdx
	cmpq	%fs:PSF_STACK_SIZE(%rcx), %rdx
	jae	8f
	movq	%fs:PSF_FP(%rcx), %rdx
	cmpq	%fs:PSF_FP_END(%rcx), %rdx
	jae	8f
	addq	$24, %fs:PSF_FP(%rcx)	/* frame.ret: unused (nothing hooked) */
	orl	$1, %eax	/* PS_EV_EXIT; zero-extends */
	movq	%rax, 16(%rdx)	/* frame.idw */
	leaq	17(%rsp), %rax
	movq	%rax, 8(%rdx)	/* frame.key: &ret - 24, bit 0 set */
	PS_FAST_LEAVE ps_graph_word_slow, 32, 24, 0, rcx, rdx, rax
	PS_ENDFUNC ps_x86_64_graph_noret

	PS_FUNC	ps_x86_64_graph_exit
	.cfi_def_cfa_offset 16
	PS_FAST_ENTER rax, rdx, rcx
	PS_FAST_STAMP
	PS_FAST_TAKE
	PS_FAST_WORD 8
	movq	%rax, (%rdx)
	movq	%fs:PSF_FP(%rcx), %rdx
	leaq	17(%rsp), %rax
	cmpq	%rax, -16(%rdx)	/* the top frame's key (frames[0]: a sentinel) */
	jne	8f
	subq	$24, %fs:PSF_FP(%rcx)
	PS_FAST_LEAVE ps_graph_word_slow, 32, 24, 0, rcx, rdx, rax
	PS_ENDFUNC ps_x86_64_graph_exit

/*
 * Sites after the prologue (-pg without -mfentry; arch.c
 * x86_64_late_site): the call comes once the function has pushed %rbp,
 * set %rbp to its frame and pushed or reserved anything else, so the
 * return slot into the caller is 8(%rbp), not the word above the return
 * into the function.  Stack on entry: 0 the stub's id << 2, 8 return into
 * the function.  Only where the slot is found differs from the entry
 * trampolines above; a hooked return still comes to
 * ps_x86_64_graph_return, whose key (slot - 24) is the same.
 *
 * PS_FAST_LEAVE_LATE: as PS_FAST_LEAVE, but the slow path's C half gets
 * a[0] = the id word, a[1] = the slot's address (arch/entry.h).
 */
	.macro	PS_FAST_LEAVE_LATE slow, regs:vararg
8:	PS_POP	\regs
	leaq	8(%rsp), %rsp	/* drop the id; keeps flags */
	.cfi_adjust_cfa_offset -8
	ret
9:	.cfi_adjust_cfa_offset 32
	PS_PUSH	rdi
	leaq	8(%rbp), %rax
	PS_PUSH	rax		/* a[1]: the slot */
	pushq	40(%rsp)	/* a[0]: the id word */
	.cfi_adjust_cfa_offset 8
	movq	%rsp, %rdi
	leaq	\slow(%rip), %rax
	call	ps_x86_64_call_saved
	leaq	16(%rsp), %rsp
	.cfi_adjust_cfa_offset -16
	PS_POP	rdi
	jmp	8b
	.endm

/* ps_x86_64_tramp with regs->parent_loc = 8(the function's %rbp). */
	PS_FUNC	ps_x86_64_tramp_late
	.cfi_def_cfa_offset 16
	endbr64
	pushq	%rbp
	.cfi_def_cfa_offset 24
	.cfi_offset %rbp, -24
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	subq	$224, %rsp
	andq	$-16, %rsp
	PS_GPRS	save
	movq	0(%rbp), %rax	/* the function's %rbp */
	leaq	8(%rax), %rax
	movq	%rax, 72(%rsp)
	PS_XMM	save, 96
	movl	8(%rbp), %edi
	shrl	$2, %edi	/* the stub pushed id << 2 */
	movq	16(%rbp), %rsi
	movq	%rsp, %rdx
	call	ps_dispatch
	PS_XMM	load, 96
	PS_GPRS	load
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 16
	leaq	8(%rsp), %rsp	/* drop the id; keeps flags */
	.cfi_def_cfa_offset 8
	ret
	PS_ENDFUNC ps_x86_64_tramp_late

	PS_FUNC	ps_x86_64_func_late
	.cfi_def_cfa_offset 16
	PS_FAST_ENTER rax, rdx, rcx
	PS_FAST_STAMP
	PS_FAST_TAKE
	PS_FAST_WORD 16
	orq	$2, %rax	/* PS_EV_FUNC */
	movq	%rax, (%rdx)
	movq	8(%rbp), %rax
	movq	%rax, 8(%rdx)
	PS_FAST_LEAVE_LATE ps_func_late_slow, rcx, rdx, rax
	PS_ENDFUNC ps_x86_64_func_late

	PS_FUNC	ps_x86_64_graph_late
	.cfi_def_cfa_offset 16
	PS_FAST_ENTER rax, rdx, rcx
	leaq	8(%rbp), %rdx
	subq	%fs:PSF_STACK_LO(%rcx), %rdx
	cmpq	%fs:PSF_STACK_SIZE(%rcx), %rdx
	jae	9f
	PS_FAST_STAMP
	PS_FAST_TAKE
	PS_FAST_WORD 8
	movq	%rax, (%rdx)	/* entry event */
	movq	%fs:PSF_FP(%rcx), %rdx
	addq	$24, %fs:PSF_FP(%rcx)
	orl	$1, %eax	/* PS_EV_EXIT; zero-extends */
	movq	%rax, 16(%rdx)	/* frame.idw */
	movq	8(%rbp), %rcx
	movq	%rcx, 0(%rdx)	/* frame.ret */
	leaq	-16(%rbp), %rcx
	movq	%rcx, 8(%rdx)	/* frame.key: &ret - PS_FRAME_KEY_BIAS */
	leaq	ps_x86_64_graph_return(%rip), %rcx
	movq	%rcx, 8(%rbp)
	PS_FAST_LEAVE_LATE ps_graph_late_slow, rcx, rdx, rax
	PS_ENDFUNC ps_x86_64_graph_late

/*
 * No-flag sites (noflag.c): the out-of-line stub's slot called the site's
 * stub, which pushed the id.  0(%rsp) the id << 2, 8 return into the
 * out-of-line stub, 16 the stack pointer before the slot; the traced
 * function's return slot is R bytes above it, R the word at the start of
 * the stub (the return address rounded down to its 128 bytes).  The
 * function was built without -pg, so its callers may keep any
 * caller-saved register live across the call (gcc -fipa-ra): every
 * general register, the flags and the vector state (PS_VEC, for the
 * features XCR0 enables) are kept around ps_dispatch, not only the
 * argument registers.
 */
	PS_FUNC	ps_x86_64_tramp_noflag
	.cfi_def_cfa_offset 16
	pushfq
	.cfi_adjust_cfa_offset 8
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset %rbp, -32
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	.cfi_offset %rbx, -40
	subq	$224, %rsp
	andq	$-64, %rsp
	PS_GPRS	save
	movq	%rsp, %rbx		/* struct patchsite_regs */
	PS_XMM	save, 96		/* for the probes' register map */
	movq	24(%rbp), %rax
	andq	$-128, %rax
	movl	(%rax), %eax		/* R */
	leaq	32(%rbp,%rax), %rax
	movq	%rax, 72(%rbx)		/* parent_loc */
	subq	$PS_VEC_AREA, %rsp
	andq	$-64, %rsp
	PS_VEC	save
2:	movl	16(%rbp), %edi
	shrl	$2, %edi		/* the stub pushed id << 2 */
	movq	24(%rbp), %rsi
	movq	%rbx, %rdx
	call	ps_dispatch
	PS_VEC	load
	movq	%rbx, %rsp
	PS_GPRS	load
	leaq	-8(%rbp), %rsp
	popq	%rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 24
	popfq
	.cfi_def_cfa_offset 16
	leaq	8(%rsp), %rsp		/* drop the id; keeps flags */
	.cfi_def_cfa_offset 8
	ret
	PS_ENDFUNC ps_x86_64_tramp_noflag

	.section .note.GNU-stack, "", %progbits
