/* SPDX-License-Identifier: GPL-2.0-only */
/* Loading libpatchsite.so into a running process (attach_inject.c). */
#ifndef PS_CMD_ATTACH_INJECT_H
#define PS_CMD_ATTACH_INJECT_H

#include "attach_target.h"

/*
 * Borrow a thread of t at a safe point, have it start a loader thread that
 * dlopens lib, and wait until that dlopen returned: 0, or -1 with why.
 */
int attach_inject(struct target *t, const char *lib, char *why, size_t len);

/* What PATCHSITE_ATTACH_TIME prints: where the time of an attach went. */
struct attach_timing {
	long long borrowed_us;	/* the borrowed thread, from its stop to its release */
	long long found_ms;	/* the checks and the search for a safe point */
	long long loaded_ms;	/* until the loader thread's dlopen returned */
	long long loader_cpu_us;	/* the loader thread's CPU time: dlopen, the runtime's start-up */
	const char *where;	/* where the borrowed thread was */
	unsigned nstopped;	/* threads interrupted (PTRACE_INTERRUPT), the borrowed one too */
	long long max_stop_us;	/* the longest of their stops: PTRACE_INTERRUPT to their release */
};
extern struct attach_timing attach_timing;

#endif
