/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Target-order loads and stores.  Instructions and table words are read in
 * the byte order of the file, never the host's.
 */
#ifndef PS_BYTES_H
#define PS_BYTES_H

#include <stdbool.h>
#include <stdint.h>

static inline uint16_t get16(const uint8_t *p, bool be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t get32(const uint8_t *p, bool be)
{
	return be ? (uint32_t)get16(p, be) << 16 | get16(p + 2, be)
		  : (uint32_t)get16(p + 2, be) << 16 | get16(p, be);
}

static inline void put16(uint8_t *p, uint16_t v, bool be)
{
	p[be ? 0 : 1] = (uint8_t)(v >> 8);
	p[be ? 1 : 0] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v, bool be)
{
	put16(p + (be ? 0 : 2), (uint16_t)(v >> 16), be);
	put16(p + (be ? 2 : 0), (uint16_t)v, be);
}

/* True when [off, off + len) lies inside a buffer of size bytes. */
static inline bool in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

#endif
