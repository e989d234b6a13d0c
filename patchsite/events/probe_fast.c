// SPDX-License-Identifier: GPL-2.0-only
/*
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
 * it (marks, lost events, filters, other probes, return probes).
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
#include "probe_hits.h"

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

/* The recorder alone, unfiltered: what the fast record is. */
static inline bool plain_record(struct ps_event *ev, const struct ps_probe_list *l)
{
	return l->n == 1 && l->e[0].fn == ps_event_record && l->e[0].data == ev &&
	       !atomic_load_explicit(&ev->filter, memory_order_acquire);
}

/* The fields into payload words 1 .. (the reader sign-extends a value by its size). */
static inline void put_values(const struct ps_probe_fast *pf, const unsigned long *r, uint64_t *p)
{
	for (unsigned k = 1; k < pf->words; k++)
		p[k] = 0;
	for (unsigned i = 0; i < pf->n; i++)
		p[pf->word[i]] |= (r[pf->reg[i]] & pf->mask[i]) << pf->pos[i];
}

/* Inside the thread's reader section: 0 done, 1 the generic path. */
static inline int hit(const unsigned long *r)
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
	if (!plain_record(pf->ev, l))
		return 1;
	tsc = __builtin_ia32_rdtsc();	/* x86-64's ps_clock, as tramp.S reads it */
	if ((uint32_t)(tsc >> 32) != f->hi || f->budget < pf->units)
		return 1;	/* a new time stretch to mark, or the ring's room to find */
	f->budget -= pf->units;
	wp = f->wp;
	wp[0] = tsc << 32 | pf->head;
	wp[1] = pf->ev->info.id;
	put_values(pf, r, wp + 1);
	ps_wp_set(f, wp + 1 + pf->words);
	return 0;
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
