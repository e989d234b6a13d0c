// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_graph: the shadow stack of calls whose return is hooked, exit
 * sites, tracing_thresh (short calls taken back), set_graph_notrace, the
 * latency tracer's longest call, and the returns the fast paths leave to C.
 * The calls it records are chosen in graph_filter.h (inline: asked on each
 * call); a hooked return no frame of this thread holds is graph_lost.c's;
 * the dispatcher's call and the choice of path are graph_ops.c's.  The
 * hooks that keep hooked returns right while something unwinds the stack
 * are unwind.c's; the settings (set_graph_notrace, tracing_thresh, the
 * latency and profile modes) are set in graph_settings.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "arch/entry.h"
#include "graph.h"
#include "graph_filter.h"
#include "profile.h"

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
		ps_graph_close_frame(t, f, tsc, top);
		bury(t, top);
		f->fp--;
	}
}

/* begin_event's thread and time, without its mark when nothing will be recorded. */
static struct ps_thread *graph_begin(uint64_t *tsc, bool profile)
{
	struct ps_thread *t;

	if (!profile)
		return begin_event(tsc);
	t = thread_setup();
	*tsc = ps_clock();
	return t;
}

/*
 * Where a call recorded at entry begins: its probe records written just
 * before the entry by the same dispatch (ring.c ev_run), so that
 * tracing_thresh takes back a short call's `-A` arguments with it.
 */
static uint64_t *call_start(const struct ps_thread *t, uint64_t *entry)
{
	if (t->ev_lo && t->ev_hi == entry && t->ev_gen == ps_ring_gen(t) && t->ev_lo >= t->base &&
	    t->ev_lo < entry)
		return t->ev_lo;
	return entry;
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

	if (atomic_load_explicit(&ps_graph_thresh_tsc, memory_order_relaxed))
		flags |= PS_FS_THRESH;
	if (!flags)
		return;
	if (entry) {
		uint64_t *from = call_start(t, entry);

		units += (unsigned)(entry - from) / 2;	/* (no more than the records took: budget) */
		entry = from;
	}
	*x = (struct ps_fslow){ .wp = entry, .end = f->wp, .base = t->base, .gen = ps_ring_gen(t),
				.tsc = tsc, .units = units, .flags = flags };
	fr->key |= PS_FRAME_SLOW;
	if (flags & PS_FS_NOTRACE)
		t->notrace++;
}

/*
 * A function_profile frame: frame_note's work cut to what its end reads
 * (the other fields of its slow info are read only under other flags).
 */
static inline void profile_note(struct ps_thread *t, struct ps_frame *fr, uint64_t tsc,
				uint32_t idw)
{
	struct ps_fslow *x = &t->fslow[fr - t->frames];

	x->tsc = tsc;
	x->flags = PS_FS_PROFILE;
	x->child_ns = 0;
	fr->key |= PS_FRAME_SLOW;
	ps_profile_enter(t, x, idw >> 2);
}

/* A frame closed by anything but its own return (longjmp, exception, thread end). */
void ps_graph_close_frame(struct ps_thread *t, struct ps_fast *f, uint64_t tsc,
			  const struct ps_frame *fr)
{
	struct ps_fslow *x = frame_slow(t, fr);

	if (x && (x->flags & PS_FS_PROBE))
		return;		/* a return probe's: no value returned, none shown */
	if (x && (x->flags & PS_FS_NOTRACE)) {
		t->notrace--;
		return;
	}
	if (x && (x->flags & PS_FS_PROFILE)) {
		ps_profile_exit(t, fr, x, tsc);
		return;
	}
	put_exit(t, f, tsc, fr->idw);
}

