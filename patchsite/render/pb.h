/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A protobuf wire-format writer, only what dump --perfetto needs: varints,
 * fixed64, length-delimited fields and nested messages, into one growing
 * buffer (no protobuf library: the format is five rules,
 * protobuf.dev/programming-guides/encoding).
 *
 * A nested message is opened with pb_open, which writes its tag and
 * remembers where its payload starts; pb_close moves the payload up by
 * the size of its length varint and writes the length there.  Payloads
 * are a packet's few fields, so the move is a few bytes, and no length is
 * written wider than it needs (Perfetto's own writer pads lengths to 4
 * bytes; we would rather spend the move).
 */
#ifndef PS_RENDER_PB_H
#define PS_RENDER_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *b;
	size_t len, cap;
	bool failed;		/* out of memory: later writes are dropped, pb_failed says so */
};

/* Wire types. */
enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

void pb_uint(struct pb *p, unsigned field, uint64_t v);
void pb_sint(struct pb *p, unsigned field, int64_t v);	/* int32/int64: two's complement */
void pb_double(struct pb *p, unsigned field, double v);
void pb_bytes(struct pb *p, unsigned field, const void *s, size_t n);
void pb_str(struct pb *p, unsigned field, const char *s);
/* A nested message: the mark to hand to pb_close. */
size_t pb_open(struct pb *p, unsigned field);
void pb_close(struct pb *p, size_t mark);
void pb_reset(struct pb *p);
void pb_free(struct pb *p);

#endif
