/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the runtime needs to know about an instruction set, behind one
 * const struct per arch (patchsite/<arch>/arch.c).  Generic code never
 * names an opcode byte, a register of the machine context or an EM_* value.
 *
 * The model: a site is psa_patch_len bytes that are either the arch's NOP
 * or a call to a per-site stub; a live change first plants a breakpoint on
 * the first byte, so the arch also says how to recognise and emulate it.
 *
 * aarch64 (patchsite/arch/aarch64/arch.c) sets one_step: its sites are aligned
 * words that may change while other threads run them (NOP <-> BL), so a
 * live change is one store per word, sync_icache and membarrier(SYNC_CORE),
 * with no breakpoint.  riscv64 (patchsite/arch/riscv64/arch.c) too, for the
 * second word of `auipc t0; nop` <-> `auipc t0; jalr`, whose first word is
 * aimed at the stub at start-up (make_idle).  The build picks the host's
 * struct (PS_HOST_ARCH).
 *
 * Each arch's folder: arch.c (the ops struct), tramp.S (the trampolines),
 * got_thunk.c (the thunk a traced GOT slot points to), regs.c (the
 * register map of probes, regs.h), host.h, frame.h; cyg.S, and on x86-64
 * probe_tramp.S and retprobe_tramp.S (the probes' fast paths).
 */
#ifndef PATCHSITE_ARCH_H
#define PATCHSITE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>

/* What start-up found at a recorded site. */
enum site_form {
	FORM_UNKNOWN,		/* none of the below: refused */
	FORM_CALL,		/* direct call: target in insn.target */
	FORM_CALL_SLOT,		/* indirect call through a pointer slot: insn.slot */
	FORM_NOP,		/* the arch's canonical NOP of patch_len bytes */
	FORM_NOP_BYTES,		/* patch_len one-byte NOPs (-fpatchable-function-entry) */
};

struct site_insn {
	enum site_form form;
	unsigned len;		/* bytes the original instruction(s) take */
	unsigned skip;		/* bytes before the site proper (endbr64) */
	uintptr_t target;	/* FORM_CALL */
	uintptr_t slot;		/* FORM_CALL_SLOT */
	const char *why;	/* FORM_UNKNOWN: why, where the arch can say (else NULL) */
};

struct patchsite_regs;
struct nf_record;

struct ps_arch {
	const char *name;
	uint16_t machine;		/* e_machine of the files we accept */
	unsigned patch_len;		/* bytes switched between NOP and call */
	unsigned max_site_len;		/* longest original site (to read ahead) */
	unsigned stub_size;		/* bytes of one per-site stub */
	const char *const *hooks;	/* names a site's call may target */
	/*
	 * hooks[late_hook] and after are called after the prologue (x86-64
	 * mcount: -pg without -mfentry): the return address is not where an
	 * entry hook finds it.  Such a site is traced only where late_site
	 * says the function's prologue keeps the return slot where the late
	 * trampolines look (tramp_late...), else refused, naming the reason.
	 */
	unsigned late_hook;
	/*
	 * fn (the function's first bytes, fn_len of them readable: the site's
	 * too) starts with the frame-pointer prologue and the site at byte off
	 * is after it: the late trampolines find the return slot in the frame
	 * record.  *arg: what the site's stub passes them (write_stub; aarch64:
	 * where the sp at entry is, and whether paciasp signed the return
	 * address), 0 where they need nothing.  false with *why (or NULL for
	 * late_prologue's words): not such a site.  NULL where late sites are
	 * not traced (mcount_refused says why).
	 */
	bool (*late_site)(const uint8_t *fn, size_t fn_len, size_t off, uint16_t *arg,
			  const char **why);
	/* The frame-pointer prologue late sites need, in words for a refusal. */
	const char *late_prologue;
	/*
	 * Bytes a late site starts before the call a table records (aarch64: the
	 * `mov x0, x30` that passes _mcount its argument, rewritten with the call).
	 */
	unsigned late_back;
	/* At a late site the arguments are no longer in their registers (aarch64: x0 is _mcount's). */
	bool late_no_args;
	/*
	 * No table (-pg without -mrecord-mcount): where the function at fn
	 * (len bytes, at addr when loaded) calls after its prologue, with in
	 * set as decode_site does; 0 with *why when it does not.  The caller
	 * checks that the call is to a late hook.  NULL: not done here.
	 */
	size_t (*find_late_call)(const uint8_t *fn, size_t len, uintptr_t addr,
				 struct site_insn *in, const char **why);

	/* Decode what is at a recorded site (at least max_site_len + skip bytes readable). */
	void (*decode_site)(const uint8_t *p, uintptr_t addr, struct site_insn *out);
	/* If p is a PLT-style stub jumping through a slot, that slot, else 0. */
	uintptr_t (*plt_slot)(const uint8_t *p, uintptr_t addr);
	/* Bytes that end a site of len bytes after the patch_len ones (filled with NOP). */
	void (*fill_tail)(uint8_t *p, unsigned n);
	void (*make_nop)(uint8_t *out);
	/*
	 * The idle bytes of a site whose NOP depends on where it and its stub
	 * are (riscv64: `auipc t0` aimed at the stub, then the NOP a live change
	 * turns into `jalr`); false when out of reach.  Where set, a module's
	 * stubs are mapped before its sites are NOPed, and sites never get
	 * make_nop's bytes.  NULL: make_nop.
	 */
	bool (*make_idle)(uint8_t *out, uintptr_t from, uintptr_t to);
	/* Call from `from` to `to`; false when out of reach. */
	bool (*make_call)(uint8_t *out, uintptr_t from, uintptr_t to);
	/*
	 * One-step protocol: every instruction of a site is one aligned word
	 * whose concurrent change is architecturally safe (aarch64: NOP <-> BL),
	 * so a live change is one aligned store per word that differs, then
	 * sync_icache and membarrier(SYNC_CORE); no breakpoint, no trap handler
	 * (breakpoint, is_breakpoint_trap, trap_site, emulate, retry unused).
	 */
	bool one_step;
	/* Why __mcount_loc sites (-pg) are not traced on this arch, or NULL when they are. */
	const char *mcount_refused;
	/* How far a site's call reaches: stubs go within this distance of the whole text. */
	uintptr_t reach;
	/* One-byte breakpoint planted on a site's first byte while it changes. */
	uint8_t breakpoint;
	/*
	 * A stub: pass id << 2 | type (0 entry, 1 exit), and a late site's arg
	 * (late_site), jump to the address stored in slot.
	 */
	bool (*write_stub)(uint8_t *p, uintptr_t at, uint32_t id, unsigned type, uint16_t arg,
			   uintptr_t slot);

	/* The signal is a breakpoint instruction's trap (not a kill or a step). */
	bool (*is_breakpoint_trap)(const siginfo_t *si);
	/* Signal context: address of the breakpoint that trapped. */
	uintptr_t (*trap_site)(const ucontext_t *uc);
	/* Resume as if the site were a call to target (call) or a NOP ending at target (!call). */
	void (*emulate)(ucontext_t *uc, uintptr_t site, bool call, uintptr_t target);
	/* Resume by executing the site again (the breakpoint is gone). */
	void (*retry)(ucontext_t *uc, uintptr_t site);
	/*
	 * Event sites (jump labels, include/patchsite_event.h): jump_len bytes
	 * that are the NOP the header emits or a jump to the enabled block.
	 */
	unsigned jump_len;
	void (*make_jump_nop)(uint8_t *out);
	bool (*make_jump)(uint8_t *out, uintptr_t from, uintptr_t to);
	/* Flush the instruction cache after writing code (no-op where coherent). */
	void (*sync_icache)(void *p, size_t n);

	/* Trampolines a stub may jump to: any set of ops (calls ps_dispatch),
	 * and the fast paths of the built-in tracers when one is alone. */
	void (*tramp)(void);
	void (*tramp_func)(void);
	void (*tramp_graph)(void);
	void (*tramp_graph_noret)(void);	/* entry of a function with exit sites */
	void (*tramp_graph_exit)(void);		/* an exit site */
	/* The same three for a site after the prologue (SITE_ENTRY_LATE). */
	void (*tramp_late)(void);
	void (*tramp_func_late)(void);
	void (*tramp_graph_late)(void);
	/* function_profile's entry (the others as the graph tracer's); NULL: the graph one. */
	void (*tramp_profile)(void);
	/* Dynamic probes alone (events/probe_fast.c); NULL: the generic one. */
	void (*tramp_probe)(void);
	/* Where the graph tracer's hooked returns go. */
	void (*graph_return)(void);
	/*
	 * Returns hooked through a register (aarch64's x30, riscv64's ra): the
	 * function saves the hook wherever its CFI says, not at the CFA - 8
	 * where x86-64's call put it.  The frame is keyed by the sp at entry -
	 * 8 all the same, the CFA libgcc's unwinder computes for it - 8, so the
	 * _Unwind_Find_FDE wrapper finds it by the key alone (record/unwind.c).
	 * false: the hooked slot is the return address in memory (x86-64).
	 */
	bool ret_keyed_by_cfa;
	/*
	 * The slot a return hooked through loc (a trampoline's parent_loc) is
	 * keyed by: the sp at the function's entry - 8, as graph_return finds
	 * it.  NULL: loc itself.  aarch64's late trampolines hand C a copy of
	 * the frame record's return address, which lies below that sp.
	 */
	uintptr_t (*key_slot)(const unsigned long *loc);
	/*
	 * Integer arguments and return values for the built-in tracers
	 * (set_ftrace_args): how many argument registers patchsite_regs_arg
	 * reads; the return value at an exit site (regs) and at a hooked return
	 * (the slot graph_return handed to its slow path).  NULL: not done on
	 * this arch, refused by name.
	 */
	unsigned arg_regs;
	unsigned long (*regs_retval)(const struct patchsite_regs *regs);
	unsigned long (*exit_retval)(const unsigned long *slot);
	/*
	 * Hardware counter idx read from user space (x86-64 rdpmc), for read=
	 * triggers where the kernel allows it (record/readtrig.c); NULL: read(2).
	 */
	uint64_t (*read_pmc)(uint32_t idx);
	/*
	 * libgcc's unwinder walks from inside an ops callback through the
	 * generic trampoline into the traced function and its callers (the
	 * stacktrace filter command); false: refused by name.
	 */
	bool unwinds_from_ops;
	/*
	 * Library calls (sites/got.c): the thunk a GOT slot points to while
	 * calls through it are traced, slot_thunk_size bytes at `at`.  It enters
	 * the trampoline in tramp_slot as an entry site's stub does (id << 2,
	 * the return into the thunk, the return into the caller), then jumps to
	 * the function through target_slot with every register as the caller
	 * left it.  NULL: library calls are refused on this arch, by name.
	 */
	unsigned slot_thunk_size;
	uint32_t jump_slot_type, glob_dat_type;	/* the relocations that bind a GOT slot */
	/*
	 * st_other bits of a function with a calling convention of its own
	 * (aarch64's STO_AARCH64_VARIANT_PCS, riscv's STO_RISCV_VARIANT_CC: vector
	 * arguments, or more registers kept than the thunk and trampolines keep):
	 * such slots are refused, saying variant_pcs_why.  0: none.
	 */
	unsigned char variant_pcs;
	const char *variant_pcs_why;
	bool (*write_slot_thunk)(uint8_t *p, uintptr_t at, uint32_t id, uintptr_t tramp_slot,
				 uintptr_t target_slot);
	/*
	 * -fno-plt calls go through GLOB_DAT slots, which `&func` reads too
	 * (sites/got_uses.c): every reference the code at p (len bytes, at
	 * addr) may make to an 8-byte word in [lo, hi), said to found() as
	 * SLOT_USE_CALL (a call or jump through it) or SLOT_USE_DATA (anything
	 * else: the function's address seen as a value).  It may say too much
	 * (a word left alone for nothing), never too little.  NULL: no proof on
	 * this arch, and slot_uses_why says why, by name.
	 */
	void (*slot_uses)(const uint8_t *p, size_t len, uintptr_t addr, uintptr_t lo, uintptr_t hi,
			  void (*found)(void *arg, uintptr_t word, unsigned use), void *arg);
	const char *slot_uses_why;
	/*
	 * Sites in code built without any flag (sites/noflag.c, issue 37): the
	 * out-of-line stub of one proven site (include/noflag_proof.h's record r,
	 * whose SITE is at `site` in memory), noflag_stub_size bytes written at p
	 * (at `at`, aligned to noflag_stub_size): the displaced instructions
	 * re-encoded for `at`, a jump back after them, and before them a slot of
	 * patch_len bytes that is the arch's NOP or a call to the site's stub
	 * (whose trampoline is tramp_noflag: it keeps every register, flag and
	 * vector register).  The slot's offset in the stub, or 0 with *why (the
	 * refusal's name).  NULL: refused by name (noflag_refused).
	 */
	unsigned noflag_stub_size;
	unsigned (*write_noflag_stub)(uint8_t *p, uintptr_t at, uintptr_t site,
				      const struct nf_record *r, const char **why);
	void (*tramp_noflag)(void);
	/*
	 * The function and function_graph tracers' fast entries for no-flag
	 * sites at a function's entry (SITE_ENTRY_NOFLAG; a form b site is
	 * SITE_NOFLAG_DEEP and always takes tramp_noflag): what tramp_func and
	 * tramp_graph do, keeping the flags too.  NULL: tramp_noflag.
	 */
	void (*tramp_func_noflag)(void);
	void (*tramp_graph_noflag)(void);
	/* Why write_noflag_stub is NULL here (one line, said when a proof file is given). */
	const char *noflag_refused;
};

enum { SLOT_USE_CALL = 1, SLOT_USE_DATA = 2 };

extern const struct ps_arch ps_arch_x86_64, ps_arch_aarch64, ps_arch_riscv64;

#endif
