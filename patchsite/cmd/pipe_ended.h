/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When a followed process has ended for patchsite pipe (pipe_ended.c):
 * its files, the switch files too, are final then, and the next look at
 * them is the last.
 */
#ifndef PS_PIPE_ENDED_H
#define PS_PIPE_ENDED_H

#include <stdbool.h>

#include "../data/psread.h"

/* Has p ended (no such process, a zombie, or, with its end file there, another one)? */
bool pipe_proc_ended(const struct psr_proc *p);

#endif
