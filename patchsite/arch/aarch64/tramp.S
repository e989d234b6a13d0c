/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * aarch64 trampolines (patchsite/aarch64/arch.c describes the site and
 * the stub).  On entry from a stub:
 *   x30  the traced function's body (the site's BL + 4): where we resume
 *   x9   the function's own return address (the site's `mov x9, x30`)
 *   x16  the stub's word, site id << 2 | type;  x17 scratch (the stub's)
 * Every trampoline builds the same 304-byte frame, struct patchsite_regs
 * at sp + 16 (arch.c checks the layout):
 *     0  x29, x30         a frame record, so that unwinders see the site
 *    16  x0 .. x8         arguments and the indirect result register
 *    88  parent_loc       = &a[2]
 *    96  q0 .. q7         floating-point and vector arguments
 *   224  x10 .. x15       caller-saved, which -fipa-ra may keep live
 *   272  key slot         the sp at the function's entry - 8 (= &a[2] but late)
 *   280  a[0] a[1] a[2]   stub word, resume address, return address
 * and leaves with x30 = a[2] (the function's return address, or the
 * graph tracer's hook) and `ret x9` to the resume address: the function
 * then runs its prologue (paciasp signs whatever x30 holds then).
 * The stub reaches us through `br x17`: `bti c` is the landing pad a
 * BTI-guarded page needs (a NOP on cores without BTI).
 *
 * ps_aarch64_graph_return is where a hooked function returns: sp is
 * back at the function's entry value, so the same frame puts a[2] at the
 * same address as at entry (that address is the shadow frame's key);
 * ps_graph_exit_slow stores the real return address there.  a[2] is the
 * frame's top word, entry sp - 8: above every stack pointer of the
 * function's body, as x86-64's return slot is, so record/unwind.c's comparisons
 * with stack pointers (a longjmp's target, a catching frame) hold.
 */
#define FRAME	304
#define A0	280
#define A2	296
#define KEY	272

	.macro	SAVE
	sub	sp, sp, #FRAME
	stp	x29, x30, [sp]
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	str	x8, [sp, #80]
	add	x17, sp, #A2
	str	x17, [sp, #88]
	str	x17, [sp, #KEY]		/* the key slot: a[2] itself, but in a late frame */
	stp	q0, q1, [sp, #96]
	stp	q2, q3, [sp, #128]
	stp	q4, q5, [sp, #160]
	stp	q6, q7, [sp, #192]
	stp	x10, x11, [sp, #224]
	stp	x12, x13, [sp, #240]
	stp	x14, x15, [sp, #256]
	.endm

	.macro	RESTORE
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldr	x8, [sp, #80]
	ldp	q0, q1, [sp, #96]
	ldp	q2, q3, [sp, #128]
	ldp	q4, q5, [sp, #160]
	ldp	q6, q7, [sp, #192]
	ldp	x10, x11, [sp, #224]
	ldp	x12, x13, [sp, #240]
	ldp	x14, x15, [sp, #256]
	ldr	x30, [sp, #A2]
	ldr	x29, [sp]
	.endm

	.macro	FUNC name, ra=x30
	.globl	\name
	.hidden	\name
	.type	\name, %function
	.p2align 4
\name:
	.cfi_startproc
	.cfi_return_column \ra
	bti	c
	.endm

	.macro	ENDFUNC name
	.cfi_endproc
	.size	\name, . - \name
	.endm

	/* A trampoline: save, the C call `call` (x0..x2 set by `args`), restore, resume. */
	.macro	TRAMP name, call, args
	FUNC	\name, x9
	SAVE
	stp	x16, x30, [sp, #A0]
	str	x9, [sp, #A2]
	/* For unwinders: this frame returns to a[1] (the function's body), whose x30 is a[2]. */
	.cfi_def_cfa x29, FRAME
	.cfi_offset x29, -FRAME
	.cfi_offset x9, -FRAME + A0 + 8
	.cfi_offset x30, -FRAME + A2
	\args
	bl	\call
	ldr	x9, [sp, #A0 + 8]
	RESTORE
	add	sp, sp, #FRAME
	.cfi_def_cfa sp, 0
	ret	x9
	ENDFUNC	\name
	.endm

	.macro	ARGS_DISPATCH
	lsr	w0, w16, #2		/* ps_dispatch(id, resume, regs) */
	mov	x1, x30
	add	x2, sp, #16
	.endm
	.macro	ARGS_A
	add	x0, sp, #A0		/* slow(a): a[0] stub word, a[2] return address */
	.endm

	.text
	TRAMP	ps_aarch64_tramp, ps_dispatch, ARGS_DISPATCH
	TRAMP	ps_aarch64_func_slow, ps_func_entry_slow, ARGS_A

/*
 * The function tracer alone, its common case without a C call: one
 * 16-byte event (word, parent) in the thread's ring.  struct ps_fast is
 * reached through initial-exec TLS (tpidr_el0 + its GOT offset); PSF_*
 * are its offsets (core/fast_offsets.h, with the shadow frame's and the
 * event types; core.h checks them).  Anything else (a new
 * thread, a spent budget, a new upper half of the clock) goes to
 * ps_aarch64_func_slow with every register as it came.  Uses x16, x17 and
 * x0..x3 (saved).
 */
#include "core/fast_offsets.h"

	/* \reg = &ps_fast (initial-exec TLS), \tmp clobbered. */
	.macro	PS_FAST reg, tmp
	mrs	\reg, tpidr_el0
	adrp	\tmp, :gottprel:ps_fast
	ldr	\tmp, [\tmp, #:gottprel_lo12:ps_fast]
	add	\reg, \reg, \tmp
	.endm
	FUNC	ps_aarch64_func_entry
	stp	x0, x1, [sp, #-32]!
	.cfi_adjust_cfa_offset 32
	stp	x2, x3, [sp, #16]
	PS_FAST	x17, x0
	isb
	mrs	x1, cntvct_el0			/* as host.h's ps_clock */
	ldr	w0, [x17, #PSF_HI]
	lsr	x2, x1, #32
	cmp	w0, w2
	b.ne	9f
	ldr	w0, [x17, #PSF_BUDGET]
	subs	w0, w0, #1
	b.mi	9f
	str	w0, [x17, #PSF_BUDGET]
	ldr	x0, [x17, #PSF_WP]
	and	w3, w16, #~3
	orr	w3, w3, #PS_EV_FUNC
	orr	x3, x3, x1, lsl #32		/* clock low half << 32 | idw */
	stp	x3, x9, [x0]			/* the event, then its parent */
	add	x0, x0, #16
	stlr	x0, [x17]			/* PSF_WP, after the words (ps_wp_set) */
	ldp	x2, x3, [sp, #16]
	ldp	x0, x1, [sp], #32
	.cfi_adjust_cfa_offset -32
	mov	x17, x30
	mov	x30, x9
	ret	x17
9:	.cfi_adjust_cfa_offset 32
	ldp	x2, x3, [sp, #16]
	ldp	x0, x1, [sp], #32
	.cfi_adjust_cfa_offset -32
	b	ps_aarch64_func_slow
	ENDFUNC	ps_aarch64_func_entry
	TRAMP	ps_aarch64_graph_slow, ps_graph_entry_slow, ARGS_A
	TRAMP	ps_aarch64_graph_noret, ps_graph_word_slow, ARGS_A

	/* Reached by a hooked function's ret: keep x0..x8 and q0..q7 (return values). */
	FUNC	ps_aarch64_graph_return_slow
	SAVE
	.cfi_def_cfa x29, FRAME
	.cfi_offset x29, -FRAME
	add	x0, sp, #A2
	bl	ps_graph_exit_slow
	RESTORE
	add	sp, sp, #FRAME
	.cfi_def_cfa sp, 0
	ret
	ENDFUNC	ps_aarch64_graph_return_slow

/*
 * function_graph alone: the entry event, a shadow frame { ret, key, idw },
 * and x30 = ps_aarch64_graph_return when the function goes on; the return
 * slot is entry sp - 8 (see above), the frame's key that minus
 * PS_FRAME_KEY_BIAS (24).  A return slot off the thread's own stack, a
 * new upper half of the clock, a spent budget (also the depth limit): the
 * C path, every register as it came.  Uses x16, x17, x0..x3 (saved).
 */
	FUNC	ps_aarch64_graph_entry
	stp	x0, x1, [sp, #-32]!
	.cfi_adjust_cfa_offset 32
	stp	x2, x3, [sp, #16]
	PS_FAST	x17, x0
	add	x2, sp, #32 - 8			/* the return slot */
	ldr	x0, [x17, #PSF_STACK_LO]
	ldr	x1, [x17, #PSF_STACK_SIZE]
	sub	x0, x2, x0
	cmp	x0, x1
	b.hs	9f
	isb
	mrs	x1, cntvct_el0
	ldr	w0, [x17, #PSF_HI]
	lsr	x3, x1, #32
	cmp	w0, w3
	b.ne	9f
	ldr	w0, [x17, #PSF_BUDGET]
	subs	w0, w0, #1
	b.mi	9f
	str	w0, [x17, #PSF_BUDGET]
	and	w3, w16, #~3			/* idw, PS_EV_ENTRY */
	orr	x1, x3, x1, lsl #32
	ldr	x0, [x17, #PSF_WP]
	str	x1, [x0], #8			/* the entry event */
	stlr	x0, [x17]			/* PSF_WP, after the word */
	ldr	x0, [x17, #PSF_FP]
	orr	w3, w3, #PS_EV_EXIT		/* for the frame */
	sub	x1, x2, #PS_FRAME_KEY_BIAS	/* the frame's key */
	stp	x9, x1, [x0]			/* frame.ret, frame.key */
	str	x3, [x0, #16]			/* frame.idw */
	add	x0, x0, #PS_FRAME_SIZE
	str	x0, [x17, #PSF_FP]
	ldp	x2, x3, [sp, #16]
	ldp	x0, x1, [sp], #32
	.cfi_adjust_cfa_offset -32
	mov	x17, x30
	adr	x30, ps_aarch64_graph_return
	ret	x17
9:	.cfi_adjust_cfa_offset 32
	ldp	x2, x3, [sp, #16]
	ldp	x0, x1, [sp], #32
	.cfi_adjust_cfa_offset -32
	b	ps_aarch64_graph_slow
	ENDFUNC	ps_aarch64_graph_entry

/*
 * A hooked return: sp is the function's entry sp again, so the top shadow
 * frame's key must be sp - 8 - 24.  x9..x17 are free after a return
 * (caller-saved, no return value); x0..x8 and the vector registers are
 * not touched.  Anything else (another frame, a new upper half of the
 * clock): the C path, which sorts it out.
 */
	FUNC	ps_aarch64_graph_return
	PS_FAST	x17, x16
	isb
	mrs	x16, cntvct_el0
	ldr	w15, [x17, #PSF_HI]
	lsr	x14, x16, #32
	cmp	w15, w14
	b.ne	9f
	ldr	x15, [x17, #PSF_FP]
	ldur	x14, [x15, #-16]		/* top frame's key */
	sub	x13, sp, #8 + PS_FRAME_KEY_BIAS
	cmp	x14, x13
	b.ne	9f
	ldur	x14, [x15, #-8]			/* idw | PS_EV_EXIT */
	orr	x14, x14, x16, lsl #32
	ldur	x30, [x15, #-24]		/* the real return address */
	ldr	x13, [x17, #PSF_WP]
	str	x14, [x13], #8			/* the exit event */
	stlr	x13, [x17]			/* PSF_WP */
	sub	x15, x15, #PS_FRAME_SIZE
	str	x15, [x17, #PSF_FP]
	ret
9:	b	ps_aarch64_graph_return_slow
	ENDFUNC	ps_aarch64_graph_return

/*
 * Sites after the prologue (-pg: `mov x9, x30; bl stub` where gcc put
 * `mov x0, x30; bl _mcount`; arch.c).  The function saved its return
 * address in the frame record at x29 + 8 (signed by paciasp where it
 * has one) and x29 + frame is its sp at entry; the stub passes frame / 16
 * in x16's bits 32..46 and bit 47 set when paciasp signed.  Every
 * caller-saved register is dead at the site (the compiler made a call
 * there), so the fast paths use any of x0..x17; x30 is the resume address.
 * The slow paths give C the same frame as an entry site: a[2] holds the
 * return address unsigned, the key slot the sp at entry - 8; a hook C
 * left in a[2] is signed as paciasp would and stored in the frame record.
 */
	/* \reg = the sp at entry - 8 (the key slot) from x16 and the function's fp \fp. */
	.macro	LATE_SLOT reg, fp, tmp
	ubfx	\tmp, x16, #32, #15
	add	\reg, \fp, \tmp, lsl #4
	sub	\reg, \reg, #8
	.endm

	/*
	 * \reg = the frame record's return address (at \fp + 8) without its PAC
	 * (only where x16 says paciasp signed it: xpaclri works on x30 alone);
	 * x9 clobbered.
	 */
	.macro	LATE_RET reg, fp
	ldr	\reg, [\fp, #8]
	tbz	x16, #47, 7f
	mov	x9, x30
	mov	x30, \reg
	hint	#7			/* xpaclri: a NOP without FEAT_PAuth */
	mov	\reg, x30
	mov	x30, x9
7:
	.endm

	.macro	TRAMP_LATE name, call, args
	FUNC	\name
	SAVE
	stp	x16, x30, [sp, #A0]
	.cfi_def_cfa x29, FRAME
	.cfi_offset x29, -FRAME
	.cfi_offset x30, -FRAME + A0 + 8
	ldr	x0, [sp]		/* the function's x29 */
	LATE_SLOT x1, x0, x2
	str	x1, [sp, #KEY]
	LATE_RET x2, x0
	str	x2, [sp, #A2]
	ldp	x16, x30, [sp, #A0]
	\args
	bl	\call
	ldr	x0, [sp]
	ldr	x16, [sp, #A0]
	ldr	x17, [sp, #A2]
	LATE_RET x2, x0
	cmp	x17, x2
	b.eq	1f			/* not hooked */
	tbz	x16, #47, 2f
	ldr	x16, [sp, #KEY]
	add	x16, x16, #8		/* the sp at entry: paciasp's modifier */
	hint	#8			/* pacia1716: x17 signed with x16 */
2:	str	x17, [x0, #8]
1:	ldr	x9, [sp, #A0 + 8]
	RESTORE
	add	sp, sp, #FRAME
	.cfi_def_cfa sp, 0
	ret	x9
	ENDFUNC	\name
	.endm

	TRAMP_LATE ps_aarch64_tramp_late, ps_dispatch, ARGS_DISPATCH
	TRAMP_LATE ps_aarch64_func_late_slow, ps_func_entry_slow, ARGS_A
	TRAMP_LATE ps_aarch64_graph_late_slow, ps_graph_entry_slow, ARGS_A

	/* The function tracer alone at a late site: as ps_aarch64_func_entry. */
	FUNC	ps_aarch64_func_late
	PS_FAST	x17, x0
	isb
	mrs	x1, cntvct_el0
	ldr	w0, [x17, #PSF_HI]
	lsr	x2, x1, #32
	cmp	w0, w2
	b.ne	9f
	ldr	w0, [x17, #PSF_BUDGET]
	subs	w0, w0, #1
	b.mi	9f
	str	w0, [x17, #PSF_BUDGET]
	LATE_RET x2, x29
	ldr	x0, [x17, #PSF_WP]
	and	w3, w16, #~3
	orr	w3, w3, #PS_EV_FUNC
	orr	x3, x3, x1, lsl #32
	stp	x3, x2, [x0]			/* the event, then its parent */
	add	x0, x0, #16
	stlr	x0, [x17]			/* PSF_WP, after the words */
	ret
9:	b	ps_aarch64_func_late_slow
	ENDFUNC	ps_aarch64_func_late

	/* function_graph alone at a late site: as ps_aarch64_graph_entry, the hook in the record. */
	FUNC	ps_aarch64_graph_late
	PS_FAST	x17, x0
	LATE_SLOT x2, x29, x4
	ldr	x0, [x17, #PSF_STACK_LO]
	ldr	x1, [x17, #PSF_STACK_SIZE]
	sub	x0, x2, x0
	cmp	x0, x1
	b.hs	9f
	isb
	mrs	x1, cntvct_el0
	ldr	w0, [x17, #PSF_HI]
	lsr	x3, x1, #32
	cmp	w0, w3
	b.ne	9f
	ldr	w0, [x17, #PSF_BUDGET]
	subs	w0, w0, #1
	b.mi	9f
	str	w0, [x17, #PSF_BUDGET]
	and	w3, w16, #~3			/* idw, PS_EV_ENTRY */
	orr	x1, x3, x1, lsl #32
	ldr	x0, [x17, #PSF_WP]
	str	x1, [x0], #8			/* the entry event */
	stlr	x0, [x17]			/* PSF_WP, after the word */
	LATE_RET x5, x29
	ldr	x0, [x17, #PSF_FP]
	orr	w3, w3, #PS_EV_EXIT		/* for the frame */
	sub	x1, x2, #PS_FRAME_KEY_BIAS	/* the frame's key */
	stp	x5, x1, [x0]			/* frame.ret, frame.key */
	str	x3, [x0, #16]			/* frame.idw */
	add	x0, x0, #PS_FRAME_SIZE
	str	x0, [x17, #PSF_FP]
	adr	x17, ps_aarch64_graph_return
	tbz	x16, #47, 1f
	add	x16, x2, #8			/* the sp at entry: paciasp's modifier */
	hint	#8				/* pacia1716 */
1:	str	x17, [x29, #8]			/* the hook, where the epilogue loads x30 */
	ret
9:	b	ps_aarch64_graph_late_slow
	ENDFUNC	ps_aarch64_graph_late

	.section .note.GNU-stack, "", %progbits
