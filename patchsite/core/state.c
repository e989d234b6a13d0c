// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime's one global state (internal.h: struct ps_state), defined
 * here, at the bottom, so that every file reading it points down to it.
 * The host arch comes from the build (build.mk: -DPS_HOST_ARCH).
 */
#include "internal.h"

struct ps_state ps = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.arch = &PS_HOST_ARCH,		/* from the build: ps_arch_$(ARCH) */
	.tracing_on = true,
};
