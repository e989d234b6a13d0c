// SPDX-License-Identifier: GPL-2.0-only
/*
 * dynamic_events: the kernel's control file for fprobe events, on the
 * program's functions (events/probe.h has the syntax).  Writing replaces
 * every probe (append, `>>`, adds); "-:GRP/EVENT" removes one.  A probe
 * is then an event like the static ones: events/GRP/EVENT/enable turns it
 * on (PATCHSITE_PROBES defines and enables at once).
 */
#include <errno.h>

#include "ctl/control.h"
#include "events/probe.h"
#include "internal.h"

static int dyn_read(const char *sub, struct ps_buf *out)
{
	int err = patchsite_init();

	(void)sub;
	if (err)
		return err;
	ps_probes_list(out);
	return 0;
}

static int dyn_write(const char *sub, const char *value, bool append)
{
	int err = patchsite_init();

	(void)sub;
	return err ? err : ps_probes_write(value, append, false);
}

const struct ps_ctl_file ps_ctl_probes[] = {
	{ "dynamic_events", "probes on functions with their arguments: f[:GRP/EVENT] FUNC "
	  "[NAME=FETCHARG[:TYPE]...], -:GRP/EVENT (ftrace's dynamic_events, fprobe syntax)",
	  dyn_read, dyn_write, NULL },
	{ 0 }
};
