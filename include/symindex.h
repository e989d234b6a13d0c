/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address-to-symbol lookups, for every tool: which symbol or function
 * covers section+offset ("func+0xoff (section+0xoff)" in messages and
 * listings), where the next function starts, and whether ARM code there is
 * Thumb.  Built once per file, O(n log n); each lookup is a bisection.
 *
 * Places are section + offset in objects and linked files alike: in a
 * linked file a symbol's value less its section's address.  On ARM bit 0
 * of a function's value (its Thumb state) is not part of its place.
 */
#ifndef PS_SYMINDEX_H
#define PS_SYMINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elfobj;
struct elfquery;
struct eo_sym;
struct symindex;

/* A function symbol, placed in its executable section. */
struct si_func {
	const char *name;
	size_t sec;
	uint64_t off, size;	/* offset in sec (Thumb bit cleared) */
	bool weak, thumb;
};

/* The index of the static symbol table (.symtab); NULL when out of memory. */
struct symindex *symindex_build(const struct elfobj *o);
/*
 * The same for a linked file: when .symtab has no function symbol (a
 * stripped executable or library), the functions of .dynsym (through q)
 * instead.  q may be NULL.
 */
struct symindex *symindex_build_linked(const struct elfobj *o, const struct elfquery *q);
void symindex_free(struct symindex *si);

/*
 * The function symbol (or, failing that, any named symbol) of section sec
 * at or before off, with *delta = off - its place; NULL if none.
 */
const struct eo_sym *symindex_covering(const struct symindex *si, size_t sec, uint64_t off,
				       uint64_t *delta);
/* "func+0x10 (.text+0x30)" or ".text+0x30" into buf, with symindex_covering(). */
const char *symindex_where(const struct symindex *si, const struct elfobj *o, size_t sec,
			   uint64_t off, char *buf, size_t len);

/* Functions (STT_FUNC in executable sections) only. */
size_t symindex_nfuncs(const struct symindex *si);
/* The function whose extent holds off (a size-0 one: off is its start), or NULL. */
const struct si_func *symindex_func_at(const struct symindex *si, size_t sec, uint64_t off);
/* The first function starting at or after off in sec, or NULL. */
const struct si_func *symindex_func_next(const struct symindex *si, size_t sec, uint64_t off);
/* Functions in (section, offset) order: the i-th, or NULL past the last. */
const struct si_func *symindex_func_nth(const struct symindex *si, size_t i);
/* The last function of sec starting before off, or NULL. */
const struct si_func *symindex_func_prev(const struct symindex *si, size_t sec, uint64_t off);
/* The same as symindex_where(), naming only a function that holds off. */
const char *symindex_func_where(const struct symindex *si, const struct elfobj *o, size_t sec,
				uint64_t off, char *buf, size_t len);
/*
 * ARM: is the code at sec+off Thumb?  The mapping symbols ($a, $t, $d)
 * say, where the file has them (the code of an overridden weak function
 * has no function symbol left, but keeps them); else the Thumb bit of the
 * function holding off.  Always false on other arches.
 */
bool symindex_thumb_at(const struct symindex *si, size_t sec, uint64_t off);

#endif
