// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86-64 out-of-line stubs of no-flag sites (sites/noflag.c; the proof
 * format: include/noflag_proof.h).  The program's SITE gets `jmp rel32` to
 * its stub, 128 bytes aligned to 128:
 *
 *   +0   u32 R: from the stack pointer before the slot to the return slot
 *        (DEPTH, and 128 more for form b), read by ps_x86_64_tramp_noflag
 *        at its return address rounded down to 128
 *   +8   form b: lea -0x80(%rsp),%rsp     step over the red zone: a leaf may
 *                                         have stored below rsp before SITE
 *        slot: nopl 0x0(%rax,%rax,1) | call <the site's 16-byte stub>
 *        form b: lea 0x80(%rsp),%rsp      (lea: the flags stay)
 *        the displaced instructions, re-encoded for this address:
 *          rip-relative      the same bytes, disp32 aimed at the same target
 *          call rel32        push <literal: the original return address>(%rip);
 *                            jmp rel32 target (the callee returns into SITE's
 *                            code, as before; no register is used)
 *          jmp/jcc rel32     the same, rel32 aimed at the same target
 *          jmp/jcc rel8      widened to rel32
 *        jmp rel32 SITE + NBYTES
 *        8-byte literals of the relocated calls
 *
 * The slot is a site of the usual kind for the live protocols of
 * sites/patch.c: the program's code is written once (arming), tracing a
 * function on and off writes only the stub.  Its trampoline keeps every
 * register and flag and the vector state, since gcc's
 * -fipa-ra lets a caller keep values in caller-saved registers across a
 * call to a local function built without -pg (shared/notes/noflag.md §3.2).
 */
#include <cpuid.h>
#include <stddef.h>
#include <string.h>

#include "arch.h"
#include "arch/arch.h"
#include "noflag_proof.h"
#include "x86_insn.h"

#define STUB_SIZE	128u
#define RED_ZONE	128u

/*
 * For ps_x86_64_tramp_noflag (tramp.S): which vector registers it keeps.
 * 0: xmm0-15 (SSE, or no OSXSAVE: nothing wider can be used); 1: ymm0-15
 * (XCR0 enables AVX); 2: zmm0-31 and k0-7 (XCR0 enables the three AVX-512
 * components).  Plain moves, not XSAVE: measured on this project's VMs
 * (two cores, loaded), an xsavec64/xrstor64 pair costs 400-700 ns whatever
 * the mask, an fxsave64/fxrstor64 pair 250 ns; the moves a few.
 */
unsigned char ps_x86_64_vec __attribute__((visibility("hidden")));
/*
 * Set once a no-flag stub is written: from then on the slow paths the fast
 * trampolines call into C (tramp.S ps_x86_64_call_saved, the graph return
 * hook's among them) keep the whole vector state too, not only xmm0-7.  A
 * function built without -pg may have callers that keep any vector register
 * live across it (-fipa-ra), and the C path may reach libc's AVX string
 * functions, which use ymm/zmm registers above xmm7.
 */
unsigned char ps_x86_64_vec_all __attribute__((visibility("hidden")));

static void vec_level(void)
{
	unsigned a, b, c, d, lo, hi;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 0xe6) == 0xe6)
		ps_x86_64_vec = 2;
	else if ((lo & 6) == 6)
		ps_x86_64_vec = 1;
}

static bool rel32_to(uintptr_t next, uintptr_t to, uint8_t *out)
{
	intptr_t d = (intptr_t)(to - next);
	int32_t v = (int32_t)d;

	if (d != v)
		return false;
	memcpy(out, &v, 4);
	return true;
}

