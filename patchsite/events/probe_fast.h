/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What x86-64's two fast records of a probe share (probe_fast.c at an
 * entry, arch/x86_64/retprobe_tramp.S at a hooked return): when the record may be made
 * there, and the packing of its values.  Included only after
 * general-regs-only is set (their callers' values are the traced
 * function's registers; the vector ones are not saved).
 */
#ifndef PS_PROBE_FAST_H
#define PS_PROBE_FAST_H

#include "event.h"
#include "probe_hits.h"

/* The recorder alone, unfiltered: what the fast record is. */
static inline bool ps_probe_plain_record(struct ps_event *ev, const struct ps_probe_list *l)
{
	return l->n == 1 && l->e[0].fn == ps_event_record && l->e[0].data == ev &&
	       !atomic_load_explicit(&ev->filter, memory_order_acquire);
}

/*
 * Field i's value into its payload word (the reader sign-extends it by its
 * size).  The fields come in the order of their words and every word from
 * 1 has one (probe.c fast_of): the first of a word stores it whole, the
 * others add to it, so no word is cleared first (a loop clearing them
 * became a call to memset, which may use the vector registers).  Word 0
 * holds the id, stored first: a field there (an entry probe's packed
 * record, probe.c fast_packed) adds to it.
 */
static inline void ps_probe_put(const struct ps_probe_fast *pf, unsigned i, uint64_t v,
				uint64_t *p)
{
	uint64_t x = (v & pf->mask[i]) << pf->pos[i];

	if ((i ? pf->word[i - 1] : 0) == pf->word[i])
		x |= p[pf->word[i]];
	p[pf->word[i]] = x;
}

#endif