/* Can the words from x->wp on be taken back (same ring or chunk, no reader past them)? */
static bool can_rewind(struct ps_thread *t, const struct ps_fslow *x)
{
	uint64_t at;

	if (!x->wp || x->base != t->base || x->gen != ps_ring_gen(t))
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
	uint64_t max = atomic_load(&ps_graph_max_latency_tsc);

	while (d > max)
		if (atomic_compare_exchange_weak(&ps_graph_max_latency_tsc, &max, d)) {
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
	uint64_t th = atomic_load_explicit(&ps_graph_thresh_tsc, memory_order_relaxed);

	if (x && (x->flags & PS_FS_NOTRACE)) {
		t->notrace--;
		return;
	}
	if (x && (x->flags & PS_FS_PROFILE)) {
		ps_profile_exit(t, fr, x, tsc);
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
	if (x && (x->flags & PS_FS_READ))	/* before the exit: shown inside the call */
		ps_read_put((uint32_t)fr->idw >> 2, (x->flags & PS_FS_READ) >> PS_FS_READ_SHIFT, true);
	put_exit(t, f, tsc, fr->idw);
	if (x && (x->flags & PS_FS_RETVAL)) {
		uint64_t r[2] = { (uint32_t)fr->idw >> 2, retval };

		ps_ring_ext(PSD_EXT_RETVAL, r, 2);
	}
}

void ps_graph_entry(struct ps_site *site, uint32_t idw, unsigned long *loc,
			struct patchsite_regs *regs)
{
	struct ps_fast *f = &ps_fast;
	uint64_t tsc, *entry;
	bool profile = ps_graph_profiling();
	struct ps_thread *t = graph_begin(&tsc, profile);
	uintptr_t slot = frame_key_slot(loc);
	struct ps_frame *fr;
	unsigned units, flags = 0;
	unsigned rv;
	bool top;

	if (profile)
		f->budget = 0;	/* the fast paths keep calling here (graph_ops.c graph_fast) */
	if (t && !profile && own_stack(f, slot) && root_while_off(t, f, &site, idw)) {
		fr = f->fp++;
		*fr = (struct ps_frame){ .ret = *loc, .key = slot - PS_FRAME_KEY_BIAS,
					 .idw = (idw & ~3u) | PS_EV_EXIT };
		*loc = (uintptr_t)ps.arch->graph_return;
		return;
	}
	if (!t || !ps_gate_open(t))
		return;
	if (!own_stack(f, slot)) {
		if (!t->notrace && !profile)
			put_func(t, f, tsc, idw, *loc);	/* off our stack: return not hooked */
		return;
	}
	close_stale(t, f, slot, tsc);
	if (t->notrace)
		return;
	top = f->fp == t->frames + 1;
	if (outside_graph_function(t, f, &site, idw))
		return;
	if ((unsigned)(f->fp - (t->frames + 1)) >= ps_graph_max_depth) {
		f->budget = 0;
		return;		/* deeper than asked: not traced, by design */
	}
	if (!profile && !take(t, f, true))
		return;
	fr = f->fp;
	fr->ret = *loc;
	fr->key = slot - PS_FRAME_KEY_BIAS;
	fr->idw = (idw & ~3u) | PS_EV_EXIT;
	if (notrace_call(t, &site, idw)) {
		f->fp++;
		frame_note(t, f, fr, NULL, tsc, 1, PS_FS_NOTRACE);
		*loc = (uintptr_t)ps.arch->graph_return;
		return;
	}
	if (profile) {
		f->fp++;
		profile_note(t, fr, tsc, idw);
		*loc = (uintptr_t)ps.arch->graph_return;
		return;
	}
	entry = f->wp;
	f->wp[0] = tsc << 32 | (idw & ~3u) | PS_EV_ENTRY;
	ps_wp_set(f, f->wp + 1);
	units = 1 + put_args(site, idw, regs, &rv);
	f->fp++;
	flags = rv | (top && atomic_load_explicit(&ps_graph_latency_on, memory_order_relaxed) ? PS_FS_LATENCY : 0);
	frame_note(t, f, fr, entry, tsc, units, flags);
	*loc = (uintptr_t)ps.arch->graph_return;
}

/*
 * -finstrument-functions (sites/cyg.c): gcc may tail-call
 * __cyg_profile_func_exit after the epilogue, at another %rsp than the
 * enter's, so the keys differ; the compiler's calls nest exactly, and the
 * call on top is the one ending when it is this exit's function (whose
 * entry site is the one just before its exit site).
 */
static bool cyg_exit_of(const struct ps_frame *fr, const struct ps_site *site, uint32_t idw)
{
	return site && site->state == SITE_INTERPOSED && (idw & 3) == PS_EV_EXIT &&
	       (fr->idw >> 2) + 1 == (idw >> 2);
}

/*
 * Does exit word idw end the call on top?  An exit site's by the key (its
 * stack slot).  A -finstrument-functions exit by its function alone
 * (cyg_exit_of): the slot can be another call's, as when gcc -O2's callee
 * tail-jumps to __cyg_profile_func_exit after its epilogue, its hook's frame
 * then where its caller's enter hook's was (foo's, for foo's call of
 * mem_alloc): a key match there ended foo at mem_alloc's exit.
 */
static bool exit_of_top(const struct ps_thread *t, const struct ps_fast *f, struct ps_site **site,
			uint32_t idw, uintptr_t key)
{
	if (!t || f->fp <= t->frames + 1 || (idw & 3) != PS_EV_EXIT)
		return false;
	if (!*site)
		*site = ps_site_by_id(idw >> 2);
	if (*site && (*site)->state == SITE_INTERPOSED)
		return cyg_exit_of(&f->fp[-1], *site, idw);
	return PS_FRAME_KEY(&f->fp[-1]) == key;
}

/*
 * An entry of a function with exit sites, or an exit site: one word, no
 * return hook.  The entry pushes a frame that hooks nothing (key bit 0
 * set), the exit pops it when it is on top: what is left on the shadow
 * stack is a call an exception left, closed where it lands.
 */
void ps_graph_word(struct ps_site *site, uint32_t idw, unsigned long *loc,
		       struct patchsite_regs *regs)
{
	struct ps_fast *f = &ps_fast;
	uint64_t tsc, *entry;
	bool profile = ps_graph_profiling();
	struct ps_thread *t = graph_begin(&tsc, profile);
	uintptr_t key = ((uintptr_t)loc - PS_FRAME_KEY_BIAS) | 1;
	bool top = exit_of_top(t, f, &site, idw, key);
	unsigned rv;
	bool first = t && f->fp == t->frames + 1;
	unsigned units;

	if (profile)
		f->budget = 0;	/* the fast paths keep calling here (graph_ops.c graph_fast) */
	if (!t)
		return;
	/* The exit of the call on top: its room was kept when it was entered. */
	if (top) {
		f->fp--;
		frame_exit(t, f, f->fp, tsc, regs && ps.arch->regs_retval ?
			   ps.arch->regs_retval(regs) : 0);
		return;
	}
	if ((idw & 3) != PS_EV_EXIT && !profile && own_stack(f, (uintptr_t)loc) &&
	    root_while_off(t, f, &site, idw)) {
		*f->fp++ = (struct ps_frame){ .ret = 0, .key = key, .idw = idw | PS_EV_EXIT };
		return;
	}
	/* Gate closed, or outside -G/-D: nothing new. */
	if (!ps_gate_open(t) || word_outside(t, f, &site, idw))
		return;
	/*
	 * A call not recorded (set_graph_notrace, inside one, deeper than asked) still
	 * gets its frame, so that the exit of a recursive call pops its own (cyg_exit_of).
	 */
	if ((idw & 3) != PS_EV_EXIT && own_stack(f, (uintptr_t)loc) && f->fp < t->frames_end &&
	    (t->notrace || too_deep(t, f) || notrace_call(t, &site, idw))) {
		*f->fp = (struct ps_frame){ .ret = 0, .key = key, .idw = idw | PS_EV_EXIT };
		frame_note(t, f, f->fp, NULL, tsc, 0, PS_FS_NOTRACE);
		f->fp++;
		return;
	}
	if (t->notrace || too_deep(t, f))
		return;		/* not recorded, and no frame to say so */
	if (profile) {
		/* Only an entry on our stack is counted: an exit not on top has no frame. */
		if ((idw & 3) == PS_EV_EXIT || !own_stack(f, (uintptr_t)loc) ||
		    f->fp >= t->frames_end)
			return;
		*f->fp = (struct ps_frame){ .ret = 0, .key = key, .idw = idw | PS_EV_EXIT };
		profile_note(t, f->fp, tsc, idw);
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
	frame_note(t, f, f->fp, entry, tsc, units, rv |
		   (first && atomic_load_explicit(&ps_graph_latency_on, memory_order_relaxed) ?
		    PS_FS_LATENCY : 0));
	f->fp++;
}

/* From the fast trampolines: a[0] id << 2, a[1] return into the function, a[2] into its caller. */
void ps_graph_word_slow(unsigned long *a)
{
	ps_graph_word(NULL, (uint32_t)a[0], &a[2], NULL);
}

void ps_graph_entry_slow(unsigned long *a)
{
	ps_graph_entry(NULL, (uint32_t)a[0], &a[2], NULL);
}

/* From the late trampoline: a[0] id << 2, a[1] the return slot (in the frame record). */
void ps_graph_late_slow(unsigned long *a)
{
	ps_graph_entry(NULL, (uint32_t)a[0], (unsigned long *)a[1], NULL);
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
 * Where the call of frame fr returns to: its saved address, or, where
 * function_graph hooked the same return first (that address is the hook),
 * the one the graph's frame below it saved.
 */
static uintptr_t real_ret(const struct ps_thread *t, const struct ps_frame *fr)
{
	uintptr_t ret = fr->ret;

	while (ret == (uintptr_t)ps.arch->graph_return && fr > t->frames + 1)
		ret = (--fr)->ret;
	return ret;
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
		*slot = ps_graph_other_thread_ret(NULL, key);
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
				ps_graph_close_frame(t, f, tsc, p);
				bury(t, p);
			} else {
				t->fslow[to - t->frames] = t->fslow[p - t->frames];
				*to++ = *p;
			}
		}
		if (to == fr && (fr->key & PS_FRAME_SLOW) &&
		    (t->fslow[fr - t->frames].flags & PS_FS_PROBE))
			ps_retprobe_exit(t, &t->fslow[fr - t->frames], slot, real_ret(t, fr));
		else if (to == fr)
			frame_exit(t, f, fr, tsc, ps.arch->exit_retval ? ps.arch->exit_retval(slot) : 0);
		else
			ps_graph_close_frame(t, f, tsc, fr);
		f->fp = to;
		*slot = ret;
		return;
	}
	ret = dug_up(t, key);
	if (!ret)
		ret = ps_graph_other_thread_ret(t, key);
	*slot = ret ? ret : (uintptr_t)ps_graph_lost;
}

/* set_graph_function (graph_filter.h); the dispatcher (graph_ops.c graph_call) reads it on each call. */
struct ps_globs ps_graph_trigger = { .rcu = true };
