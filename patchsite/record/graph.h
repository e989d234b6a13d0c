/* SPDX-License-Identifier: GPL-2.0-only */
/* The graph tracer's shadow frames, for the unwinding hooks (record/unwind.c). */
#ifndef PS_GRAPH_H
#define PS_GRAPH_H

#include "ring.h"

/* The return slot a frame hooked. */
static inline uintptr_t frame_slot(const struct ps_frame *fr)
{
	return (fr->key & ~(uintptr_t)3) + PS_FRAME_KEY_BIAS;
}

void ps_graph_close_frame(struct ps_thread *t, struct ps_fast *f, uint64_t tsc,
			  const struct ps_frame *fr);
uintptr_t ps_graph_other_thread_ret(struct ps_thread *me, uintptr_t key);

#endif
