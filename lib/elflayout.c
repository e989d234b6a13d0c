// SPDX-License-Identifier: GPL-2.0-only
/*
 * The layouts that keep the old file's bytes where they are and write only
 * what changed, instead of libelf laying out a second copy of every section
 * (on a 7 MB object that cost more page faults than everything else):
 *
 *   append: the old file whole, then new copies of the sections that
 *     changed, the new sections and a new header table, which the ELF
 *     header's e_shoff then names.  Nothing before the old end changes but
 *     the 64-byte ELF header, so the object can be written into itself
 *     (elfobj_update) with the header last: until that one write, the old
 *     object is whole.  The superseded bytes (old header table, old copies)
 *     stay behind, so the layout is taken only while they are few.
 *   tail: objects in gas and LLVM order (sections, name table, header table
 *     at the end): the old file up to the name table, edited sections
 *     patched over their old bytes, then the name table, the new sections
 *     and a header table.  Nothing stale is left; used when appending
 *     would leave too much behind.
 *
 * Either is the same bytes for the same input, wherever it is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "bigalloc.h"
#include "elfobj_priv.h"

/* Appending may leave this much behind, or a quarter of the file. */
#define APPEND_DEAD_MIN (16u << 10)
/* A section aligned more than this is not copied by us (libelf pads it). */
#define APPEND_ALIGN_MAX 4096u

/* Everything written from base on: copies of old sections, new ones, headers. */
struct tail {
	uint64_t base;
	uint8_t *buf;		/* the bytes from base */
	uint64_t len;
	uint64_t shoff;		/* where the header table is */
	GElf_Shdr *sh;		/* every section's header, in host form */
	size_t total;
	bool align_old;		/* old sections copied to their alignment, not packed */
};

/* Translate n host-format items of type t into the file's format at dst. */
static int xlate(const struct elfobj *o, void *dst, const void *src, size_t size, Elf_Type t)
{
	Elf_Data in = { .d_buf = (void *)src, .d_type = t, .d_size = size,
			.d_version = EV_CURRENT };
	Elf_Data out = { .d_buf = dst, .d_type = t, .d_size = size, .d_version = EV_CURRENT };

	if (!gelf_xlatetof(o->elf, &out, &in, o->ehdr.e_ident[EI_DATA]))
		return eo_fail_elf(o, "cannot write: %s");
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/*
 * Section headers, old (edited) and new, in the host form libelf
 * translates.  GElf_Shdr is Elf64_Shdr, so a 64-bit file needs no copy.
 */
static void *shdrs_to_host(const struct elfobj *o, GElf_Shdr *sh, size_t n, size_t *size)
{
	size_t i;
	Elf32_Shdr *buf;

	if (o->hdr.elfclass == ELFCLASS64) {
		*size = n * sizeof(Elf64_Shdr);
		return sh;
	}
	buf = big_calloc(n, sizeof(*buf));
	for (i = 0; buf && i < n; i++) {
		const GElf_Shdr *h = &sh[i];

		buf[i] = (Elf32_Shdr){
			h->sh_name, h->sh_type, (Elf32_Word)h->sh_flags, (Elf32_Addr)h->sh_addr,
			(Elf32_Off)h->sh_offset, (Elf32_Word)h->sh_size, h->sh_link, h->sh_info,
			(Elf32_Word)h->sh_addralign, (Elf32_Word)h->sh_entsize };
	}
	*size = n * sizeof(*buf);
	return buf;
}

static int pwrite_all(const struct elfobj *o, int fd, const void *buf, uint64_t size,
		      uint64_t off)
{
	const uint8_t *p = buf;

	while (size) {
		ssize_t n = pwrite(fd, p, size, (off_t)off);

		if (n <= 0)
			return eo_fail(o, n < 0 ? -errno : -EIO, "cannot write: %s",
				       n < 0 ? strerror(errno) : "short write");
		p += n;
		off += (uint64_t)n;
		size -= (uint64_t)n;
	}
	return 0;
}

/* Translate size bytes of type t to the file's form and write them at off. */
static int put(const struct elfobj *o, int fd, const void *host, size_t size, Elf_Type t,
	       uint64_t off)
{
	uint8_t *buf = big_calloc(1, size);
	int err;

	if (!buf)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	err = xlate(o, buf, host, size, t);
	if (!err)
		err = pwrite_all(o, fd, buf, size, off);
	free(buf);
	return err;
}

/*
 * len bytes of from, copied by the kernel from file to file: on a 7 MB
 * object, copying it through our memory cost more page faults than
 * everything else we do.
 */
int eo_copy_file(const struct elfobj *o, int from, int to, uint64_t len)
{
	off_t off = 0;

	while ((uint64_t)off < len) {
		ssize_t n = sendfile(to, from, &off, (size_t)(len - (uint64_t)off));

		if (n <= 0)
			return eo_fail(o, n < 0 ? -errno : -EIO, "cannot write: %s",
				       n < 0 ? strerror(errno) : "short write");
	}
	return 0;
}

/* Write the edited sections (same sizes as before) over their old bytes. */
static int patch_sections(struct elfobj *o, int fd)
{
	size_t i, size = 0;
	int err = 0;

	for (i = 1; i < o->shnum && !err; i++) {
		const struct eo_sec *s = &o->secs[i];
		void *host;

		if (o->x[i].rw)
			err = pwrite_all(o, fd, o->x[i].rw, s->size, s->offset);
		if (err || !o->x[i].rels_dirty)
			continue;
		host = eo_rels_to_host(o, o->x[i].rels, o->x[i].nrels, s->type == SHT_RELA, &size);
		if (!host)
			return eo_fail(o, -ENOMEM, "%s", "out of memory");
		err = size == s->size ? put(o, fd, host, size,
					    s->type == SHT_RELA ? ELF_T_RELA : ELF_T_REL, s->offset)
				      : eo_fail(o, -EINVAL, "%s", "relocation section changed size");
		free(host);
	}
	return err;
}

/* Every old section's header, with the links and infos edits gave it. */
static int old_headers(struct elfobj *o, struct tail *t)
{
	size_t i;

	t->total = o->shnum + o->nadded;
	t->sh = big_calloc(t->total, sizeof(*t->sh));
	if (!t->sh)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = 0; i < o->shnum; i++) {
		if (!gelf_getshdr(elf_getscn(o->elf, i), &t->sh[i]))
			return eo_fail_elf(o, "cannot read a section header: %s");
		if (i)
			t->sh[i].sh_link = o->secs[i].link, t->sh[i].sh_info = o->secs[i].info;
	}
	return 0;
}

