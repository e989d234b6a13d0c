/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * core/: the services that know no site, and the data model they keep.
 *   state.c    the global `ps` (struct ps_state): objects, sites, ops, threads
 *   thread.c   per-thread records (struct ps_thread), the fast per-thread TLS
 *              (struct ps_fast) the arch trampolines use, grace periods
 *   clock.c    time stamps (the TSC or the kernel's clock) and their ns
 *   log.c      the message sink: levels, the last error text, stderr
 *   mem.c      large zeroed memory; stack.c the calling thread's stack bounds
 *   textbuf.c  growable text (textbuf.h); demangle.c C++ names (demangle.h),
 *              demangle_name.c their shown form (the command's too);
 *              libc.c the C library's real dlopen and the wrappers' lock (libc.h)
 *   fast_offsets.h  what the arch assembly reads of the structures below
 *   lasterror.c  the calling thread's last error text, off static TLS (lasterror.h)
 * Nothing here names a site, a tracer or a file of the trace directory's
 * writer: those are the folders above (sites/, record/), which include this.
 */
#ifndef PS_CORE_H
#define PS_CORE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/fast_offsets.h"	/* what the arch assembly reads: PSF_*, PS_FRAME_*, PS_FS_* */
#include "core/lasterror.h"	/* ps_last_error: the calling thread's last error, off static TLS */
#include "data/format.h"
#include "patchsite.h"

/* Kept by `ps`, defined in sites/site.h: core holds them by pointer only. */
struct ps_module;
struct ps_site;
struct ps_ops_state;
struct ps_ops_list;
struct ps_tstore;

#define PS_MAX_MODULES	256
#define PS_MAX_OPS	64		/* one bit per ops in a site's want mask */
#define PS_ID_SHIFT	PSD_ID_SHIFT	/* site id = module index << 21 | index in module */
#define PS_ID_MASK	PSD_ID_MASK

/*
 * The built-in tracers' hot per-thread state, in initial-exec TLS so that
 * the arch's fast trampolines reach it with one GOT load and %fs-relative
 * accesses.  All zero in a new thread: budget 0 sends the first event to
 * the slow path, which sets everything up.  The arch assembly reads them
 * at the offsets of core/fast_offsets.h, checked below.
 */
struct ps_frame {			/* one traced call whose return is hooked */
	uintptr_t ret;			/* the real return address */
	uintptr_t key;			/* where it was stored, minus PS_FRAME_KEY_BIAS; bit 0: unhooked */
	uint64_t idw;			/* exit word: site id << 2 | PS_EV_EXIT */
};
/* PS_FRAME_KEY_BIAS and key bit PS_FRAME_SLOW: core/fast_offsets.h */
#define PS_FRAME_KEY(fr) ((fr)->key & ~(uintptr_t)PS_FRAME_SLOW)

/* What the C exit of a frame needs (record/graph.c), parallel to the shadow frames. */
#define PS_FS_EDATA	5		/* entry values a return probe's frame keeps */
struct ps_fslow {
	union {
		struct {
			uint64_t *wp;	/* the entry word; NULL: nothing to do at the exit */
			uint64_t *end;	/* the ring position after the entry (and its arguments) */
			uint64_t *base, gen;	/* the ring or chunk it was written in */
			uint64_t tsc;	/* the entry's time stamp */
		};
		/* PS_FS_PROBE (which reads none of the above): its entry's values ($argN) */
		uint64_t edata[PS_FS_EDATA];
	};
	uint32_t units;			/* budget units the entry took */
	uint32_t flags;			/* PS_FS_* (core/fast_offsets.h) */
	void *prof;			/* PS_FS_PROFILE: the call's counters (record/profile.c);
					   PS_FS_PROBE: the return probe's (record/retprobe.c) */
	union {
		uint64_t child_ns;	/* PS_FS_PROFILE: its callees' time so far */
		const void *rfast;	/* PS_FS_PROBE_FAST: its record's layout (events/probe_hits.h) */
	};
};
/* flags PS_FS_*: core/fast_offsets.h (x86-64's assembly tests some) */

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
/* The layout the arch assembly reads by core/fast_offsets.h (32-bit loads of budget and hi). */
LAYOUT_AT(struct ps_fast, wp, PSF_WP);
LAYOUT_AT(struct ps_fast, budget, PSF_BUDGET);
LAYOUT_AT(struct ps_fast, hi, PSF_HI);
LAYOUT_AT(struct ps_fast, fp, PSF_FP);
LAYOUT_AT(struct ps_fast, t, PSF_T);
LAYOUT_AT(struct ps_fast, stack_lo, PSF_STACK_LO);
LAYOUT_AT(struct ps_fast, stack_size, PSF_STACK_SIZE);
LAYOUT_AT(struct ps_fast, fp_end, PSF_FP_END);
_Static_assert(sizeof(((struct ps_fast *)0)->budget) == 4 && sizeof(((struct ps_fast *)0)->hi) == 4,
	       "PSF_BUDGET, PSF_HI: 32 bits");
_Static_assert(sizeof(struct ps_frame) == PS_FRAME_SIZE && offsetof(struct ps_frame, ret) == 0 &&
	       offsetof(struct ps_frame, key) == 8 && offsetof(struct ps_frame, idw) == 16,
	       "shadow frame { ret, key, idw }");

/* Ring words: the trace format's (data/format.h), which the runtime writes as they are kept. */
enum ps_ev_type {
	PS_EV_ENTRY = PSD_EV_ENTRY,
	PS_EV_EXIT = PSD_EV_EXIT,
	PS_EV_FUNC = PSD_EV_FUNC,
	PS_EV_MARK = PSD_EV_MARK,
};
_Static_assert(PSA_EV_ENTRY == PS_EV_ENTRY && PSA_EV_EXIT == PS_EV_EXIT && PSA_EV_FUNC == PS_EV_FUNC &&
	       PSA_ID_SHIFT == PS_ID_SHIFT && PSA_ID_MASK == PS_ID_MASK, "core/fast_offsets.h's PSA_*");
/* A mark word with a kind is an extended record (data/format.h: PSD_EXT_*). */
#define PS_EV_PAD	PSD_EV_PAD

/* One per thread that ever entered the dispatcher or a tracer; never freed. */
struct ps_thread {
	_Atomic unsigned long seq;	/* odd while inside the dispatcher */
	_Atomic bool dead;
	int depth;			/* recursion guard: 1 in the runtime's ops, 2 in a program's */
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
	bool ring_busy;			/* in the ring's slow path: a handler's events are lost (ring.c) */
	struct ps_frame grave[16];	/* frames dropped while their slot might come back */
	unsigned ngrave;
	int exit_rounds;
	struct ps_tstore *store;	/* the thread's file in the trace directory (store.c), or NULL */
	unsigned pid_gen;		/* gate.c: the thread list pid_ok answers for */
	bool pid_ok;			/* gate.c: this thread may record under set_ftrace_pid */
	uint32_t rd_hi;			/* reader: upper time half and CPU from the last mark */
	int32_t rd_cpu;
	/* The dispatcher's call's last run of probe records (record/ring.c ev_run), or NULL. */
	uint64_t *ev_lo, *ev_hi, ev_gen;
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
	char write_refused[PS_LAST_ERROR_MAX];	/* !can_write: why (api.c), said again to each request refused */
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
/*
 * A client's request (the channel thread, ctl/channel.c) may keep told: the
 * warnings ps_log_tell says while it runs are also kept there, one line
 * each, for the reply (a tracer's refusals the quiet thread would lose).
 */
struct ps_told {
	char text[2048];
	size_t len;
	bool cut;
};
/* Keep what the calling thread tells in t until ps_log_told_end (not thread-local: the
   runtime's static TLS is bounded for attach, attach.sh). */
void ps_log_told_begin(struct ps_told *t);
void ps_log_told_end(void);
__attribute__((format(printf, 1, 2)))
void ps_log_tell(const char *fmt, ...);
void ps_log_flush_deferred(bool said);

/* core/mem.c */
void *ps_map_zero(size_t *bytes, bool round, uintptr_t hint);
void *ps_calloc_large(size_t n, size_t size);
/* core/stack.c: the stack that holds sp (the calling thread's); 0, 0 if not found.  Signal-safe. */
void ps_stack_bounds(uintptr_t sp, uintptr_t *lo, uintptr_t *hi);

/*
 * core/spawn.c: a thread of the runtime's own, detached, every signal
 * blocked; stack 0: the default.  0 or pthread_create's error.
 */
int ps_spawn(void *(*fn)(void *), void *arg, size_t stack, pthread_t *out);
/* tid is one of ours, made and not yet in its start routine (trap.c passes it over) */
bool ps_spawn_starting(long tid);
void ps_spawn_forked(void);

/* core/thread.c: per-thread records, grace periods */
extern __thread struct ps_thread *ps_self __attribute__((tls_model("initial-exec")));
extern __thread struct ps_fast ps_fast __attribute__((tls_model("initial-exec")));
int ps_thread_init(void);
void ps_thread_on_exit(void (*fn)(void));
void ps_thread_on_ended(void (*fn)(struct ps_thread *));
void ps_thread_on_lost(void (*fn)(struct ps_thread *));
void ps_thread_lost(struct ps_thread *t);
struct ps_thread *ps_thread_forked(void);
struct ps_thread *ps_thread_self(void);
/*
 * The runtime's own work on this thread (start-up, fork, exit, a thread's
 * end): a call it makes into the program meanwhile (a malloc the program
 * defines, reached through the C library) is not the program's, and the
 * dispatcher and the built-in tracers' gate record nothing while ps_own is
 * set.  Enter sends the fast trampolines to their slow path (budget 0),
 * which asks the gate.  Nested calls nest.
 */
extern __thread unsigned ps_own __attribute__((tls_model("initial-exec")));
void ps_own_enter(void);
void ps_own_leave(void);
void ps_sync_dispatchers(void);
unsigned long ps_reader_enter(struct ps_thread *t);
void ps_reader_exit(struct ps_thread *t, unsigned long seq);

/* core/clock.c */
void ps_clock_init(void);
uint64_t ps_tsc_to_ns(uint64_t tsc);
uint64_t ps_tsc_now(void);
void ps_clock_params(uint64_t *tsc0, uint64_t *ns0, double *ns_per_tsc);


#endif
