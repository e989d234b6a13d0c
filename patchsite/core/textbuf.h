/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text being built (core/textbuf.c): control files, format files and
 * listings fill one without checking each step; oom says it ran out.
 */
#ifndef PS_TEXTBUF_H
#define PS_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

struct ps_buf {
	char *p;		/* NUL-terminated once anything was added */
	size_t len, cap;
	bool oom;
};
void ps_buf_add(struct ps_buf *b, const char *s, size_t n);
void ps_buf_puts(struct ps_buf *b, const char *s);
__attribute__((format(printf, 2, 3)))
void ps_buf_printf(struct ps_buf *b, const char *fmt, ...);
void ps_buf_free(struct ps_buf *b);

#endif