/* Bytes the placed sections, the new ones and the header table may need. */
static uint64_t tail_capacity(const struct elfobj *o, const struct tail *t, const Elf_Data *d,
			      const size_t *place, size_t nplace)
{
	uint64_t cap = (t->total + 1) * sizeof(Elf64_Shdr) + 64;
	size_t i;

	for (i = 0; i < nplace; i++)
		cap += d[i].d_size + (t->align_old ? t->sh[place[i]].sh_addralign : 0);
	for (i = 0; i < o->nadded; i++)
		cap += o->added[i].size + o->added[i].ns.addralign;
	return cap;
}

/* Put n bytes of host data d at the next offset aligned to align; return where. */
static int place_data(const struct elfobj *o, struct tail *t, uint64_t *p, uint64_t align,
		      const void *buf, size_t size, Elf_Type type)
{
	*p = align_up(*p, align);
	return xlate(o, t->buf + (*p - t->base), buf, size, type);
}

/*
 * Build everything from t->base on: new copies of the old sections in
 * place[], the new sections, the header table.
 */
static int build_tail(struct elfobj *o, struct tail *t, const size_t *place, size_t nplace)
{
	Elf_Data *d = calloc(nplace + 1, sizeof(*d));
	struct eo_scratch s = { 0 };
	uint64_t p = t->base;
	size_t i, size = 0;
	void *host = NULL;
	int err = d ? 0 : eo_fail(o, -ENOMEM, "%s", "out of memory");

	for (i = 0; i < nplace && !err; i++)
		err = eo_fill_section(o, place[i], &d[i], &s);
	if (!err && !(t->buf = big_calloc(1, tail_capacity(o, t, d, place, nplace))))
		err = eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = 0; i < nplace && !err; i++) {
		GElf_Shdr *h = &t->sh[place[i]];

		err = place_data(o, t, &p, t->align_old ? h->sh_addralign : 1, d[i].d_buf,
				 d[i].d_size, d[i].d_type);
		h->sh_offset = p;
		h->sh_size = d[i].d_size;
		p += d[i].d_size;
	}
	for (i = 0; i < o->nadded && !err; i++) {
		const struct newsec *n = &o->added[i];

		err = place_data(o, t, &p, n->ns.addralign, n->buf, n->size, n->type);
		t->sh[o->shnum + i] = (GElf_Shdr){ .sh_name = n->ns.name, .sh_type = n->ns.type,
			.sh_flags = n->ns.flags, .sh_offset = p, .sh_size = n->size,
			.sh_link = n->ns.link, .sh_info = n->ns.info,
			.sh_addralign = n->ns.addralign, .sh_entsize = n->ns.entsize };
		p += n->size;
	}
	if (t->total >= SHN_LORESERVE)
		t->sh[0].sh_size = t->total;	/* the count lives in section 0 */
	t->shoff = align_up(p, o->hdr.word);
	host = err ? NULL : shdrs_to_host(o, t->sh, t->total, &size);
	if (!err && !host)
		err = eo_fail(o, -ENOMEM, "%s", "out of memory");
	if (!err)
		err = xlate(o, t->buf + (t->shoff - t->base), host, size, ELF_T_SHDR);
	t->len = t->shoff - t->base + size;
	if (host != t->sh)
		free(host);
	eo_scratch_free(&s);
	free(d);
	return err;
}

