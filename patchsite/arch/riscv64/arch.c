// SPDX-License-Identifier: GPL-2.0-only
/*
 * riscv64 for the runtime.
 *
 * Sites: gcc -fpatchable-function-entry leaves NOPs at each function's
 * entry and records the first one's address (__patchable_function_entries,
 * R_RISCV_64 entries).  Debian's riscv64-linux-gnu-gcc 12 (rv64gc) emits
 * c.nop (2 bytes) while the C extension is on, so the 8 bytes a site needs
 * are =4 there, and =2 gives two 4-byte nops only with -march=rv64g:
 *
 *   rv64gc, =4:  c.nop; c.nop; c.nop; c.nop    (functions only 2-aligned)
 *   rv64g,  =2:  nop;   nop
 *
 * At start-up (one thread) the stubs are mapped first (make_idle), then the
 * first word becomes `auipc t0` aimed at the site's stub and stays so, as
 * the kernel's 2025 ftrace does ("it is impossible to update two
 * instructions without a race"); only the second word is switched between
 * NOP and `jalr` afterwards:
 *
 *   as built:  nop;                nop
 *   idle:      auipc t0, hi(stub); nop
 *   traced:    auipc t0, hi(stub); jalr t0, lo(stub)(t0)   (stub within +-2 GiB)
 *
 * t0 is free at a function's entry (a temporary, not an argument; the
 * kernel's ftrace uses it the same way), and ra is left alone: the stub is
 * reached with t0 = the function's body (site + 8) and ra = its return
 * address.  A site at an address that is only 2-aligned (compressed code
 * without -falign-functions=4) cannot be switched with one aligned store,
 * and is refused by name.
 *
 * The live change is one aligned 32-bit store (NOP <-> JALR), so this arch
 * uses patch.c's one-step protocol.  What makes that safe, and what we
 * rely on (patchsite(7)):
 *  - a naturally aligned 32-bit instruction is fetched whole (Ziccif, part
 *    of the RVA20U64 and later profiles; the kernel's ftrace relies on it):
 *    another hart executes the old word or the new one, never a mix;
 *  - either word is right with the auipc before it, which never changes;
 *  - instruction fetch is not coherent with stores, and fence.i acts on
 *    one hart only: after the stores, __riscv_flush_icache(start, end, 0)
 *    (the riscv_flush_icache system call, all harts of the process) makes
 *    the kernel run fence.i on every hart that runs the process now and
 *    mark the others to do so before they next run it (the kernel's CMODX
 *    document, Documentation/arch/riscv/cmodx.rst, for programs that do
 *    not use PR_RISCV_SET_ICACHE_FLUSH_CTX); then patch.c's
 *    membarrier(SYNC_CORE) (riscv since Linux 6.9) before a stub or
 *    trampoline is reused or freed.  Without SYNC_CORE the runtime traces
 *    what start-up chose and does not patch live (patch.c).
 * Under qemu-user the instruction stream is coherent with stores, so the
 * suite checks the protocol's logic and encodings, not these guarantees.
 *
 * Each site's stub (16 bytes) jumps through the module's trampoline slot
 * and leaves its word, id << 2 | type, where the trampoline finds it:
 * auipc t1, hi(slot); ld t1, lo(slot)(t1); jalr t1, t1; .word idw.  t1 is
 * free at a function's entry (PLT entries clobber it), and after the jalr
 * it points at the word.  Encodings come from lib/arch/riscv.c
 * (include/rv_insn.h); the trampolines are tramp.S.
 *
 * Not handled: the -pg form, `call _mcount` after the prologue (its
 * __mcount_loc table is refused by name, once per object: mcount_refused).
 */
#include <elf.h>
#include <stddef.h>
#include <string.h>
#include <sys/cachectl.h>

#include "arch.h"
#include "arch/arch.h"
#include "got_thunk.h"
#include "patchsite.h"
#include "rv_insn.h"

#include "frame.h"
_Static_assert(offsetof(struct patchsite_regs, parent_loc) == 64, "tramp.S layout");
_Static_assert(offsetof(struct patchsite_regs, t2_6) == 72, "tramp.S t2");
_Static_assert(offsetof(struct patchsite_regs, fa) == 112, "tramp.S fa0");
_Static_assert(offsetof(struct patchsite_regs, w) == 184, "tramp.S A0");
_Static_assert(sizeof(struct patchsite_regs) == 208, "tramp.S FRAME");

