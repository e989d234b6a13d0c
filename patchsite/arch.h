/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the runtime needs to know about an instruction set, behind one
 * const struct per arch (patchsite/arch_<arch>.c).  Generic code never
 * names an opcode byte, a register of the machine context or an EM_* value.
 *
 * The model: a site is psa_patch_len bytes that are either the arch's NOP
 * or a call to a per-site stub; a live change first plants a breakpoint on
 * the first byte, so the arch also says how to recognise and emulate it.
 *
 * Where aarch64 goes (next): gcc -fpatchable-function-entry=2 gives two
 * NOPs per function; the site is the second, one aligned 4-byte word
 * switched between NOP and BL to the stub (make_call fails beyond BL's
 * +-128 MiB, so stubs are mapped near the module, as here).  A 4-byte
 * aligned store is single-copy atomic there, so a live change needs no
 * breakpoint: patch.c's three steps become one store per site, then
 * sync_icache (dc cvau / ic ivau) and the same membarrier(SYNC_CORE).
 * That is one flag in this struct selecting the one-step protocol; the
 * trampolines (x30 holds the return address, not the stack) are the
 * arch's own file, like arch_x86_64.c.
 */
#ifndef PS_ARCH_H
#define PS_ARCH_H

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
};

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
	 * entry hook finds it, so such sites are refused, naming the reason.
	 */
	unsigned late_hook;

	/* Decode what is at a recorded site (at least max_site_len + skip bytes readable). */
	void (*decode_site)(const uint8_t *p, uintptr_t addr, struct site_insn *out);
	/* If p is a PLT-style stub jumping through a slot, that slot, else 0. */
	uintptr_t (*plt_slot)(const uint8_t *p, uintptr_t addr);
	/* Bytes that end a site of len bytes after the patch_len ones (filled with NOP). */
	void (*fill_tail)(uint8_t *p, unsigned n);
	void (*make_nop)(uint8_t *out);
	/* Call from `from` to `to`; false when out of reach. */
	bool (*make_call)(uint8_t *out, uintptr_t from, uintptr_t to);
	/* One-byte breakpoint planted on a site's first byte while it changes. */
	uint8_t breakpoint;
	/* A stub: pass id << 2 | type (0 entry, 1 exit), jump to the address stored in slot. */
	bool (*write_stub)(uint8_t *p, uintptr_t at, uint32_t id, unsigned type, uintptr_t slot);

	/* The signal is a breakpoint instruction's trap (not a kill or a step). */
	bool (*is_breakpoint_trap)(const siginfo_t *si);
	/* Signal context: address of the breakpoint that trapped. */
	uintptr_t (*trap_site)(const ucontext_t *uc);
	/* Resume as if the site were a call to target (call) or a NOP ending at target (!call). */
	void (*emulate)(ucontext_t *uc, uintptr_t site, bool call, uintptr_t target);
	/* Resume by executing the site again (the breakpoint is gone). */
	void (*retry)(ucontext_t *uc, uintptr_t site);
	/* Flush the instruction cache after writing code (no-op where coherent). */
	void (*sync_icache)(void *p, size_t n);

	/* Trampolines a stub may jump to: any set of ops (calls ps_dispatch),
	 * and the fast paths of the built-in tracers when one is alone. */
	void (*tramp)(void);
	void (*tramp_func)(void);
	void (*tramp_graph)(void);
	void (*tramp_graph_noret)(void);	/* entry of a function with exit sites */
	void (*tramp_graph_exit)(void);		/* an exit site */
	/* Where the graph tracer's hooked returns go. */
	void (*graph_return)(void);
};

extern const struct ps_arch ps_arch_x86_64;

#endif
