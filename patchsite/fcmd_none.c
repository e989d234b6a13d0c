// SPDX-License-Identifier: GPL-2.0-only
/*
 * Filter commands of set_ftrace_filter (glob:traceon[:N], ...) are not in
 * this build: every one is refused by name.  The recording features that
 * implement them replace this file.
 */
#include <errno.h>

#include "control.h"
#include "internal.h"

int ps_filter_command(const char *glob, const char *cmd, const char *arg, bool remove)
{
	(void)glob, (void)arg, (void)remove;
	ps_log(PATCHSITE_LOG_ERROR, "filter command %.100s: not built", cmd);
	return -EINVAL;
}

void ps_filter_command_list(struct ps_buf *out)
{
	(void)out;
}
