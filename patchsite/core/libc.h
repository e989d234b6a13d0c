/* SPDX-License-Identifier: GPL-2.0-only */
/* The C library's dlopen, dlmopen and dlclose, not our wrappers, and the wrappers' lock (core/libc.c). */
#ifndef PS_LIBC_H
#define PS_LIBC_H

#include <dlfcn.h>
#include <stdbool.h>

bool ps_libc_ready(void);
void *ps_libc_dlopen(const char *name, int flags);
void *ps_libc_dlmopen(Lmid_t lmid, const char *name, int flags);
int ps_libc_dlclose(void *h);
long ps_libc_namespace(void);	/* where this copy of the runtime lives (dlmopen) */
/* The dlopen/dlclose wrappers' lock (dl.c), taken before ps.lock; the fork handlers. */
void ps_libc_dl_enter(void);
void ps_libc_dl_leave(void);
unsigned ps_libc_dl_depth(void);
void ps_libc_fork_init(void);

#endif
