// SPDX-License-Identifier: GPL-2.0-only
/*
 * Many short lines to a file, formatted by hand into one 64 KiB buffer.
 * The mod.N file of a trace directory holds a line per site and per
 * function symbol; written with stdio's fprintf, 100,000 functions took
 * 36 ms of CPU on the thread that starts the first tracer, which is what
 * an attached process's first event waits for.  The bytes are printf's:
 * %#lx ("0" for zero, else "0x" and lowercase hex) and %lu.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "record/linebuf.h"

static void flush(struct ps_linebuf *b)
{
	size_t off = 0;

	while (!b->err && off < b->n) {
		ssize_t w = write(b->fd, b->buf + off, b->n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			b->err = w < 0 ? errno : EIO;
			break;
		}
		off += (size_t)w;
	}
	/* What a failed write dropped, by lines: a line cut short is a line lost. */
	for (; b->err && off < b->n; off++)
		b->lost += b->buf[off] == '\n';
	b->n = 0;
}

static void put(struct ps_linebuf *b, const char *s, size_t n)
{
	while (n) {
		size_t k = sizeof(b->buf) - b->n < n ? sizeof(b->buf) - b->n : n;

		memcpy(b->buf + b->n, s, k);
		b->n += k;
		s += k;
		n -= k;
		if (b->n == sizeof(b->buf))
			flush(b);
	}
}

void ps_linebuf_str(struct ps_linebuf *b, const char *s)
{
	put(b, s, strlen(s));
}

void ps_linebuf_char(struct ps_linebuf *b, char c)
{
	put(b, &c, 1);
}

void ps_linebuf_hex(struct ps_linebuf *b, unsigned long v)
{
	char tmp[2 + 2 * sizeof(v)], *p = tmp + sizeof(tmp);

	if (!v) {
		put(b, "0", 1);
		return;
	}
	for (; v; v >>= 4)
		*--p = "0123456789abcdef"[v & 15];
	*--p = 'x';
	*--p = '0';
	put(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

void ps_linebuf_dec(struct ps_linebuf *b, unsigned long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(b, p, (size_t)(tmp + sizeof(tmp) - p));
}

int ps_linebuf_close(struct ps_linebuf *b)
{
	int err;

	flush(b);
	err = -b->err;
	if (close(b->fd) && !err)
		err = -errno;
	return err;
}
