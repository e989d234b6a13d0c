// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86-64 for the runtime.
 *
 * Sites gcc leaves at a function's entry (after endbr64 under -fcf-protection):
 *   e8 <rel32>               call __fentry__             -pg -mfentry, non-PIE (via the PLT)
 *   ff 15 <disp32>           call *__fentry__@GOTPCREL(%rip)   Debian's default PIE
 *   0f 1f 44 00 00           nopl 0x0(%rax,%rax,1)       -mnop-mcount, or our recordmcount
 *   66 0f 1f 44 00 00        nopw 0x0(%rax,%rax,1)       6-byte site NOPed at build time
 *   90 90 90 90 90           5 x nop                     -fpatchable-function-entry=5
 *   0f 1f 44 00 08           nopl 0x8(%rax,%rax,1)       clang -fpatchable-function-entry=5
 * At start-up (one thread) every site becomes nopl, and a 6-byte site
 * nopl + nop, so that the 5 live bytes are always one instruction and a
 * call's return address (site + 5) never points into bytes we rewrite:
 *
 *   before:  ff 15 a1 2e 00 00   call *0x2ea1(%rip)
 *   idle:    0f 1f 44 00 00 90   nopl 0x0(%rax,%rax,1); nop
 *   traced:  e8 xx xx xx xx 90   call stub; nop
 *
 * Each site calls its own 16-byte stub, `push $(id << 2); jmp *slot(%rip)`,
 * in a page mapped within +-2 GB of the module; the slot, in a data page
 * after the stubs, holds the trampoline of the moment (two-level dispatch:
 * switching tracers stores one pointer per module, no code changes):
 *
 *   ps_x86_64_tramp         any set of ops: saves the argument registers
 *                           (rdi..r9, rax for varargs, r10/r11 which gcc's
 *                           -fipa-ra may keep live across the prologue's
 *                           call) and xmm0-7, calls ps_dispatch(id, ret, regs)
 *   ps_x86_64_func_entry    the built-in function tracer alone: one 16-byte
 *                           event, in assembly, three registers touched
 *   ps_x86_64_graph_entry   the built-in function_graph tracer alone: an
 *                           entry event, a shadow frame, and the return
 *                           address replaced by ps_x86_64_graph_return,
 *                           which writes the exit event and jumps to the
 *                           real caller
 * The fast paths use only rax, rdx (rdtsc) and rcx, and leave to C
 * (through ps_x86_64_call_saved, which keeps every other caller-saved
 * register and xmm0-7) anything that is not the common case: a new thread,
 * a full ring or shadow stack, a new upper half of the time stamp, a
 * return that does not match the top shadow frame (longjmp).
 * Instructions have no alignment; code is coherent with data stores, so
 * no cache flush.
 */
#include <elf.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

#include "arch.h"
#include "internal.h"
#include "patchsite.h"
#include "x86_insn.h"


/* The register block the trampoline builds; offsets are used in the assembly below. */
struct patchsite_regs {
	unsigned long rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11;	/* 0 .. 64 */
	unsigned long *parent_loc;					/* 72 */
	unsigned long pad[2];						/* 80 */
	unsigned char xmm[8][16];					/* 96 .. 223 */
};
_Static_assert(sizeof(struct patchsite_regs) == 224, "trampoline frame layout");

void ps_x86_64_tramp(void);

/*
 * Offsets in struct ps_fast and the shadow frame layout, used by the fast
 * trampolines below.
 */
#define S(x) #x
#define XS(x) S(x)
_Static_assert(offsetof(struct ps_fast, wp) == PSF_WP, "PSF_WP");
_Static_assert(offsetof(struct ps_fast, budget) == PSF_BUDGET, "PSF_BUDGET");
_Static_assert(offsetof(struct ps_fast, hi) == PSF_HI, "PSF_HI");
_Static_assert(offsetof(struct ps_fast, fp) == PSF_FP, "PSF_FP");
_Static_assert(offsetof(struct ps_fast, stack_lo) == PSF_STACK_LO, "PSF_STACK_LO");
_Static_assert(offsetof(struct ps_fast, stack_size) == PSF_STACK_SIZE, "PSF_STACK_SIZE");
_Static_assert(offsetof(struct ps_fast, fp_end) == PSF_FP_END, "PSF_FP_END");
_Static_assert(sizeof(struct ps_frame) == 24, "shadow frame layout");
_Static_assert(PS_EV_FUNC == 2 && PS_EV_EXIT == 1 && PS_FRAME_KEY_BIAS == 24, "used below");

