// SPDX-License-Identifier: GPL-2.0-only
/*
 * Work a control file's write handler leaves until its caller has the
 * answer (control.h): one slot, set by the handler (tracer_files.c: the
 * first tracer's mod.N files), run by the channel once the client's reply
 * is sent, or by patchsite_ctl_write before it returns.  Its own file: the
 * handlers are below control.c, which finds them.
 */
#include <stdatomic.h>
#include <stddef.h>

#include "ctl/control.h"

static void (*_Atomic after_reply)(void);

void ps_ctl_after_reply(void (*fn)(void))
{
	atomic_store(&after_reply, fn);
}

void ps_ctl_run_after_reply(void)
{
	void (*fn)(void) = atomic_exchange(&after_reply, NULL);

	if (fn)
		fn();
}
