// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_graph: the shadow stack of calls whose return is hooked, exit
 * sites, tracing_thresh (short calls taken back), set_graph_notrace, the
 * latency tracer's longest call, and the returns the fast paths leave to C.
 * The hooks that keep hooked returns right while something unwinds the
 * stack are unwind.c's.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "arch/entry.h"
#include "graph.h"

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
void ps_graph_close_frame(struct ps_thread *t, struct ps_fast *f, uint64_t tsc,
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
	/* The frame's key: loc itself, but where the arch hands us a copy (ps_arch.key_slot). */
	uintptr_t slot = ps.arch->key_slot ? ps.arch->key_slot(loc) : (uintptr_t)loc;
	struct ps_frame *fr;
	unsigned units, flags = 0;
	bool rv, top;

	if (!t || !ps_gate_open(t))
		return;
	if (!own_stack(f, slot)) {
		if (!t->notrace)
			put_func(t, f, tsc, idw, *loc);	/* off our stack: return not hooked */
		return;
	}
	close_stale(t, f, slot, tsc);
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
	fr->key = slot - PS_FRAME_KEY_BIAS;
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
void ps_graph_word_slow(unsigned long *a)
{
	graph_word(NULL, (uint32_t)a[0], &a[2], NULL);
}

void ps_graph_entry_slow(unsigned long *a)
{
	graph_entry(NULL, (uint32_t)a[0], &a[2], NULL);
}

/* From the late trampoline: a[0] id << 2, a[1] the return slot (in the frame record). */
void ps_graph_late_slow(unsigned long *a)
{
	graph_entry(NULL, (uint32_t)a[0], (unsigned long *)a[1], NULL);
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
uintptr_t ps_graph_other_thread_ret(struct ps_thread *me, uintptr_t key)
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
 * How a thread ends when its hooked return is lost: pthread_exit as the
 * program sees it, that is record/unwind.c's wrapper, which undoes the
 * thread's hooked returns first.  Set once at init (api.c wire), so that
 * this file, below unwind.c, does not name it.
 */
void (*ps_graph_thread_exit)(void *ret) __attribute__((noreturn));

/*
 * The thread could not tell where a hooked return goes (see patchsite(7):
 * a program that copies its stacks around).  Nothing can continue that
 * call; the runtime must not abort the program, so the thread alone ends.
 */
/* Reached by a return, not a call: PS_REACHED_BY_RET (host.h) fixes the stack alignment where needed. */
void ps_graph_lost(void)
{
	ps_log(PATCHSITE_LOG_ERROR, "function_graph: a hooked return address was lost "
	       "(stack copied?): ending this thread");
	ps_graph_thread_exit(NULL);
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
		if (to == fr)
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
	struct ps_globs g = { NULL, NULL, false };
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

/* The graph tracer's fast path cannot test the trigger (set_graph_function) either. */
static uintptr_t graph_fast(void)
{
	return ps_record_slow() || ps_graph_trigger.set ? 0 : (uintptr_t)ps.arch->tramp_graph;
}

struct patchsite_ops ps_graph_ops = { .func = graph_call };
struct ps_globs ps_graph_trigger = { .rcu = true };	/* graph_call reads it on each call */
/* Exits of calls still open are recorded while tracing is off. */
const struct ps_ops_props ps_graph_props = { .fast = graph_fast, .exits = true, .always = true };
