// SPDX-License-Identifier: GPL-2.0-only
/*
 * aarch64 for the runtime.
 *
 * Sites: gcc -fpatchable-function-entry=2 (what the arm64 kernel uses)
 * leaves two NOPs at each function's entry, after `bti c` under
 * -mbranch-protection=standard and before `paciasp`; its table
 * (__patchable_function_entries) holds the first NOP's address.  At start-up
 * (one thread) the first NOP becomes `mov x9, x30`, as the kernel's
 * ftrace_init_nop does, and stays so; only the second word is switched
 * between NOP and `bl stub` afterwards:
 *
 *   as built:  nop;          nop
 *   idle:      mov x9, x30;  nop
 *   traced:    mov x9, x30;  bl stub      (the stub within BL's +-128 MiB)
 *
 * NOP <-> BL is one of the changes the Arm ARM lets one thread make while
 * others execute the word (the concurrent modification and execution rules,
 * "CMODX": "Concurrent modification and execution of instructions" in DDI
 * 0487): a thread sees either instruction.  So
 * this arch uses patch.c's one-step protocol: one aligned 32-bit store per
 * site, then the cache maintenance (__builtin___clear_cache: dc cvau, dsb
 * ish, ic ivau, dsb ish, isb on the writer) and membarrier(SYNC_CORE), which
 * makes every other thread of the process execute a context synchronisation
 * (an isb) before a stub or trampoline is reused or freed, as the kernel's
 * aarch64_insn_patch_text_nosync and its IPI do.
 *
 * Each site's stub (24 bytes) passes its word, id << 2 | type, in w16 and
 * jumps through the module's trampoline slot (two-level dispatch, as on
 * x86-64):  movz w16, #lo; movk w16, #hi, lsl 16; adrp x17, slot;
 * ldr x17, [x17, #:lo12:slot]; br x17; brk.  x16 and x17 (IP0, IP1) are
 * free at a function's entry, as in a linker veneer.  Encodings come from
 * lib/arch/aarch64.c (include/a64_insn.h); the trampolines are tramp.S.
 *
 * The -pg form: gcc calls _mcount after the prologue, `mov x0, x30; bl
 * _mcount`, at -O2 often with another instruction between (no -mfentry,
 * no -mrecord-mcount here: a table comes from our recordmcount, or sites
 * are found from the symbols, sites/scan.c).  The site is the bl and the
 * word before it (late_back: tables name the bl), which sites/patch.c
 * keeps as built: only the bl changes, to a NOP or `bl stub`; a late stub
 * also passes, in x16's bits 32..47, where the sp at entry is (frame / 16)
 * and whether paciasp signed the return address (bit 47).  The late
 * trampolines read the return address from the frame record at x29 + 8,
 * hook it there (signed as paciasp did: pacia1716 with the sp at entry),
 * and key the shadow frame by that sp, as an entry site's is.
 */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "a64_insn.h"
#include "arch.h"
#include "arch/arch.h"
#include "got_thunk.h"
#include "patchsite.h"

#include "frame.h"
_Static_assert(offsetof(struct patchsite_regs, parent_loc) == 88 - 16, "tramp.S layout");
_Static_assert(offsetof(struct patchsite_regs, q) == 96 - 16, "tramp.S q0");
_Static_assert(offsetof(struct patchsite_regs, x10_15) == 224 - 16, "tramp.S x10");
_Static_assert(offsetof(struct patchsite_regs, a) == 280 - 16, "tramp.S A0");
_Static_assert(sizeof(struct patchsite_regs) == 304 - 16, "tramp.S FRAME");
_Static_assert(offsetof(struct patchsite_regs, a[2]) - offsetof(struct patchsite_regs, key_slot) ==
	       3 * sizeof(unsigned long), "aarch64_key_slot: loc[-3]");

void ps_aarch64_tramp(void);
void ps_aarch64_func_entry(void);
void ps_aarch64_graph_entry(void);
void ps_aarch64_graph_noret(void);
void ps_aarch64_graph_return(void);
void ps_aarch64_tramp_late(void);
void ps_aarch64_func_late(void);
void ps_aarch64_graph_late(void);

#define X16 16
#define X17 17
#define STUB_WORDS 6

static uint32_t word_at(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return w;
}

static void put_word(uint8_t *p, uint32_t w)
{
	memcpy(p, &w, 4);
}

#define A64_MOV_X0_LR	0xaa1e03e0	/* mov x0, x30 (orr x0, xzr, x30) */

/*
 * Two NOPs as built: the first is rewritten at start-up (FORM_NOP_BYTES);
 * `mov x9, x30; nop` is an idle site already (FORM_NOP); -pg's bl _mcount
 * and the word before it a call (FORM_CALL).  Anything else is refused.
 */
