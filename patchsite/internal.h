/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtime's data model, shared by every folder, and the declarations of
 * its parts.  The folders, lowest layer first; a file never calls into a
 * folder above its own (it registers a hook instead, api.c wire), except
 * the arch trampolines' C entry points (arch/entry.h); `make check-layers`
 * (tests/layers.sh) fails on any other:
 *   core/     services that know no site: the global `ps` (state.c), thread
 *             records, ps_fast TLS and grace periods (thread.c), the clock,
 *             text buffers (textbuf.c), the C library's dlopen and the
 *             wrappers' lock (libc.c), the message sink (log.c), large
 *             zeroed memory (mem.c), C++ names
 *   arch/     the arch ops interface (arch.h), the trampolines' C entry points
 *             (entry.h), one folder per arch (x86_64, aarch64, riscv64):
 *             arch.c, host.h, tramp.S, libpatchsite.map
 *   sites/    the site machinery (sites.h has its map): the file behind an
 *             object, symbols, site tables, stubs; nop.c (an object's sites
 *             checked and NOPed), patch.c (live batches, the breakpoint
 *             protocol), trap.c (the SIGTRAP handler); dispatch.c (ops, want
 *             masks, the dispatcher, which trampoline), ops.c (an ops joins
 *             or leaves); filter.c (globs -> one byte per site); sync.c
 *             (every live change of objects, then patching; its watchers)
 *   record/   what runs while the program records: rings (ring.[ch]), the
 *             tracer table (tracers.c: where a tracer is added), the function
 *             and function_graph tracers, unwinding hooks, arguments, the
 *             tracing_on/pid gate, filter commands, markers, snapshots,
 *             trace_options, the trace directory writer (store.c,
 *             store_thread.c), branch counts, output.c (PATCHSITE_OUTPUT
 *             through render/)
 *   events/   static trace events (event.h has their map)
 *   api.c     public entry points: patchsite_init (wire: every hook), ops,
 *             filters, tracing on/off, the function list, counters;
 *             api_tracers.c the tracer in use; api_record.c recording
 *             settings and filter commands; api_events.c the events API
 *   ctl/      control files by name (control.c, control.h) and their tables
 *             (*_files.c), the channel (channel.c)
 *   start.c   the constructor and destructor, start-up from the environment
 *             (PATCHSITE_*); dl.c the dlopen/dlmopen/dlclose wrappers;
 *             gprof.c gprof's start-up (__monstartup) kept out while traced
 * Beside them, shared with the patchsite command: data/ (the trace
 * directory's format, data/format.h, and its reader), render/ (what is
 * printed from a recording), ctl/proto.c (the channel's wire format).
 *
 * Where to look:
 *   a site is patched   sites/nop.c ps_patch_startup (start-up), ps_patch_late
 *                       (an object dlopened); sites/patch.c ps_patch_update (a
 *                       live batch), ps_patch_code (event sites); the bytes from
 *                       arch/<arch>/arch.c; which sites: sites/dispatch.c
 *                       ps_recompute_want; when: sites/sync.c ps_loader_sync
 *   an event is written arch/<arch>/tramp.S (the fast paths), record/function.c
 *                       and record/graph.c -> record/ring.c (the C path,
 *                       ps_ring_ext); events/event_record.c (static events);
 *                       record/marker.c; into a chunk record/store_thread.c maps
 *   a control file is   ctl/channel.c (the socket) -> ctl/control.c
 *   served              (patchsite_ctl_read/_write) -> the row in
 *                       ctl/{tracer,record,trace,event}_files.c (or
 *                       record/branch_counts.c) -> a patchsite_* in api*.c
 *                       -> its owner
 *   the trace directory data/format.h and man/patchsite-data.5 (the layout);
 *   is read             data/read.c psr_open, data/read_thread.c psr_next,
 *                       data/read_syms.c, data/read_follow.c (live); written
 *                       by record/store.c and record/store_thread.c
 * Everything here has hidden visibility (see build.mk); only patchsite_* is exported.
 */
#ifndef PS_INTERNAL_H
#define PS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <link.h>
#include <sys/types.h>

#include "arch/arch.h"
#include "core/demangle.h"
#include "core/libc.h"
#include "data/format.h"
#include "patchsite.h"

struct ps_buf;
struct psd_thread_hdr;

#define PS_MAX_MODULES	256
#define PS_MAX_OPS	64		/* one bit per ops in a site's want mask */
#define PS_ID_SHIFT	PSD_ID_SHIFT	/* site id = module index << 21 | index in module */
#define PS_ID_MASK	PSD_ID_MASK

enum site_state {
	SITE_NOP,		/* the arch's NOP */
	SITE_CALL,		/* a call to the site's stub */
	SITE_REFUSED,		/* not what we expected: never written */
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
	SITE_KINDS
};

struct ps_site {
	uintptr_t addr;			/* first of the arch's patch_len live bytes */
	uint32_t id;
	uint32_t gindex;		/* index in ps.site_index */
	uint8_t state;			/* enum site_state; changed under ps.lock */
	uint8_t kind;			/* enum site_kind */
	uint8_t len;			/* bytes of the instruction as built (a 6-byte call: 6) */
	uint32_t owner;			/* SITE_EXIT: index in the module of its function's entry */
	_Atomic uint8_t emulate_call;	/* what a trap on this site does: call the stub or skip */
	_Atomic uint64_t want;		/* ops slots that want this site */
	const struct ps_sym *sym;	/* the function the site is in, or NULL */
	struct ps_module *mod;
};

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
	uintptr_t was_lo, was_hi;	/* gone: where its code was (text_lo/hi before) */
	uint64_t gone_tsc;		/* gone: when it left */
	bool syms_loaded;		/* symbols are read on first need */
	bool mcount_table;		/* has __mcount_loc: sites may be after the prologue */
	const void *symtab, *strtab;	/* in map: the function symbols, once found */
	size_t nsymtab, strtab_size;
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
	} e[];
};

