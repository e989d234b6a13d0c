// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in tracers' writer side: per-thread rings of 8-byte words,
 * the function_graph shadow stack, the hooks that show libgcc's unwinder
 * the real return addresses and close the calls it leaves (C++
 * exceptions, pthread_exit, pthread_cancel), and those that close calls
 * a longjmp cuts.
 *
 * The common case runs in the arch's fast trampolines, which need only
 * struct ps_fast (TLS): the write pointer, an entry budget and the upper
 * half of the time stamp.  Everything else comes here: a new thread, a
 * spent budget (the ring or the shadow stack is nearly full, or due to
 * wrap), a new upper half (a mark word with the CPU goes first), a return
 * that does not match the top shadow frame, a call off the thread's own
 * stack.  The budget is how many
 * entries fit, two words each, leaving room for the exits of every open
 * frame, so exits never check.  A full ring drops new entries and counts
 * them (ftrace's producer/consumer mode); nothing grows.
 *
 * Time stamps are the arch's counter (host.h: the TSC, cntvct_el0;
 * constant and non-stop on the machines we target), converted to
 * CLOCK_MONOTONIC at the rate the arch states (cntfrq_el0), else one
 * measured between start-up and the first conversion.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "control.h"
#include "host.h"
#include "internal.h"
#include "psdata.h"

#define HIDDEN __attribute__((visibility("hidden")))
#define PS_FRAMES	1024		/* shadow frames per thread: the deepest max depth */
#define PS_SLACK	16		/* words kept for marks and signal handlers */

__thread struct ps_fast ps_fast __attribute__((tls_model("initial-exec")));
size_t ps_ring_bytes = 1024 * 1024;
unsigned ps_graph_max_depth = PS_FRAMES;

static uint64_t tsc0, ns0;
static double ns_per_tsc;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Returns are hooked only where the return address lies on the thread's
 * own stack: one region, used last in first out, so that a return at a
 * slot ends every call whose slot lies below it.  A coroutine's stack
 * (makecontext/swapcontext), a sigaltstack or a fiber's does not have that
 * order as seen from the thread: calls there are recorded without their
 * return.  The main thread's stack is measured at start-up
 * (pthread_getattr_np reads /proc there, with malloc: not from a signal
 * handler).
 */
static uintptr_t main_lo, main_hi;

static void stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	*lo = *hi = 0;
	if (pthread_getattr_np(pthread_self(), &a))
		return;
	if (!pthread_attr_getstack(&a, &addr, &size)) {
		*lo = (uintptr_t)addr;
		*hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&a);
}

static void thread_stack(struct ps_fast *f)
{
	uintptr_t here = (uintptr_t)&f, lo = main_lo, hi = main_hi;

	if (here < main_lo || here >= main_hi)
		stack_bounds(&lo, &hi);
	f->stack_lo = lo;
	f->stack_size = hi - lo;
}

static bool own_stack(const struct ps_fast *f, uintptr_t slot)
{
	return slot - f->stack_lo < f->stack_size;
}

static void unwinder_syms(void);

void ps_record_init(void)
{
	ns0 = mono_ns();
	tsc0 = ps_clock();
	stack_bounds(&main_lo, &main_hi);
	unwinder_syms();
}

/* The time-stamp counter the events carry. */
uint64_t ps_tsc_now(void)
{
	return ps_clock();
}

/* CLOCK_MONOTONIC ns of a clock value; an unstated rate is measured over >= 20 ms once. */
uint64_t ps_tsc_to_ns(uint64_t tsc)
{
	if (!ns_per_tsc && ps_clock_hz())
		ns_per_tsc = 1e9 / (double)ps_clock_hz();
	if (!ns_per_tsc) {
		uint64_t ns = mono_ns(), t;

		while (ns - ns0 < 20000000) {
			struct timespec d = { 0, 20000000 - (long)(ns - ns0) };

			nanosleep(&d, NULL);
			ns = mono_ns();
		}
		t = ps_clock();
		ns_per_tsc = t > tsc0 ? (double)(ns - ns0) / (double)(t - tsc0) : 1.0;
	}
	return ns0 + (uint64_t)((double)(int64_t)(tsc - tsc0) * ns_per_tsc);
}

/* 2 MB pages for a large ring (mem.c): a first touch per 4 KB page cost more than the events. */
static void *map_zero(size_t bytes)
{
	return ps_map_zero(&bytes, false, 0);
}

/* An event not recorded: counted (in the thread's file too, where there is one). */
static void lose(struct ps_thread *t)
{
	atomic_fetch_add_explicit(&t->lost, 1, memory_order_relaxed);
	ps_store_lost(t);
}

/* The ring: in memory, or the first chunk of the thread's file in the trace directory. */
static int ring_setup(struct ps_thread *t, struct ps_fast *f)
{
	size_t bytes = ps_ring_bytes & ~(size_t)7;

	if (ps_store_on())
		return ps_store_thread(t, f);
	t->base = map_zero(bytes);
	if (!t->base)
		return -ENOMEM;
	t->end = t->base + bytes / 8;
	ps_wp_set(f, t->base);
	return 0;
}

/* The calling thread's ring and shadow stack (the first event of a thread). */
static struct ps_thread *thread_setup(void)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;

	if (t && t->base)
		return t;
	t = ps_thread_self();
	if (!t)
		return NULL;
	if (!t->frames) {
		t->frames = map_zero((PS_FRAMES + 1) * sizeof(struct ps_frame));
		t->fslow = map_zero((PS_FRAMES + 1) * sizeof(struct ps_fslow));
		if (!t->frames || !t->fslow)
			return NULL;
		t->frames[0].key = 1;	/* a sentinel no return matches */
		t->frames_end = t->frames + 1 + PS_FRAMES;
	}
	if (!t->base && ring_setup(t, f))
		return NULL;
	if (f->t != t) {
		if (!ps_store_on())
			ps_wp_set(f, t->base);
		f->fp = t->frames + 1;
		f->fp_end = t->frames_end;
	}
	f->budget = 0;
	f->t = t;
	thread_stack(f);
	atomic_store(&t->fast, f);
	return t;
}

