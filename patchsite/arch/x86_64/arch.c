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
 * A site after the prologue (-pg without -mfentry, x86_64_late_site) has
 * its own three, *_late, which find the return slot at 8(%rbp).
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
#include "arch/arch.h"
#include "patchsite.h"
#include "x86_insn.h"
#include "got_thunk.h"


#include "frame.h"
_Static_assert(sizeof(struct patchsite_regs) == 224, "trampoline frame layout");

void ps_x86_64_tramp(void);

/* The trampolines, in tramp.S. */
void ps_x86_64_func_entry(void);
void ps_x86_64_graph_entry(void);
void ps_x86_64_graph_return(void);
void ps_x86_64_graph_noret(void);
void ps_x86_64_graph_exit(void);
void ps_x86_64_tramp_late(void);
void ps_x86_64_func_late(void);
void ps_x86_64_graph_late(void);
void ps_x86_64_prof_entry(void);
void ps_x86_64_probe_fast(void);
void ps_x86_64_tramp_noflag(void);
void ps_x86_64_func_noflag(void);
void ps_x86_64_graph_noflag(void);
unsigned ps_x86_64_write_noflag_stub(uint8_t *p, uintptr_t at, uintptr_t site,
				     const struct nf_record *r, const char **why);

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

/*
 * A site after the prologue (-pg without -mfentry, gcc 12 -O0 and -O2):
 *
 *   55                 push %rbp
 *   48 89 e5           mov %rsp,%rbp
 *   41 55 53 ...       push %r13; push %rbx; sub $n,%rsp (any, or none)
 *   e8 <rel32>         call mcount                    non-PIE
 *   ff 15 <disp32>     call *mcount@GOTPCREL(%rip)    PIE
 *
 * %rbp is the frame from the mov on, so the return slot is 8(%rbp) at the
 * site, which the late trampolines use.  A function that does not begin
 * so (a realigned stack's DRAP prologue copies the return address) is not
 * a late site we trace.
 */
static bool x86_64_late_site(const uint8_t *fn, size_t fn_len, size_t off, uint16_t *arg,
			     const char **why)
{
	size_t at = fn_len >= sizeof(x86_endbr64) && !memcmp(fn, x86_endbr64, sizeof(x86_endbr64))
		    ? sizeof(x86_endbr64) : 0;

	*arg = 0;
	*why = NULL;
	return fn_len >= at + sizeof(x86_frame_setup) &&
	       !memcmp(fn + at, x86_frame_setup, sizeof(x86_frame_setup)) &&
	       off >= at + sizeof(x86_frame_setup);
}

/*
 * No table: walk the prologue as lib/arch does for patchverify
 * (x86_64_setup_len: pushes, sub/and on %rsp), from a frame-pointer start
 * (x86_64_late_site's), and clang's register copies after it, to the call
 * that follows.  The caller accepts it only if it calls mcount.
 */
static size_t x86_64_find_late_call(const uint8_t *fn, size_t len, uintptr_t addr,
				    struct site_insn *in, const char **why)
{
	size_t at = len >= sizeof(x86_endbr64) && !memcmp(fn, x86_endbr64, sizeof(x86_endbr64))
		    ? sizeof(x86_endbr64) : 0;
	bool push_bp = false, fp = false;
	unsigned l;

