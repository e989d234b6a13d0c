// SPDX-License-Identifier: GPL-2.0-only
/*
 * arch/x86_64/probe_tramp.S now records the common entry probe itself
 * (the checks and packing below, in assembly, about 130 instructions) and
 * calls ps_probe_fast_ret for a return probe's entry; it comes to this C
 * path (through ps_x86_64_probe_entry) only for what it does not take: the
 * thread's first call, a new time stretch, no room, a recursion.
 *
 * The common dynamic probe on x86-64, with probes alone (no tracer):
 * arch/x86_64/tramp.S's ps_x86_64_probe_entry saves the nine call-clobbered
 * general registers and calls ps_probe_fast_hit, which writes the event's
 * record (PSD_EXT_EVENT: the id, then each value at its size where
 * event.c's layout puts it, as event_record.c's packer would) straight
 * into the thread's ring, as the function tracer's fast path writes its
 * word: one reservation, no copy, no generic dispatcher, no full register
 * save.  The generic path (probe.c fire, through ps_dispatch) took about
 * 510 instructions a hit; this one about 185 with the trampoline, of
 * which the values' packing and the checks are most.
 *
 * It takes a hit only when the site has exactly one probe, whose values
 * are all integer registers (probe_hits.h ps_probe_fast), whose event has
 * the recorder as its only probe and no filter, while the ring has room
 * in this time stretch.  Anything else answers 1 before anything is
 * written, and the trampoline goes on to the generic path, which handles
 * it (marks, lost events, filters, other probes).
 *
 * A return probe's entry (fast.ret) keeps its values in the shadow frame
 * that hooks the return (ret_entry), marked for arch/x86_64/retprobe_tramp.S, which
 * records them with $retval from the return trampoline.
 *
 * As in the dispatcher, the thread is a reader in the grace-period sense
 * (its seq odd) while it reads the table and the event's probe list, and
 * its recursion guard is held (a signal handler's probed call takes the
 * generic path, which counts it missed).  general-regs-only keeps it off
 * the vector registers (the traced function's arguments), and it calls
 * nothing (everything inlined).  The TSan build keeps the generic path.
 */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
/* Before the headers: their inline functions are inlined only under the same target. */
#pragma GCC target("general-regs-only")
#include "arch/entry.h"
#include "data/format.h"
#include "event.h"
#include "record/record.h"
#include "probe_fast.h"

#define FAST __attribute__((flatten, no_instrument_function, no_stack_protector))

/* The site's entry, or NULL. */
static inline const struct ps_probe_hit *find(const struct ps_probe_hits *tb, uint32_t id)
{
	size_t lo = 0, hi = tb ? tb->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tb->e[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return tb && lo < tb->n && tb->e[lo].id == id ? &tb->e[lo] : NULL;
}

/*
 * A return probe's entry (pf->ret): record/retprobe.c's hook, inlined,
 * its entry values taken from the saved registers, the frame marked for
 * the return trampoline's fast record (arch/x86_64/retprobe_tramp.S).  The return slot
 * is the word above the return into the function (r[10]).  A slot off the
 * thread's own stack, or no frame left: the generic path, which counts it.
 * Nothing else pushes frames meanwhile: the recursion guard sends a signal
 * handler's probed call to the generic path, and no tracer runs.
 */
static inline int ret_entry(const struct ps_probe_hit *h, unsigned long *r)
{
	const struct ps_probe_fast *pf = &h->fast;
	unsigned long *loc = r + PS_PROBE_FAST_REGS + 2;
	struct ps_fast *f = &ps_fast;
	struct ps_frame *fr = f->fp;
	struct ps_thread *t = f->t;
	struct ps_fslow *x;

	if (!t || (uintptr_t)loc - f->stack_lo >= f->stack_size || fr >= f->fp_end)
		return 1;
	x = &t->fslow[fr - t->frames];
	x->flags = PS_FS_PROBE | PS_FS_PROBE_FAST;
	x->prof = h->p;
	x->rfast = pf->own;
	for (unsigned k = 0; k < pf->nent; k++)
		x->edata[k] = r[pf->ereg[k]];
	fr->ret = *loc;
	fr->key = ((uintptr_t)loc - PS_FRAME_KEY_BIAS) | PS_FRAME_SLOW;
	fr->idw = 0;
	f->fp = fr + 1;
	*loc = (uintptr_t)ps.arch->graph_return;
	return 0;
}

/* Inside the thread's reader section: 0 done, 1 the generic path. */
static inline int hit(unsigned long *r)
{
	const struct ps_probe_hit *h;
	const struct ps_probe_fast *pf;
	const struct ps_probe_list *l;
	struct ps_fast *f = &ps_fast;
	uint64_t tsc, *wp;

	if (!atomic_load_explicit(&ps.tracing_on, memory_order_relaxed))
		return 0;	/* as the dispatcher: the probe's ops is not called */
	h = find(atomic_load_explicit(&ps_probe_hits, memory_order_acquire),
		 (uint32_t)r[PS_PROBE_FAST_REGS] >> 2);
	if (!h || (pf = &h->fast)->n == PS_PROBE_FAST_NO)
		return 1;
	l = atomic_load_explicit(&pf->ev->probes, memory_order_acquire);
	if (!l || pf->ev->gone)
		return 0;	/* disabled: nothing fetched (probe.c fire) */
	if (!ps_probe_plain_record(pf->ev, l))
		return 1;
	if (pf->ret)
		return ret_entry(h, r);
	tsc = __builtin_ia32_rdtsc();	/* x86-64's ps_clock, as tramp.S reads it */
	if ((uint32_t)(tsc >> 32) != f->hi || f->budget < pf->units)
		return 1;	/* a new time stretch to mark, or the ring's room to find */
	f->budget -= pf->units;
	wp = f->wp;
	wp[0] = tsc << 32 | pf->head;
	wp[1] = pf->ev->info.id;
	for (unsigned i = 0; i < pf->n; i++)
		ps_probe_put(pf, i, r[pf->reg[i]], wp + 1);
	ps_wp_set(f, wp + 1 + pf->words);
	return 0;
}

/*
 * arch/x86_64/probe_tramp.S found h and checked what hit() checks before
 * ret_entry, inside the thread's reader section with its guard held.
 */
FAST int ps_probe_fast_ret(const struct ps_probe_hit *h, unsigned long *r)
{
	return ret_entry(h, r);
}

FAST int ps_probe_fast_hit(unsigned long *r)
{
	struct ps_thread *t = ps_self;
	unsigned long seq;
	int rc;

	if (!t || t->depth)
		return 1;	/* a new thread, or a recursion the dispatcher counts */
	t->depth = 1;
	seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
	atomic_store_explicit(&t->seq, seq + 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	rc = hit(r);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->seq, seq + 2, memory_order_release);
	t->depth = 0;
	return rc;
}
#endif