/*
 * The built-in tracers' hot per-thread state, in initial-exec TLS so that
 * the arch's fast trampolines reach it with one GOT load and %fs-relative
 * accesses.  All zero in a new thread: budget 0 sends the first event to
 * the slow path, which sets everything up.  Offsets are used by the arch
 * assembly (PSF_* below).
 */
struct ps_frame {			/* one traced call whose return is hooked */
	uintptr_t ret;			/* the real return address */
	uintptr_t key;			/* where it was stored, minus PS_FRAME_KEY_BIAS; bit 0: unhooked */
	uint64_t idw;			/* exit word: site id << 2 | PS_EV_EXIT */
};
#define PS_FRAME_KEY_BIAS 24		/* the exit trampoline's %rsp after it saved 3 registers */
/*
 * Key bit 1: the frame's return must reach C (record/graph.c frame_exit: a
 * threshold, a return value); the fast return paths see a key that does
 * not match and take their slow path.  Compare keys with PS_FRAME_KEY.
 */
#define PS_FRAME_SLOW	2
#define PS_FRAME_KEY(fr) ((fr)->key & ~(uintptr_t)PS_FRAME_SLOW)

/* What the C exit of a frame needs (record/graph.c), parallel to the shadow frames. */
struct ps_fslow {
	uint64_t *wp;			/* the entry word; NULL: nothing to do at the exit */
	uint64_t *end;			/* the ring position after the entry (and its arguments) */
	uint64_t *base, gen;		/* the ring or chunk it was written in */
	uint64_t tsc;			/* the entry's time stamp */
	uint32_t units;			/* budget units the entry took */
	uint32_t flags;			/* PS_FS_* */
};
#define PS_FS_THRESH	1		/* tracing_thresh: a short call is taken back */
#define PS_FS_RETVAL	2		/* its return value is recorded */
#define PS_FS_NOTRACE	4		/* set_graph_notrace: nothing recorded until it returns */
#define PS_FS_LATENCY	8		/* the latency tracer's top-level call */

