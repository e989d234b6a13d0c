/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Library calls through GOT slots (got.c): the calls an object makes
 * through its PLT or GOT, traced as functions of their own.  Each calling
 * object gets a module of its own in ps.mods (same name and bias as the
 * caller, so the loader sync keeps it while the caller stays), one site
 * per slot, named by the symbol the slot is bound to.  A site is switched
 * by one aligned pointer store into its slot: the function, or the slot's
 * thunk (arch write_slot_thunk).  No code is patched.
 */
#ifndef PS_GOT_H
#define PS_GOT_H

#include <stdbool.h>

#include "sites/site.h"

/* PATCHSITE_LIBCALL: which slots (off: none). */
enum ps_libcall_mode { PS_LIBCALL_OFF, PS_LIBCALL_PLT, PS_LIBCALL_GOT };

/* The slots of the executable, as modules appended to ps.mods (start-up, ps.lock held). */
int ps_got_scan(void);
/* The slots of objects a dlopen (flags) just brought, as start-up chose (got_dlopen.c). */
void ps_got_dlopened(int flags);
/* m is a module of library-call sites (its sites are slots, not code). */
bool ps_got_module(const struct ps_module *m);
/* Bring every slot to its site's want: the pointer stores of a batch (ps.lock held). */
size_t ps_got_update(void);
/* The library that defines a slot's function, NULL when not known. */
const char *ps_got_library(const struct ps_site *s);
/* Why a slot is never switched (a family that must not be return-hooked...), or NULL. */
const char *ps_got_refused(const struct ps_site *s);

#endif
