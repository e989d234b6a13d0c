/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files of sites/ share among themselves (the rest of the runtime
 * sees sites/site.h):
 *   image.c    the file behind a loaded object, checked against the image;
 *              its sections by name
 *   symbols.c  function symbols by address, the names shown, aliases
 *   module.c   objects and their site tables, hook slots, exit linking,
 *              lookups by id and address
 *   stubs.c    where each object's stubs go, and mapping them
 *   scan.c     sites found without a table (plain -pg), from symbols and prologues
 *   nop.c      an object's sites checked and NOPed: at start-up, or loaded late
 *   patch.c    writing sites live: batches, event-site code, the primitives
 *              nop.c shares; trap.c its SIGTRAP handler
 *   dispatch.c ops, want masks, the dispatcher, trampoline choice
 *   ops.c      an ops joins or leaves (ps_ops_register): dispatch.c, then sync.c
 *   filter.c   globs -> one byte per site; sets that grow with new objects
 *   sync.c     every live change of the objects, then patching; watchers
 *   got.c      library calls: the executable's GOT slots as sites of a module
 *              of their own, switched by pointer stores (got.h); got_switch.c
 *              those stores, each slot checked first, RELRO writable for the
 *              batch; got_families.c the functions never switched, with the reason
 *   late.c     the runtime loaded into a running process (attach): its sites'
 *              start-up work done live
 *   scan_report.c  the found and not-found functions of each scanned object
 *   got_uses.c which GLOB_DAT slots only ever serve calls (got_uses.h)
 *   got_dyn.c  a loaded object's dynamic section as got.c reads it (got_dyn.h);
 *              got_dlopen.c library calls of objects dlopened after start-up
 *   noflag.c   sites of code built without any flag, from proof files (noflag.h);
 *              noflag_arm.c arms them at start-up, each behind an out-of-line
 *              stub the arch writes
 *   cyg.c      -finstrument-functions sites; cyg_dispatch.c their calls from
 *              arch/<arch>/cyg.S
 */
#ifndef PS_SITES_H
#define PS_SITES_H

#include <elf.h>
#include <link.h>

#include "sites/site.h"

/* A view of the file with bounds-checked access. */
struct elf_file {
	const uint8_t *data;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
	size_t shstr_size;
};

/* noflag.c: the sites of an object from its proof; noflag_arm.c: its stubs, then the jumps */
int ps_noflag_sites(struct ps_module *m, const struct dl_phdr_info *info);
int ps_noflag_arm(struct ps_module *m);

/* image.c */
uintptr_t ps_page_size(void);
uintptr_t ps_page_down(uintptr_t a);
uintptr_t ps_page_up(uintptr_t a);
const void *ps_file_at(const struct elf_file *f, uint64_t off, uint64_t len);
const char *ps_section_name(const struct elf_file *f, const Elf64_Shdr *s);
int ps_file_open(struct ps_module *m, struct elf_file *f);
bool ps_file_matches_image(const struct elf_file *f, const struct dl_phdr_info *info);
bool ps_image_readable(const struct dl_phdr_info *info, uintptr_t addr, size_t len);

/* The stub of a site (stubs.c maps them, one per site). */
static inline uintptr_t ps_stub_of(const struct ps_site *s)
{
	return (uintptr_t)s->mod->stubs + (s->id & PS_ID_MASK) * (uintptr_t)ps.arch->stub_size;
}

/*
 * scan.c: the sites of an object built -pg without a table (after module.c
 * found none); calls_hook is module.c's ps_module_calls_hook.
 */
typedef unsigned (*ps_calls_hook_fn)(const struct ps_module *m, const struct site_insn *in);
int ps_scan_late_sites(struct ps_module *m, ps_calls_hook_fn calls_hook);
/* scan_entry.c: -pg -mfentry without -mrecord-mcount (an object that imports an entry hook). */
bool ps_scan_imports_entry_hook(const struct ps_module *m);
int ps_scan_entry_sites(struct ps_module *m, ps_calls_hook_fn calls_hook);

/*
 * cyg.c: -finstrument-functions.  An object that imports
 * __cyg_profile_func_enter gets a site pair (entry, exit) per function,
 * SITE_INTERPOSED: reached by the calls we define, never written, so
 * start-up and live patching pass its module by.
 */
bool ps_cyg_imports(const struct ps_module *m);
/* dispatch.c: ps_dispatch with the caller's address read at parent */
void ps_dispatch_parent(uint32_t id, const unsigned long *parent, struct patchsite_regs *regs);
int ps_cyg_sites(struct ps_module *m);
static inline bool ps_module_interposed(const struct ps_module *m)
{
	return m->nsites && m->sites[0].state == SITE_INTERPOSED;
}

/* symbols.c */
int ps_find_symbols(struct ps_module *m, const struct elf_file *f);
const struct ps_sym *ps_module_sym(const struct ps_module *m, uintptr_t addr);
/* The first function that starts above addr, or NULL. */
const struct ps_sym *ps_module_sym_after(const struct ps_module *m, uintptr_t addr);

/* patch.c: what nop.c shares (ps.lock held) */
bool ps_site_idle_bytes(const struct ps_site *s, uint8_t *out);
int ps_text_protect(struct ps_module *m, const bool *touched, bool writable);
void ps_mark_segment(const struct ps_module *m, uintptr_t addr, bool *touched);
/*
 * Sites changed live at once (patch.c, nop.c): each holds its int3 for its
 * batch's steps, not for all of them.  A thread that calls a site in its
 * int3 traps (a few us each); with 100,000 sites in one batch a hot
 * function trapped on every call for milliseconds (bench/patchsite/attach.sh:
 * 0-744 traps an attach before, none after).  Each batch costs two
 * membarriers (IPIs to the process's CPUs).
 */
#define PS_LIVE_BATCH	4096

/*
 * The steps of a live change, each followed by one membarrier (patch.c):
 * int3, tail, first byte (x86-64), or one store per word (aarch64,
 * riscv64).  poke() does a step on the current batch; next() moves to the
 * next batch (false: none; NULL: one batch only), whose breakpoints share
 * the membarrier after the last one's first bytes: two a batch.
 */
enum poke_step { POKE_BREAKPOINT, POKE_TAIL, POKE_FIRST, POKE_ONE_STEP };
struct poke_ops {
	void (*poke)(enum poke_step step, void *arg);
	bool (*next)(void *arg);
	void *arg;
};
void ps_poke_steps(const struct poke_ops *o);

void ps_poke_bytes(uintptr_t addr, const uint8_t *b, unsigned from, unsigned to);
void ps_poke_words(uintptr_t addr, const uint8_t *b, unsigned n);

#endif