/* Start a new stretch of time: a mark word (upper half, CPU).  False when full. */
static bool mark(struct ps_thread *t, struct ps_fast *f, uint64_t tsc)
{
	uint32_t hi = (uint32_t)(tsc >> 32);

	if (hi == f->hi)
		return true;
	if ((t->end - f->wp < 2 || ps_store_stale(t)) && !(t->store && !ps_store_next(t, f)))
		return false;
	f->wp[0] = (uint64_t)hi << 32 | PS_EV_MARK;
	f->wp[1] = (uint64_t)sched_getcpu();
	ps_wp_set(f, f->wp + 2);
	f->hi = hi;
	return true;
}

/* Entries that fit now (two words each, the open frames' exits kept); may wrap the ring. */
static int32_t budget(struct ps_thread *t, struct ps_fast *f, bool frames)
{
	uint64_t cap = (uint64_t)(t->end - t->base), open = (uint64_t)(f->fp - (t->frames + 1));
	uint64_t need = open + PS_SLACK + 2, lin, total, b;
	uint64_t one = need + 2;	/* room for one more entry */

	lin = total = 0;
	if (ps_store_on()) {
		/* The trace directory: a full chunk is followed by the next, nothing wraps. */
		lin = (uint64_t)(t->end - f->wp);
		if ((lin < one || ps_store_stale(t)) && (!t->store || ps_store_next(t, f)))
			return 0;
		total = lin = (uint64_t)(t->end - f->wp);
	}
	for (; !ps_store_on();) {
		uint64_t head = atomic_load_explicit(&t->lap, memory_order_relaxed) +
				(uint64_t)(f->wp - t->base);
		uint64_t tail = atomic_load_explicit(&t->tail, memory_order_acquire);

		total = cap - (head - tail < cap ? head - tail : cap);
		lin = (uint64_t)(t->end - f->wp);
		if (lin >= one || total < one || total - lin < one)
			break;
		/* The end is near and the start is free: pad and wrap. */
		for (uint64_t *p = f->wp; p < t->end; p++)
			*p = PS_EV_PAD;
		ps_wp_set(f, t->base);
		atomic_store_explicit(&t->lap, head + lin, memory_order_release);
	}
	b = (lin < total ? lin : total);
	if (b < one)
		return 0;
	b = (b - need) / 2;
	/* The fast path does not count depth: no more entries than could stay within it. */
	if (frames && open >= ps_graph_max_depth)
		return 0;
	if (frames && b > ps_graph_max_depth - open)
		b = ps_graph_max_depth - open;
	return b > INT32_MAX ? INT32_MAX : (int32_t)b;
}

/* One entry's room: true with the budget taken, false (counted lost) when full. */
static bool take(struct ps_thread *t, struct ps_fast *f, bool frames)
{
	if (f->budget <= 0)
		f->budget = budget(t, f, frames);
	if (f->budget <= 0) {
		f->budget = 0;
		lose(t);
		return false;
	}
	f->budget--;
	return true;
}

static void put_exit(struct ps_thread *t, struct ps_fast *f, uint64_t tsc, uint64_t idw)
{
	if (f->wp >= t->end) {
		lose(t);
		return;
	}
	f->wp[0] = tsc << 32 | (uint32_t)(idw | PS_EV_EXIT);
	ps_wp_set(f, f->wp + 1);
}

static void close_frame(struct ps_thread *t, struct ps_fast *f, uint64_t tsc,
			const struct ps_frame *fr);

/*
 * The calling thread, ready to record an event stamped *tsc; NULL when it
 * has no buffer, or when the event is lost (counted) because a new time
 * stretch could not be marked.
 */
static struct ps_thread *begin_event(uint64_t *tsc)
{
	struct ps_thread *t = thread_setup();

	*tsc = ps_clock();
	if (!t)
		return NULL;
	if (!mark(t, &ps_fast, *tsc)) {
		lose(t);
		return NULL;
	}
	return t;
}

/* An entry with its parent: the function tracer's, or a graph call whose return is not hooked. */
static void put_func(struct ps_thread *t, struct ps_fast *f, uint64_t tsc, uint32_t idw,
		     unsigned long parent)
{
	if (!take(t, f, false))
		return;
	f->wp[0] = tsc << 32 | (idw & ~3u) | PS_EV_FUNC;
	f->wp[1] = parent;
	ps_wp_set(f, f->wp + 2);
}

/*
 * An extended record (psdata.h) in the calling thread's ring, stamped now:
 * true when written, false when lost (counted) or there is no ring.  The
 * room is taken as entries (two words each), so the fast path's budget
 * stays right.  The header goes first: a record cut short by a crash keeps
 * its count, and its missing words read as zero.
 */
bool ps_ring_ext(unsigned kind, const uint64_t *payload, unsigned words)
{
	struct ps_fast *f = &ps_fast;
	uint64_t tsc;
	struct ps_thread *t;

	if (!kind || kind > 0xff || words > PSD_EXT_MAX_WORDS)
		return false;
	t = begin_event(&tsc);
	if (!t)
		return false;
	for (unsigned units = (words + 2) / 2; units; units--)
		if (!take(t, f, false))
			return false;
	f->wp[0] = tsc << 32 | (uint64_t)words << 10 | kind << 2 | PS_EV_MARK;
	if (words)
		memcpy(f->wp + 1, payload, (size_t)words * 8);
	ps_wp_set(f, f->wp + 1 + words);
	return true;
}

/*
 * The arguments set_ftrace_args asks for, after the entry just written
 * (PSD_EXT_ARGS: the site id, then the values).  Only on the C path, where
 * the registers were saved (regs NULL: from a fast path's slow half).
 * Returns the budget units taken.
 */
static unsigned put_args(const struct ps_site *s, uint32_t idw, struct patchsite_regs *regs,
			 bool *retval)
{
	uint64_t a[9];
	unsigned n;

	*retval = false;
	if (!regs || !ps_args_on())
		return 0;
	if (!s)
		s = ps_site_by_id(idw >> 2);
	n = ps_args_want(s, retval);
	if (!n)
		return 0;	/* none, or the return value alone */
	a[0] = idw >> 2;
	for (unsigned i = 0; i < n && i < 8; i++)
		a[1 + i] = patchsite_regs_arg(regs, i);
	return ps_ring_ext(PSD_EXT_ARGS, a, n + 1) ? (n + 3) / 2 : 0;
}

