/* SPDX-License-Identifier: GPL-2.0-only */
/* ftrace's lines (text.c), for replay and for live rounds (live.c). */
#ifndef PS_RENDER_TEXT_H
#define PS_RENDER_TEXT_H

#include "walk.h"

/* One function tracer line: a function event or a marker. */
void text_function_line(FILE *f, const struct psr_proc *p, struct stream *m,
			const struct psr_event *e);
/* One event of function_graph. */
void text_graph_event(FILE *f, struct stream *m, struct stream **last);

#endif
