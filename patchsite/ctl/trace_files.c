// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control files of the trace's own contents and its text (control.h):
 * trace_marker (marker.c), snapshot (snapshot.c), trace_options (options.c).
 */
#include "ctl/control.h"
#include "internal.h"

const struct ps_ctl_file ps_ctl_trace[] = {
	{ "trace_marker", "write a line into the trace, in the writing thread's order "
	  "(ftrace: trace_marker)", NULL, ps_marker_write, NULL },
	{ "snapshot", "1: copy what every thread recorded so far into the trace directory "
	  "as snapshot.N; reading says how many and where (ftrace: snapshot)",
	  ps_snapshot_read, ps_snapshot_write, NULL },
	{ "trace_options", "rendering options kept for replay and pipe, and the recording "
	  "mode (ftrace: trace_options; overwrite is set at start only)",
	  ps_options_read, ps_options_write, NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};