	if (len < at + sizeof(x86_frame_setup) ||
	    memcmp(fn + at, x86_frame_setup, sizeof(x86_frame_setup))) {
		*why = "no frame-pointer prologue (push %rbp; mov %rsp,%rbp) at its start";
		return 0;
	}
	while (at < len && (l = x86_64_setup_len(fn + at, len - at, &push_bp, &fp)))
		at += l;
	/* clang: the arguments copied to callee-saved registers first (x86_64_regmov_len). */
	for (unsigned k = 0; k < 8 && at < len && (l = x86_64_regmov_len(fn + at, len - at)); k++)
		at += l;
	in->form = FORM_UNKNOWN;
	if (at + 6 <= len)	/* (the call and at least a ret after it) */
		x86_64_decode_site(fn + at, addr + at, in);
	if (!fp || (in->form != FORM_CALL && in->form != FORM_CALL_SLOT) || in->skip) {
		*why = "no call right after its prologue";
		return 0;
	}
	return at;
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
			      uint16_t arg, uintptr_t slot)
{
	uint32_t idw = id << 2 | type;
	int32_t d;

	(void)arg;	/* the late trampolines find the slot at 8(%rbp) */
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

/* rdpmc: ecx the counter, edx:eax its value (only where the mmap page said cap_user_rdpmc). */
static uint64_t x86_64_read_pmc(uint32_t idx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(idx));
	return (uint64_t)hi << 32 | lo;
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

/*
 * Every RIP-relative memory operand ends its ModRM (mod 00, r/m 101: the
 * byte & 0xc7 is 0x05) with a disp32, then an immediate of 0, 1, 2 or 4
 * bytes; the next instruction is where disp32 counts from.  So, at every
 * byte, without decoding the stream (data in text cannot mislead it):
 * each ModRM of that form and each immediate length gives one word the
 * operand may name.  Two uses leave the word's value unseen:
 *   ff 15 <disp32>           call *slot(%rip)
 *   ff 25 <disp32>           jmp *slot(%rip)      (a .plt.got entry, a tail call)
 * and one sees only whether it is 0, which a thunk keeps (unbound slots are
 * never switched):
 *   48 83 3d <disp32> 00     cmpq $0x0,slot(%rip) (crtstuff's weak __cxa_finalize)
 * Anything else is data, and so is a slot's address as an absolute disp32
 * in a non-PIE (below 2 GB).  A misread stream says too much, never less.
 */
static void x86_64_slot_uses(const uint8_t *p, size_t len, uintptr_t addr, uintptr_t lo,
			     uintptr_t hi, void (*found)(void *arg, uintptr_t word, unsigned use),
			     void *arg)
{
	static const unsigned imm_len[] = { 0, 1, 2, 4 };
	static const uint8_t cmpq0[] = { 0x48, 0x83, 0x3d };	/* cmpq $imm8,disp32(%rip) */

	for (size_t i = 1; i + 4 <= len; i++) {
		int32_t d = load_s32(p + i);
		uint32_t abs = (uint32_t)d;

		if (hi <= 0x80000000u && abs >= lo && abs < hi)
			found(arg, abs, SLOT_USE_DATA);
		if ((p[i - 1] & 0xc7) != 0x05)
			continue;
		for (unsigned k = 0; k < sizeof(imm_len) / sizeof(imm_len[0]); k++) {
			uintptr_t to = addr + i + 4 + imm_len[k] + (intptr_t)d;
			unsigned use = SLOT_USE_DATA;

			if (to < lo || to >= hi || i + 4 + imm_len[k] > len)
				continue;
			if (!imm_len[k] && i >= 2 && (!memcmp(p + i - 2, x86_call_rip, 2) ||
						      !memcmp(p + i - 2, x86_jmp_rip, 2)))
				use = SLOT_USE_CALL;
			else if (imm_len[k] == 1 && i >= 3 && !memcmp(p + i - 3, cmpq0, 3) && !p[i + 4])
				continue;
			found(arg, to, use);
		}
	}
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
	.late_site	= x86_64_late_site,
	.late_prologue	= "push %rbp; mov %rsp,%rbp",
	.find_late_call	= x86_64_find_late_call,
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
	.tramp_late	= ps_x86_64_tramp_late,
	.tramp_func_late = ps_x86_64_func_late,
	.tramp_graph_late = ps_x86_64_graph_late,
#ifndef __SANITIZE_THREAD__
	.tramp_profile	= ps_x86_64_prof_entry,	/* tramp.S; offsets: record/profile_fast.c */
	.tramp_probe	= ps_x86_64_probe_fast,	/* probe_tramp.S, then events/probe_fast.c */
#endif
	.graph_return	= ps_x86_64_graph_return,
	.arg_regs	= 6,
	.regs_retval	= x86_64_regs_retval,
	.exit_retval	= x86_64_exit_retval,
	.read_pmc	= x86_64_read_pmc,
	.unwinds_from_ops = true,	/* ps_x86_64_tramp's CFI (tests/patchsite/feat.sh) */
	.slot_thunk_size = PS_X86_64_SLOT_THUNK,
	.jump_slot_type	= R_X86_64_JUMP_SLOT,
	.glob_dat_type	= R_X86_64_GLOB_DAT,
	.write_slot_thunk = ps_x86_64_write_slot_thunk,
	.slot_uses	= x86_64_slot_uses,
	.noflag_stub_size = 128,	/* noflag.c */
	.write_noflag_stub = ps_x86_64_write_noflag_stub,
	.tramp_noflag	= ps_x86_64_tramp_noflag,
	.tramp_func_noflag = ps_x86_64_func_noflag,	/* tramp.S PS_FUNC_ENTRY */
	.tramp_graph_noflag = ps_x86_64_graph_noflag,
};
