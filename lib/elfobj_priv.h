/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to the elfobj module (elfobj.c reads, elfwrite.c edits and writes). */
#ifndef PS_ELFOBJ_PRIV_H
#define PS_ELFOBJ_PRIV_H

#include <gelf.h>
#include <sys/types.h>

#include "elfobj.h"

struct secx {
	Elf_Scn *scn;
	Elf_Data *data;		/* as read, filled on first use */
	uint8_t *rw;		/* private copy after elfobj_sec_bytes_rw() */
	struct eo_rel *rels;	/* decoded relocations, filled on first use */
	size_t nrels;
	bool rels_dirty;
};

/* A section group's words (flags, then members), read on first use. */
struct eo_group {
	size_t sec;
	uint32_t *words;
	size_t n;
	bool grown;		/* members were added: written from words */
};

struct newsec {
	struct eo_newsec ns;
	void *buf;		/* host-format words or relocations */
	size_t size;
	Elf_Type type;
};

struct elfobj {
	char *path;
	int fd;
	void *mem;		/* an image in memory (the caller's), or NULL: fd */
	mode_t mode;
	uid_t uid;
	gid_t gid;
	uint64_t fsize;
	dev_t dev;		/* the file opened, to write into the same one */
	ino_t ino;
	Elf *elf;
	GElf_Ehdr ehdr;
	struct eo_hdr hdr;
	const struct arch *arch;
	size_t shnum, shstrndx;
	struct eo_sec *secs;
	struct secx *x;
	size_t symtab, shndx_sec, nsyms;
	struct eo_sym *syms;
	/* Edits. */
	void *symbuf;		/* rebuilt symbol table, host format */
	uint32_t *shndxbuf;	/* rebuilt SHT_SYMTAB_SHNDX */
	size_t symbuf_n;	/* symbols copied into symbuf */
	char *shstr;		/* grown section name table */
	size_t shstr_len;
	struct newsec *added;
	size_t nadded;
	uint32_t *group_of;	/* per section: its group, 0 for none */
	struct eo_group *groups;
	size_t ngroups;
};

/* elfreplace.c: the new file that replaces dest all at once. */
struct eo_out {
	int fd;
	char *tmp;		/* its temporary name */
	bool unnamed;		/* O_TMPFILE: tmp not linked yet */
};
int eo_out_open(const struct elfobj *o, const char *dest, struct eo_out *out);
/* Close, name and rename over dest; on failure nothing is left behind. */
int eo_out_commit(const struct elfobj *o, struct eo_out *out, const char *dest);
void eo_out_abort(struct eo_out *out);

/* elfwrite.c: the bytes of output section i, in host form (d_type says which). */
struct eo_scratch {		/* buffers made for one write, freed when it ends */
	void **p;
	size_t n;
};
int eo_fill_section(struct elfobj *o, size_t i, Elf_Data *out, struct eo_scratch *s);
/* The group whose section is sec, if members were added to it. */
const struct eo_group *eo_grown_group(const struct elfobj *o, size_t sec);
void eo_scratch_free(struct eo_scratch *s);
void *eo_rels_to_host(const struct elfobj *o, const struct eo_rel *r, size_t n, bool rela,
		      size_t *size);

/*
 * elflayout.c: how a write lays the object out, chosen by the input alone
 * (the same bytes wherever it goes).  COPY: nothing changed.  APPEND: the
 * old file whole, then the new tail; the only one elfobj_update() writes
 * into the file itself (eo_write_append, copy_old false).  TAIL: the old
 * bytes up to the name table, the rest anew.  LIBELF: write_elf().
 */
enum eo_layout { EO_LAYOUT_COPY, EO_LAYOUT_APPEND, EO_LAYOUT_TAIL, EO_LAYOUT_LIBELF };
enum eo_layout eo_layout_choose(const struct elfobj *o);
/* Any layout but LIBELF into fd, a new file. */
int eo_write_layout(struct elfobj *o, enum eo_layout l, int fd);
int eo_write_append(struct elfobj *o, int fd, bool copy_old);
int eo_copy_file(const struct elfobj *o, int from, int to, uint64_t len);

int eo_fail(const struct elfobj *o, int err, const char *fmt, const char *arg);
int eo_fail_elf(const struct elfobj *o, const char *what);
void eo_libelf_init(void);
Elf_Data *eo_sec_data(const struct elfobj *o, size_t i);

#endif