void ps_riscv64_tramp(void);
void ps_riscv64_func_entry(void);
void ps_riscv64_graph_entry(void);
void ps_riscv64_graph_noret(void);
void ps_riscv64_graph_return(void);

#define SITE_LEN	8
#define STUB_SIZE	16

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

/* Four c.nop: =4 with the C extension. */
static bool four_c_nops(const uint8_t *p)
{
	for (unsigned i = 0; i < SITE_LEN; i += 2) {
		uint16_t h;

		memcpy(&h, p + i, 2);
		if (h != rv_c_nop())
			return false;
	}
	return true;
}

/*
 * As built: two nops, or four c.nops (FORM_NOP_BYTES, rewritten at
 * start-up).  `auipc t0; nop` is an idle site already (FORM_NOP; patch.c
 * compares it with the stub it should aim at).  A site only 2-aligned, or
 * two c.nops (=2 with the C extension: 4 bytes), is refused saying why.
 */
static void riscv64_decode_site(const uint8_t *p, uintptr_t addr, struct site_insn *out)
{
	uint32_t w0 = word_at(p), w1 = word_at(p + 4);

	memset(out, 0, sizeof(*out));
	out->len = SITE_LEN;
	out->form = FORM_UNKNOWN;
	if (addr & 3) {
		out->why = "a site only 2-byte aligned (compressed code): one aligned store "
			   "cannot switch it; build with -falign-functions=4";
		return;
	}
	if ((w0 == rv_nop() && w1 == rv_nop()) || four_c_nops(p))
		out->form = FORM_NOP_BYTES;
	else if (rv_is_auipc(w0, RV_T0) && w1 == rv_nop())
		out->form = FORM_NOP;
	else if (w0 == ((uint32_t)rv_c_nop() << 16 | rv_c_nop()))
		out->why = "two c.nop (4 bytes), not the 8 a site needs: build with "
			   "-fpatchable-function-entry=4 when compressed instructions are on";
}

/* Sites never call through the PLT here (they hold no call as built). */
static uintptr_t riscv64_plt_slot(const uint8_t *p, uintptr_t addr)
{
	(void)p;
	(void)addr;
	return 0;
}

static void riscv64_fill_tail(uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i + 4 <= n; i += 4)
		put_word(p + i, rv_nop());
}

/* The form as built without C; sites use make_idle (the auipc depends on the stub). */
static void riscv64_make_nop(uint8_t *out)
{
	put_word(out, rv_nop());
	put_word(out + 4, rv_nop());
}

static bool riscv64_make_idle(uint8_t *out, uintptr_t from, uintptr_t to)
{
	uint32_t auipc, jalr;

	if (!rv_auipc_jalr(from, to, RV_T0, RV_T0, &auipc, &jalr))
		return false;
	put_word(out, auipc);
	put_word(out + 4, rv_nop());
	return true;
}

static bool riscv64_make_call(uint8_t *out, uintptr_t from, uintptr_t to)
{
	uint32_t auipc, jalr;

	if (!rv_auipc_jalr(from, to, RV_T0, RV_T0, &auipc, &jalr))
		return false;
	put_word(out, auipc);
	put_word(out + 4, jalr);
	return true;
}

static void riscv64_make_jump_nop(uint8_t *out)
{
	put_word(out, rv_nop());
}

/* jal x0 (j): NOP <-> J is one aligned word, as a site's NOP <-> JALR. */
static bool riscv64_make_jump(uint8_t *out, uintptr_t from, uintptr_t to)
{
	uint32_t w;

	if (!rv_jal(from, to, RV_ZERO, &w))
		return false;
	put_word(out, w);
	return true;
}

static bool riscv64_write_stub(uint8_t *p, uintptr_t at, uint32_t id, unsigned type,
			       uint16_t arg, uintptr_t slot)
{
	uint32_t hi, w[4];
	int32_t lo;

	(void)arg;	/* no late sites here */
	if (id > (UINT32_MAX >> 2) || !rv_pcrel_split((int64_t)(slot - at), &hi, &lo))
		return false;
	w[0] = rv_auipc(RV_T1, hi);
	w[1] = rv_ld(RV_T1, RV_T1, lo);
	w[2] = rv_jalr(RV_T1, RV_T1, 0);	/* t1 = &w[3] */
	w[3] = id << 2 | type;			/* data: read by tramp.S, never executed */
	memcpy(p, w, sizeof(w));
	return true;
}

