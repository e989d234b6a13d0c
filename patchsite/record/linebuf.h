/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Many short lines to a file, formatted by hand (record/linebuf.c): the
 * trace directory's mod.N files, 200,000 lines for 100,000 functions.
 */
#ifndef PS_RECORD_LINEBUF_H
#define PS_RECORD_LINEBUF_H

#include <stddef.h>

struct ps_linebuf {
	int fd;
	int err;		/* errno of a failed write: the rest is dropped, close says so */
	size_t lost;		/* lines dropped so (not written whole), for the caller to count */
	size_t n;
	char buf[1 << 16];
};

void ps_linebuf_str(struct ps_linebuf *b, const char *s);
void ps_linebuf_hex(struct ps_linebuf *b, unsigned long v);	/* printf's %#lx */
void ps_linebuf_dec(struct ps_linebuf *b, unsigned long v);	/* printf's %lu */
void ps_linebuf_char(struct ps_linebuf *b, char c);
/* Write what is left and close fd: 0, or -errno of the first failed write. */
int ps_linebuf_close(struct ps_linebuf *b);

#endif
