/* SPDX-License-Identifier: GPL-2.0-only */
/* Names in probe definitions written through `patchsite ctl` (ctl_probes.c). */
#ifndef PS_CMD_CTL_PROBES_H
#define PS_CMD_CTL_PROBES_H

#include <stddef.h>

/*
 * value, lines for dynamic_events of process pid, with each definition
 * that names arguments (len, host->name, a library call's fd) rewritten
 * into the fetch arguments the runtime runs, resolved as record --probe
 * does from pid's executable: a new string (the caller frees), or NULL
 * with the reason in why.  Other lines are kept as they are.
 */
char *ctl_probes_resolve(int pid, const char *value, char *why, size_t len);

#endif
