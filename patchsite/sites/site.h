/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sites/: the site machinery as the rest of the runtime sees it: objects
 * (struct ps_module) and their sites (struct ps_site), symbols, patching,
 * the dispatcher and its ops, filters, and the watchers told of objects
 * arriving and leaving.  The files and what sites/ shares only among
 * them: sites/sites.h.
 */
#ifndef PS_SITE_H
#define PS_SITE_H

#include <link.h>

#include "arch/arch.h"
#include "core/core.h"

enum site_state {
	SITE_NOP,		/* the arch's NOP */
	SITE_CALL,		/* a call to the site's stub */
	SITE_REFUSED,		/* not what we expected: never written */
	SITE_INTERPOSED,	/* reached by a call we define (sites/cyg.c): never written */
};

struct ps_sym {
	uintptr_t addr;
	size_t size;
	const char *name;
	const char *shown;	/* C++: demangled without parameters, once asked for; else name */
	size_t order;		/* index in the symbol table: of aliases, the compiler's first shows */
};

struct ps_seg {
	uintptr_t lo, hi;	/* page-aligned */
	int prot;		/* from the program header */
};

/*
 * What a site is for.  Entry sites are the function's first instruction
 * (after endbr64).  Exit sites come from gcc's -minstrument-return=nop5
 * -mrecord-return (__return_loc): a nop5 before each ret and tail-call
 * jmp; only function_graph wants them, and only while it wants their
 * function.  An entry site whose function has exit sites records no return
 * hook: the exit sites say when it returns.  A site after the prologue
 * (mcount) is an entry too: start-up finds it there (ps_arch.late_site) and
 * its stubs reach trampolines that find the return slot in the frame.
 */
enum site_kind {
	SITE_ENTRY_HOOK,	/* entry; the return is hooked (no exit sites) */
	SITE_ENTRY_EXITS,	/* entry of a function with exit sites */
	SITE_EXIT,		/* an exit site */
	SITE_ENTRY_LATE,	/* after the prologue (-pg without -mfentry): the return slot
				 * is the frame record's (x86-64 8(%rbp)); the return is hooked */
	SITE_ENTRY_NOFLAG,	/* entry of a function built without any flag (sites/noflag.c):
				 * the site is the slot of its out-of-line stub, run at the
				 * function's entry (forms a, c, p); the return is hooked */
	SITE_NOFLAG_DEEP,	/* the same for a form b site, in the entry block below the
				 * function's pushes and red zone: only the arch's
				 * tramp_noflag finds its return slot */
	SITE_KINDS
};

struct ps_site {
	uintptr_t addr;			/* first of the arch's patch_len live bytes */
	uint32_t id;
	uint32_t gindex;		/* index in ps.site_index */
	uint8_t state;			/* enum site_state; changed under ps.lock */
	uint8_t kind;			/* enum site_kind */
	uint8_t len;			/* bytes of the instruction as built (a 6-byte call: 6) */
	_Atomic uint8_t emulate_call;	/* what a trap on this site does: call the stub or skip */
	uint32_t owner;			/* SITE_EXIT: index in the module of its function's entry */
	_Atomic uint64_t want;		/* ops slots that want this site */
	const struct ps_sym *sym;	/* the function the site is in, or NULL */
	struct ps_module *mod;
};
/* 48 bytes, no hole: a table of 100,000 sites is 4.8 MB the loader zeroes (was 5.6). */
_Static_assert(sizeof(struct ps_site) == 48 || sizeof(void *) != 8, "struct ps_site grew");