static void aarch64_decode_site(const uint8_t *p, uintptr_t addr, struct site_insn *out)
{
	uint32_t w0 = word_at(p), w1 = word_at(p + 4);

	memset(out, 0, sizeof(*out));
	out->len = 8;
	if (a64_is_bl(w1)) {		/* (any word before it: sites/patch.c keeps it) */
		out->form = FORM_CALL;
		out->target = a64_bl_target(addr + 4, w1);
	} else if (w0 == A64_MOV_X0_LR && w1 == a64_nop()) {
		out->form = FORM_UNKNOWN;
		out->why = "a call to _mcount NOPed at build time: keep the calls (recordmcount "
			   "without --nop-all)";
	} else if (w1 != a64_nop())
		out->form = FORM_UNKNOWN;
	else if (w0 == a64_nop())
		out->form = FORM_NOP_BYTES;
	else if (w0 == a64_mov_x9_lr())
		out->form = FORM_NOP;
	else
		out->form = FORM_UNKNOWN;
}

/* A PLT entry (after bti c where the PLT has landing pads): its slot (lib/arch's reader). */
static uintptr_t aarch64_plt_slot(const uint8_t *p, uintptr_t addr)
{
	uint32_t w[4];
	uint64_t slot;

	if (word_at(p) == a64_bti_c()) {
		p += 4;
		addr += 4;
	}
	for (unsigned i = 0; i < 4; i++)
		w[i] = word_at(p + 4 * i);
	return a64_plt_entry(w, addr, &slot) ? (uintptr_t)slot : 0;
}

/*
 * A -pg site after gcc's frame-pointer prologue (lib/arch a64_pg_site):
 * arg = the frame (sp at entry - x29) / 16, bit 15 set where paciasp
 * signed the return address.  pacibsp (key B) is refused: the late
 * trampolines sign with key A.
 */
static bool aarch64_late_site(const uint8_t *fn, size_t fn_len, size_t off, uint16_t *arg,
			      const char **why)
{
	struct a64_pg pg;
	size_t at = a64_pg_site(fn, fn_len, off, &pg);

	*arg = 0;
	*why = pg.why;
	if (!at || at != off)
		return false;
	if (pg.sign == 2) {
		*why = "its return address is signed with key B (pacibsp), which the late "
		       "trampolines do not sign with: build with -mbranch-protection=standard";
		return false;
	}
	if (pg.frame % 16 || pg.frame / 16 > 0x7fff) {
		*why = "a frame larger than 512 KB";
		return false;
	}
	*arg = (uint16_t)(pg.frame / 16 | (pg.sign ? 0x8000 : 0));
	return true;
}

/* No table: the same prologue walk, to the site's `mov x0, x30; bl`. */
static size_t aarch64_find_late_call(const uint8_t *fn, size_t len, uintptr_t addr,
				     struct site_insn *in, const char **why)
{
	struct a64_pg pg;
	size_t at = a64_pg_site(fn, len, 0, &pg);

	if (!at) {
		*why = pg.why;
		return 0;
	}
	aarch64_decode_site(fn + at, addr + at, in);
	return at;
}

/* aarch64's late trampolines keep the key slot in patchsite_regs.pad, 3 words below a[2]. */
static uintptr_t aarch64_key_slot(const unsigned long *loc)
{
	return loc[-3];
}

static void aarch64_fill_tail(uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i + 4 <= n; i += 4)
		put_word(p + i, a64_nop());
}

static void aarch64_make_nop(uint8_t *out)
{
	put_word(out, a64_mov_x9_lr());
	put_word(out + 4, a64_nop());
}

static bool aarch64_make_call(uint8_t *out, uintptr_t from, uintptr_t to)
{
	uint32_t bl;

	if (!a64_bl(from + 4, to, &bl))
		return false;
	put_word(out, a64_mov_x9_lr());
	put_word(out + 4, bl);
	return true;
}

static void aarch64_make_jump_nop(uint8_t *out)
{
	put_word(out, a64_nop());
}

/* B imm26: BL's encoding without the link bit 31 (Arm ARM C6.2.26, C6.2.35); NOP <-> B is CMODX-safe. */
static bool aarch64_make_jump(uint8_t *out, uintptr_t from, uintptr_t to)
{
	uint32_t w;

	if (!a64_bl(from, to, &w))
		return false;
	put_word(out, w & ~(1u << 31));
	return true;
}

/* A late site's arg goes to x16's bits 32..47 (movk), in the word the brk pads otherwise. */
static bool aarch64_write_stub(uint8_t *p, uintptr_t at, uint32_t id, unsigned type,
			       uint16_t arg, uintptr_t slot)
{
	uint32_t idw = id << 2 | type, w[STUB_WORDS];
	unsigned k = arg ? 3 : 2;

	if (id > (UINT32_MAX >> 2) || !a64_adrp(X17, at + 4 * k, slot, &w[k]) ||
	    !a64_ldr_x_imm(X17, X17, slot & 0xfff, &w[k + 1]))
		return false;
	w[0] = a64_movz_w(X16, (uint16_t)idw, 0);
	w[1] = a64_movk_w(X16, (uint16_t)(idw >> 16), 1);
	if (arg)
		w[2] = a64_movk_x(X16, arg, 2);
	w[k + 2] = a64_br(X17);
	if (!arg)
		w[5] = a64_brk(0x5053);		/* "PS": never reached */
	memcpy(p, w, sizeof(w));
	return true;
}

