// SPDX-License-Identifier: GPL-2.0-only
/* The protobuf wire-format writer of dump --perfetto (pb.h). */
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static bool room(struct pb *p, size_t n)
{
	if (p->failed)
		return false;
	if (p->cap - p->len < n) {
		size_t cap = p->cap * 2 + n + 256;
		uint8_t *b = realloc(p->b, cap);

		if (!b) {
			p->failed = true;
			return false;
		}
		p->b = b;
		p->cap = cap;
	}
	return true;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void put_varint(uint8_t *b, uint64_t v)
{
	while (v >= 0x80) {
		*b++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*b = (uint8_t)v;
}

static void pb_varint(struct pb *p, uint64_t v)
{
	if (!room(p, 10))
		return;
	put_varint(p->b + p->len, v);
	p->len += varint_len(v);
}

static void tag(struct pb *p, unsigned field, unsigned wire)
{
	pb_varint(p, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb *p, unsigned field, uint64_t v)
{
	tag(p, field, PB_VARINT);
	pb_varint(p, v);
}

void pb_sint(struct pb *p, unsigned field, int64_t v)
{
	pb_uint(p, field, (uint64_t)v);
}

static void pb_fixed64(struct pb *p, unsigned field, uint64_t v)
{
	tag(p, field, PB_I64);
	if (!room(p, 8))
		return;
	for (int i = 0; i < 8; i++)
		p->b[p->len++] = (uint8_t)(v >> (8 * i));	/* little-endian on the wire */
}

void pb_double(struct pb *p, unsigned field, double v)
{
	uint64_t u;

	memcpy(&u, &v, 8);
	pb_fixed64(p, field, u);
}

void pb_bytes(struct pb *p, unsigned field, const void *s, size_t n)
{
	tag(p, field, PB_LEN);
	pb_varint(p, n);
	if (!room(p, n))
		return;
	memcpy(p->b + p->len, s, n);
	p->len += n;
}

void pb_str(struct pb *p, unsigned field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

size_t pb_open(struct pb *p, unsigned field)
{
	tag(p, field, PB_LEN);
	return p->len;
}

void pb_close(struct pb *p, size_t mark)
{
	size_t n, k;

	if (p->failed || mark > p->len)
		return;
	n = p->len - mark;
	k = varint_len(n);
	if (!room(p, k))
		return;
	memmove(p->b + mark + k, p->b + mark, n);
	put_varint(p->b + mark, n);
	p->len += k;
}

void pb_reset(struct pb *p)
{
	p->len = 0;
}

void pb_free(struct pb *p)
{
	free(p->b);
	*p = (struct pb){ 0 };
}
