// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_graph in a forked child: the calls open at the fork (fork() or
 * daemon() itself, and its callers) return in the child too, and their
 * exits land in the child's own file.  Without their entries a reader
 * could nest nothing the child does inside them (its calls were drawn at
 * depth 0, fork()'s return was lost in the parent's chunk).  uftrace
 * starts a child's trace inside those calls; so does this: each open call,
 * outermost first, as an entry stamped at the fork and marked inherited
 * (PSD_EXT_INHERITED: replay draws no line for it, every reader nests and
 * counts it as a call of the child from the fork on).
 */
#include "graph.h"

/*
 * Does fr's end write an exit word (not set_graph_notrace, function_profile,
 * a return probe)?  A hooked return's and an exit site's alike.
 */
static bool exit_recorded(const struct ps_thread *t, const struct ps_frame *fr)
{
	const struct ps_fslow *x = fr->key & PS_FRAME_SLOW ? &t->fslow[fr - t->frames] : NULL;

	return !x || !(x->flags & (PS_FS_NOTRACE | PS_FS_PROFILE | PS_FS_PROBE));
}

/*
 * api.c's after_fork_child, last, out of the runtime's own work: the
 * first entry takes the room of a new chunk, which starts the child's
 * file (the parent's is stale), so the exits that follow land there.
 * Only into a trace directory: an in-memory ring was copied whole with
 * its entries.
 */
void ps_graph_forked(void)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uint64_t tsc;

	if (!t || !t->frames || f->fp <= t->frames + 1 || !ps_store_on())
		return;
	t = begin_event(&tsc);
	if (!t || !ps_gate_open(t))
		return;
	for (struct ps_frame *fr = t->frames + 1; fr < f->fp; fr++) {
		uint64_t id = (uint32_t)fr->idw >> 2;

		if (!exit_recorded(t, fr))
			continue;
		if (!take(t, f, true))
			return;	/* counted lost: the child's exits show unmatched, as before */
		f->wp[0] = tsc << 32 | (uint32_t)(fr->idw & ~3u) | PS_EV_ENTRY;
		ps_wp_set(f, f->wp + 1);
		ps_ring_ext(PSD_EXT_INHERITED, &id, 1);
	}
}
