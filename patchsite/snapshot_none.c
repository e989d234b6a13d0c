// SPDX-License-Identifier: GPL-2.0-only
/*
 * Placeholder until the snapshot control file is merged (issue 14, part C
 * provides ps_snapshot_take): the snapshot filter command says it cannot.
 * The lead deletes this file at merge.
 */
#include <errno.h>

#include "internal.h"

int ps_snapshot_take(void)
{
	ps_log(PATCHSITE_LOG_ERROR, "snapshot: not built into this libpatchsite");
	return -ENOSYS;
}
