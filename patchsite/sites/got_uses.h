/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which GLOB_DAT slots of an object only ever serve calls (got_uses.c):
 * -fno-plt code calls through them, and `&func` reads the same slot, so a
 * thunk in a slot whose value is also used as data would change a function
 * pointer the program sees.  Only slots proven to serve calls alone are
 * library-call sites by default.
 */
#ifndef PS_GOT_USES_H
#define PS_GOT_USES_H

#include <link.h>
#include <stdint.h>

#include "got_dyn.h"

/* A slot's why when its value is also used as data (the stderr line finds them by it). */
extern const char got_left_alone[];

struct got_uses {
	uintptr_t lo, hi;	/* the GLOB_DAT function slots lie in [lo, hi) */
	uint8_t *use;		/* per 8-byte word: SLOT_USE_CALL | SLOT_USE_DATA */
	const char *why;	/* no proof was made: why (every slot then counts as data) */
	struct cand *calls;	/* the slots calls go through (got.c's got_find_uses) */
	size_t ncalls;
};

/* The uses of d's GLOB_DAT function slots in m's code (its file) and data (its image). */
void got_uses_find(const struct ps_module *m, const struct dl_phdr_info *info,
		   const struct dyn *d, struct got_uses *u);
/* The uses of the slot at addr (0: none found). */
unsigned got_uses_of(const struct got_uses *u, uintptr_t addr);
void got_uses_free(struct got_uses *u);

#endif
