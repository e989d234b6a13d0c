/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The runtime loaded late, into a process that already runs (sites/late.c):
 * `patchsite record -p` / `ctl PID` injected it, or the program dlopened
 * it while other threads ran.
 */
#ifndef PS_SITES_LATE_H
#define PS_SITES_LATE_H

#include <stdbool.h>

/* The name the injector (cmd/attach/attach_inject.c) gives the thread that dlopens the runtime. */
#define PS_ATTACH_THREAD	"ps-attach"

/* Must start-up use the live protocol (other threads may run the sites)?  Once, at init. */
bool ps_attach_late(void);
/* What ps_attach_late said: the runtime was loaded into a running process. */
bool ps_attach_started_late(void);

struct ps_module;

/* The live start-up NOPs of one object (ps_patch_late), or its refusal: see sites/late.c. */
int ps_attach_patch(struct ps_module *m);

#endif