struct ps_fast {
	uint64_t *wp;			/* next word of the ring */
	int32_t budget;			/* entries the fast path may record before the slow path */
	uint32_t hi;			/* upper 32 bits of the time stamps in this stretch */
	struct ps_frame *fp;		/* next free shadow frame */
	struct ps_thread *t;		/* NULL until the slow path set the thread up */
	uintptr_t stack_lo, stack_size;	/* the thread's own stack: only returns there are hooked */
	struct ps_frame *fp_end;	/* the end of the shadow stack */
};
/*
 * The write pointer is the thread's own, but the trace writer reads it: the
 * words below it are complete once it moved (release here; the arch's fast
 * paths store it after the words too).
 */
static inline void ps_wp_set(struct ps_fast *f, uint64_t *wp)
{
	__atomic_store_n(&f->wp, wp, __ATOMIC_RELEASE);
}

static inline uint64_t *ps_wp_get(struct ps_fast *f)
{
	return __atomic_load_n(&f->wp, __ATOMIC_ACQUIRE);
}
#define PSF_WP		0
#define PSF_BUDGET	8
#define PSF_HI		12
#define PSF_FP		16
#define PSF_STACK_LO	32
#define PSF_STACK_SIZE	40
#define PSF_FP_END	48

/* Ring words: the trace format's (data/format.h), which the runtime writes as they are kept. */
enum ps_ev_type {
	PS_EV_ENTRY = PSD_EV_ENTRY,
	PS_EV_EXIT = PSD_EV_EXIT,
	PS_EV_FUNC = PSD_EV_FUNC,
	PS_EV_MARK = PSD_EV_MARK,
};
/* A mark word with a kind is an extended record (data/format.h: PSD_EXT_*). */
#define PS_EV_PAD	PSD_EV_PAD

/* One per thread that ever entered the dispatcher or a tracer; never freed. */
struct ps_thread {
	_Atomic unsigned long seq;	/* odd while inside the dispatcher */
	_Atomic bool dead;
	int depth;			/* recursion guard */
	_Atomic unsigned long missed;	/* entries skipped by the recursion guard (patchsite_stat reads) */
	uint32_t cur_idw;		/* the site the dispatcher is calling ops for */
	pid_t tid;
	char comm[16];
	/* The ring (built-in tracers), written by its thread only. */
	uint64_t *base, *end;		/* words [base, end) */
	_Atomic uint64_t lap;		/* words written before the last wrap */
	_Atomic uint64_t tail;		/* absolute index of the next word the reader wants */
	_Atomic uint64_t lost;		/* events dropped: ring full or shadow stack full */
	struct ps_fast *_Atomic fast;	/* the thread's TLS state, or fast_copy once it exited */
	struct ps_fast fast_copy;
	struct ps_frame *frames, *frames_end;	/* frames[0] is a sentinel */
	struct ps_fslow *fslow;		/* one per frame */
	unsigned notrace;		/* set_graph_notrace calls open (record/graph.c) */
	struct ps_frame grave[16];	/* frames dropped while their slot might come back */
	unsigned ngrave;
	int exit_rounds;
	struct ps_tstore *store;	/* the thread's file in the trace directory (store.c), or NULL */
	unsigned pid_gen;		/* gate.c: the thread list pid_ok answers for */
	bool pid_ok;			/* gate.c: this thread may record under set_ftrace_pid */
	uint32_t rd_hi;			/* reader: upper time half and CPU from the last mark */
	int32_t rd_cpu;
	struct ps_thread *next;
};

struct ps_state {
	pthread_mutex_t lock;		/* every change of sites, ops and modules */
	const struct ps_arch *arch;
	bool inited;
	int init_err;
	bool can_write;			/* text could be made writable at start-up */
	bool can_sync;			/* membarrier sync-core registered */
	_Atomic bool tracing_on;	/* gate.c; changed under lock, read without */
	struct ps_module *mods[PS_MAX_MODULES];	/* never NULL below nmods; gone ones kept */
	_Atomic unsigned nmods;
	size_t nsites;			/* global indices handed out (holes included) */
	struct ps_site **site_index;	/* global index -> site, NULL for an unloaded object's */
	struct ps_ops_state *states;	/* every ops state (registered or not) */
	struct patchsite_ops *slots[PS_MAX_OPS];
	uintptr_t tramp;			/* what the stubs jump to now */
	_Atomic(struct ps_ops_list *) list;
	_Atomic(struct ps_thread *) threads;
	/* Counters for patchsite_stat(). */
	_Atomic unsigned long traps_emulated;	/* breakpoint hit while a site changed */
	_Atomic unsigned long traps_retried;	/* ... and handled after the change was done */
	_Atomic unsigned long batches, pokes;	/* live batches and sites changed (under lock; read without) */
};