/* The riscv_flush_icache system call for every hart of the process (see the top of the file). */
static void riscv64_sync_icache(void *p, size_t n)
{
	__riscv_flush_icache(p, (char *)p + n, 0);
}

unsigned long patchsite_regs_arg(const struct patchsite_regs *regs, unsigned n)
{
	return n < 8 ? regs->a[n] : 0;
}

unsigned long *patchsite_regs_parent_loc(struct patchsite_regs *regs)
{
	return regs->parent_loc;
}

static unsigned long riscv64_regs_retval(const struct patchsite_regs *regs)
{
	return regs->a[0];
}

/*
 * ps_riscv64_graph_return_slow (tramp.S) saved a0 at sp of its frame and
 * hands ps_graph_exit_slow the frame's w[2], sp + A2 (200).
 */
static unsigned long riscv64_exit_retval(const unsigned long *slot)
{
	return *(const unsigned long *)((uintptr_t)slot - 200);
}

/* Only what sites/module.c looks for in symbol tables: sites as built call no hook. */
static const char *const riscv64_hooks[] = { "_mcount", NULL };

const struct ps_arch ps_arch_riscv64 = {
	.name		= "riscv64",
	.machine	= EM_RISCV,
	.patch_len	= SITE_LEN,
	.max_site_len	= SITE_LEN,
	.stub_size	= STUB_SIZE,
	.hooks		= riscv64_hooks,
	.decode_site	= riscv64_decode_site,
	.plt_slot	= riscv64_plt_slot,
	.fill_tail	= riscv64_fill_tail,
	.make_nop	= riscv64_make_nop,
	.make_idle	= riscv64_make_idle,
	.jump_len	= 4,
	.make_jump_nop	= riscv64_make_jump_nop,
	.make_jump	= riscv64_make_jump,
	.make_call	= riscv64_make_call,
	.one_step	= true,
	.mcount_refused	= "-pg sites (call _mcount after the prologue) are not supported on "
			  "riscv64 (build with -fpatchable-function-entry=4 -falign-functions=4)",
	/* From every site's auipc to its stub (a page of margin). */
	.reach		= RV_PCREL_MAX - 4096,
	.write_stub	= riscv64_write_stub,
	.sync_icache	= riscv64_sync_icache,
	.tramp		= ps_riscv64_tramp,
	.tramp_func	= ps_riscv64_func_entry,
	.tramp_graph	= ps_riscv64_graph_entry,
	.tramp_graph_noret = ps_riscv64_graph_noret,
	.tramp_graph_exit = ps_riscv64_graph_noret,
	.graph_return	= ps_riscv64_graph_return,
	/* The CFA is the sp at entry (the psABI's DWARF: DW_CFA_def_cfa sp, 0 there). */
	.ret_keyed_by_cfa = true,
	.arg_regs	= 8,
	.regs_retval	= riscv64_regs_retval,
	.exit_retval	= riscv64_exit_retval,
	.unwinds_from_ops = false,
	.slot_thunk_size = PS_RISCV64_SLOT_THUNK,
	.jump_slot_type	= R_RISCV_JUMP_SLOT,
	/* riscv has no GLOB_DAT: a GOT word of a function is an R_RISCV_64 of it, addend 0. */
	.glob_dat_type	= R_RISCV_64,
	.variant_pcs	= STO_RISCV_VARIANT_CC,
	.variant_pcs_why = "a variant calling convention (STO_RISCV_VARIANT_CC: vector arguments, "
			   "or registers kept across the call that the trampolines do not keep)",
	.write_slot_thunk = ps_riscv64_write_slot_thunk,
	.slot_uses_why	= "code that calls through a GLOB_DAT slot loads the function's address "
			  "into a register (auipc; ld) and may keep it there across calls before its "
			  "jalr, so a call through a slot cannot be told from a use of the address",
	.noflag_refused = "no-flag sites: x86-64 only for now",
};
