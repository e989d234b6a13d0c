// SPDX-License-Identifier: GPL-2.0-only
/*
 * Edits to an opened object, and writing it out.  Edits stay in host-format
 * buffers; libelf translates them to the file's class and byte order when
 * the new file is laid out, so nothing here depends on the host.
 *
 * elfobj_write() makes a fresh file in one of three layouts, chosen by the
 * input alone, so the same input always gives the same bytes: the two that
 * keep the old bytes where they are (elflayout.c), or libelf laying every
 * section out anew in index order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bigalloc.h"
#include "diag.h"
#include "elfobj_priv.h"

/* Make room for one more symbol in the editable copy of the symbol table. */
static int grow_gsyms(struct elfobj *o)
{
	Elf_Data *d = eo_sec_data(o, o->symtab);
	Elf_Data *xd = o->shndx_sec ? eo_sec_data(o, o->shndx_sec) : NULL;
	GElf_Sym *gs = realloc(o->symbuf, (o->nsyms + 1) * sizeof(*gs));
	Elf32_Word *gx;
	size_t i;

	if (gs)
		o->symbuf = gs;
	gx = realloc(o->shndxbuf, (o->nsyms + 1) * sizeof(*gx));
	if (gx)
		o->shndxbuf = gx;
	if (!gs || !gx)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = o->symbuf_n; i < o->nsyms; i++) {
		gx[i] = 0;
		if (!gelf_getsymshndx(d, xd, (int)i, &gs[i], &gx[i]))
			return eo_fail_elf(o, "cannot read a symbol: %s");
	}
	return 0;
}

/* Every relocation section and group that names symbol from now names to. */
static int renumber_symbol(struct elfobj *o, uint32_t from, uint32_t to)
{
	const struct eo_rel *rels;
	size_t i, k, n;
	int err;

	for (i = 1; i < o->shnum; i++) {
		if (o->secs[i].link != o->symtab)
			continue;
		if (o->secs[i].type == SHT_GROUP && o->secs[i].info == from)
			o->secs[i].info = to;
		if (!elfobj_is_rel_sec(o, i))
			continue;
		if ((err = elfobj_rels(o, i, &rels, &n)))
			return err;
		for (k = 0; k < n; k++) {
			if (rels[k].sym == from) {
				o->x[i].rels[k].sym = to;
				o->x[i].rels_dirty = true;
			}
		}
	}
	return 0;
}

long elfobj_add_local_symbol(struct elfobj *o, size_t sec, uint64_t value, uint8_t type)
{
	uint32_t first_global = o->secs[o->symtab].info;
	uint32_t end = (uint32_t)o->nsyms;
	struct eo_sym *syms;
	GElf_Sym *gsyms;
	Elf32_Word *gxndx;
	int err;

	if (!o->symtab || first_global > end)
		return eo_fail(o, -EINVAL, "%s", "no usable symbol table");
	if (sec >= SHN_LORESERVE && !o->shndx_sec)
		return eo_fail(o, -ENOTSUP, "%s",
			       "cannot add a symbol: no extended section index table");
	if ((err = grow_gsyms(o)))
		return err;
	gsyms = o->symbuf;
	gxndx = o->shndxbuf;
	syms = realloc(o->syms, (o->nsyms + 1) * sizeof(*syms));
	if (!syms)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	o->syms = syms;
	/* The first global moves to the end; the new local takes its place. */
	gsyms[end] = gsyms[first_global];
	gxndx[end] = gxndx[first_global];
	syms[end] = syms[first_global];
	gsyms[first_global] = (GElf_Sym){
		.st_info = GELF_ST_INFO(STB_LOCAL, type),
		.st_shndx = sec < SHN_LORESERVE ? (Elf64_Section)sec : SHN_XINDEX,
		.st_value = value,
	};
	gxndx[first_global] = sec < SHN_LORESERVE ? 0 : (Elf32_Word)sec;
	syms[first_global] = (struct eo_sym){
		.name = "", .shndx = (uint32_t)sec, .defined = true, .value = value,
		.bind = STB_LOCAL, .type = type,
	};
	o->nsyms++;
	o->symbuf_n = o->nsyms;
	o->secs[o->symtab].info = first_global + 1;
	if (first_global < end && (err = renumber_symbol(o, first_global, end)))
		return err;
	return first_global;
}

long elfobj_add_section_symbol(struct elfobj *o, size_t sec)
{
	return elfobj_add_local_symbol(o, sec, 0, STT_SECTION);
}

