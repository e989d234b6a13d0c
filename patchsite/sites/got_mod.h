/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A library-call module as got.c builds it, shared with got_dlopen.c,
 * which adds the ones of objects dlopened later.
 */
#ifndef PS_GOT_MOD_H
#define PS_GOT_MOD_H

#include <link.h>

#include "got.h"
#include "got_dyn.h"

struct got_slot {
	uintptr_t *slot;		/* the GOT word */
	uintptr_t orig;			/* what it held at start-up (lazy: its PLT entry) */
	uintptr_t first;		/* where its calls went at start-up (got_resolve()) */
	const char *lib;		/* basename of the object that defines the function */
	const char *why;		/* refused: why */
};

struct got_mod {
	struct ps_module *m;
	struct ps_module *caller;
	struct got_slot *slots;		/* parallel to m->sites */
	_Atomic uintptr_t *targets;	/* what each thunk jumps to (in the thunks' data page) */
	uintptr_t relro_lo, relro_hi;	/* the caller's PT_GNU_RELRO, page-aligned (0, 0: none) */
	char *pool;			/* names, copied: they outlive the image */
};

/* What start-up decided, for the objects dlopened later. */
struct got_boot {
	enum ps_libcall_mode mode;
	bool nest;
	struct dyn own;			/* the runtime's own object (it may be the program) */
	uintptr_t own_bias;
	bool own_found;
	const struct ps_module *startup[PS_MAX_MODULES];	/* loaded before the scan */
};

extern struct got_mod *got_mods[PS_MAX_MODULES];	/* by module index */
extern struct got_boot got_boot;

/* An object whose calls are never switched: patchsite calls into it or runs under it. */
bool got_never_caller(const struct ps_module *m);
/* Why m's calls would be patchsite's own, or NULL. */
const char *got_ours(const struct ps_module *m);
/* A dlopened object's slots, resolved before ps.lock is taken (got_dlopen.c). */
struct got_pre {
	struct cand *c;
	size_t n;
};

struct got_uses;
/* In plt mode, the uses of caller's GLOB_DAT slots (got_uses.h), for got_count and got_gather. */
void got_find_uses(const struct ps_module *caller, const struct dl_phdr_info *info,
		   const struct dyn *d, struct got_uses *u);
/* How many slots of d are sites in mode (u: got_find_uses'); got_gather: them, into c. */
size_t got_count(const struct dyn *d, uintptr_t bias, enum ps_libcall_mode mode,
		 const struct got_uses *u);
void got_gather(const struct dyn *d, uintptr_t bias, enum ps_libcall_mode mode,
		const struct got_uses *u, struct cand *c);
/* caller's module (ps.lock held); -EAGAIN: reuse's thunks do not fit it. */
int got_add_caller(struct ps_module *caller, const struct dl_phdr_info *info,
		   const struct got_pre *pre, struct got_mod *reuse);
void got_free(struct got_mod *g);

#endif
