/* SPDX-License-Identifier: GPL-2.0-only */
/* gcc's one-byte NOP sites made one instruction, every thread stopped (attach_nops.c). */
#ifndef PS_CMD_ATTACH_NOPS_H
#define PS_CMD_ATTACH_NOPS_H

#include <stddef.h>

#include "attach_target.h"

/* Before the runtime is loaded into t: 0, or -1 with one line in why (len bytes). */
int attach_nop_bytes(const struct target *t, char *why, size_t len);

#endif
