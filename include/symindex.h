/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address-to-symbol lookups over an object's symbol table: which function
 * covers section+offset, for "func+0xoff (section+0xoff)" messages and
 * listings.  Built once per object, O(n log n); each lookup is a bisection.
 */
#ifndef PS_SYMINDEX_H
#define PS_SYMINDEX_H

#include <stddef.h>
#include <stdint.h>

struct elfobj;
struct eo_sym;
struct symindex;

struct symindex *symindex_build(const struct elfobj *o);
void symindex_free(struct symindex *si);
/*
 * The function symbol (or, failing that, any named symbol) of section sec
 * at or before off, with *delta = off - its value; NULL if none.
 */
const struct eo_sym *symindex_covering(const struct symindex *si, size_t sec, uint64_t off,
				       uint64_t *delta);
/* "func+0x10 (.text+0x30)" or ".text+0x30" into buf. */
const char *symindex_where(const struct symindex *si, const struct elfobj *o, size_t sec,
			   uint64_t off, char *buf, size_t len);

#endif