struct ps_module {
	char *path;
	const char *name;		/* basename of path */
	uintptr_t bias;
	struct ps_seg segs[8];		/* executable PT_LOADs */
	unsigned nsegs;
	uintptr_t text_lo, text_hi;
	void *map;			/* the file, read-only; symbol names point into it */
	bool file_ok;			/* map is this image's file (same PT_LOADs) */
	size_t map_size;
	struct ps_sym *syms;		/* functions, by address */
	size_t nsyms;
	uintptr_t *hook_slots;		/* pointer slots the dynamic linker fills with a hook */
	uint8_t *hook_slot_hook;	/* ... and which: 1 + index in the arch's hooks */
	size_t nhook_slots;
	uintptr_t hook_addrs[4];	/* hooks defined in the module itself */
	uint8_t hook_addr_hook[4];
	unsigned nhook_addrs;
	struct ps_site *sites;		/* by address */
	size_t nsites;
	size_t sites_map;		/* bytes, when sites is one mmap (large tables) */
	uint8_t *stubs;			/* one stub per site, then a data page */
	size_t stubs_size;
	_Atomic uintptr_t *tramp_slot;	/* where stubs jump, by site kind (in a data page) */
	unsigned index;
	size_t gbase;			/* global index of sites[0] (ps.site_index) */
	bool gone;			/* unloaded: kept only to name its events in the rings */
	uint64_t gone_tsc;		/* gone: when it left */
	bool syms_loaded;		/* symbols are read on first need */
	bool mcount_table;		/* has __mcount_loc: sites may be after the prologue */
	bool late_pending;		/* loaded late, not yet NOPed: a thread blocked SIGTRAP
				   (ps_trap_ready); the next live change tries again */
	const void *symtab, *strtab;	/* in map: the function symbols, once found */
	size_t nsymtab, strtab_size;
	struct ps_noflag *noflag;	/* its sites come from a proof file (sites/noflag.c) */
	/* a proof of it not used: the file, its sites, and why (noflag.c) */
	const char *noflag_unused, *noflag_unused_why;
	size_t noflag_unused_n;
	size_t stubs_extra;		/* bytes after the sites' stubs: noflag.c's out-of-line stubs */
	uintptr_t ool_lo, ool_hi;	/* ... once written; their slots are its sites */
};

/*
 * A filter: one byte per global site index (every such array has
 * ps.nsites bytes), and the tokens that made it, kept to apply them to
 * sites of objects loaded later.
 */
struct ps_globs {
	uint8_t *set;			/* NULL: no function selected (filter: every site) */
	char *text;			/* tokens so far, NULL when none */
	bool rcu;			/* set is read without the lock: freed after a grace period */
	bool keep_empty;		/* an empty set selects nothing (not every site): the
					   filter holds conditions only (events/filter_if.c) */
};

/*
 * What an ops needs from the dispatcher, said by its owner (the kernel's
 * FTRACE_OPS_FL_*), so that the dispatcher never asks which ops it is.
 * Ops of programs have none: the generic trampoline, entry sites only,
 * called only while tracing is on, in slot order.
 */
struct ps_ops_props {
	/* The arch trampoline it may run through when it is the only ops; 0: not now. */
	uintptr_t (*fast)(void);
	bool exits;			/* wants the exit sites of the functions it wants */
	bool always;			/* called while tracing_on is off (it may turn it on) */
	bool first;			/* called before the other ops of a site */
};

struct ps_ops_state {
	const struct ps_ops_props *props;	/* NULL: none (ps_ops_describe) */
	int slot;			/* bit in want masks while registered, else -1 */
	bool registered;
	struct ps_globs filter;		/* set NULL = every site */
	struct ps_globs notrace;	/* set NULL = none */
	struct ps_ops_state *next;	/* every state, for objects loaded later */
};

struct patchsite_ops_state {
	struct ps_ops_state s;
};

/* The ops list the dispatcher walks: immutable once published. */
struct ps_ops_list {
	unsigned n;
	struct {
		struct patchsite_ops *ops;
		uint64_t bit;
		bool always;		/* props->always, copied: the dispatcher tests a flag */
		bool own;		/* the runtime's (described): a call from inside it is a handler's */
	} e[];
};


/* sites/module.c, sites/symbols.c, sites/stubs.c */
int ps_modules_scan(void);
int ps_module_add(struct dl_phdr_info *info, int index, struct ps_module **out);
int ps_module_index(struct ps_module *m);
void ps_module_forget(struct ps_module *m);
void ps_module_free(struct ps_module *m);
struct ps_site *ps_site_by_id(uint32_t id);
struct ps_site *ps_site_by_addr(uintptr_t addr);
int ps_stubs_map(struct ps_module *m);
unsigned ps_module_calls_hook(const struct ps_module *m, const struct site_insn *in);
bool ps_module_has_code(const struct ps_module *m, uintptr_t addr, size_t len);

int ps_module_syms(struct ps_module *m);
void ps_warn_full(const char *path);
void ps_all_syms(void);
const char *ps_site_name(const struct ps_site *s, char *buf, size_t len);
const char *ps_sym_shown(const struct ps_sym *sym);
bool ps_module_links_gprof(const struct ps_module *m);
size_t ps_sym_aliases(const struct ps_module *m, const struct ps_sym *sym,
		      const struct ps_sym **first);