static void func_entry(uint32_t idw, unsigned long parent, struct patchsite_regs *regs)
{
	uint64_t tsc;
	struct ps_thread *t = begin_event(&tsc);
	bool rv;

	if (!t || !ps_gate_open(t))
		return;
	put_func(t, &ps_fast, tsc, idw, parent);
	put_args(NULL, idw, regs, &rv);
}

static uintptr_t frame_slot(const struct ps_frame *fr)
{
	return (fr->key & ~(uintptr_t)3) + PS_FRAME_KEY_BIAS;
}

/*
 * A frame dropped while its slot may still hold the hook (its memory
 * might be copied back, or our reading of the stack was wrong): kept, the
 * most recent 16, so that a return through it still finds its way.
 */
static void bury(struct ps_thread *t, const struct ps_frame *fr)
{
	if (!(fr->key & 1))
		t->grave[t->ngrave++ % 16] = *fr;
}

/*
 * Frames above a new call's return slot belong to calls that can no longer
 * return (a longjmp went past them): close them.  Only slots near the new
 * one count, so that a handler on a signal stack at higher addresses does
 * not close the frames it interrupted.
 */
static void close_stale(struct ps_thread *t, struct ps_fast *f, uintptr_t slot, uint64_t tsc)
{
	while (f->fp > t->frames + 1) {
		struct ps_frame *top = f->fp - 1;
		uintptr_t s = frame_slot(top);

		if (s > slot || slot - s > (64u << 20))
			break;
		if (!(top->key & 1) && *(uintptr_t *)s == (uintptr_t)ps.arch->graph_return)
			break;	/* still hooked: not stale (a signal handler's frames) */
		close_frame(t, f, tsc, top);
		bury(t, top);
		f->fp--;
	}
}

static double ticks_per_ns(void);

/* tracing_thresh in time-stamp ticks; 0: off. */
static _Atomic uint64_t thresh_tsc;
static _Atomic unsigned long thresh_us;

/*
 * Functions by site index (set_graph_notrace); n: the sites it covers
 * (objects loaded after it was written are not).  Immutable once published.
 */
struct sitemask {
	size_t n;
	char *text;
	uint8_t set[];
};
static _Atomic(struct sitemask *) graph_notrace;

/*
 * The latency tracer (PS_FS_LATENCY): the longest top-level call so far,
 * in time-stamp ticks (converted outside the dispatcher: the first
 * conversion may measure the clock's rate for 20 ms).
 */
static _Atomic bool latency_mode;
static _Atomic uint64_t max_latency_tsc;

static bool in_mask(struct sitemask *m, const struct ps_site *s)
{
	return m && s->gindex < m->n && m->set[s->gindex];
}

/* Which ring or chunk t writes now: a position saved earlier is only comparable within it. */
static uint64_t ring_gen(const struct ps_thread *t)
{
	return ps_store_on() ? t->base[1] : atomic_load_explicit(&t->lap, memory_order_relaxed);
}

/*
 * A new frame fr whose entry word is at entry (NULL: not recorded, a
 * set_graph_notrace call): what its exit must do in C.  Key bit 1 sends
 * the exit there and says the slow info is the frame's own.
 */
static void frame_note(struct ps_thread *t, struct ps_fast *f, struct ps_frame *fr,
		       uint64_t *entry, uint64_t tsc, unsigned units, unsigned flags)
{
	struct ps_fslow *x = &t->fslow[fr - t->frames];

	if (atomic_load_explicit(&thresh_tsc, memory_order_relaxed))
		flags |= PS_FS_THRESH;
	if (!flags)
		return;
	*x = (struct ps_fslow){ .wp = entry, .end = f->wp, .base = t->base, .gen = ring_gen(t),
				.tsc = tsc, .units = units, .flags = flags };
	fr->key |= PS_FRAME_SLOW;
	if (flags & PS_FS_NOTRACE)
		t->notrace++;
}

/* The slow info of fr, or NULL when its exit has nothing to do in C. */
static struct ps_fslow *frame_slow(struct ps_thread *t, const struct ps_frame *fr)
{
	return fr->key & PS_FRAME_SLOW ? &t->fslow[fr - t->frames] : NULL;
}

/* A frame closed by anything but its own return (longjmp, exception, thread end). */
static void close_frame(struct ps_thread *t, struct ps_fast *f, uint64_t tsc,
			const struct ps_frame *fr)
{
	struct ps_fslow *x = frame_slow(t, fr);

	if (x && (x->flags & PS_FS_NOTRACE)) {
		t->notrace--;
		return;
	}
	put_exit(t, f, tsc, fr->idw);
}

/* Can the words from x->wp on be taken back (same ring or chunk, no reader past them)? */
static bool can_rewind(struct ps_thread *t, const struct ps_fslow *x)
{
	uint64_t at;

	if (!x->wp || x->base != t->base || x->gen != ring_gen(t))
		return false;
	at = atomic_load_explicit(&t->lap, memory_order_relaxed) + (uint64_t)(x->wp - t->base);
	return ps_store_on() || atomic_load_explicit(&t->tail, memory_order_acquire) <= at;
}

static void rewind_to(struct ps_fast *f, uint64_t *wp)
{
	uint64_t *end = f->wp;

	ps_wp_set(f, wp);
	memset(wp, 0, (size_t)(end - wp) * 8);
}

/*
 * The latency tracer: a top-level call longer than any before is kept and
 * marked (PSD_EXT_LATENCY: site id, ticks, entry time stamp); any other is
 * taken back whole.  True when it was kept.
 */
static bool latency_exit(struct ps_thread *t, struct ps_fast *f, const struct ps_frame *fr,
			 struct ps_fslow *x, uint64_t tsc)
{
	uint64_t d = tsc - x->tsc;
	uint64_t max = atomic_load(&max_latency_tsc);

	while (d > max)
		if (atomic_compare_exchange_weak(&max_latency_tsc, &max, d)) {
			uint64_t w[3] = { (uint32_t)fr->idw >> 2, d, x->tsc };

			put_exit(t, f, tsc, fr->idw);
			ps_ring_ext(PSD_EXT_LATENCY, w, 3);
			return true;
		}
	if (!can_rewind(t, x))
		return false;
	rewind_to(f, x->wp);
	f->budget = 0;		/* the room is counted again */
	return true;
}

