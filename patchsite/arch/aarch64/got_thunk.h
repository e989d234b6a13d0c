/* SPDX-License-Identifier: GPL-2.0-only */
/* The aarch64 thunk of a traced GOT slot (got_thunk.c; sites/got.c uses it through ps_arch). */
#ifndef PS_AARCH64_GOT_THUNK_H
#define PS_AARCH64_GOT_THUNK_H

#include <stdbool.h>
#include <stdint.h>

#define PS_AARCH64_SLOT_THUNK	48	/* bytes per thunk: 12 words, the last a brk */

bool ps_aarch64_write_slot_thunk(uint8_t *p, uintptr_t at, uint32_t id, uintptr_t tramp_slot,
				 uintptr_t target_slot);

#endif