long elfobj_add_shstr(struct elfobj *o, const char *s)
{
	const struct eo_sec *st = &o->secs[o->shstrndx];
	const uint8_t *old;
	size_t n = strlen(s) + 1;
	char *buf;
	long off;

	if (!o->shstr) {
		old = elfobj_sec_bytes(o, o->shstrndx);
		if (!old || st->type != SHT_STRTAB)
			return eo_fail(o, -EINVAL, "%s", "cannot read the section name table");
		o->shstr = malloc(st->size);
		if (!o->shstr)
			return eo_fail(o, -ENOMEM, "%s", "out of memory");
		memcpy(o->shstr, old, st->size);
		o->shstr_len = st->size;
	}
	buf = realloc(o->shstr, o->shstr_len + n);
	if (!buf)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	memcpy(buf + o->shstr_len, s, n);
	o->shstr = buf;
	off = (long)o->shstr_len;
	o->shstr_len += n;
	return off;
}

/* Relocations in the host form libelf translates from. */
void *eo_rels_to_host(const struct elfobj *o, const struct eo_rel *r, size_t n,
			  bool rela, size_t *size)
{
	bool is64 = o->hdr.elfclass == ELFCLASS64;
	size_t ent = is64 ? (rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel))
			  : (rela ? sizeof(Elf32_Rela) : sizeof(Elf32_Rel));
	uint8_t *buf = calloc(n ? n : 1, ent);
	size_t i;

	for (i = 0; buf && i < n; i++) {
		uint64_t info = !is64 ? ELF32_R_INFO(r[i].sym, r[i].type)
				: o->arch ? arch_rinfo_make(o->arch, r[i].sym, r[i].type,
							    o->hdr.big_endian)
				: GELF_R_INFO(r[i].sym, r[i].type);
		void *e = buf + i * ent;

		if (is64 && rela)
			*(Elf64_Rela *)e = (Elf64_Rela){ r[i].offset, info, r[i].addend };
		else if (is64)
			*(Elf64_Rel *)e = (Elf64_Rel){ r[i].offset, info };
		else if (rela)
			*(Elf32_Rela *)e = (Elf32_Rela){ (Elf32_Addr)r[i].offset,
							 (Elf32_Word)info, (Elf32_Sword)r[i].addend };
		else
			*(Elf32_Rel *)e = (Elf32_Rel){ (Elf32_Addr)r[i].offset, (Elf32_Word)info };
	}
	*size = n * ent;
	return buf;
}

static void *words_to_host(const struct elfobj *o, const uint64_t *w, size_t n, bool word32,
			   size_t *size)
{
	bool is64 = o->hdr.elfclass == ELFCLASS64 && !word32;
	size_t ent = is64 ? sizeof(Elf64_Addr) : sizeof(Elf32_Addr);
	uint8_t *buf = calloc(n ? n : 1, ent);
	size_t i;

	for (i = 0; buf && i < n; i++) {
		if (is64)
			((Elf64_Addr *)buf)[i] = w[i];
		else
			((Elf32_Addr *)buf)[i] = (Elf32_Addr)w[i];
	}
	*size = n * ent;
	return buf;
}

long elfobj_add_section(struct elfobj *o, const struct eo_newsec *ns)
{
	struct newsec *a = realloc(o->added, (o->nadded + 1) * sizeof(*a));
	struct newsec *n;

	if (!a)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	o->added = a;
	n = &a[o->nadded];
	*n = (struct newsec){ .ns = *ns };
	if (ns->rels) {
		n->buf = eo_rels_to_host(o, ns->rels, ns->count, ns->type == SHT_RELA, &n->size);
		n->type = ns->type == SHT_RELA ? ELF_T_RELA : ELF_T_REL;
	} else {
		n->buf = words_to_host(o, ns->words, ns->count, ns->word32, &n->size);
		n->type = ns->word32 && o->hdr.elfclass == ELFCLASS64 ? ELF_T_WORD : ELF_T_ADDR;
	}
	n->ns.words = NULL;
	n->ns.rels = NULL;
	if (!n->buf)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	o->nadded++;
	return (long)(o->shnum + o->nadded - 1);
}

static void *syms_to_host(const struct elfobj *o, size_t *size)
{
	bool is64 = o->hdr.elfclass == ELFCLASS64;
	size_t ent = is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint8_t *buf = calloc(o->nsyms ? o->nsyms : 1, ent);
	GElf_Sym *s = o->symbuf;
	size_t i;

	for (i = 0; buf && i < o->nsyms; i++) {
		if (is64)
			((Elf64_Sym *)buf)[i] = (Elf64_Sym){ s[i].st_name, s[i].st_info,
				s[i].st_other, s[i].st_shndx, s[i].st_value, s[i].st_size };
		else
			((Elf32_Sym *)buf)[i] = (Elf32_Sym){ s[i].st_name, (Elf32_Addr)s[i].st_value,
				(Elf32_Word)s[i].st_size, s[i].st_info, s[i].st_other, s[i].st_shndx };
	}
	*size = o->nsyms * ent;
	return buf;
}