/*
 * The return of frame fr (popped by the caller), at tsc.  Under
 * tracing_thresh a call shorter than it whose entry is still the newest
 * record of the thread (its children were taken back too, or it had none)
 * is taken back: the write pointer goes back to its entry, the words are
 * zeroed (a chunk's data ends at its last non-zero word) and the budget
 * returned.  A call kept keeps its ancestors: their entries are no longer
 * the newest.  Not when a reader already took the entry (the in-memory
 * ring's tail is past it).
 */
static void frame_exit(struct ps_thread *t, struct ps_fast *f, struct ps_frame *fr, uint64_t tsc,
		       unsigned long retval)
{
	struct ps_fslow *x = frame_slow(t, fr);
	uint64_t th = atomic_load_explicit(&thresh_tsc, memory_order_relaxed);

	if (x && (x->flags & PS_FS_NOTRACE)) {
		t->notrace--;
		return;
	}
	if (x && (x->flags & PS_FS_LATENCY) && latency_exit(t, f, fr, x, tsc))
		return;
	if (x && (x->flags & PS_FS_THRESH) && th && tsc - x->tsc < th && f->wp == x->end &&
	    can_rewind(t, x)) {
		rewind_to(f, x->wp);
		if (f->budget > 0)
			f->budget += (int32_t)x->units;
		return;
	}
	put_exit(t, f, tsc, fr->idw);
	if (x && (x->flags & PS_FS_RETVAL)) {
		uint64_t r[2] = { (uint32_t)fr->idw >> 2, retval };

		ps_ring_ext(PSD_EXT_RETVAL, r, 2);
	}
}

/*
 * set_graph_notrace: the call is not recorded, nor anything it calls
 * while it runs (t->notrace counts such calls open); its frame only hooks
 * the return, to know when it ends.
 */
static bool notrace_call(struct ps_thread *t, struct ps_site **site, uint32_t idw)
{
	struct sitemask *m = atomic_load_explicit(&graph_notrace, memory_order_acquire);

	if (!m)
		return false;
	if (!*site)
		*site = ps_site_by_id(idw >> 2);
	(void)t;
	return in_mask(m, *site);
}

static void graph_entry(struct ps_site *site, uint32_t idw, unsigned long *loc,
			struct patchsite_regs *regs)
{
	struct ps_fast *f = &ps_fast;
	uint64_t tsc, *entry;
	struct ps_thread *t = begin_event(&tsc);
	struct ps_frame *fr;
	unsigned units, flags = 0;
	bool rv, top;

	if (!t || !ps_gate_open(t))
		return;
	if (!own_stack(f, (uintptr_t)loc)) {
		if (!t->notrace)
			put_func(t, f, tsc, idw, *loc);	/* off our stack: return not hooked */
		return;
	}
	close_stale(t, f, (uintptr_t)loc, tsc);
	if (t->notrace)
		return;
	top = f->fp == t->frames + 1;
	if (top) {
		const uint8_t *trigger = __atomic_load_n(&ps_graph_trigger.set, __ATOMIC_ACQUIRE);

		if (trigger) {
			if (!site)
				site = ps_site_by_id(idw >> 2);
			if (!trigger[site->gindex])
				return;
		}
	}
	if ((unsigned)(f->fp - (t->frames + 1)) >= ps_graph_max_depth) {
		f->budget = 0;
		return;		/* deeper than asked: not traced, by design */
	}
	if (!take(t, f, true))
		return;
	fr = f->fp;
	fr->ret = *loc;
	fr->key = (uintptr_t)loc - PS_FRAME_KEY_BIAS;
	fr->idw = (idw & ~3u) | PS_EV_EXIT;
	if (notrace_call(t, &site, idw)) {
		f->fp++;
		frame_note(t, f, fr, NULL, tsc, 1, PS_FS_NOTRACE);
		*loc = (uintptr_t)ps.arch->graph_return;
		return;
	}
	entry = f->wp;
	f->wp[0] = tsc << 32 | (idw & ~3u) | PS_EV_ENTRY;
	ps_wp_set(f, f->wp + 1);
	units = 1 + put_args(site, idw, regs, &rv);
	f->fp++;
	flags = (rv ? PS_FS_RETVAL : 0) |
		(top && atomic_load_explicit(&latency_mode, memory_order_relaxed) ? PS_FS_LATENCY : 0);
	frame_note(t, f, fr, entry, tsc, units, flags);
	*loc = (uintptr_t)ps.arch->graph_return;
}

/*
 * An entry of a function with exit sites, or an exit site: one word, no
 * return hook.  The entry pushes a frame that hooks nothing (key bit 0
 * set), the exit pops it when it is on top: what is left on the shadow
 * stack is a call an exception left, closed where it lands.
 */
static void graph_word(struct ps_site *site, uint32_t idw, unsigned long *loc,
		       struct patchsite_regs *regs)
{
	struct ps_fast *f = &ps_fast;
	uint64_t tsc, *entry;
	struct ps_thread *t = begin_event(&tsc);
	uintptr_t key = ((uintptr_t)loc - PS_FRAME_KEY_BIAS) | 1;
	bool top = t && f->fp > t->frames + 1 && PS_FRAME_KEY(&f->fp[-1]) == key, rv;
	bool first = t && f->fp == t->frames + 1;
	unsigned units;

	if (!t)
		return;
	/* The exit of the call on top: its room was kept when it was entered. */
	if ((idw & 3) == PS_EV_EXIT && top) {
		f->fp--;
		frame_exit(t, f, f->fp, tsc, regs && ps.arch->regs_retval ?
			   ps.arch->regs_retval(regs) : 0);
		return;
	}
	/* Gate closed, or inside a set_graph_notrace call: nothing new. */
	if (!ps_gate_open(t) || t->notrace)
		return;
	if ((idw & 3) != PS_EV_EXIT && own_stack(f, (uintptr_t)loc) && f->fp < t->frames_end &&
	    notrace_call(t, &site, idw)) {
		*f->fp = (struct ps_frame){ .ret = 0, .key = key, .idw = idw | PS_EV_EXIT };
		frame_note(t, f, f->fp, NULL, tsc, 0, PS_FS_NOTRACE);
		f->fp++;
		return;
	}
	if (!take(t, f, false))
		return;
	entry = f->wp;
	f->wp[0] = tsc << 32 | idw;
	ps_wp_set(f, f->wp + 1);
	if ((idw & 3) == PS_EV_EXIT || !own_stack(f, (uintptr_t)loc) || f->fp >= t->frames_end)
		return;
	units = 1 + put_args(site, idw, regs, &rv);
	*f->fp = (struct ps_frame){ .ret = 0, .key = key, .idw = idw | PS_EV_EXIT };
	frame_note(t, f, f->fp, entry, tsc, units, (rv ? PS_FS_RETVAL : 0) |
		   (first && atomic_load_explicit(&latency_mode, memory_order_relaxed) ?
		    PS_FS_LATENCY : 0));
	f->fp++;
}

