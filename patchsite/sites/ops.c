// SPDX-License-Identifier: GPL-2.0-only
/*
 * An ops joins or leaves: its slot and bit (dispatch.c), the list published,
 * then the sites patched to what the ops now want (sync.c ps_loader_sync).
 * Above both, so that the dispatcher never calls the live change back.
 * patchsite_register_function (api.c) starts the runtime and comes here.
 */
#include <errno.h>

#include "sites/site.h"

/*
 * An ops joins: a free slot, its bit in the masks, the list published,
 * then the sites patched (with the objects of arrivals, ps_loader_prepare).
 * Undone whole if any step fails.  ps.lock held; the runtime started.
 */
int ps_ops_register(struct patchsite_ops *ops, const struct ps_arrivals *arrivals)
{
	struct ps_ops_state *st = ps_ops_state(ops);
	int err, k;

	if (!st)
		return -ENOMEM;
	if (st->registered)
		return -EBUSY;
	if (!ps.can_write || !ps.can_sync)
		return ps.can_write ? -ENOSYS : -EACCES;
	for (k = 0; k < PS_MAX_OPS && ps.slots[k]; k++)
		;
	if (k == PS_MAX_OPS)
		return -ENOSPC;
	ps_tramp_select(true);
	ps.slots[k] = ops;
	st->slot = k;
	__atomic_store_n(&st->registered, true, __ATOMIC_RELAXED);	/* exiting threads read it */
	ps_recompute_want();
	err = ps_ops_publish();
	if (!err)
		err = ps_loader_sync(arrivals);
	if (err) {
		ps.slots[k] = NULL;
		st->slot = -1;
		__atomic_store_n(&st->registered, false, __ATOMIC_RELAXED);
		ps_ops_publish();
		ps_recompute_want();
		ps_loader_sync(NULL);
	}
	ps_tramp_select(false);
	return err;
}

/* An ops leaves: once this returns, no thread is inside ops->func.  ps.lock held. */
int ps_ops_unregister(struct patchsite_ops *ops, const struct ps_arrivals *arrivals)
{
	struct ps_ops_state *st = ops->state ? &ops->state->s : NULL;
	int err;

	if (!st || !st->registered)
		return -ENOENT;
	ps_tramp_select(true);
	ps.slots[st->slot] = NULL;
	err = ps_ops_publish();
	if (err) {
		ps.slots[st->slot] = ops;	/* still listed: still registered */
		return err;
	}
	st->slot = -1;
	__atomic_store_n(&st->registered, false, __ATOMIC_RELAXED);
	ps_recompute_want();
	err = ps_loader_sync(arrivals);
	ps_tramp_select(false);
	return err;
}