static void *keep(struct eo_scratch *s, void *p)
{
	void **np = p ? realloc(s->p, (s->n + 1) * sizeof(*np)) : NULL;

	if (!np) {
		free(p);
		return NULL;
	}
	s->p = np;
	s->p[s->n++] = p;
	return p;
}

void eo_scratch_free(struct eo_scratch *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->p[i]);
	free(s->p);
	*s = (struct eo_scratch){ 0 };
}

const struct eo_group *eo_grown_group(const struct elfobj *o, size_t sec)
{
	size_t i;

	if (o->secs[sec].type != SHT_GROUP)
		return NULL;	/* asked of every section: no walk of the groups for most */
	for (i = 0; i < o->ngroups; i++)
		if (o->groups[i].sec == sec && o->groups[i].grown)
			return &o->groups[i];
	return NULL;
}

/* The bytes of output section i: the input's, or an edited copy. */
int eo_fill_section(struct elfobj *o, size_t i, Elf_Data *out, struct eo_scratch *s)
{
	const struct eo_sec *sec = &o->secs[i];
	const struct eo_group *grp = eo_grown_group(o, i);
	Elf_Data *in;

	if (sec->type == SHT_NOBITS || sec->size == 0) {
		out->d_type = ELF_T_BYTE;
		out->d_size = sec->size;
		return 0;
	}
	if (!(in = eo_sec_data(o, i)))
		return eo_fail_elf(o, "cannot read a section: %s");
	*out = *in;
	if (grp) {
		out->d_buf = grp->words;
		out->d_size = grp->n * sizeof(*grp->words);
	} else if (o->x[i].rw) {
		out->d_buf = o->x[i].rw;
	} else if (i == o->shstrndx && o->shstr) {
		out->d_buf = o->shstr;
		out->d_size = o->shstr_len;
	} else if (o->x[i].rels_dirty) {
		out->d_buf = keep(s, eo_rels_to_host(o, o->x[i].rels, o->x[i].nrels,
						  sec->type == SHT_RELA, &out->d_size));
	} else if (i == o->symtab && o->symbuf) {
		out->d_buf = keep(s, syms_to_host(o, &out->d_size));
	} else if (i == o->shndx_sec && o->shndxbuf) {
		out->d_buf = o->shndxbuf;
		out->d_size = o->nsyms * sizeof(Elf32_Word);
	}
	if (!out->d_buf)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	return 0;
}

static int add_out_section(struct elfobj *o, Elf *elf, size_t i, struct eo_scratch *s)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh;
	int err;

	if (!d || !gelf_getshdr(o->x[i].scn, &sh))
		return eo_fail_elf(o, "cannot write: %s");
	sh.sh_link = o->secs[i].link;
	sh.sh_info = o->secs[i].info;
	if ((err = eo_fill_section(o, i, d, s)))
		return err;
	d->d_off = 0;
	d->d_version = EV_CURRENT;
	d->d_align = sh.sh_addralign ? sh.sh_addralign : 1;
	if (!gelf_update_shdr(scn, &sh))
		return eo_fail_elf(o, "cannot write: %s");
	return 0;
}

static int add_new_section(struct elfobj *o, Elf *elf, const struct newsec *n)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh = {
		.sh_name = n->ns.name, .sh_type = n->ns.type, .sh_flags = n->ns.flags,
		.sh_link = n->ns.link, .sh_info = n->ns.info,
		.sh_addralign = n->ns.addralign, .sh_entsize = n->ns.entsize,
	};

	if (!d)
		return eo_fail_elf(o, "cannot write: %s");
	*d = (Elf_Data){ .d_buf = n->buf, .d_type = n->type, .d_size = n->size,
			 .d_align = n->ns.addralign ? n->ns.addralign : 1,
			 .d_version = EV_CURRENT };
	if (!gelf_update_shdr(scn, &sh))
		return eo_fail_elf(o, "cannot write: %s");
	return 0;
}

/*
 * libelf pads each section to its sh_addralign: a crafted alignment (2^57)
 * would have it fill a sparse file of that size with zeros for hours.
 * Padding cannot honestly make an object much bigger, so ask libelf for the
 * size first (ELF_C_NULL lays out, writes nothing) and refuse absurd ones.
 */
static int check_layout(const struct elfobj *o, Elf *elf)
{
	uint64_t limit = o->fsize + o->shstr_len + (64u << 20);
	off_t need = elf_update(elf, ELF_C_NULL);
	char msg[160];
	size_t i;

	if (need < 0)
		return eo_fail_elf(o, "cannot write: %s");
	for (i = 0; i < o->nadded; i++)
		limit += o->added[i].size;
	if ((uint64_t)need <= 2 * limit)
		return 0;
	snprintf(msg, sizeof(msg), "%llu bytes for a %llu-byte object",
		 (unsigned long long)need, (unsigned long long)o->fsize);
	return eo_fail(o, -EINVAL, "cannot write: section alignments would make it %s", msg);
}

