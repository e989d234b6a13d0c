/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * riscv64 trampolines (patchsite/riscv64/arch.c describes the site and
 * the stub).  On entry from a stub:
 *   t0  the traced function's body (the site's jalr + 4): where we resume
 *   ra  the function's own return address (never touched by the site)
 *   t1  the address of the stub's word, site id << 2 | type
 * Every slow trampoline builds the same 208-byte frame, struct
 * patchsite_regs at sp (arch.c checks the layout):
 *     0  a0 .. a7         arguments
 *    64  parent_loc       = &w[2]
 *    72  t2 .. t6         t2 is the static chain; t3..t6 for safety
 *   112  fa0 .. fa7       floating-point arguments
 *   176  s0               the caller's frame pointer (s0 = sp + FRAME here)
 *   184  w[0] w[1] w[2]   stub word, resume address, return address
 * and leaves with ra = w[2] (the function's return address, or the graph
 * tracer's hook) and `jr t0` to the resume address.
 *
 * ps_riscv64_graph_return is where a hooked function returns: sp is back
 * at the function's entry value, so the same frame puts w[2] at the same
 * address as at entry (that address is the shadow frame's key), entry
 * sp - 8: above every stack pointer of the function's body, as on x86-64
 * and aarch64.  ps_graph_exit_slow stores the real return address there.
 *
 * The fast paths use t1 and t3..t6 without saving them: temporaries that
 * no caller keeps across a call (gcc 12 keeps none in them across calls
 * on riscv, even with -fipa-ra; PLT entries clobber t1 and t3).
 */
#define FRAME	208
#define A0	184
#define A1	192
#define A2	200

	.macro	SAVE
	addi	sp, sp, -FRAME
	sd	a0, 0(sp)
	sd	a1, 8(sp)
	sd	a2, 16(sp)
	sd	a3, 24(sp)
	sd	a4, 32(sp)
	sd	a5, 40(sp)
	sd	a6, 48(sp)
	sd	a7, 56(sp)
	sd	t2, 72(sp)
	sd	t3, 80(sp)
	sd	t4, 88(sp)
	sd	t5, 96(sp)
	sd	t6, 104(sp)
	fsd	fa0, 112(sp)
	fsd	fa1, 120(sp)
	fsd	fa2, 128(sp)
	fsd	fa3, 136(sp)
	fsd	fa4, 144(sp)
	fsd	fa5, 152(sp)
	fsd	fa6, 160(sp)
	fsd	fa7, 168(sp)
	sd	s0, 176(sp)
	addi	s0, sp, FRAME
	addi	t3, sp, A2
	sd	t3, 64(sp)
	.endm

	.macro	RESTORE
	ld	a0, 0(sp)
	ld	a1, 8(sp)
	ld	a2, 16(sp)
	ld	a3, 24(sp)
	ld	a4, 32(sp)
	ld	a5, 40(sp)
	ld	a6, 48(sp)
	ld	a7, 56(sp)
	ld	t2, 72(sp)
	ld	t3, 80(sp)
	ld	t4, 88(sp)
	ld	t5, 96(sp)
	ld	t6, 104(sp)
	fld	fa0, 112(sp)
	fld	fa1, 120(sp)
	fld	fa2, 128(sp)
	fld	fa3, 136(sp)
	fld	fa4, 144(sp)
	fld	fa5, 152(sp)
	fld	fa6, 160(sp)
	fld	fa7, 168(sp)
	ld	ra, A2(sp)
	ld	s0, 176(sp)
	.endm

	/* The return column: t0 (x5) for the entry trampolines, ra (x1) otherwise. */
	.macro	FUNC name, ra=1
	.globl	\name
	.hidden	\name
	.type	\name, %function
	.p2align 2
\name:
	.cfi_startproc
	.cfi_return_column \ra
	.endm

	.macro	ENDFUNC name
	.cfi_endproc
	.size	\name, . - \name
	.endm

	/*
	 * A trampoline: save, the C call `call` (a0..a2 set by `args`), restore,
	 * resume.  \name\()_word is the entry with t1 = the stub word itself (the
	 * fast paths' way out).
	 */
	.macro	TRAMP name, call, args
	FUNC	\name, 5
	lwu	t1, 0(t1)
	.globl	\name\()_word
	.hidden	\name\()_word
\name\()_word:
	SAVE
	sd	t1, A0(sp)
	sd	t0, A1(sp)
	sd	ra, A2(sp)
	/* For unwinders: this frame returns to w[1] (the function's body), whose ra is w[2]. */
	.cfi_def_cfa s0, 0
	.cfi_offset s0, -FRAME + 176
	.cfi_offset 5, -FRAME + A1
	.cfi_offset 1, -FRAME + A2
	\args
	call	\call
	ld	t0, A1(sp)
	RESTORE
	addi	sp, sp, FRAME
	.cfi_def_cfa sp, 0
	jr	t0
	ENDFUNC	\name
	.endm

	.macro	ARGS_DISPATCH
	srliw	a0, t1, 2		/* ps_dispatch(id, resume, regs) */
	mv	a1, t0
	mv	a2, sp
	.endm
	.macro	ARGS_A
	addi	a0, sp, A0		/* slow(w): w[0] stub word, w[2] return address */
	.endm

	.text
	TRAMP	ps_riscv64_tramp, ps_dispatch, ARGS_DISPATCH
	TRAMP	ps_riscv64_func_slow, ps_func_entry_slow, ARGS_A
	TRAMP	ps_riscv64_graph_slow, ps_graph_entry_slow, ARGS_A
	TRAMP	ps_riscv64_graph_noret, ps_graph_word_slow, ARGS_A

/*
 * Reached by a hooked function's ret: keep a0, a1 and fa0, fa1 (return
 * values; all argument registers are kept).
 */
	FUNC	ps_riscv64_graph_return_slow
	SAVE
	.cfi_def_cfa s0, 0
	.cfi_offset s0, -FRAME + 176
	addi	a0, sp, A2
	call	ps_graph_exit_slow
	RESTORE
	addi	sp, sp, FRAME
	.cfi_def_cfa sp, 0
	ret
	ENDFUNC	ps_riscv64_graph_return_slow

/*
 * The function tracer alone, its common case without a C call: one
 * 16-byte event (word, parent) in the thread's ring.  struct ps_fast is
 * reached through initial-exec TLS (tp + its GOT offset); PSF_* are its
 * offsets (core/fast_offsets.h, with the shadow frame's and the event
 * types; core.h checks them).  Anything else (a new thread,
 * a spent budget, a new upper half of the clock) goes to the slow path
 * with every register as it came but t1, which then holds the word.
 */
#include "core/fast_offsets.h"

	/* \reg = &ps_fast (initial-exec TLS). */
	.macro	PS_FAST reg
	la.tls.ie \reg, ps_fast
	add	\reg, \reg, tp
	.endm

	FUNC	ps_riscv64_func_entry, 5
	lwu	t1, 0(t1)
	PS_FAST	t3
	rdtime	t4				/* as host.h's ps_clock */
	lwu	t5, PSF_HI(t3)
	srli	t6, t4, 32
	bne	t5, t6, 9f
	lw	t5, PSF_BUDGET(t3)
	addiw	t5, t5, -1
	bltz	t5, 9f
	sw	t5, PSF_BUDGET(t3)
	andi	t5, t1, -4
	ori	t5, t5, PS_EV_FUNC
	slli	t4, t4, 32
	or	t5, t5, t4			/* clock low half << 32 | idw */
	ld	t6, PSF_WP(t3)
	sd	t5, 0(t6)			/* the event, then its parent */
	sd	ra, 8(t6)
	addi	t6, t6, 16
	fence	rw, w				/* PSF_WP after the words (ps_wp_set) */
	sd	t6, PSF_WP(t3)
	jr	t0
9:	j	ps_riscv64_func_slow_word
	ENDFUNC	ps_riscv64_func_entry

/*
 * function_graph alone: the entry event, a shadow frame { ret, key, idw },
 * and ra = ps_riscv64_graph_return when the function goes on; the return
 * slot is entry sp - 8 (see above), the frame's key that minus
 * PS_FRAME_KEY_BIAS (24).  A return slot off the thread's own stack, a
 * new upper half of the clock, a spent budget (also the depth limit): the
 * slow path, every register as it came but t1 (the word).
 */
	FUNC	ps_riscv64_graph_entry, 5
	lwu	t1, 0(t1)
	PS_FAST	t3
	addi	t6, sp, -8			/* the return slot */
	ld	t4, PSF_STACK_LO(t3)
	ld	t5, PSF_STACK_SIZE(t3)
	sub	t4, t6, t4
	bgeu	t4, t5, 9f
	rdtime	t4
	lwu	t5, PSF_HI(t3)
	srli	t6, t4, 32
	bne	t5, t6, 9f
	lw	t5, PSF_BUDGET(t3)
	addiw	t5, t5, -1
	bltz	t5, 9f
	sw	t5, PSF_BUDGET(t3)
	andi	t5, t1, -4			/* idw, PS_EV_ENTRY */
	slli	t4, t4, 32
	or	t4, t4, t5
	ld	t6, PSF_WP(t3)
	sd	t4, 0(t6)			/* the entry event */
	addi	t6, t6, 8
	fence	rw, w
	sd	t6, PSF_WP(t3)			/* after the word */
	ld	t6, PSF_FP(t3)
	ori	t5, t5, PS_EV_EXIT		/* for the frame */
	addi	t4, sp, -8 - PS_FRAME_KEY_BIAS	/* the frame's key */
	sd	ra, 0(t6)			/* frame.ret */
	sd	t4, 8(t6)			/* frame.key */
	sd	t5, 16(t6)			/* frame.idw */
	addi	t6, t6, PS_FRAME_SIZE
	sd	t6, PSF_FP(t3)
	lla	ra, ps_riscv64_graph_return
	jr	t0
9:	j	ps_riscv64_graph_slow_word
	ENDFUNC	ps_riscv64_graph_entry

/*
 * A hooked return: sp is the function's entry sp again, so the top shadow
 * frame's key must be sp - 8 - 24.  t0..t6 are free after a return
 * (caller-saved, no return value); a0..a7 and the FP registers are not
 * touched.  Anything else (another frame, a new upper half of the clock):
 * the slow path, which sorts it out.
 */
	FUNC	ps_riscv64_graph_return
	PS_FAST	t3
	rdtime	t4
	lwu	t5, PSF_HI(t3)
	srli	t6, t4, 32
	bne	t5, t6, 9f
	ld	t5, PSF_FP(t3)
	ld	t6, -16(t5)			/* top frame's key */
	addi	t1, sp, -8 - PS_FRAME_KEY_BIAS
	bne	t6, t1, 9f
	ld	t6, -8(t5)			/* idw | PS_EV_EXIT */
	slli	t4, t4, 32
	or	t4, t4, t6
	ld	ra, -24(t5)			/* the real return address */
	ld	t1, PSF_WP(t3)
	sd	t4, 0(t1)			/* the exit event */
	addi	t1, t1, 8
	fence	rw, w
	sd	t1, PSF_WP(t3)
	addi	t5, t5, -PS_FRAME_SIZE
	sd	t5, PSF_FP(t3)
	ret
9:	j	ps_riscv64_graph_return_slow
	ENDFUNC	ps_riscv64_graph_return

	.section .note.GNU-stack, "", %progbits
