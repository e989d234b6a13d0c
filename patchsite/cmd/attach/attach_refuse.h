/* SPDX-License-Identifier: GPL-2.0-only */
/* The refusals of attach, by name, before a thread is touched (attach_refuse.c). */
#ifndef PS_CMD_ATTACH_REFUSE_H
#define PS_CMD_ATTACH_REFUSE_H

#include "attach_target.h"

/*
 * Read t's mappings and refuse what cannot be attached to: 0 if it can be,
 * 1 if it has the runtime already, -1 with the refusal in why.
 */
int attach_check_target(struct target *t, char *why, size_t len);

/*
 * Is pid's control channel still to come: it lives, has the runtime (or its
 * LD_PRELOAD names it) and PATCHSITE_CTL is not 0?
 */
bool attach_channel_coming(int pid);

/* Why ptrace refused pid (EPERM): the rule, and what to do.  Always -1. */
int attach_why_no_ptrace(int pid, char *why, size_t len);

/* Can lib be dlopened into t (a sanitizer build needs its runtime first)?  0 or -1. */
int attach_lib_loadable(const struct target *t, const char *lib, char *why, size_t len);

#endif