static void aarch64_sync_icache(void *p, size_t n)
{
	__builtin___clear_cache((char *)p, (char *)p + n);
}

/*
 * A late trampoline's frame keys by the sp at entry, not &a[2]: a -pg site,
 * where the arguments are no longer in x0..x7 (x0 is _mcount's): 0, ENODATA.
 */
unsigned long patchsite_regs_arg(const struct patchsite_regs *regs, unsigned n)
{
	if (regs->key_slot != (uintptr_t)&regs->a[2]) {
		errno = ENODATA;
		return 0;
	}
	return n < 8 ? regs->x[n] : 0;
}

unsigned long *patchsite_regs_parent_loc(struct patchsite_regs *regs)
{
	return regs->parent_loc;
}

static unsigned long aarch64_regs_retval(const struct patchsite_regs *regs)
{
	return regs->x[0];
}

/*
 * ps_aarch64_graph_return_slow (tramp.S) saved x0 at sp + 16 of its frame
 * and hands ps_graph_exit_slow the frame's a[2], sp + A2 (296).
 */
static unsigned long aarch64_exit_retval(const unsigned long *slot)
{
	return *(const unsigned long *)((uintptr_t)slot - 296 + 16);
}

/* -pg's hook, called after the prologue (late_hook 0: every hook is late). */
static const char *const aarch64_hooks[] = { "_mcount", NULL };

const struct ps_arch ps_arch_aarch64 = {
	.name		= "aarch64",
	.machine	= EM_AARCH64,
	.patch_len	= 8,
	.max_site_len	= 8,
	.stub_size	= STUB_WORDS * 4,
	.hooks		= aarch64_hooks,
	.late_hook	= 0,
	.late_site	= aarch64_late_site,
	.late_prologue	= "stp x29, x30, [sp, #-N]!; mov x29, sp",
	.late_back	= 4,
	.late_no_args	= true,
	.find_late_call	= aarch64_find_late_call,
	.decode_site	= aarch64_decode_site,
	.plt_slot	= aarch64_plt_slot,
	.fill_tail	= aarch64_fill_tail,
	.make_nop	= aarch64_make_nop,
	.jump_len	= 4,
	.make_jump_nop	= aarch64_make_jump_nop,
	.make_jump	= aarch64_make_jump,
	.make_call	= aarch64_make_call,
	.one_step	= true,
	/* From every site to its stub, for the BL at site + 4 (a page of margin). */
	.reach		= A64_BRANCH_REACH - 4096,
	.write_stub	= aarch64_write_stub,
	.sync_icache	= aarch64_sync_icache,
	.tramp		= ps_aarch64_tramp,
	.tramp_func	= ps_aarch64_func_entry,
	.tramp_graph	= ps_aarch64_graph_entry,
	.tramp_graph_noret = ps_aarch64_graph_noret,
	.tramp_graph_exit = ps_aarch64_graph_noret,
	.tramp_late	= ps_aarch64_tramp_late,
	.tramp_func_late = ps_aarch64_func_late,
	.tramp_graph_late = ps_aarch64_graph_late,
	.graph_return	= ps_aarch64_graph_return,
	.key_slot	= aarch64_key_slot,
	/*
	 * The CFA is the sp at entry (AAPCS64 DWARF: DW_CFA_def_cfa sp, 0 there);
	 * libgcc authenticates a signed x30 with it, as paciasp signed the hook.
	 */
	.ret_keyed_by_cfa = true,
	.arg_regs	= 8,
	.regs_retval	= aarch64_regs_retval,
	.exit_retval	= aarch64_exit_retval,
	/* Not yet: under qemu the walk stops in the traced function. */
	.unwinds_from_ops = false,
	.slot_thunk_size = PS_AARCH64_SLOT_THUNK,
	.jump_slot_type	= R_AARCH64_JUMP_SLOT,
	.glob_dat_type	= R_AARCH64_GLOB_DAT,
	.variant_pcs	= STO_AARCH64_VARIANT_PCS,
	.variant_pcs_why = "a variant-PCS function (STO_AARCH64_VARIANT_PCS: SVE arguments, or "
			   "registers kept across the call that the trampolines do not keep)",
	.write_slot_thunk = ps_aarch64_write_slot_thunk,
	.slot_uses_why	= "-fno-plt code loads the function's address from the slot into a "
			  "register (adrp; ldr) and may keep it there across calls before its blr, "
			  "so a call through a slot cannot be told from a use of the address",
	.noflag_refused = "no-flag sites: x86-64 only for now",
};
