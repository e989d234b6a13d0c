// SPDX-License-Identifier: GPL-2.0-only
/*
 * mod.N after the tracer (issue #26): a directory opened by the control
 * channel's first tracer (ctl/tracer_files.c, `record -p`) gets its
 * objects' mod.N files once the tracer is on, not before.  Formatting
 * them (200,000 lines for 100,000 functions) was most of the channel's
 * CPU before the first event.  Readers already cope: the modules log,
 * written after each mod.N, appears last; a follower (pipe, record
 * --live) reads a process's threads only once that log is there or the
 * process is gone, and a directory left without it (a crash in that
 * window) shows events by site number.
 *
 * This file keeps the list; store.c writes.  Everything here is under
 * ps.lock, as the watchers are (sites/sync.c).
 */
#include <stdbool.h>

#include "store.h"

static struct ps_module *later[PS_MAX_MODULES];
static unsigned nlater;

/* ps.lock held: every loaded object's mod.N waits for ps_store_mods_write. */
void ps_store_mods_defer(void)
{
	nlater = 0;
	for (unsigned i = 0; i < ps.nmods && nlater < PS_MAX_MODULES; i++)
		if (!ps.mods[i]->gone)
			later[nlater++] = ps.mods[i];
}

/* ps.lock held: whether m's mod.N was waiting; it is no longer (the caller writes it). */
bool ps_store_mods_take(struct ps_module *m)
{
	for (unsigned i = 0; i < nlater; i++)
		if (later[i] == m) {
			later[i] = later[--nlater];
			return true;
		}
	return false;
}

/* ps.lock held: none waits any more (a forked child's, or all written). */
void ps_store_mods_none(void)
{
	nlater = 0;
}
