// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tables of control files (control.h), one line per part of the
 * runtime that owns some.  Kept apart so that adding a table touches
 * nothing else.
 */
#include "ctl/control.h"
#include "record/profile.h"
#include "record/record.h"

const struct ps_ctl_file *const ps_ctl_groups[] = {
	ps_ctl_core,
	ps_ctl_record,
	ps_ctl_trace,
	ps_ctl_events,
	ps_ctl_branches,
	ps_ctl_profile,
	ps_ctl_probes,
	NULL
};