/* From the fast trampolines: a[0] id << 2, a[1] return into the function, a[2] into its caller. */
HIDDEN void ps_graph_word_slow(unsigned long *a);

void ps_graph_word_slow(unsigned long *a)
{
	graph_word(NULL, (uint32_t)a[0], &a[2], NULL);
}

HIDDEN void ps_func_entry_slow(unsigned long *a);
HIDDEN void ps_graph_entry_slow(unsigned long *a);
HIDDEN void ps_graph_exit_slow(unsigned long *slot);

void ps_func_entry_slow(unsigned long *a)
{
	func_entry((uint32_t)a[0], a[2], NULL);
}

void ps_graph_entry_slow(unsigned long *a)
{
	graph_entry(NULL, (uint32_t)a[0], &a[2], NULL);
}

/* The real return address of a slot some dropped frame hooked, or 0. */
static uintptr_t dug_up(struct ps_thread *t, uintptr_t key)
{
	for (unsigned i = 0; i < 16 && i < t->ngrave; i++) {
		struct ps_frame *fr = &t->grave[(t->ngrave - 1 - i) % 16];

		if (PS_FRAME_KEY(fr) == key) {
			fr->key |= 1;
			return fr->ret;
		}
	}
	return 0;
}

/*
 * The frame of the thread that hooked this slot, in any thread's shadow
 * stack (a context that moved to another thread with hooked returns on
 * it); 0 when none.  Reads other threads' frames racily: a frame found is
 * only ever read, and frames are never unmapped.
 */
static uintptr_t other_thread_ret(struct ps_thread *me, uintptr_t key)
{
	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		struct ps_fast *f = atomic_load(&t->fast);
		struct ps_frame *top = f ? *(struct ps_frame *volatile *)&f->fp : NULL;

		if (t == me || !t->frames || !top || top <= t->frames || top > t->frames_end)
			continue;
		for (struct ps_frame *fr = top; fr-- > t->frames + 1;)
			if ((*(volatile uintptr_t *)&fr->key & ~(uintptr_t)PS_FRAME_SLOW) == key)
				return fr->ret;
	}
	return 0;
}

/*
 * The thread could not tell where a hooked return goes (see patchsite(7):
 * a program that copies its stacks around).  Nothing can continue that
 * call; the runtime must not abort the program, so the thread alone ends.
 */
HIDDEN void ps_graph_lost(void) __attribute__((noreturn)) PS_REACHED_BY_RET;

/* Reached by a return, not a call: PS_REACHED_BY_RET (host.h) fixes the stack alignment where needed. */
void ps_graph_lost(void)
{
	ps_log(PATCHSITE_LOG_ERROR, "function_graph: a hooked return address was lost "
	       "(stack copied?): ending this thread");
	pthread_exit(NULL);
}

/*
 * A hooked return that is not the top frame's, or a new time stretch:
 * slot gets the real address.  Frames are matched by their slot: those
 * above the match whose slots lie below this one are calls that cannot
 * return any more (left by a longjmp we did not see); those whose slots
 * lie above it belong to another context on this stack and stay.
 */
void ps_graph_exit_slow(unsigned long *slot)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uint64_t tsc = ps_clock();
	uintptr_t key = (uintptr_t)slot - PS_FRAME_KEY_BIAS, ret;
	struct ps_frame *fr = f->fp, *to;

	if (!t) {
		*slot = other_thread_ret(NULL, key);
		if (!*slot)
			*slot = (uintptr_t)ps_graph_lost;
		return;
	}
	if (!mark(t, f, tsc))
		lose(t);
	while (fr > t->frames + 1 && PS_FRAME_KEY(fr - 1) != key)
		fr--;
	if (fr > t->frames + 1) {
		fr--;
		ret = fr->ret;
		/* Above it: close the dead, keep the others in order. */
		to = fr;
		for (struct ps_frame *p = fr + 1; p < f->fp; p++) {
			if ((p->key & ~(uintptr_t)3) < key) {
				close_frame(t, f, tsc, p);
				bury(t, p);
			} else {
				t->fslow[to - t->frames] = t->fslow[p - t->frames];
				*to++ = *p;
			}
		}
		if (to == fr)
			frame_exit(t, f, fr, tsc, ps.arch->exit_retval ? ps.arch->exit_retval(slot) : 0);
		else
			close_frame(t, f, tsc, fr);
		f->fp = to;
		*slot = ret;
		return;
	}
	ret = dug_up(t, key);
	if (!ret)
		ret = other_thread_ret(t, key);
	*slot = ret ? ret : (uintptr_t)ps_graph_lost;
}

/* The built-in ops, for the generic dispatcher (other ops registered too). */
static void function_call(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
			  struct patchsite_regs *regs)
{
	struct ps_thread *t = ps_thread_self();

	(void)ip, (void)op, (void)regs;
	if (t)
		func_entry(t->cur_idw, parent, regs);
}

static void graph_call(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
		       struct patchsite_regs *regs)
{
	struct ps_thread *t = ps_thread_self();
	struct ps_site *s;

	(void)ip, (void)parent, (void)op;
	if (!t)
		return;
	s = ps_site_by_id(t->cur_idw >> 2);
	if (s->kind == SITE_EXIT)
		graph_word(s, t->cur_idw | PS_EV_EXIT, patchsite_regs_parent_loc(regs), regs);
	else if (s->kind == SITE_ENTRY_EXITS)
		graph_word(s, t->cur_idw, patchsite_regs_parent_loc(regs), regs);
	else
		graph_entry(s, t->cur_idw, patchsite_regs_parent_loc(regs), regs);
}

/* The built-in tracers need the C path (dispatch.c ps_tramp_select): a setting their fast paths ignore. */
bool ps_record_slow(void)
{
	return ps_gate_filtering() || atomic_load_explicit(&thresh_tsc, memory_order_relaxed) ||
	       ps_args_on() || atomic_load_explicit(&graph_notrace, memory_order_relaxed) ||
	       atomic_load_explicit(&latency_mode, memory_order_relaxed);
}

