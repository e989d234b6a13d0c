/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A control file's row (ctl/control.h has the rest): the type sits below
 * record/ so that a folder owning settings (record/profile.c,
 * record/branch_counts.c) declares its table without including ctl/, a
 * layer above it.
 */
#ifndef PS_CTL_FILE_H
#define PS_CTL_FILE_H

#include <stdbool.h>

#include "core/textbuf.h"

struct ps_ctl_file {
	/*
	 * The file's path as in tracefs ("current_tracer"), or a directory
	 * ending in '/' ("events/") whose handlers get the rest of the path
	 * in sub ("netsim/send/enable"); sub is "" for a plain file.
	 */
	const char *name;
	const char *what;	/* one line: what it is, and its ftrace counterpart if any */
	int (*read)(const char *sub, struct ps_buf *out);		/* NULL: write-only */
	int (*write)(const char *sub, const char *value, bool append);	/* NULL: read-only */
	int (*list)(struct ps_buf *out);	/* a directory: its files, one path per line */
};

#endif