const uint8_t *ps_module_file_code(const struct ps_module *m, uintptr_t addr, size_t len);
void ps_log_site(enum patchsite_log_level level, const struct ps_site *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * sites/noflag.c: proof files (PATCHSITE_NOFLAG; attached: the attach's list file), read
 * before the start-up scan; said after it
 */
void ps_noflag_load(bool attached);
void ps_noflag_unused(void);
/* A site in the entry block, after instructions that may have changed the arguments (form b). */
bool ps_site_args_unknown(const struct ps_site *s);

/* sites/image.c */
int ps_module_section(const struct ps_module *m, const char *name, uintptr_t *addr, size_t *size);
size_t ps_module_room(const struct ps_module *m, uintptr_t addr);

/* sites/nop.c (an object's sites NOPed), sites/patch.c (live), sites/trap.c */
int ps_patch_startup(struct ps_module *m);
int ps_patch_late(struct ps_module *m);
int ps_patch_late_pending(void);
/* sites/noflag_arm.c: the jumps of no-flag functions a tracer wants for the first time */
int ps_noflag_arm_wanted(void);
/*
 * End of start-up (hooks/start.c, after the environment's tracer is on): from now on no
 * window of several instructions (forms c and p) is written, since another thread may be
 * inside one (noflag_arm.c); attached: the runtime was loaded into a running process
 * (sites/late.c), which the refusals name.
 */
void ps_noflag_startup_done(bool attached);
int ps_patch_update(void);
int ps_trap_install(void);
/* Handler installed and no thread or handler blocks SIGTRAP (else said, -EDEADLK). */
int ps_trap_ready(void);
int ps_sync_register(void);
void ps_format_bytes(char *buf, size_t len, const uint8_t *p, unsigned n);
struct ps_code_poke {			/* one change of ps_patch_code */
	struct ps_module *m;
	uintptr_t addr;
	unsigned len;
	uint8_t old[8], new[8];
	bool ok;			/* out: the bytes were old, and were changed */
};
int ps_patch_code(struct ps_code_poke *pk, size_t n);
/* A trap at addr, not at a function site: true and where to go if it is the caller's. */
typedef bool ps_trap_lookup_fn(uintptr_t addr, uintptr_t *resume);
void ps_patch_add_lookup(ps_trap_lookup_fn *fn);

/* dispatch.c */
void ps_ops_describe(struct patchsite_ops *ops, const struct ps_ops_props *props);
int ps_ops_publish(void);
void ps_recompute_want(void);
struct ps_ops_state *ps_ops_state(struct patchsite_ops *ops);
void ps_tramp_select(bool generic);
void ps_tramp_set(uintptr_t tramp);

/* sites/ops.c: an ops joins or leaves (ps.lock held, the runtime started) */
struct ps_arrivals;
int ps_ops_register(struct patchsite_ops *ops, const struct ps_arrivals *arrivals);
int ps_ops_unregister(struct patchsite_ops *ops, const struct ps_arrivals *arrivals);

/* filter.c */
int ps_filter_apply(struct ps_globs *g, const char *globs, int reset, const char *what);
void ps_globs_free(struct ps_globs *g);
int ps_globs_copy(struct ps_globs *to, const struct ps_globs *from);
void ps_globs_track(struct ps_globs *g);
#define PS_TRACKED_MAX 4
struct ps_old_sets {			/* tracked sets replaced: freed after a grace period */
	uint8_t *set[PS_TRACKED_MAX];
	unsigned n;
};
int ps_globs_grow_all(size_t old_n, struct ps_old_sets *old);
void ps_globs_eval_all(size_t from, size_t to);

/* sites/sync.c */
struct ps_arrivals {			/* objects ps_loader_sync may add (sites/sync.c) */
	const void **phdr;		/* their program headers */
	size_t n, cap;
	unsigned long long adds, subs;	/* glibc's load and unload counts then */
	bool cxx;			/* libstdc++ among them */
};
/*
 * Who hears of objects arriving and leaving (the trace directory's mod.N,
 * events, branch counts): registered once at init (api.c wire); told in
 * that order when an object arrives, in the reverse order when it goes.
 */
struct ps_watch {
	void (*arrived)(struct ps_module *m);	/* indexed, its sites NOPed or refused */
	void (*gone)(struct ps_module *m);	/* its code is gone; the record stays */
};
void ps_watch_add(const struct ps_watch *w);
/*
 * sites/noflag_arm.c: who hears of a no-flag site refused (its index) or
 * of more armed (PS_NOFLAG_ARMED), at any time (api.c wire: the trace
 * directory).  ps.lock held when it is told.
 */
#define PS_NOFLAG_ARMED ((size_t)-1)
void ps_noflag_watch(void (*fn)(struct ps_module *m, size_t i));
void ps_loader_prepare(struct ps_arrivals *a);
void ps_loader_done(struct ps_arrivals *a);
int ps_loader_sync(const struct ps_arrivals *arrivals);
int ps_loader_adopt(struct ps_module *m, const struct ps_module *prev);


#endif
