/* SPDX-License-Identifier: GPL-2.0-only */
/* The control channel's client (ctlclient.c) and `patchsite ctl` (ctl.c). */
#ifndef PS_CTLCLIENT_H
#define PS_CTLCLIENT_H

#include "../ctl/proto.h"

/*
 * One request to process pid's channel: op PSCTL_READ, PSCTL_WRITE,
 * PSCTL_APPEND (file and value) or PSCTL_LIST (neither).  Returns 0 with
 * the file's text (read, list; "" for a write) in *reply, or -errno with
 * one line saying why in *reply: the process's own error for the file, or
 * why there is no channel (no such process, another user's, not started
 * with the runtime).  *reply is malloc'd (NULL only when out of memory).
 */
int psctl_request(int pid, enum psctl_op op, const char *file, const char *value, char **reply);

int cmd_ctl(int argc, char **argv);

#endif
