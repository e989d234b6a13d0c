// SPDX-License-Identifier: GPL-2.0-only
/*
 * Compressed inputs (.ko.xz, .ko.zst, .ko.gz as kmod installs them),
 * recognised by their magic bytes, not their names, and decompressed into
 * memory with the distribution's own libraries (liblzma, libzstd, zlib):
 * no temporary files, no decoder of our own.  Concatenated streams are
 * read whole, as xz -d, zstd -d and gzip -d do.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "verify.h"

/* More than this decompressed is refused, not tried: no input holds it. */
#define UNPACK_MAX (4ull << 30)

enum blob_kind unpack_kind(const uint8_t *p, size_t n)
{
	static const uint8_t xz[] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	static const uint8_t zst[] = { 0x28, 0xb5, 0x2f, 0xfd };

	if (n >= 4 && !memcmp(p, "\177ELF", 4))
		return BLOB_ELF;
	if (n >= 8 && !memcmp(p, "!<arch>\n", 8))
		return BLOB_AR;
	if (n >= 8 && !memcmp(p, "!<thin>\n", 8))
		return BLOB_AR;
	if (n >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
		return BLOB_XZ;
	if (n >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
		return BLOB_ZSTD;
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return BLOB_GZIP;
	return BLOB_OTHER;
}

static const char *unpack_name(enum blob_kind k)
{
	switch (k) {
	case BLOB_XZ: return "xz";
	case BLOB_ZSTD: return "zstd";
	case BLOB_GZIP: return "gzip";
	default: return "uncompressed";
	}
}

/* The output buffer, doubled as needed up to UNPACK_MAX. */
struct outbuf {
	uint8_t *p;
	size_t len, cap;
};

static int grow(struct outbuf *b, size_t hint)
{
	size_t cap = b->cap ? b->cap * 2 : (hint < 65536 ? 65536 : hint);
	uint8_t *p;

	if (b->cap >= UNPACK_MAX)
		return -EFBIG;
	if (cap > UNPACK_MAX)
		cap = UNPACK_MAX;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static const char *lzma_why(lzma_ret r)
{
	switch (r) {
	case LZMA_FORMAT_ERROR: return "not in the .xz format";
	case LZMA_OPTIONS_ERROR: return "unsupported compression options";
	case LZMA_DATA_ERROR: return "corrupt data";
	case LZMA_BUF_ERROR: return "truncated: it ends inside the stream";
	case LZMA_MEM_ERROR: return "out of memory";
	default: return "decoder error";
	}
}

static int un_xz(const uint8_t *in, size_t n, struct outbuf *b, const char **why)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED);
	int err = 0;

	if (r != LZMA_OK) {
		*why = lzma_why(r);
		return -EINVAL;
	}
	s.next_in = in;
	s.avail_in = n;
	for (;;) {
		if (b->len == b->cap && (err = grow(b, n * 4)))
			break;
		s.next_out = b->p + b->len;
		s.avail_out = b->cap - b->len;
		r = lzma_code(&s, LZMA_FINISH);
		b->len = b->cap - s.avail_out;
		if (r == LZMA_STREAM_END)
			break;
		if (r != LZMA_OK) {
			*why = lzma_why(r);
			err = -EINVAL;
			break;
		}
	}
	lzma_end(&s);
	return err;
}

static int un_zstd(const uint8_t *in, size_t n, struct outbuf *b, const char **why)
{
	ZSTD_DCtx *z = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { in, n, 0 };
	size_t r = 1;
	int err = 0;

	if (!z)
		return -ENOMEM;
	while (ib.pos < ib.size || r) {
		ZSTD_outBuffer ob;

		if (b->len == b->cap && (err = grow(b, n * 4)))
			break;
		ob = (ZSTD_outBuffer){ b->p, b->cap, b->len };
		r = ZSTD_decompressStream(z, &ob, &ib);
		b->len = ob.pos;
		if (ZSTD_isError(r)) {
			*why = ZSTD_getErrorName(r);
			err = -EINVAL;
			break;
		}
		if (r && ib.pos == ib.size && ob.pos < ob.size) {
			*why = "truncated: it ends inside a frame";
			err = -EINVAL;
			break;
		}
	}
	ZSTD_freeDCtx(z);
	return err;
}

static int un_gzip(const uint8_t *in, size_t n, struct outbuf *b, const char **why)
{
	z_stream z = { 0 };
	int r = Z_OK, err = 0;

	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = (uInt)n;
	if ((size_t)z.avail_in != n) {
		inflateEnd(&z);
		return -EFBIG;
	}
	for (;;) {
		if (b->len == b->cap && (err = grow(b, n * 4)))
			break;
		z.next_out = b->p + b->len;
		z.avail_out = (uInt)(b->cap - b->len > UINT32_MAX ? UINT32_MAX : b->cap - b->len);
		r = inflate(&z, Z_NO_FLUSH);
		b->len = (size_t)((uint8_t *)z.next_out - b->p);
		if (r == Z_STREAM_END && !z.avail_in)
			break;
		if (r == Z_STREAM_END) {	/* another gzip member follows */
			inflateReset(&z);
			continue;
		}
		if (r == Z_BUF_ERROR && !z.avail_in) {
			*why = "truncated: it ends inside the stream";
			err = -EINVAL;
			break;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			*why = z.msg ? z.msg : "corrupt data";
			err = -EINVAL;
			break;
		}
	}
	inflateEnd(&z);
	return err;
}

int unpack(const char *name, enum blob_kind k, const uint8_t *in, size_t n, uint8_t **out,
	   size_t *outn)
{
	struct outbuf b = { 0 };
	const char *why = "decoder error";
	int err;

	switch (k) {
	case BLOB_XZ: err = un_xz(in, n, &b, &why); break;
	case BLOB_ZSTD: err = un_zstd(in, n, &b, &why); break;
	case BLOB_GZIP: err = un_gzip(in, n, &b, &why); break;
	default: return -EINVAL;
	}
	if (err) {
		free(b.p);
		if (err == -EFBIG)
			diag_err(name, "%s data decompresses to more than %llu bytes: refused",
				 unpack_name(k), UNPACK_MAX);
		else if (err == -ENOMEM)
			diag_err(name, "out of memory decompressing %s data", unpack_name(k));
		else
			diag_err(name, "cannot decompress %s data: %s", unpack_name(k), why);
		return err;
	}
	*out = b.p;
	*outn = b.len;
	return 0;
}