extern struct ps_state ps;

/* core/state.c: struct ps_state ps */

/* core/log.c */
__attribute__((format(printf, 2, 3)))
void ps_log(enum patchsite_log_level level, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void ps_log_in(enum patchsite_log_level level, const char *file, const char *fmt, ...);
void ps_log_stderr(int from, int to);	/* levels from..to also go to stderr */
const char *ps_error_copy(char *buf, size_t len);
extern __thread bool ps_log_quiet;	/* the channel thread: messages only to ps_last_error, callback */
extern bool ps_log_defer_errors;	/* start-up: error lines held back (core/log.c) */
void ps_log_flush_deferred(bool said);

/* sites/module.c, sites/symbols.c, sites/stubs.c */
int ps_modules_scan(void);
int ps_module_add(struct dl_phdr_info *info, int index, struct ps_module **out);
int ps_module_index(struct ps_module *m);
void ps_module_forget(struct ps_module *m);
void ps_module_free(struct ps_module *m);
struct ps_site *ps_site_by_id(uint32_t id);
struct ps_site *ps_site_by_addr(uintptr_t addr);
const struct ps_sym *ps_sym_by_addr(uintptr_t addr, const struct ps_module **mod);
int ps_stubs_map(struct ps_module *m);
unsigned ps_module_calls_hook(const struct ps_module *m, const struct site_insn *in);
bool ps_module_has_code(const struct ps_module *m, uintptr_t addr, size_t len);

struct ps_module *ps_module_of_id(uint32_t id);
int ps_module_syms(struct ps_module *m);
void ps_warn_full(const char *path);
void ps_all_syms(void);
const char *ps_site_name(const struct ps_site *s, char *buf, size_t len);
const char *ps_sym_shown(const struct ps_sym *sym);
const struct ps_sym *ps_sym_at(uintptr_t addr, uint64_t tsc);
bool ps_module_links_gprof(const struct ps_module *m);
/* gprof.c: our constructor ran; answer a __monstartup put off until then. */
void ps_gprof_started(void);
size_t ps_sym_aliases(const struct ps_module *m, const struct ps_sym *sym,
		      const struct ps_sym **first);

const uint8_t *ps_module_file_code(const struct ps_module *m, uintptr_t addr, size_t len);
void ps_log_site(enum patchsite_log_level level, const struct ps_site *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* sites/image.c */
int ps_module_section(const struct ps_module *m, const char *name, uintptr_t *addr, size_t *size);
size_t ps_module_room(const struct ps_module *m, uintptr_t addr);

/* record/branch_counts.c */
extern bool ps_branches_off;
bool ps_branches_any(void);
int ps_branches_write(void);
void ps_branches_capture(void);
void ps_branches_gone(struct ps_module *m);
void ps_branches_settle(void);
extern const struct ps_watch ps_branches_watch;
extern const struct ps_store_part ps_branches_part;

/* core/mem.c */
void *ps_map_zero(size_t *bytes, bool round, uintptr_t hint);
void *ps_calloc_large(size_t n, size_t size);

/* sites/nop.c (an object's sites NOPed), sites/patch.c (live), sites/trap.c */
int ps_patch_startup(struct ps_module *m);
int ps_patch_late(struct ps_module *m);
int ps_patch_update(void);
int ps_trap_install(void);
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

/* core/thread.c: per-thread records, grace periods */
extern __thread struct ps_thread *ps_self __attribute__((tls_model("initial-exec")));
extern __thread struct ps_fast ps_fast __attribute__((tls_model("initial-exec")));
int ps_thread_init(void);
void ps_thread_on_exit(void (*fn)(void));
struct ps_thread *ps_thread_forked(void);
struct ps_thread *ps_thread_self(void);
void ps_sync_dispatchers(void);
unsigned long ps_reader_enter(struct ps_thread *t);
void ps_reader_exit(struct ps_thread *t, unsigned long seq);

/* core/clock.c */
void ps_clock_init(void);
uint64_t ps_tsc_to_ns(uint64_t tsc);
uint64_t ps_tsc_now(void);

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
int ps_filter_grow(struct ps_globs *g, size_t old_n, uint8_t **old);
void ps_filter_eval(struct ps_globs *g, size_t from, size_t to);
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
void ps_loader_prepare(struct ps_arrivals *a);
void ps_loader_done(struct ps_arrivals *a);
int ps_loader_sync(const struct ps_arrivals *arrivals);

/* record/ring.c, function.c, graph.c, unwind.c */
extern struct patchsite_ops ps_function_ops, ps_graph_ops;
extern const struct ps_ops_props ps_function_props, ps_graph_props;
extern size_t ps_ring_bytes;
extern unsigned ps_graph_max_depth;
extern struct ps_globs ps_graph_trigger;	/* PATCHSITE_GRAPH_FUNCTION; set read in the dispatcher */
void ps_ring_init(void);
void ps_unwind_init(void);
void ps_graph_thread_end(void);
extern void (*ps_graph_thread_exit)(void *ret) __attribute__((noreturn));	/* api.c wire */
int ps_graph_unwinder_check(void);
/*
 * function_graph in a runtime loaded into a running process, without our
 * longjmp and unwinder wrappers (record/graph_late.c): 0 if nothing in the
 * process can longjmp or unwind through a hooked return, else -ENOTSUP, said.
 */
int ps_attach_graph_check(void);
bool ps_ring_ext(unsigned kind, const uint64_t *payload, unsigned words);
bool ps_record_slow(void);
int ps_graph_set_thresh(unsigned long us);
int ps_graph_set_notrace(const char *globs, bool append);
void ps_graph_list_notrace(struct ps_buf *out);
void ps_graph_set_latency(bool on);
bool ps_graph_latency(void);
uint64_t ps_graph_max_latency_ns(void);
void ps_graph_set_max_latency_ns(uint64_t ns);
unsigned long ps_graph_thresh(void);

/* record/tracers.c: the tracer table */
struct ps_tracer {
	const char *name;
	struct patchsite_ops *ops;	/* what it registers; NULL: nothing (nop) */
	bool latency;			/* the graph tracer's latency mode (record/graph.c) */
	int (*check)(void);		/* can it start? 0, or -errno said */
};
extern const struct ps_tracer ps_tracers[];	/* ends with a NULL name */
const struct ps_tracer *ps_tracer_find(const char *name);
void ps_tracer_names(struct ps_buf *out, const char *sep);
const struct ps_tracer *ps_tracer_now(void);
const struct ps_tracer *ps_tracer_of(const struct patchsite_ops *ops);

/* trigger.c: filter commands; snapshot (issue 14 part C) */
extern struct patchsite_ops ps_trigger_ops;
extern const struct ps_ops_props ps_trigger_props;
int ps_trigger_parse(const char *glob, const char *cmd, const char *arg, unsigned *cmd_out,
		     long *count);
int ps_trigger_set(const char *glob, unsigned cmd, long count, bool remove);
void ps_filter_command_list(struct ps_buf *out);	/* as set_ftrace_filter lists them */
/*
 * api_record.c: filter commands in set_ftrace_filter, "glob:cmd[:arg]" for
 * any cmd but "mod" ("!glob:cmd" removes).  0 or -errno with ps_log's
 * error.  The list (above) adds the commands in force to what reading
 * set_ftrace_filter shows, one a line as ftrace prints them.
 */
int ps_filter_command(const char *glob, const char *cmd, const char *arg, bool remove);
int ps_snapshot_take(void);

/* args.c: set_ftrace_args */
unsigned ps_args_want(const struct ps_site *s, bool *retval);
bool ps_args_on(void);
int ps_args_set(const char *specs, bool append);
void ps_args_list(struct ps_buf *out);

/* gate.c: tracing_on and set_ftrace_pid */
bool ps_gate_open(struct ps_thread *t);
bool ps_gate_filtering(void);
void ps_gate_forked(struct ps_thread *t);
int ps_gate_set_pids(const char *ids, bool append);
int ps_gate_get_pids(int *ids, unsigned max);
int ps_gate_set_tracing(bool on);
void ps_gate_list_pids(struct ps_buf *out);

/* store.c */
struct ps_tstore;
bool ps_store_on(void);
int ps_store_file(const char *name, const char *text, size_t len);
const char *ps_store_dir(const char **procname);
void ps_store_remove(void);
void ps_store_set_private(bool on);
bool ps_store_private(void);		/* the directory is PATCHSITE_OUTPUT's own */
void ps_store_set_default_dir(const char *dir);
const char *ps_store_default_dir(void);	/* the channel's directory, or NULL */
int ps_store_open(const char *dir, const char *tracer, bool overwrite, size_t ring_bytes);
int ps_store_thread(struct ps_thread *t, struct ps_fast *f);
int ps_store_next(struct ps_thread *t, struct ps_fast *f);
bool ps_store_stale(const struct ps_thread *t);
void ps_store_lost(struct ps_thread *t);
void ps_store_module(struct ps_module *m);
void ps_store_module_gone(struct ps_module *m);
void ps_store_finish(void);
void ps_store_finish_exit(int status);
void ps_store_tracer(const char *name);
int ps_store_replace(const char *name, const char *text, size_t len);
void ps_store_forked(struct ps_thread *self);
extern const struct ps_watch ps_store_watch;
/*
 * What else writes into the process directory (events, branch counts),
 * registered once at init (api.c wire): any says it has something to
 * record with no function site, opened runs once the directory is made,
 * finishing before it is closed at exit.
 */
struct ps_store_part {
	bool (*any)(void);
	void (*opened)(void);
	void (*finishing)(void);
};
void ps_store_add_part(const struct ps_store_part *p);
struct ps_store_bound {			/* a thread's data now (ps_store_bound) */
	int fd;				/* its file */
	const struct psd_thread_hdr *hdr;	/* its header, mapped */
	const char *path;		/* its name in the process directory */
	uint64_t seq;			/* chunks started: it writes chunk seq - 1 */
	uint64_t words;			/* words complete in that chunk, from its start */
	size_t chunk;			/* bytes per chunk */
	uint64_t nchunks;		/* overwrite: chunks in the ring, else 0 */
	uint64_t gen;
};
int ps_store_bound(struct ps_thread *t, struct ps_store_bound *b);
uint64_t ps_store_started_since(struct ps_thread *t, const struct ps_store_bound *b);
int ps_store_procfd(void);
uint64_t ps_chunk_events(const uint64_t *chunk, size_t words);

/* marker.c: trace_marker (PSD_EXT_MARKER records) */
#define PS_MARKER_MAX	1024		/* bytes of text kept per marker (ftrace cuts too) */
int ps_marker_write(const char *sub, const char *value, bool append);

/* snapshot.c: copies of the recording so far (patchsite-data(5): snapshot.N) */
int ps_snapshot_take(void);		/* the snapshot's number, or -errno */
int ps_snapshot_read(const char *sub, struct ps_buf *out);
int ps_snapshot_write(const char *sub, const char *value, bool append);

/* options.c: trace_options, PATCHSITE_OPTIONS */
int ps_options_env(bool *overwrite);
void ps_options_started(bool overwrite);
int ps_options_read(const char *sub, struct ps_buf *out);
int ps_options_write(const char *sub, const char *value, bool append);

/* channel.c */
void ps_channel_start(void);
void ps_channel_forked(void);
void ps_channel_stop(void);

/* record/output.c */
enum ps_format { PS_FORMAT_FTRACE, PS_FORMAT_CHROME, PS_FORMAT_FOLDED };
extern enum ps_format ps_format;

/* core/lasterror.c: ps_last_error, the calling thread's last error (kept off static TLS) */
#include "core/lasterror.h"

#endif