/* set_graph_notrace: globs as set_graph_function's; append adds to them. */
int ps_graph_set_notrace(const char *globs, bool append)
{
	struct ps_globs g = { NULL, NULL };
	struct sitemask *old, *m = NULL;
	char *text = NULL;
	int err;

	pthread_mutex_lock(&ps.lock);
	old = atomic_load(&graph_notrace);
	if (append && old && old->text && (text = malloc(strlen(old->text) + strlen(globs) + 2)))
		snprintf(text, strlen(old->text) + strlen(globs) + 2, "%s %s", old->text, globs);
	else
		text = strdup(globs);
	err = text ? ps_filter_apply(&g, text, 1, "set_graph_notrace") : -ENOMEM;
	if (!err && g.set) {
		m = malloc(sizeof(*m) + ps.nsites);
		if (!m)
			err = -ENOMEM;
	}
	if (!err) {
		if (m) {
			m->n = ps.nsites;
			m->text = text;
			text = NULL;
			memcpy(m->set, g.set, ps.nsites);
		}
		atomic_store(&graph_notrace, m);
		ps_tramp_select(false);
		ps_sync_dispatchers();
		if (old)
			free(old->text);
		free(old);
	}
	ps_globs_free(&g);
	free(text);
	pthread_mutex_unlock(&ps.lock);
	return err;
}

void ps_graph_list_notrace(struct ps_buf *out)
{
	struct sitemask *m;
	char buf[256];

	pthread_mutex_lock(&ps.lock);
	m = atomic_load(&graph_notrace);
	for (size_t i = 0; m && i < m->n; i++)
		if (m->set[i] && ps.site_index[i])
			ps_buf_printf(out, "%s\n", ps_site_name(ps.site_index[i], buf, sizeof(buf)));
	pthread_mutex_unlock(&ps.lock);
}

/* The latency tracer's mode (patchsite_set_tracer("latency")); ps.lock held. */
void ps_graph_set_latency(bool on)
{
	if (on)
		ps_tsc_to_ns(ps_clock());	/* the rate, measured now if it must be */
	atomic_store(&latency_mode, on);
}

/* Ticks of ns and back, at the rate ps_tsc_to_ns uses. */
static double ticks_per_ns(void)
{
	uint64_t t0 = ps_clock();

	return 1e6 / (double)(ps_tsc_to_ns(t0 + 1000000) - ps_tsc_to_ns(t0));
}

bool ps_graph_latency(void)
{
	return atomic_load(&latency_mode);
}

uint64_t ps_graph_max_latency_ns(void)
{
	uint64_t d = atomic_load(&max_latency_tsc);

	return d ? (uint64_t)((double)d / ticks_per_ns()) : 0;
}

void ps_graph_set_max_latency_ns(uint64_t ns)
{
	atomic_store(&max_latency_tsc, ns ? (uint64_t)((double)ns * ticks_per_ns()) : 0);
}

/* tracing_thresh, in µs (0: off); the C path while it is set. */
int ps_graph_set_thresh(unsigned long us)
{
	uint64_t ticks = 0;

	if (us) {
		ticks = (uint64_t)((double)us * 1000.0 * ticks_per_ns());
		if (!ticks)
			ticks = 1;
	}
	pthread_mutex_lock(&ps.lock);
	atomic_store(&thresh_us, us);
	atomic_store(&thresh_tsc, ticks);
	ps_tramp_select(false);
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

unsigned long ps_graph_thresh(void)
{
	return atomic_load(&thresh_us);
}

struct patchsite_ops ps_function_ops = { .func = function_call };
struct patchsite_ops ps_graph_ops = { .func = graph_call };
struct ps_globs ps_graph_trigger;

/*
 * Unwinding.  Hooked slots stay hooked while an unwinder runs: it is shown
 * through them instead.  Every unwinder walk of libgcc (exceptions thrown
 * and resumed, std::rethrow_exception, forced unwinding for pthread_exit
 * and pthread_cancel, _Unwind_Backtrace) asks _Unwind_Find_FDE for the
 * code at each return address minus one, through its PLT, with
 * &context->bases; a hooked slot makes that graph_return - 1.  The wrapper
 * then finds the frame whose slot it is, puts the real return address in
 * the walk's context, and asks for that address's FDE: the walk goes on
 * as if the slot held it.  Nothing is written to the stack, so nothing
 * has to be put back when a handler catches, however the walks nest (a
 * catch inside a destructor run by another exception's unwinding).
 *
 * A personality routine calls _Unwind_SetIP when the walk is about to
 * land in a frame (a catch or a cleanup): calls below that frame are left
 * for good, and are closed there, at the right depth.  What is still open
 * when the thread ends (a forced unwind ends past the thread's function)
 * is closed then (ps_graph_thread_end).
 *
 * The layout of libgcc's struct _Unwind_Context (unwind-dw2.c, unchanged
 * since gcc 4.x): void *reg[DWARF_FRAME_REGISTERS + 1], then cfa, ra,
 * lsda, then bases.  Both words read from it are checked against what
 * they must hold (ra is graph_return, the slot below the cfa holds it too)
 * before anything is changed; a program with its own copy of the unwinder
 * (-static-libgcc) cannot be reached this way, and is refused at start-up
 * (ps_graph_unwinder_check).
 */
struct unwind_bases { void *tbase, *dbase, *func; };
typedef const void *find_fde_fn(void *pc, struct unwind_bases *bases);
typedef void set_ip_fn(void *ctx, uintptr_t ip);
typedef uintptr_t get_cfa_fn(void *ctx);
static find_fde_fn *real_find_fde;
static set_ip_fn *real_set_ip;
static get_cfa_fn *real_get_cfa;

/* The unwinder's own function: the next definition, or libgcc_s's when glibc loaded it locally. */
static void *unwinder_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name), *h;

	if (p)
		return p;
	h = dlopen("libgcc_s.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = dlsym(h, name);
	dlclose(h);
	return p;
}