/*
 * The pieces every trampoline repeats, as assembler macros (top-level asm
 * is emitted in source order, so they precede their uses).
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
__asm__(
	"	.macro	PS_PUSH regs:vararg\n"
	"	.irp	r, \\regs\n"
	"	pushq	%\\r\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	.endr\n"
	"	.endm\n"
	"	.macro	PS_POP regs:vararg\n"
	"	.irp	r, \\regs\n"
	"	popq	%\\r\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	.endr\n"
	"	.endm\n"
	"	.macro	PS_GPRS op\n"
	"	.set	.Lps_off, 0\n"
	"	.irp	r, rdi, rsi, rdx, rcx, r8, r9, rax, r10, r11\n"
	"	.ifc	\\op, save\n"
	"	movq	%\\r, .Lps_off(%rsp)\n"
	"	.else\n"
	"	movq	.Lps_off(%rsp), %\\r\n"
	"	.endif\n"
	"	.set	.Lps_off, .Lps_off + 8\n"
	"	.endr\n"
	"	.endm\n"
	"	.macro	PS_XMM op, off\n"
	"	.irp	i, 0, 1, 2, 3, 4, 5, 6, 7\n"
	"	.ifc	\\op, save\n"
	"	movaps	%xmm\\i, \\off + 16 * \\i(%rsp)\n"
	"	.else\n"
	"	movaps	\\off + 16 * \\i(%rsp), %xmm\\i\n"
	"	.endif\n"
	"	.endr\n"
	"	.endm\n"
	"	.macro	PS_FAST_ENTER regs:vararg\n"
	"	PS_PUSH	\\regs\n"
	"	movq	ps_fast@gottpoff(%rip), %rcx\n"
	"	.endm\n"
	"	.macro	PS_FAST_STAMP\n"
	"	rdtsc\n"
	"	cmpl	%edx, %fs:" XS(PSF_HI) "(%rcx)\n"
	"	jne	9f\n"
	"	.endm\n"
	"	.macro	PS_FAST_TAKE\n"
	"	subl	$1, %fs:" XS(PSF_BUDGET) "(%rcx)\n"
	"	js	9f\n"
	"	.endm\n"
	/* Room for an event of size bytes at %rdx; %rax = tsc_lo << 32 | the stub's id word. */
	"	.macro	PS_FAST_WORD size\n"
	"	movq	%fs:" XS(PSF_WP) "(%rcx), %rdx\n"
	"	addq	$\\size, %fs:" XS(PSF_WP) "(%rcx)\n"
	"	shlq	$32, %rax\n"
	"	orq	24(%rsp), %rax\n"
	"	.endm\n"
	/* saved: bytes PS_FAST_ENTER pushed; rdi: 1 if it saved %rdi, else the slow path does */
	"	.macro	PS_FAST_LEAVE slow, arg, saved, rdi, regs:vararg\n"
	"8:	PS_POP	\\regs\n"
	"	leaq	8(%rsp), %rsp\n"		/* drop the id; keeps flags */
	"	.cfi_adjust_cfa_offset -8\n"
	"	ret\n"
	"9:	.cfi_adjust_cfa_offset \\saved + 8\n"
	"	.if	\\rdi == 0\n"
	"	PS_PUSH	rdi\n"
	"	.endif\n"
	"	leaq	\\arg(%rsp), %rdi\n"
	"	leaq	\\slow(%rip), %rax\n"
	"	call	ps_x86_64_call_saved\n"
	"	.if	\\rdi == 0\n"
	"	PS_POP	rdi\n"
	"	.endif\n"
	"	jmp	8b\n"
	"	.endm\n"
	"	.macro	PS_FUNC name\n"
	"	.globl	\\name\n"
	"	.hidden	\\name\n"
	"	.type	\\name, @function\n"
	"	.p2align 4\n"
	"\\name:\n"
	"	.cfi_startproc\n"
	"	.endm\n"
	"	.macro	PS_ENDFUNC name\n"
	"	.cfi_endproc\n"
	"	.size	\\name, . - \\name\n"
	"	.endm\n");

