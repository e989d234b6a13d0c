// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's one global state (internal.h: struct ps_state), defined
 * here, at the bottom, so that every file reading it points down to it.
 * The host arch (ps.arch) is set by patchsite_init (api.c), from the build
 * (build.mk: -DPS_HOST_ARCH): this file names no arch.
 */
#include "core/core.h"

struct ps_state ps = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.tracing_on = true,
};
