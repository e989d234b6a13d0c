// SPDX-License-Identifier: GPL-2.0-only
/*
 * The common return probe's return on x86-64: a frame that probe_fast.c
 * hooked (PS_FS_PROBE_FAST: its entry values integer registers, its fields
 * those and an integer $retval) returns to tramp.S's
 * ps_x86_64_graph_return, which checks it is the top frame, that the time
 * stamp is in this stretch, and calls this with only the call-clobbered
 * general registers saved: the record is written straight into the ring
 * with the probe's precomputed layout (probe_hits.h), as probe_fast.c
 * writes an entry probe's, and the frame popped, the real return address
 * put back in the slot.  It answers 1 before anything is written for
 * anything else (tracing off, the event disabled or filtered or with
 * another probe, no room, a recursion), and the trampoline goes on to
 * graph.c's C path, which handles any frame (record/retprobe.c).
 *
 * As in probe_fast.c: a reader's section while it reads the event's probe
 * list, the recursion guard held, general-regs-only (xmm0/xmm1 and st0
 * may hold the function's return value), nothing called.
 */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#pragma GCC target("general-regs-only")
#include "arch/entry.h"
#include "data/format.h"
#include "event.h"
#include "record/record.h"
#include "probe_fast.h"

_Static_assert(PS_FS_PROBE == 32 && PS_FS_PROBE_FAST == 64, "tramp.S's constants");
_Static_assert(PS_FS_EDATA == PS_PROBE_RET_ENTRY, "a frame keeps every entry value");

#define FAST __attribute__((flatten, no_instrument_function, no_stack_protector))

/* 0: recorded; 1: the C path. */
static inline int record(const struct ps_fslow *x, uint64_t rax, uint32_t tsc_lo)
{
	const struct ps_probe_fast *pf = x->rfast;
	const struct ps_probe_list *l;
	struct ps_fast *f = &ps_fast;
	uint64_t *wp;

	if (!atomic_load_explicit(&ps.tracing_on, memory_order_relaxed))
		return 1;
	l = atomic_load_explicit(&pf->ev->probes, memory_order_acquire);
	if (!l || pf->ev->gone || !ps_probe_plain_record(pf->ev, l) || f->budget < pf->units)
		return 1;
	f->budget -= pf->units;
	wp = f->wp;
	wp[0] = (uint64_t)tsc_lo << 32 | pf->head;
	wp[1] = pf->ev->info.id;
	for (unsigned i = 0; i < pf->n; i++)
		ps_probe_put(pf, i, pf->reg[i] == PS_PROBE_FAST_RETVAL ? rax : x->edata[pf->reg[i]],
			     wp + 1);
	ps_wp_set(f, wp + 1 + pf->words);
	return 0;
}

FAST int ps_retprobe_fast_exit(const struct ps_fslow *x, uint64_t rax, uint32_t tsc_lo,
			       unsigned long *slot)
{
	struct ps_thread *t = ps_self;
	struct ps_fast *f = &ps_fast;
	unsigned long seq;
	int rc;

	if (!t || t->depth)
		return 1;
	t->depth = 1;
	seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
	atomic_store_explicit(&t->seq, seq + 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	rc = record(x, rax, tsc_lo);
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&t->seq, seq + 2, memory_order_release);
	t->depth = 0;
	if (!rc) {	/* the slot before the frame goes: a signal's frames go above it */
		*slot = f->fp[-1].ret;
		atomic_signal_fence(memory_order_seq_cst);
		f->fp--;
	}
	return rc;
}
#endif