__asm__(
	"	.text\n"
	/*
	 * 0(%rsp): site id (from the stub), 8: return into the function, 16:
	 * into its caller.  The id is part of this frame for the unwinder
	 * (CFA = %rsp + 16 at entry, as in the fast paths): a walk from inside
	 * an ops callback (the stacktrace filter command, a C++ throw) goes on
	 * into the function, not to the id as if it were a return address.
	 */
	"	PS_FUNC	ps_x86_64_tramp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	endbr64\n"
	"	pushq	%rbp\n"
	"	.cfi_def_cfa_offset 24\n"
	"	.cfi_offset %rbp, -24\n"
	"	movq	%rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	subq	$224, %rsp\n"
	"	andq	$-16, %rsp\n"
	"	PS_GPRS	save\n"
	"	leaq	24(%rbp), %rax\n"
	"	movq	%rax, 72(%rsp)\n"
	"	PS_XMM	save, 96\n"
	"	movl	8(%rbp), %edi\n"
	"	shrl	$2, %edi\n"		/* the stub pushed id << 2 */
	"	movq	16(%rbp), %rsi\n"
	"	movq	%rsp, %rdx\n"
	"	call	ps_dispatch\n"
	"	PS_XMM	load, 96\n"
	"	PS_GPRS	load\n"
	"	movq	%rbp, %rsp\n"
	"	popq	%rbp\n"
	"	.cfi_def_cfa %rsp, 16\n"
	"	leaq	8(%rsp), %rsp\n"	/* drop the id; keeps flags */
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	PS_ENDFUNC ps_x86_64_tramp\n");

/*
 * The fast trampolines.  Stack on entry: 0 the stub's id << 2, 8 return
 * into the traced function, 16 return into its caller.  PSF_* are the
 * offsets in struct ps_fast; the shadow frame is { ret, key, idw }.
 */
void ps_x86_64_func_entry(void);
void ps_x86_64_graph_entry(void);
void ps_x86_64_graph_return(void);
void ps_func_entry_slow(unsigned long *a);
void ps_graph_entry_slow(unsigned long *a);
void ps_graph_exit_slow(unsigned long *slot);
void ps_x86_64_graph_noret(void);
void ps_x86_64_graph_exit(void);
void ps_graph_word_slow(unsigned long *a);

__asm__(
	"	.text\n"
	/* Call *%rax(%rdi) keeping rsi, r8-r11, xmm0-7 (the caller saved rax, rcx, rdx, rdi). */
	"	.p2align 4\n"
	"	.type	ps_x86_64_call_saved, @function\n"
	"ps_x86_64_call_saved:\n"
	"	.cfi_startproc\n"
	"	pushq	%rbp\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbp, -16\n"
	"	movq	%rsp, %rbp\n"
	"	.cfi_def_cfa_register %rbp\n"
	"	.irp	r, rsi, r8, r9, r10, r11\n"	/* the CFA is %rbp-based here */
	"	pushq	%\\r\n"
	"	.endr\n"
	"	subq	$128, %rsp\n"
	"	andq	$-16, %rsp\n"
	"	PS_XMM	save, 0\n"
	"	call	*%rax\n"
	"	PS_XMM	load, 0\n"
	"	leaq	-40(%rbp), %rsp\n"
	"	.irp	r, r11, r10, r9, r8, rsi\n"
	"	popq	%\\r\n"
	"	.endr\n"
	"	popq	%rbp\n"
	"	.cfi_def_cfa %rsp, 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	ps_x86_64_call_saved, . - ps_x86_64_call_saved\n"

	/*
	 * The entry paths save rax, rdx (rdtsc) and rcx, and work with rdx
	 * once the time stamp's upper half is checked; only their slow paths
	 * need rdi (the argument), and save it themselves.  Stack after the
	 * three pushes: 24 the stub's id << 2, 32 return into the function,
	 * 40 into its caller.
	 */
	/* function: word = tsc_lo << 32 | id << 2 | PS_EV_FUNC, then the parent address. */
	"	PS_FUNC	ps_x86_64_func_entry\n"
	"	.cfi_def_cfa_offset 16\n"
	"	PS_FAST_ENTER rax, rdx, rcx\n"
	"	PS_FAST_STAMP\n"
	"	PS_FAST_TAKE\n"
	"	PS_FAST_WORD 16\n"
	"	orq	$2, %rax\n"		/* PS_EV_FUNC */
	"	movq	%rax, (%rdx)\n"
	"	movq	40(%rsp), %rax\n"
	"	movq	%rax, 8(%rdx)\n"
	"	PS_FAST_LEAVE ps_func_entry_slow, 32, 24, 0, rcx, rdx, rax\n"
	"	PS_ENDFUNC ps_x86_64_func_entry\n"

	/* function_graph entry: event, shadow frame, return address hooked. */
	"	PS_FUNC	ps_x86_64_graph_entry\n"
	"	.cfi_def_cfa_offset 16\n"
	"	PS_FAST_ENTER rax, rdx, rcx\n"
	/* A return slot off the thread's own stack (a coroutine's, sigaltstack) is not hooked. */
	"	leaq	40(%rsp), %rdx\n"
	"	subq	%fs:" XS(PSF_STACK_LO) "(%rcx), %rdx\n"
	"	cmpq	%fs:" XS(PSF_STACK_SIZE) "(%rcx), %rdx\n"
	"	jae	9f\n"
	"	PS_FAST_STAMP\n"
	"	PS_FAST_TAKE\n"
	"	PS_FAST_WORD 8\n"
	"	movq	%rax, (%rdx)\n"		/* entry event */
	"	movq	%fs:" XS(PSF_FP) "(%rcx), %rdx\n"
	"	addq	$24, %fs:" XS(PSF_FP) "(%rcx)\n"
	"	orl	$1, %eax\n"		/* PS_EV_EXIT; zero-extends */
	"	movq	%rax, 16(%rdx)\n"		/* frame.idw */
	"	movq	40(%rsp), %rcx\n"
	"	movq	%rcx, 0(%rdx)\n"		/* frame.ret */
	"	leaq	16(%rsp), %rcx\n"
	"	movq	%rcx, 8(%rdx)\n"		/* frame.key: &ret - PS_FRAME_KEY_BIAS */
	"	leaq	ps_x86_64_graph_return(%rip), %rcx\n"
	"	movq	%rcx, 40(%rsp)\n"
	"	PS_FAST_LEAVE ps_graph_entry_slow, 32, 24, 0, rcx, rdx, rax\n"
	"	PS_ENDFUNC ps_x86_64_graph_entry\n"

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
	"	PS_FUNC	ps_x86_64_graph_return\n"
	"	.cfi_def_cfa_offset 0\n"
	"	subq	$8, %rsp\n"
	"	.cfi_adjust_cfa_offset 8\n"
	"	PS_FAST_ENTER rax, rdx, rcx\n"
	"	PS_FAST_STAMP\n"
	"	movq	%fs:" XS(PSF_FP) "(%rcx), %rdx\n"
	"	cmpq	%rsp, -16(%rdx)\n"		/* top frame's key */
	"	jne	9f\n"
	"	shlq	$32, %rax\n"
	"	orq	-8(%rdx), %rax\n"		/* exit event */
	"	movq	-24(%rdx), %rdx\n"
	"	movq	%rdx, 24(%rsp)\n"		/* the real return address */
	"	movq	%fs:" XS(PSF_WP) "(%rcx), %rdx\n"
	"	movq	%rax, (%rdx)\n"
	"	addq	$8, %fs:" XS(PSF_WP) "(%rcx)\n"
	"	subq	$24, %fs:" XS(PSF_FP) "(%rcx)\n"
	"8:	PS_POP	rcx, rdx, rax\n"
	"	leaq	8(%rsp), %rsp\n"
	"	.cfi_adjust_cfa_offset -8\n"
	"	jmp	*-8(%rsp)\n"
	"9:	.cfi_adjust_cfa_offset 32\n"
	"	PS_PUSH	rdi\n"
	"	leaq	32(%rsp), %rdi\n"
	"	leaq	ps_graph_exit_slow(%rip), %rax\n"
	"	call	ps_x86_64_call_saved\n"
	"	PS_POP	rdi\n"
	"	jmp	8b\n"
	"	PS_ENDFUNC ps_x86_64_graph_return\n"

	/*
	 * Entry of a function with exit sites, and an exit site: one word,
	 * tsc_lo << 32 | the stub's id << 2 | type (entry 0, exit 1); no
	 * return hook, so calls and returns stay paired for the CPU.  The
	 * entry also pushes a shadow frame that hooks nothing (key bit 0
	 * set, ret unused; only on the thread's own stack, while frames are left)
	 * and the exit pops it when it is on top: a call an exception leaves
	 * is then closed where the exception lands (record.c).  Both see the
	 * function's return slot at 40(%rsp): the entry's caller pushed it,
	 * and an exit site sits before the ret or tail jmp.
	 */
	"	PS_FUNC	ps_x86_64_graph_noret\n"
	"	.cfi_def_cfa_offset 16\n"
	"	PS_FAST_ENTER rax, rdx, rcx\n"
	"	PS_FAST_STAMP\n"
	"	PS_FAST_TAKE\n"
	"	PS_FAST_WORD 8\n"
	"	movq	%rax, (%rdx)\n"
	"	leaq	40(%rsp), %rdx\n"
	"	subq	%fs:" XS(PSF_STACK_LO) "(%rcx), %rdx\n"
	"	cmpq	%fs:" XS(PSF_STACK_SIZE) "(%rcx), %rdx\n"
	"	jae	8f\n"
	"	movq	%fs:" XS(PSF_FP) "(%rcx), %rdx\n"
	"	cmpq	%fs:" XS(PSF_FP_END) "(%rcx), %rdx\n"
	"	jae	8f\n"
	"	addq	$24, %fs:" XS(PSF_FP) "(%rcx)\n"	/* frame.ret: unused (nothing hooked) */
	"	orl	$1, %eax\n"			/* PS_EV_EXIT; zero-extends */
	"	movq	%rax, 16(%rdx)\n"		/* frame.idw */
	"	leaq	17(%rsp), %rax\n"
	"	movq	%rax, 8(%rdx)\n"			/* frame.key: &ret - 24, bit 0 set */
	"	PS_FAST_LEAVE ps_graph_word_slow, 32, 24, 0, rcx, rdx, rax\n"
	"	PS_ENDFUNC ps_x86_64_graph_noret\n"

	"	PS_FUNC	ps_x86_64_graph_exit\n"
	"	.cfi_def_cfa_offset 16\n"
	"	PS_FAST_ENTER rax, rdx, rcx\n"
	"	PS_FAST_STAMP\n"
	"	PS_FAST_TAKE\n"
	"	PS_FAST_WORD 8\n"
	"	movq	%rax, (%rdx)\n"
	"	movq	%fs:" XS(PSF_FP) "(%rcx), %rdx\n"
	"	leaq	17(%rsp), %rax\n"
	"	cmpq	%rax, -16(%rdx)\n"		/* the top frame's key (frames[0]: a sentinel) */
	"	jne	8f\n"
	"	subq	$24, %fs:" XS(PSF_FP) "(%rcx)\n"
	"	PS_FAST_LEAVE ps_graph_word_slow, 32, 24, 0, rcx, rdx, rax\n"
	"	PS_ENDFUNC ps_x86_64_graph_exit\n");

static int32_t load_s32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

static void x86_64_decode_site(const uint8_t *p, uintptr_t addr, struct site_insn *out)
{
	memset(out, 0, sizeof(*out));
	if (!memcmp(p, x86_endbr64, sizeof(x86_endbr64))) {
		out->skip = sizeof(x86_endbr64);
		p += out->skip;
		addr += out->skip;
	}
	if (p[0] == X86_OP_CALL_REL32) {
		out->form = FORM_CALL;
		out->len = 5;
		out->target = addr + 5 + (intptr_t)load_s32(p + 1);
	} else if (!memcmp(p, x86_call_rip, sizeof(x86_call_rip))) {
		out->form = FORM_CALL_SLOT;
		out->len = 6;
		out->slot = addr + 6 + (intptr_t)load_s32(p + 2);
	} else if (x86_is_nop5(p)) {		/* any of lib/arch's 5-byte NOPs (clang's too) */
		out->form = FORM_NOP;
		out->len = 5;
	} else if (!memcmp(p, x86_nop6_64, sizeof(x86_nop6_64))) {
		out->form = FORM_NOP;
		out->len = 6;
	} else if (!memcmp(p, x86_nops5, sizeof(x86_nops5))) {
		out->form = FORM_NOP_BYTES;
		out->len = 5;
	} else {
		out->form = FORM_UNKNOWN;
		out->len = 5;
	}
}

/* PLT entries: jmp *slot(%rip), with endbr64 and/or bnd in front (.plt.sec). */
static uintptr_t x86_64_plt_slot(const uint8_t *p, uintptr_t addr)
{
	unsigned off = 0;

	if (!memcmp(p, x86_endbr64, sizeof(x86_endbr64)))
		off = sizeof(x86_endbr64);
	if (!memcmp(p + off, x86_bnd_jmp_rip, sizeof(x86_bnd_jmp_rip)))
		return addr + off + 7 + (intptr_t)load_s32(p + off + 3);
	if (!memcmp(p + off, x86_jmp_rip, sizeof(x86_jmp_rip)))
		return addr + off + 6 + (intptr_t)load_s32(p + off + 2);
	return 0;
}

static void x86_64_fill_tail(uint8_t *p, unsigned n)
{
	memset(p, X86_OP_NOP, n);
}

static void x86_64_make_nop(uint8_t *out)
{
	memcpy(out, x86_nop5_forms[0], 5);
}

static bool rel32(uintptr_t from_next, uintptr_t to, int32_t *out)
{
	intptr_t d = (intptr_t)(to - from_next);

	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*out = (int32_t)d;
	return true;
}

/* A 5-byte op rel32 at from, to to: false when to is out of reach. */
static bool rel32_insn(uint8_t *out, uint8_t op, uintptr_t from, uintptr_t to)
{
	int32_t d;

	if (!rel32(from + 5, to, &d))
		return false;
	out[0] = op;
	memcpy(out + 1, &d, 4);
	return true;
}

static bool x86_64_make_call(uint8_t *out, uintptr_t from, uintptr_t to)
{
	return rel32_insn(out, X86_OP_CALL_REL32, from, to);
}

/* push $(id << 2); jmp *slot(%rip); int3 padding */
static bool x86_64_write_stub(uint8_t *p, uintptr_t at, uint32_t id, unsigned type,
			      uintptr_t slot)
{
	uint32_t idw = id << 2 | type;
	int32_t d;

	if (id > (INT32_MAX >> 2) || !rel32(at + 11, slot, &d))
		return false;
	p[0] = X86_OP_PUSH_IMM32;
	memcpy(p + 1, &idw, 4);
	memcpy(p + 5, x86_jmp_rip, sizeof(x86_jmp_rip));
	memcpy(p + 7, &d, 4);
	memset(p + 11, X86_OP_INT3, 5);
	return true;
}

/* int3 in user mode arrives as SIGTRAP with SI_KERNEL (Linux do_int3_user). */
static bool x86_64_is_breakpoint_trap(const siginfo_t *si)
{
	return si->si_code == SI_KERNEL;
}

static uintptr_t x86_64_trap_site(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;	/* int3 is one byte */
}

static void x86_64_emulate(ucontext_t *uc, uintptr_t site, bool call, uintptr_t target)
{
	greg_t *g = uc->uc_mcontext.gregs;

	if (call) {
		g[REG_RSP] -= 8;
		*(unsigned long *)g[REG_RSP] = site + 5;
		g[REG_RIP] = (greg_t)target;
	} else {
		g[REG_RIP] = (greg_t)target;	/* the end of the NOP */
	}
}

static void x86_64_retry(ucontext_t *uc, uintptr_t site)
{
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site;
}

static void x86_64_sync_icache(void *p, size_t n)
{
	(void)p;
	(void)n;
}

unsigned long patchsite_regs_arg(const struct patchsite_regs *regs, unsigned n)
{
	switch (n) {
	case 0: return regs->rdi;
	case 1: return regs->rsi;
	case 2: return regs->rdx;
	case 3: return regs->rcx;
	case 4: return regs->r8;
	case 5: return regs->r9;
	default: return 0;
	}
}

unsigned long *patchsite_regs_parent_loc(struct patchsite_regs *regs)
{
	return regs->parent_loc;
}

static unsigned long x86_64_regs_retval(const struct patchsite_regs *regs)
{
	return regs->rax;
}

/* ps_x86_64_graph_return pushed rax just below the slot it hands to its slow path. */
static unsigned long x86_64_exit_retval(const unsigned long *slot)
{
	return slot[-1];
}

/* An event site: the header's nopl 0x0(%rax,%rax,1), or jmp rel32 to its enabled block. */
static bool x86_64_make_jump(uint8_t *out, uintptr_t from, uintptr_t to)
{
	return rel32_insn(out, X86_OP_JMP_REL32, from, to);
}

static const char *const x86_64_hooks[] = { "__fentry__", "mcount", NULL };

const struct ps_arch ps_arch_x86_64 = {
	.name		= "x86_64",
	.machine	= EM_X86_64,
	.patch_len	= 5,
	.max_site_len	= 6,
	.stub_size	= 16,
	.reach		= 0x7fff0000u,		/* call rel32, less a margin */
	.hooks		= x86_64_hooks,
	.late_hook	= 1,		/* mcount */
	.decode_site	= x86_64_decode_site,
	.plt_slot	= x86_64_plt_slot,
	.fill_tail	= x86_64_fill_tail,
	.make_nop	= x86_64_make_nop,
	.make_call	= x86_64_make_call,
	.breakpoint	= X86_OP_INT3,
	.write_stub	= x86_64_write_stub,
	.is_breakpoint_trap = x86_64_is_breakpoint_trap,
	.trap_site	= x86_64_trap_site,
	.emulate	= x86_64_emulate,
	.retry		= x86_64_retry,
	.sync_icache	= x86_64_sync_icache,
	.jump_len	= 5,
	.make_jump_nop	= x86_64_make_nop,
	.make_jump	= x86_64_make_jump,
	.tramp		= ps_x86_64_tramp,
	.tramp_func	= ps_x86_64_func_entry,
	.tramp_graph	= ps_x86_64_graph_entry,
	.tramp_graph_noret = ps_x86_64_graph_noret,
	.tramp_graph_exit = ps_x86_64_graph_exit,
	.graph_return	= ps_x86_64_graph_return,
	.arg_regs	= 6,
	.regs_retval	= x86_64_regs_retval,
	.exit_retval	= x86_64_exit_retval,
	.unwinds_from_ops = true,	/* ps_x86_64_tramp's CFI (tests/patchsite/feat.sh) */
};