/* Lay out and write the whole object to fd, a memory file. */
static int write_elf(struct elfobj *o, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_WRITE_MMAP, NULL);
	struct eo_scratch s = { 0 };
	GElf_Ehdr eh = o->ehdr;
	size_t i;
	int err = 0;

	if (!elf || !gelf_newehdr(elf, o->hdr.elfclass)) {
		err = eo_fail_elf(o, "cannot write: %s");
		goto out;
	}
	for (i = 1; i < o->shnum && !err; i++)
		err = add_out_section(o, elf, i, &s);
	for (i = 0; i < o->nadded && !err; i++)
		err = add_new_section(o, elf, &o->added[i]);
	if (err)
		goto out;
	eh.e_shoff = 0;
	eh.e_shstrndx = (Elf64_Half)o->shstrndx;
	if (o->shstrndx >= SHN_LORESERVE) {
		/* The real index lives in section 0's sh_link. */
		GElf_Shdr sh0;
		Elf_Scn *scn0 = elf_getscn(elf, 0);

		if (!scn0 || !gelf_getshdr(scn0, &sh0))
			err = eo_fail_elf(o, "cannot write: %s");
		sh0.sh_link = (Elf64_Word)o->shstrndx;
		eh.e_shstrndx = SHN_XINDEX;
		if (!err && !gelf_update_shdr(scn0, &sh0))
			err = eo_fail_elf(o, "cannot write: %s");
	}
	if (!err && !gelf_update_ehdr(elf, &eh))
		err = eo_fail_elf(o, "cannot write the ELF header: %s");
	if (!err)
		err = check_layout(o, elf);
	errno = 0;
	if (!err && elf_update(elf, ELF_C_WRITE_MMAP) < 0) {
		char msg[300];

		snprintf(msg, sizeof(msg), "%s%s%s", elf_errmsg(-1), errno ? ": " : "",
			 errno ? strerror(errno) : "");
		err = eo_fail(o, errno ? -errno : -EIO, "cannot write: %s", msg);
	}
out:
	if (elf)
		elf_end(elf);
	eo_scratch_free(&s);
	return err;
}


/*
 * Copy the laid-out image into the real file in one go.  libelf writes a
 * mapped file with msync(MS_SYNC), or a plain one with one pwrite per
 * section; laying out in memory and copying once avoids both costs.
 */
static int copy_image(const struct elfobj *o, int from, int to)
{
	off_t size = lseek(from, 0, SEEK_END);

	if (size < 0)
		return eo_fail(o, -errno, "cannot write: %s", strerror(errno));
	return eo_copy_file(o, from, to, (uint64_t)size);
}

int elfobj_write(struct elfobj *o, const char *dest)
{
	enum eo_layout layout = eo_layout_choose(o);
	struct eo_out out = { .fd = -1 };
	int mem = -1, err = 0;

	if (o->mem)
		return eo_fail(o, -EINVAL, "%s", "was read from memory, not a file: cannot write it");
	/*
	 * The file is replaced, not written through, so the directory's
	 * permission alone would let us; a file its owner made read-only is
	 * refused instead of silently replaced.  A new -o file needs none.
	 */
	if (faccessat(AT_FDCWD, dest, W_OK, AT_EACCESS) && errno != ENOENT)
		return eo_fail(o, -errno, "cannot write: %s", strerror(errno));
	if (layout != EO_LAYOUT_LIBELF)
		;	/* written straight into the new file below */
	else if ((mem = memfd_create("elfobj", MFD_CLOEXEC)) < 0)
		err = eo_fail(o, -errno, "cannot write: %s", strerror(errno));
	else
		err = write_elf(o, mem);
	if (!err)
		err = eo_out_open(o, dest, &out);
	/* Keep the owner where we may (root rewriting a user's build tree). */
	if (!err && geteuid() == 0 && fchown(out.fd, o->uid, o->gid))
		err = eo_fail(o, -errno, "cannot keep the owner of the file: %s", strerror(errno));
	if (!err && fchmod(out.fd, o->mode))
		err = eo_fail(o, -errno, "cannot set the mode of the new file: %s", strerror(errno));
	if (!err)
		err = mem >= 0 ? copy_image(o, mem, out.fd) : eo_write_layout(o, layout, out.fd);
	if (!err)
		err = eo_out_commit(o, &out, dest);
	else
		eo_out_abort(&out);
	if (mem >= 0)
		close(mem);
	return err;
}
