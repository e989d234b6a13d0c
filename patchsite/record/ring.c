// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in tracers' per-thread rings of 8-byte words (ring.h has what
 * each event does inline).
 *
 * The common case runs in the arch's fast trampolines, which need only
 * struct ps_fast (TLS): the write pointer, an entry budget and the upper
 * half of the time stamp.  Everything else comes to C (function.c,
 * graph.c): a new thread, a spent budget (the ring or the shadow stack is
 * nearly full, or due to wrap), a new upper half (a mark word with the CPU
 * goes first), a return that does not match the top shadow frame, a call
 * off the thread's own stack.  The budget is how many entries fit, two
 * words each, leaving room for the exits of every open frame, so exits
 * never check.  A full ring drops new entries and counts them (ftrace's
 * producer/consumer mode); nothing grows.
 *
 * Time stamps are the arch's counter (core/clock.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

size_t ps_ring_bytes = 1024 * 1024;
/* max_graph_depth: the budget keeps the fast path within it (graph.c reads it too). */
unsigned ps_graph_max_depth = PS_FRAMES;

/*
 * Returns are hooked only where the return address lies on the thread's
 * own stack: one region, used last in first out, so that a return at a
 * slot ends every call whose slot lies below it.  A coroutine's stack
 * (makecontext/swapcontext), a sigaltstack or a fiber's does not have that
 * order as seen from the thread: calls there are recorded without their
 * return.  Measured by the thread itself at its first event, which may
 * be in a signal handler (core/stack.c says why it mallocs nothing).
 */
static void thread_stack(struct ps_fast *f)
{
	uintptr_t lo, hi;

	ps_stack_bounds((uintptr_t)&f, &lo, &hi);
	f->stack_lo = lo;
	f->stack_size = hi - lo;
}

/* 2 MB pages for a large ring (mem.c): a first touch per 4 KB page cost more than the events. */
static void *map_zero(size_t bytes)
{
	return ps_map_zero(&bytes, false, 0);
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

/*
 * The ring's slow paths (the thread's setup, a chunk switch, a wrap) are
 * not reentrant: a signal handler that interrupts one on the same thread
 * and records would write into what is being changed (attached to
 * attachtrap.c, a handler's event in the middle of a chunk switch ended
 * it with SIGSEGV).  Such an event is lost, and counted.
 */
static bool slow_enter(struct ps_thread *t)
{
	if (t->ring_busy)
		return false;
	t->ring_busy = true;
	atomic_signal_fence(memory_order_seq_cst);
	return true;
}

static void slow_leave(struct ps_thread *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->ring_busy = false;
}

/* The next chunk of the thread's file (ring.h mark): false when there is none, or now. */
bool ps_ring_next_chunk(struct ps_thread *t, struct ps_fast *f)
{
	bool ok;

	if (!slow_enter(t))
		return false;
	ok = !ps_store_next(t, f);
	slow_leave(t);
	return ok;
}

static struct ps_thread *thread_setup_slow(struct ps_thread *t, struct ps_fast *f)
{
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

/*
 * The calling thread's ring and shadow stack (the first event of a thread; ring.h
 * thread_setup).  The runtime's own work (ps_own): its allocations may call a malloc the
 * program defines, whose event must neither be recorded nor set the thread up again.
 */
struct ps_thread *ps_ring_thread_setup(void)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t, *ready = NULL;

	if (t && t->base)
		return t;
	if (ps_own)
		return NULL;
	ps_own_enter();
	t = ps_thread_self();
	if (t && slow_enter(t)) {
		ready = thread_setup_slow(t, f);
		slow_leave(t);
	}
	ps_own_leave();
	return ready;
}

/*
 * An event its recorder could not make (a probe's fetch faulted), counted
 * in the thread's file: made now if the thread has none yet, so that a
 * thread whose every event was lost still says so (replay, info).
 */
void ps_record_lost(void)
{
	struct ps_thread *t = ps_ring_thread_setup();

	if (!t)
		t = ps_thread_self();	/* no ring: counted in memory only */
	if (t)
		lose(t);
}

static int32_t budget(struct ps_thread *t, struct ps_fast *f, bool frames);

/* Entries that fit now (two words each, the open frames' exits kept); may wrap the ring. */
int32_t ps_ring_budget(struct ps_thread *t, struct ps_fast *f, bool frames)
{
	int32_t b;

	if (!slow_enter(t))
		return 0;
	b = budget(t, f, frames);
	slow_leave(t);
	return b;
}

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

/*
 * The run of probe records (event records written inside the dispatcher,
 * so the hits of its current call) that ends last, contiguous in one ring
 * or chunk: a call that tracing_thresh takes back takes the records just
 * before its entry with it when they are this run (graph.c call_start).
 * Any other record breaks the run.
 */
static void ev_run(struct ps_thread *t, uint64_t *at, unsigned kind, unsigned words)
{
	if (!t->depth || (kind != PSD_EXT_EVENT && kind != PSD_EXT_EVENT_PACKED)) {
		t->ev_lo = NULL;
		return;
	}
	if (!t->ev_lo || t->ev_hi != at || t->ev_gen != ps_ring_gen(t)) {
		t->ev_lo = at;
		t->ev_gen = ps_ring_gen(t);
	}
	t->ev_hi = at + 1 + words;
}

/*
 * An extended record (data/format.h) in the calling thread's ring, stamped now:
 * its payload's first word, to be filled and closed (ps_ring_ext_close),
 * or NULL when lost (counted) or there is no ring.  The room is taken as
 * entries (two words each), so the fast path's budget stays right: in one
 * step when the budget has it, the common case.  The header goes first:
 * a record cut short by a crash keeps its count, and its missing words
 * read as zero.
 */
uint64_t *ps_ring_ext_open(unsigned kind, unsigned words)
{
	struct ps_fast *f = &ps_fast;
	unsigned units = (words + 2) / 2;
	uint64_t tsc;
	struct ps_thread *t;

	if (!kind || kind > 0xff || words > PSD_EXT_MAX_WORDS)
		return NULL;
	t = begin_event(&tsc);
	if (!t)
		return NULL;
	if (f->budget >= (int32_t)units)
		f->budget -= (int32_t)units;
	else
		for (; units; units--)
			if (!take(t, f, false))
				return NULL;
	ev_run(t, f->wp, kind, words);
	f->wp[0] = tsc << 32 | (uint64_t)words << 10 | kind << 2 | PS_EV_MARK;
	return f->wp + 1;
}

/* ps_ring_ext_open, the payload copied, closed: true when written. */
bool ps_ring_ext(unsigned kind, const uint64_t *payload, unsigned words)
{
	uint64_t *p = ps_ring_ext_open(kind, words);

	if (!p)
		return false;
	if (words)
		memcpy(p, payload, (size_t)words * 8);
	ps_ring_ext_close(p + words);
	return true;
}