/* The ELF header with the new header table's place and count, at offset 0. */
static int put_ehdr(const struct elfobj *o, int fd, uint64_t shoff, size_t total)
{
	GElf_Ehdr eh = o->ehdr;
	Elf32_Ehdr e32;

	eh.e_shoff = shoff;
	eh.e_shnum = total < SHN_LORESERVE ? (Elf64_Half)total : 0;
	if (o->hdr.elfclass == ELFCLASS64)
		return put(o, fd, &eh, sizeof(eh), ELF_T_EHDR, 0);
	e32 = (Elf32_Ehdr){ .e_type = eh.e_type, .e_machine = eh.e_machine,
		.e_version = eh.e_version, .e_entry = (Elf32_Addr)eh.e_entry,
		.e_phoff = (Elf32_Off)eh.e_phoff, .e_shoff = (Elf32_Off)eh.e_shoff,
		.e_flags = eh.e_flags, .e_ehsize = eh.e_ehsize, .e_phentsize = eh.e_phentsize,
		.e_phnum = eh.e_phnum, .e_shentsize = eh.e_shentsize, .e_shnum = eh.e_shnum,
		.e_shstrndx = eh.e_shstrndx };
	memcpy(e32.e_ident, eh.e_ident, EI_NIDENT);
	return put(o, fd, &e32, sizeof(e32), ELF_T_EHDR, 0);
}

static void tail_free(struct tail *t)
{
	free(t->sh);
	free(t->buf);
}

/* Whether a writable copy of section i's bytes differs from them. */
static bool rw_differs(const struct elfobj *o, size_t i)
{
	Elf_Data *d = o->x[i].rw ? eo_sec_data(o, i) : NULL;

	return d && (d->d_size != o->secs[i].size || memcmp(d->d_buf, o->x[i].rw, d->d_size));
}

/*
 * An old section whose bytes or size the edits changed.  A copy taken for
 * writing but left as it was is not a change: the file stays as it was.
 */
static bool changed(const struct elfobj *o, size_t i)
{
	return eo_grown_group(o, i) || rw_differs(o, i) || o->x[i].rels_dirty || (i == o->shstrndx && o->shstr) ||
	       (i == o->symtab && o->symbuf) || (i == o->shndx_sec && o->shndxbuf);
}

/* The old sections the append layout copies, in index order; NULL on error. */
static size_t *changed_sections(const struct elfobj *o, size_t *n)
{
	size_t *list = big_calloc(o->shnum + 1, sizeof(*list));
	size_t i;

	*n = 0;
	for (i = 1; list && i < o->shnum; i++)
		if (changed(o, i))
			list[(*n)++] = i;
	return list;
}

/*
 * The append layout into fd: the old file first if copy_old (a new file),
 * then the tail, then the ELF header, last, in one write.
 */
