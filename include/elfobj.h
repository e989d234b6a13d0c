/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ELF access for every tool.  This is the only interface to libelf: callers
 * see plain structs with values in host order, already checked against the
 * file's bounds, and never a libelf type.
 *
 * An object is opened read-only.  Edits (bytes of a section, relocations, a
 * new section symbol, new sections) are kept in memory and only reach the
 * disk through elfobj_write(), which writes a complete new file next to
 * the destination and renames it into place, or elfobj_update(), which
 * appends to the object's own file where that is safe.
 */
#ifndef PS_ELFOBJ_H
#define PS_ELFOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct arch;
struct elfobj;

struct eo_hdr {
	uint16_t type;		/* e_type */
	uint16_t machine;
	uint8_t elfclass;	/* 1 = 32-bit, 2 = 64-bit */
	bool big_endian;
	uint32_t flags;		/* e_flags */
	unsigned word;		/* 4 or 8: size of an address */
};

struct eo_sec {
	const char *name;
	uint32_t type, link, info;
	uint64_t flags, addr, offset, size, entsize, addralign;
};

struct eo_sym {
	const char *name;
	uint64_t value, size;
	uint32_t shndx;		/* section index, SHN_XINDEX already resolved */
	bool defined;		/* shndx names a real section */
	uint8_t bind, type;
};

struct eo_rel {
	uint64_t offset;
	int64_t addend;		/* 0 in a REL section */
	uint32_t sym, type;
};

/* Section type and flag values the generic code needs, without <elf.h>. */
enum {
	EO_SHT_PROGBITS = 1, EO_SHT_SYMTAB = 2, EO_SHT_RELA = 4, EO_SHT_NOBITS = 8,
	EO_SHT_REL = 9,
};
enum { EO_SHF_ALLOC = 0x2, EO_SHF_EXECINSTR = 0x4, EO_SHF_GROUP = 0x200 };
enum { EO_ET_REL = 1, EO_ET_EXEC = 2, EO_ET_DYN = 3 };
enum { EO_STB_LOCAL = 0, EO_STB_GLOBAL = 1, EO_STB_WEAK = 2 };
enum { EO_STT_NOTYPE = 0, EO_STT_FUNC = 2, EO_STT_SECTION = 3 };

/* Open path.  Reports one diagnostic naming the file on failure. */
int elfobj_open(const char *path, struct elfobj **out);
/*
 * The same for an image already in memory, called name in messages.  The
 * caller keeps the (writable: libelf may convert headers in place) image
 * alive until elfobj_close().  Such an object cannot be written.
 */
int elfobj_open_image(const char *name, void *image, size_t size, struct elfobj **out);
void elfobj_close(struct elfobj *o);

/* One member of an ar archive: its name (the long name resolved) and bytes. */
struct eo_member {
	char *name;
	uint64_t off, size;	/* where its bytes are in the archive */
};
/*
 * The members of an ar archive in memory (name for messages), in order,
 * without the symbol and long-name tables.  *members is freed with
 * elfobj_members_free().  A thin archive is refused by name.
 */
int elfobj_ar_members(const char *name, void *image, size_t size, struct eo_member **members,
		      size_t *n);
void elfobj_members_free(struct eo_member *members, size_t n);

const char *elfobj_path(const struct elfobj *o);
const struct eo_hdr *elfobj_hdr(const struct elfobj *o);
/* The arch table of the object, or NULL when the machine is not supported. */
const struct arch *elfobj_arch(const struct elfobj *o);

size_t elfobj_shnum(const struct elfobj *o);
const struct eo_sec *elfobj_sec(const struct elfobj *o, size_t idx);
/* Index of the first section called name, or 0 when there is none. */
size_t elfobj_find_sec(const struct elfobj *o, const char *name);
/* The section's bytes as in the file (NULL for SHT_NOBITS or an empty one). */
const uint8_t *elfobj_sec_bytes(const struct elfobj *o, size_t idx);
/* A private writable copy of the bytes; it replaces them in elfobj_write(). */
uint8_t *elfobj_sec_bytes_rw(struct elfobj *o, size_t idx);

/* The static symbol table (.symtab); index 0 is the null symbol. */
size_t elfobj_symtab_index(const struct elfobj *o);
size_t elfobj_nsyms(const struct elfobj *o);
const struct eo_sym *elfobj_sym(const struct elfobj *o, size_t idx);
/* The index of a symbol elfobj_sym() returned. */
size_t elfobj_sym_index(const struct elfobj *o, const struct eo_sym *sym);

bool elfobj_is_rel_sec(const struct elfobj *o, size_t idx);
/* Relocations of a REL or RELA section, decoded and checked (symbol in range). */
int elfobj_rels(struct elfobj *o, size_t idx, const struct eo_rel **rels, size_t *n);
/* Change relocation k of section idx (its type or symbol). */
int elfobj_set_rel(struct elfobj *o, size_t idx, size_t k, const struct eo_rel *rel);

/*
 * Add an STT_SECTION symbol for section sec (locals must precede globals,
 * so the first global moves to the end and relocations follow it).
 * Returns the new symbol's index or a negative errno.
 */
long elfobj_add_section_symbol(struct elfobj *o, size_t sec);
/*
 * The same for an unnamed local symbol of the given type at sec+value.
 * Adding a symbol reallocates the symbol array: pointers from
 * elfobj_sym() taken before are stale afterwards.
 */
long elfobj_add_local_symbol(struct elfobj *o, size_t sec, uint64_t value, uint8_t type);

/* Append a string to the section name table; returns its offset. */
long elfobj_add_shstr(struct elfobj *o, const char *s);

/* A new section appended after the existing ones. */
struct eo_newsec {
	uint32_t name;		/* offset from elfobj_add_shstr() */
	uint32_t type, link, info;
	uint64_t flags, addralign, entsize;
	/* Exactly one of: table words, relocations. */
	const uint64_t *words;
	bool word32;		/* the words are 32-bit in any class */
	const struct eo_rel *rels;
	size_t count;
};
/* Returns the new section's index or a negative errno. */
long elfobj_add_section(struct elfobj *o, const struct eo_newsec *ns);

/* The section group (SHT_GROUP section) holding section sec, or 0. */
size_t elfobj_sec_group(struct elfobj *o, size_t sec);
/* Make section member (usually a new one, flagged EO_SHF_GROUP) part of group g. */
int elfobj_group_add(struct elfobj *o, size_t g, size_t member);

/*
 * Write the object, with every edit, to dest: a new file in dest's
 * directory with the input's mode, renamed over dest.  On failure dest is
 * untouched and no temporary file is left.
 */
int elfobj_write(struct elfobj *o, const char *dest);

/*
 * Write the edits back to the file o was opened from.  Where it is safe
 * (lib/elfupdate.c says when), into the file itself: the new sections,
 * new copies of the changed ones and a new header table after the old
 * end, then the ELF header; a kill before that last write leaves the old
 * object, a failed write is cut back off.  Elsewhere as elfobj_write(o,
 * path).  The bytes are the same either way.  *in_place (may be NULL) says
 * which was done.
 */
int elfobj_update(struct elfobj *o, bool *in_place);

#endif
