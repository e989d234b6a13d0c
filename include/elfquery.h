/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Read-only questions about a linked file (or an object) that the elfobj
 * interface does not answer: the dynamic symbol table, the relocations the
 * loader applies, and which section holds an address.  Built on an open
 * elfobj; like it, it hands out plain structs in host order, never a
 * libelf type.
 */
#ifndef PS_ELFQUERY_H
#define PS_ELFQUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfobj.h"

struct elfquery;

/* A relocation the dynamic loader applies (from an SHF_ALLOC REL/RELA section). */
struct eq_dynrel {
	uint64_t addr;		/* r_offset: the address it writes */
	int64_t addend;		/* 0 for REL: the addend is the word at addr */
	uint32_t sym;		/* index into the dynamic symbol table */
	uint32_t type;
	bool rela;
};

/* Index the file.  Reports one diagnostic naming the file on failure. */
int elfquery_open(struct elfobj *o, struct elfquery **out);
void elfquery_close(struct elfquery *q);

/* The dynamic symbol table (.dynsym); index 0 is the null symbol. */
size_t elfquery_ndynsyms(const struct elfquery *q);
const struct eo_sym *elfquery_dynsym(const struct elfquery *q, size_t idx);

/* Every dynamic relocation, sorted by address. */
size_t elfquery_ndynrels(const struct elfquery *q);
const struct eq_dynrel *elfquery_dynrel(const struct elfquery *q, size_t idx);
/* The dynamic relocation that writes the word at addr, or NULL. */
const struct eq_dynrel *elfquery_dynrel_at(const struct elfquery *q, uint64_t addr);

/*
 * The GOT's address, which PIC code keeps in a register on some arches
 * (i386 %ebx): _GLOBAL_OFFSET_TABLE_, else the start of .got.plt (else
 * .got); 0 when the file has none.
 */
uint64_t elfquery_got_addr(const struct elfquery *q);

/* The allocated section (with file contents) that holds addr, or 0. */
size_t elfquery_sec_by_addr(const struct elfquery *q, uint64_t addr);

#endif
