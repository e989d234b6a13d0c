// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text being built (textbuf.h).  A failed allocation is remembered, not
 * returned, so that a handler writes its whole listing and checks once.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

void ps_buf_add(struct ps_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void ps_buf_puts(struct ps_buf *b, const char *s)
{
	ps_buf_add(b, s, strlen(s));
}

void ps_buf_printf(struct ps_buf *b, const char *fmt, ...)
{
	char small[256], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		ps_buf_add(b, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	ps_buf_add(b, big, (size_t)n);
	free(big);
}

void ps_buf_free(struct ps_buf *b)
{
	free(b->p);
	*b = (struct ps_buf){ 0 };
}