/* Found at start-up (ps_record_init) when libgcc_s is loaded, else at the first unwinding. */
static void unwinder_syms(void)
{
	if (__atomic_load_n(&real_get_cfa, __ATOMIC_ACQUIRE))
		return;
	real_find_fde = (find_fde_fn *)unwinder_sym("_Unwind_Find_FDE");
	real_set_ip = (set_ip_fn *)unwinder_sym("_Unwind_SetIP");
	__atomic_store_n(&real_get_cfa, (get_cfa_fn *)unwinder_sym("_Unwind_GetCFA"),
			 __ATOMIC_RELEASE);
}

/*
 * The real return address of a hooked slot of this thread (or another's),
 * or 0.  A tail call hooks its caller's slot again: the frame below holds
 * the address the first hook saved.
 */
static uintptr_t hooked_ret(uintptr_t slot, uintptr_t hook)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uintptr_t key = slot - PS_FRAME_KEY_BIAS;

	if (t && f->fp) {
		for (struct ps_frame *fr = f->fp; fr-- > t->frames + 1;)
			if (PS_FRAME_KEY(fr) == key && fr->ret != hook)
				return fr->ret;
		for (unsigned i = 0; i < 16 && i < t->ngrave; i++)
			if (PS_FRAME_KEY(&t->grave[i]) == key)
				return t->grave[i].ret;
	}
	return other_thread_ret(t, key);
}

/*
 * Where returns are hooked through a register (aarch64's x30: ret_strip),
 * a traced function saves the hook in its frame record, which the
 * unwinder reads through the CFI, not at the CFA where _Unwind_Find_FDE
 * above looks.  There every hooked record gets its real address back
 * before a throw (__cxa_throw, __cxa_rethrow), and the frames still open
 * get the hook again when a handler catches (__cxa_begin_catch).
 */
static void unhook_chain(struct ps_thread *t, struct ps_fast *f, bool rehook);

static void unhook_all(void)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;

	if (t && f->fp && ps.arch->ret_strip)
		unhook_chain(t, f, false);
}

/* A handler caught: slots at or below `below` are gone. */
static void rehook_after_catch(uintptr_t below)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uint64_t tsc = ps_clock();

	if (!t || !f->fp || !ps.arch->ret_strip)
		return;
	mark(t, f, tsc);
	while (f->fp > t->frames + 1 && frame_slot(f->fp - 1) <= below) {
		close_frame(t, f, tsc, f->fp - 1);
		f->fp--;
	}
	unhook_chain(t, f, true);
}

/*
 * A frame record, in words from the frame pointer: the saved return address
 * and the caller's frame pointer.  aarch64's {fp, lr} sits at the frame
 * pointer; host.h says otherwise (riscv64: ra and s0 just below it).
 */
#ifndef PS_FRAME_RA_WORD
#define PS_FRAME_RA_WORD	1
#define PS_FRAME_NEXT_WORD	0
#endif

/*
 * Where returns are hooked through a register (aarch64's x30), a traced
 * function saves the hook in its frame record {fp, lr}; only the frame
 * pointer chain says where.  Walk it outwards: a record at lr belongs to
 * the innermost function whose sp at entry (its shadow frame's slot + 8)
 * lies above lr, so frames deeper than that are passed over; if the
 * record holds the hook (signed or not), it is that frame's.  Unhook puts
 * the real address there (signed like the hook) and marks the frame;
 * rehook reverses that for marked frames still open.  A hooked frame
 * without a record is left as it is.
 */
static void unhook_chain(struct ps_thread *t, struct ps_fast *f, bool rehook)
{
	const uintptr_t hook = (uintptr_t)ps.arch->graph_return;
	struct ps_frame *fr = f->fp;
	uintptr_t *fp = __builtin_frame_address(0);

	while (own_stack(f, (uintptr_t)fp) && fr > t->frames + 1) {
		uintptr_t *lr = fp + PS_FRAME_RA_WORD, slot;

		while (fr > t->frames + 1 && frame_slot(fr - 1) + 8 <= (uintptr_t)lr)
			fr--;
		if (fr == t->frames + 1)
			break;
		slot = frame_slot(fr - 1);
		if (!rehook && !((fr - 1)->key & 1) && ps.arch->ret_strip(*lr) == hook) {
			*lr = *lr == hook ? (fr - 1)->ret : ps.arch->ret_sign((fr - 1)->ret, slot);
			(fr - 1)->key |= 1;
			fr--;
		} else if (rehook && ((fr - 1)->key & 1) && ps.arch->ret_strip(*lr) == (fr - 1)->ret) {
			*lr = *lr == (fr - 1)->ret ? hook : ps.arch->ret_sign(hook, slot);
			(fr - 1)->key &= ~(uintptr_t)1;
			fr--;
		}
		if (fp[PS_FRAME_NEXT_WORD] <= (uintptr_t)fp)
			break;
		fp = (uintptr_t *)fp[PS_FRAME_NEXT_WORD];
	}
}

static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define EXPORT __attribute__((visibility("default")))

EXPORT const void *_Unwind_Find_FDE(void *pc, struct unwind_bases *bases)
{
	uintptr_t hook = ps.arch ? (uintptr_t)ps.arch->graph_return : 0, ret;
	void **ctx_end = (void **)bases;	/* ctx_end[-3] cfa, ctx_end[-2] ra */

	unwinder_syms();
	if (!real_find_fde)
		return NULL;
	if (hook && (uintptr_t)pc + 1 == hook && (uintptr_t)ctx_end[-2] == hook) {
		uintptr_t *slot = (uintptr_t *)((uintptr_t)ctx_end[-3] - sizeof(void *));

		ret = *slot == hook ? hooked_ret((uintptr_t)slot, hook) : 0;
		if (ret) {
			ctx_end[-2] = (void *)ret;
			pc = (void *)(ret - 1);
		}
	}
	return real_find_fde(pc, bases);
}

/*
 * A landing in a frame: the context's CFA there is what the frame's %rsp
 * was at the call it is left from (libgcc keeps the callee's CFA), so
 * every slot below it belongs to a call that was left.
 */
static void close_below(uintptr_t cfa)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uint64_t tsc = ps_clock();

	if (!t || !f->fp || !own_stack(f, cfa - 1))
		return;
	mark(t, f, tsc);
	while (f->fp > t->frames + 1 && frame_slot(f->fp - 1) < cfa) {
		close_frame(t, f, tsc, f->fp - 1);
		f->fp--;
	}
}