int eo_write_append(struct elfobj *o, int fd, bool copy_old)
{
	struct tail t = { .base = o->fsize, .align_old = true };
	size_t n, *place = changed_sections(o, &n);
	int err = place ? old_headers(o, &t) : eo_fail(o, -ENOMEM, "%s", "out of memory");

	if (!err)
		err = build_tail(o, &t, place, n);
	if (!err && o->hdr.elfclass == ELFCLASS32 && t.base + t.len > UINT32_MAX)
		err = eo_fail(o, -EFBIG, "%s", "cannot write: a 32-bit object cannot grow past 4 GiB");
	if (!err && copy_old)
		err = eo_copy_file(o, o->fd, fd, o->fsize);
	if (!err)
		err = pwrite_all(o, fd, t.buf, t.len, t.base);
	if (!err)
		err = put_ehdr(o, fd, t.shoff, t.total);
	free(place);
	tail_free(&t);
	return err;
}

/*
 * The tail layout: objects laid out as gas and LLVM write them, every
 * section's data, then the name table, then the header table at the end.
 */
static bool tail_layout_ok(const struct elfobj *o)
{
	const struct eo_sec *st = &o->secs[o->shstrndx];
	size_t i;

	for (i = 0; i < o->ngroups; i++)
		if (o->groups[i].grown)
			return false;	/* a group grew: sections move */
	if (o->symbuf || o->ehdr.e_phnum || !o->shstrndx ||
	    o->ehdr.e_shoff + (uint64_t)o->shnum * o->ehdr.e_shentsize != o->fsize ||
	    st->offset + st->size > o->ehdr.e_shoff)
		return false;
	for (i = 1; i < o->shnum; i++) {
		const struct eo_sec *s = &o->secs[i];

		if (i != o->shstrndx && s->type != SHT_NOBITS && s->size &&
		    s->offset + s->size > st->offset)
			return false;
	}
	return true;
}

/* The old prefix, the edited sections over it, the new tail, the header. */
static int write_tail_layout(struct elfobj *o, int fd)
{
	/* The name table goes where it was, at base, whatever it claims to need. */
	struct tail t = { .base = o->secs[o->shstrndx].offset };
	size_t place = o->shstrndx;
	int err = old_headers(o, &t);

	if (!err)
		err = build_tail(o, &t, &place, 1);
	if (!err)
		err = eo_copy_file(o, o->fd, fd, t.base);
	if (!err)
		err = patch_sections(o, fd);
	if (!err)
		err = pwrite_all(o, fd, t.buf, t.len, t.base);
	if (!err)
		err = put_ehdr(o, fd, t.shoff, t.total);
	tail_free(&t);
	return err;
}

/*
 * One pass over the sections.  Unedited: a copy.  Appending is taken for a
 * relocatable-style file (no program headers) whose superseded bytes, the
 * old header table and the old copies of what changed, are at most a
 * quarter of it or 16 KiB, and that has no section aligned beyond 4 KiB to
 * copy.  Then the tail layout where the file's order allows, else libelf.
 */
enum eo_layout eo_layout_choose(const struct elfobj *o)
{
	uint64_t dead = (uint64_t)o->shnum * o->ehdr.e_shentsize;
	bool edited = o->nadded > 0, appendable = !o->mem && !o->ehdr.e_phnum && o->shnum;
	size_t i;

	for (i = 1; i < o->shnum; i++) {
		if (!changed(o, i))
			continue;
		edited = true;
		if (o->secs[i].type != SHT_NOBITS)
			dead += o->secs[i].size;
		if (o->secs[i].addralign > APPEND_ALIGN_MAX)
			appendable = false;
	}
	if (!edited)
		return EO_LAYOUT_COPY;
	if (appendable && (dead <= APPEND_DEAD_MIN || dead <= o->fsize / 4))
		return EO_LAYOUT_APPEND;
	return tail_layout_ok(o) ? EO_LAYOUT_TAIL : EO_LAYOUT_LIBELF;
}

int eo_write_layout(struct elfobj *o, enum eo_layout l, int fd)
{
	if (l == EO_LAYOUT_COPY)
		return eo_copy_file(o, o->fd, fd, o->fsize);	/* unchanged: the same bytes */
	return l == EO_LAYOUT_APPEND ? eo_write_append(o, fd, true) : write_tail_layout(o, fd);
}
