/* SPDX-License-Identifier: GPL-2.0-only */
/* Has the target's dynamic loader finished starting it? (attach_loader.c) */
#ifndef PS_CMD_ATTACH_LOADER_H
#define PS_CMD_ATTACH_LOADER_H

#include "attach_target.h"

enum loader_state {
	LOADER_DONE,		/* libc relocated in the base namespace, no dlopen under way */
	LOADER_STATIC,		/* the program has no PT_INTERP: statically linked */
	LOADER_STARTING,	/* PT_INTERP, but libc is not loaded and relocated yet */
	LOADER_BUSY,		/* a dlopen or dlclose is changing the list of objects */
};

/*
 * Where the loader of t stands (its r_debug, glibc's debugger interface);
 * with LOADER_DONE, t->libc_bias is set.  The interpreter's path goes to
 * interp (len bytes; "" if none).
 */
enum loader_state attach_loader_state(struct target *t, char *interp, size_t len);

#endif