EXPORT void _Unwind_SetIP(void *ctx, uintptr_t ip)
{
	unwinder_syms();
	if (real_get_cfa)
		close_below(real_get_cfa(ctx));
	if (real_set_ip)
		real_set_ip(ctx, ip);
}

/*
 * The module has a private copy of the unwinder: it defines its entry as
 * a local symbol (libgcc_eh's are hidden, hence local once linked).  An
 * exported definition is libgcc_s's or an interposer that forwards to it
 * (ASan's).  A stripped file cannot tell.
 */
static bool own_unwinder(const struct ps_module *m)
{
	const Elf64_Sym *syms = m->symtab;
	const char *str = m->strtab;

	if (!syms)
		return false;
	for (size_t i = 0; i < m->nsymtab; i++)
		if (syms[i].st_shndx != SHN_UNDEF && syms[i].st_name < m->strtab_size &&
		    ELF64_ST_TYPE(syms[i].st_info) == STT_FUNC &&
		    (ELF64_ST_BIND(syms[i].st_info) == STB_LOCAL ||
		     ELF64_ST_VISIBILITY(syms[i].st_other) == STV_HIDDEN) &&
		    !strcmp(str + syms[i].st_name, "_Unwind_RaiseException"))
			return true;
	return false;
}

/*
 * function_graph hooks returns only if every unwinder in the process is
 * libgcc_s's, which the wrappers above reach.  A private copy (linked
 * -static-libgcc, or the whole program static but for libc) would abort
 * the program on its first exception through a hooked frame: refused,
 * naming the object.  Sites with exit sites do without return hooks.
 */
int ps_graph_unwinder_check(void)
{
	bool hooks = false;
	const struct ps_module *own = NULL;

	pthread_mutex_lock(&ps.lock);
	for (unsigned i = 0; i < ps.nmods; i++) {
		const struct ps_module *m = ps.mods[i];

		if (m->gone)
			continue;
		if (!own && own_unwinder(m))
			own = m;
		for (size_t j = 0; !hooks && j < m->nsites; j++)
			hooks = m->sites[j].kind == SITE_ENTRY_HOOK;
	}
	pthread_mutex_unlock(&ps.lock);
	if (!own || !hooks)
		return 0;
	ps_log(PATCHSITE_LOG_ERROR, "function_graph: %s has its own copy of the unwinder "
	       "(_Unwind_RaiseException; linked -static-libgcc?): an exception through a hooked "
	       "return would abort it; link it with the shared libgcc_s, or build with exit sites "
	       "(-minstrument-return=nop5 -mrecord-return), or use the function tracer", own->name);
	return -ENOTSUP;
}

/*
 * Close every frame of the thread: it ends without returning through them
 * (dispatch.c).  A frame of a function with exit sites may be left over
 * from function_graph's last turn (the tracer changed between its entry and
 * its exit): it is only dropped unless function_graph is the tracer now,
 * so that the function tracer's rings get no exits.
 */
void ps_graph_thread_end(void)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uint64_t tsc = ps_clock();
	struct patchsite_ops_state *g = __atomic_load_n(&ps_graph_ops.state, __ATOMIC_ACQUIRE);
	bool graph = g && __atomic_load_n(&g->s.registered, __ATOMIC_RELAXED);

	if (!t || !f->fp)
		return;
	mark(t, f, tsc);
	while (f->fp > t->frames + 1) {
		if (graph || !(f->fp[-1].key & 1))
			close_frame(t, f, tsc, f->fp - 1);
		f->fp--;
	}
}

/* Register-hooked arches only (above); elsewhere these only pass through. */
EXPORT void __cxa_throw(void *obj, void *tinfo, void (*dest)(void *))
{
	static void (*real)(void *, void *, void (*)(void *)) __attribute__((noreturn));

	if (!real)
		real = next_sym("__cxa_throw");
	unhook_all();
	real(obj, tinfo, dest);
}

EXPORT void __cxa_rethrow(void)
{
	static void (*real)(void) __attribute__((noreturn));

	if (!real)
		real = next_sym("__cxa_rethrow");
	unhook_all();
	real();
}

EXPORT void *__cxa_begin_catch(void *exc)
{
	static void *(*real)(void *);

	if (!real)
		real = next_sym("__cxa_begin_catch");
	/* Our caller's sp, less a word: aarch64's frame slots lie there. */
	rehook_after_catch((uintptr_t)__builtin_dwarf_cfa() - sizeof(void *));
	return real(exc);
}

/*
 * longjmp: the frames of the calls it leaves are closed before it jumps.
 * The target stack pointer comes from the jmp_buf (ps_longjmp_sp, the
 * arch's host.h: glibc mangles it with its pointer guard).  A target that does
 * not look like a stack address further up is ignored: the exit path
 * would then close the frames later (same result, later time stamps).
 */
static void before_longjmp(const void *env)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uintptr_t sp = ps_longjmp_sp(env), here = (uintptr_t)&sp;
	uint64_t tsc = ps_clock();

	if (!t || !f->fp)
		return;
	if (sp <= here || sp - here > (64u << 20))
		return;
	mark(t, f, tsc);
	while (f->fp > t->frames + 1 && frame_slot(f->fp - 1) < sp) {
		struct ps_frame *top = f->fp - 1;
		uintptr_t *slot = (uintptr_t *)frame_slot(top);

		if (!(top->key & 1) && *slot == (uintptr_t)ps.arch->graph_return)
			*slot = top->ret;
		close_frame(t, f, tsc, top);
		f->fp--;
	}
}

/* Register-hooked arches: the forced unwind reads real addresses; frames close at thread end. */
EXPORT void pthread_exit(void *ret)
{
	static void (*real)(void *) __attribute__((noreturn));

	if (!real)
		real = next_sym("pthread_exit");
	unhook_all();
	real(ret);
}

#define LONGJMP_WRAPPER(name)							\
	EXPORT void name(void *env, int val)					\
	{									\
		static void (*real)(void *, int) __attribute__((noreturn));	\
										\
		if (!real)							\
			real = next_sym(#name);					\
		before_longjmp(env);						\
		real(env, val);							\
	}
LONGJMP_WRAPPER(longjmp)
LONGJMP_WRAPPER(_longjmp)
LONGJMP_WRAPPER(siglongjmp)
LONGJMP_WRAPPER(__longjmp_chk)