static int32_t s32_at(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

struct emit {
	uint8_t *p;
	uintptr_t at;		/* address of p[0] */
	unsigned n;		/* bytes written */
	unsigned lit;		/* where the next literal goes (from the end) */
	const char *why;
};

static uint8_t *room(struct emit *e, unsigned len)
{
	uint8_t *q = e->p + e->n;

	if (e->n + len > e->lit) {
		e->why = "stub-too-small";
		return NULL;
	}
	e->n += len;
	return q;
}

/* jmp rel32 (or jcc rel32 when cc >= 0) to target. */
static void branch(struct emit *e, int cc, uintptr_t target)
{
	unsigned len = cc < 0 ? 5 : 6;
	uint8_t *q = room(e, len);

	if (!q)
		return;
	if (cc < 0) {
		q[0] = X86_OP_JMP_REL32;
	} else {
		q[0] = 0x0f;
		q[1] = (uint8_t)(0x80 | cc);
	}
	if (!rel32_to(e->at + e->n, target, q + len - 4))
		e->why = "branch-out-of-reach";
}

/* call rel32 moved: push the original return address from a literal, then jmp. */
static void call(struct emit *e, uintptr_t ret, uintptr_t target)
{
	uint8_t *q = room(e, 6);

	if (!q)
		return;
	if (e->lit < e->n + 8 + 5) {
		e->why = "stub-too-small";
		return;
	}
	e->lit -= 8;
	memcpy(e->p + e->lit, &ret, 8);
	q[0] = 0xff;		/* push disp32(%rip): ff /6 */
	q[1] = 0x35;
	rel32_to(e->at + e->n, e->at + e->lit, q + 2);	/* within the stub */
	branch(e, -1, target);
}

/* One displaced instruction, at `orig` in the program, len bytes at src. */
static void relocate(struct emit *e, const struct nf_insn *in, const uint8_t *src, uintptr_t orig)
{
	uintptr_t next = orig + in->len;
	uint8_t *q;

	switch (in->kind) {
	case NF_PLAIN:
	case NF_RIP:
		/*
		 * call *disp32(%rip) (ff /2, /3): its return address would be in the
		 * stub, where no unwinder finds a frame (a C++ throw through it ends
		 * the program).  A rip-relative operand has no SIB: ModRM is
		 * right before the disp32, the one-byte opcode before it.
		 */
		if (in->kind == NF_RIP && in->off >= 2 && src[in->off - 2] == 0xff &&
		    ((src[in->off - 1] >> 3 & 7) == 2 || (src[in->off - 1] >> 3 & 7) == 3)) {
			e->why = "indirect-call-in-window";
			return;
		}
		if (!(q = room(e, in->len)))
			return;
		memcpy(q, src, in->len);
		if (in->kind == NF_RIP &&
		    !rel32_to(e->at + e->n, next + (intptr_t)s32_at(src + in->off), q + in->off))
			e->why = "rip-out-of-reach";
		return;
	case NF_CALL:
		if (in->off != 1 || in->len != 5 || src[0] != X86_OP_CALL_REL32)
			break;
		call(e, next, next + (intptr_t)s32_at(src + 1));
		return;
	case NF_JMP:
		if (in->off != 1 || in->len != 5 || src[0] != X86_OP_JMP_REL32)
			break;
		branch(e, -1, next + (intptr_t)s32_at(src + 1));
		return;
	case NF_JCC:
		if (in->off != 2 || in->len != 6 || src[0] != 0x0f || (src[1] & 0xf0) != 0x80)
			break;
		branch(e, src[1] & 0x0f, next + (intptr_t)s32_at(src + 2));
		return;
	case NF_JMP8:
		if (in->off != 1 || in->len != 2 || src[0] != 0xeb)
			break;
		branch(e, -1, next + (int8_t)src[1]);
		return;
	case NF_JCC8:
		if (in->off != 1 || in->len != 2 || (src[0] & 0xf0) != 0x70)
			break;
		branch(e, src[0] & 0x0f, next + (int8_t)src[1]);
		return;
	}
	e->why = "unsupported-branch-form";	/* prefixes on a branch, or a kind we do not know */
}

/* A branch of the window that lands inside it: it would land in the program's rewritten bytes. */
static bool branch_into_window(const struct nf_record *r, uintptr_t site)
{
	uintptr_t orig = site;

	for (unsigned i = 0; i < r->ninsns; i++) {
		const struct nf_insn *in = &r->insns[i];
		const uint8_t *src = r->bytes + (orig - site);
		uintptr_t next = orig + in->len, target;

		orig = next;
		if (in->kind == NF_PLAIN || in->kind == NF_RIP)
			continue;
		target = next + (in->kind == NF_JMP8 || in->kind == NF_JCC8 ? (intptr_t)(int8_t)src[in->off]
				 : (intptr_t)s32_at(src + in->off));
		if (target > site && target < site + r->nbytes)
			return true;
	}
	return false;
}

unsigned ps_x86_64_write_noflag_stub(uint8_t *p, uintptr_t at, uintptr_t site,
				     const struct nf_record *r, const char **why)
{
	static const uint8_t lea_down[] = { 0x48, 0x8d, 0x64, 0x24, 0x80 };	/* lea -0x80(%rsp),%rsp */
	static const uint8_t lea_up[] = { 0x48, 0x8d, 0xa4, 0x24, 0x80, 0, 0, 0 };	/* lea 0x80(%rsp),%rsp */
	struct emit e = { .p = p, .at = at, .n = 8, .lit = STUB_SIZE };
	uint32_t back = r->depth + (r->form == 'b' ? RED_ZONE : 0);
	uintptr_t orig = site;
	unsigned slot;

	*why = NULL;
	vec_level();
	__atomic_store_n(&ps_x86_64_vec_all, 1, __ATOMIC_RELEASE);
	/* 'c' and 'p': whole instructions from the entry, as 'a' (the stub runs them in turn). */
	if (!r->form || !strchr("abcp", r->form) || (r->form != 'b' && r->depth)) {
		*why = "form-not-armed";
		return 0;
	}
	if (branch_into_window(r, site)) {
		*why = "branch-into-window";
		return 0;
	}
	memset(p, X86_OP_INT3, STUB_SIZE);
	memcpy(p, &back, 4);
	if (r->form == 'b')
		memcpy(room(&e, sizeof(lea_down)), lea_down, sizeof(lea_down));
	slot = e.n;
	memcpy(room(&e, 5), x86_nop5_forms[0], 5);
	if (r->form == 'b')
		memcpy(room(&e, sizeof(lea_up)), lea_up, sizeof(lea_up));
	for (unsigned i = 0; i < r->ninsns && !e.why; i++) {
		relocate(&e, &r->insns[i], r->bytes + (orig - site), orig);
		orig += r->insns[i].len;
	}
	if (!e.why)
		branch(&e, -1, site + r->nbytes);
	if (e.why) {
		*why = e.why;
		return 0;
	}
	return slot;
}
