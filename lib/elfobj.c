// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one module that calls libelf.  Opening checks every offset the tools
 * will follow (section bounds, names, symbol and link indices) so that code
 * above this layer can trust what it is given.  Writing re-creates the
 * whole file through libelf's own layout, so an edited object carries no
 * stale copies of headers or string tables, and identical input gives
 * identical output.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "bigalloc.h"
#include "diag.h"
#include "elfobj.h"
#include "elfobj_priv.h"

int eo_fail(const struct elfobj *o, int err, const char *fmt, const char *arg)
{
	char msg[512];

	snprintf(msg, sizeof(msg), fmt, arg);
	diag_err(o->path, "%s", msg);
	return err;
}

int eo_fail_elf(const struct elfobj *o, const char *what)
{
	return eo_fail(o, -EINVAL, what, elf_errmsg(-1));
}

/* The first four bytes of the file (or image), zeros when it is shorter. */
static void peek4(const struct elfobj *o, unsigned char m[4])
{
	memset(m, 0, 4);
	if (o->fsize < 4)
		return;
	if (o->mem)
		memcpy(m, o->mem, 4);
	else if (pread(o->fd, m, 4, 0) != 4)
		memset(m, 0, 4);
}

static bool is_bitcode(const struct elfobj *o)
{
	unsigned char m[4];

	peek4(o, m);
	/* Raw bitcode "BC\xc0\xde", or the bitcode wrapper 0x0b17c0de. */
	return (m[0] == 'B' && m[1] == 'C' && m[2] == 0xc0 && m[3] == 0xde) ||
	       (m[0] == 0xde && m[1] == 0xc0 && m[2] == 0x17 && m[3] == 0x0b);
}

static bool is_elf_magic(const struct elfobj *o)
{
	unsigned char m[4];

	peek4(o, m);
	return !memcmp(m, ELFMAG, SELFMAG);
}

static int fail_truncated(struct elfobj *o)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "%llu bytes", (unsigned long long)o->fsize);
	return eo_fail(o, -EINVAL, "is not an ELF file: it ends inside the ELF header (%s)", msg);
}

static int check_kind(struct elfobj *o)
{
	switch (elf_kind(o->elf)) {
	case ELF_K_ELF:
		return 0;
	case ELF_K_AR:
		return eo_fail(o, -EINVAL, "%s", "is an ar archive, not an ELF object");
	default:
		if (is_bitcode(o))
			return eo_fail(o, -EINVAL, "%s",
				    "is LLVM bitcode (LTO), not an ELF object");
		if (o->fsize == 0)
			return eo_fail(o, -EINVAL, "%s", "is empty, not an ELF object");
		if (o->fsize < sizeof(Elf64_Ehdr) && is_elf_magic(o))
			return fail_truncated(o);
		return eo_fail(o, -EINVAL, "%s", "is not an ELF file");
	}
}

static int read_header(struct elfobj *o)
{
	if (!gelf_getehdr(o->elf, &o->ehdr))
		return eo_fail_elf(o, "bad ELF header: %s");
	if (o->ehdr.e_ident[EI_DATA] != ELFDATA2LSB && o->ehdr.e_ident[EI_DATA] != ELFDATA2MSB)
		return eo_fail(o, -EINVAL, "%s", "bad ELF header: unknown byte order");
	o->hdr.type = o->ehdr.e_type;
	o->hdr.machine = o->ehdr.e_machine;
	o->hdr.elfclass = (uint8_t)gelf_getclass(o->elf);
	o->hdr.big_endian = o->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	o->hdr.flags = o->ehdr.e_flags;
	o->hdr.word = o->hdr.elfclass == ELFCLASS64 ? 8 : 4;
	o->arch = arch_find(o->hdr.machine, o->hdr.elfclass, o->hdr.flags);
	if (elf_getshdrnum(o->elf, &o->shnum) || elf_getshdrstrndx(o->elf, &o->shstrndx))
		return eo_fail_elf(o, "bad section header table: %s");
	/*
	 * libelf quietly sees fewer sections (or none) when their table runs
	 * past the end of the file: check against the header's own count.
	 */
	if (o->ehdr.e_shnum && o->shnum != o->ehdr.e_shnum)
		return eo_fail(o, -EINVAL, "%s",
			       "section header table extends past the end of the file");
	/* A table has at least its null entry: libelf reports 0 for a bad extended count. */
	if (o->ehdr.e_shoff && !o->shnum)
		return eo_fail(o, -EINVAL, "%s", "bad section count (e_shnum 0 and no valid "
			       "extended count in section 0)");
	if (o->ehdr.e_shoff && (o->ehdr.e_shoff > o->fsize ||
				(uint64_t)o->shnum * o->ehdr.e_shentsize > o->fsize - o->ehdr.e_shoff))
		return eo_fail(o, -EINVAL, "%s",
			       "section header table extends past the end of the file");
	if (o->ehdr.e_shoff && o->shnum && o->ehdr.e_shentsize != gelf_fsize(o->elf, ELF_T_SHDR, 1,
									      EV_CURRENT))
		return eo_fail(o, -EINVAL, "%s", "bad section header size");
	/* Without sections there is no name table either: e_shstrndx must be 0. */
	if ((o->shnum || o->shstrndx) && o->shstrndx >= o->shnum)
		return eo_fail(o, -EINVAL, "%s", "section name table index out of range");
	return 0;
}

/* A string table must end in a NUL byte, or its last string runs off its end. */
static int check_strtab(struct elfobj *o, size_t idx, const char *what)
{
	size_t raw_size;
	const char *raw = elf_rawfile(o->elf, &raw_size);
	GElf_Shdr sh;

	if (!raw || !gelf_getshdr(elf_getscn(o->elf, idx), &sh) || sh.sh_type != SHT_STRTAB ||
	    !sh.sh_size || sh.sh_offset > raw_size || sh.sh_size > raw_size - sh.sh_offset)
		return 0;	/* reported where the table is read */
	if (raw[sh.sh_offset + sh.sh_size - 1])
		return eo_fail(o, -EINVAL, "%s does not end in a NUL byte", what);
	return 0;
}

struct extent {
	uint64_t start, end;
	size_t sec;		/* 0: the ELF header or the section header table */
};

static int cmp_extent(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static const char *extent_name(const struct elfobj *o, const struct extent *e)
{
	return e->sec ? o->secs[e->sec].name : e->start ? "the section header table"
							  : "the ELF header";
}

/*
 * No two sections share bytes, nor does a section share them with the
 * headers: an edit patched into one would silently change the other.
 */
static int check_overlaps(struct elfobj *o)
{
	struct extent *e = big_calloc(o->shnum + 2, sizeof(*e));
	size_t i, n = 0;
	int err = 0;

	if (!e)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	e[n++] = (struct extent){ 0, gelf_fsize(o->elf, ELF_T_EHDR, 1, EV_CURRENT), 0 };
	if (o->ehdr.e_shoff)
		e[n++] = (struct extent){ o->ehdr.e_shoff,
			o->ehdr.e_shoff + (uint64_t)o->shnum * o->ehdr.e_shentsize, 0 };
	for (i = 1; i < o->shnum; i++)
		if (o->secs[i].type != SHT_NOBITS && o->secs[i].size)
			e[n++] = (struct extent){ o->secs[i].offset,
						  o->secs[i].offset + o->secs[i].size, i };
	qsort(e, n, sizeof(*e), cmp_extent);
	for (i = 1; i < n && !err; i++) {
		char msg[300];

		if (e[i].start >= e[i - 1].end)
			continue;
		snprintf(msg, sizeof(msg), "%s%s overlaps %s%s", e[i].sec ? "section " : "",
			 extent_name(o, &e[i]), e[i - 1].sec ? "section " : "",
			 extent_name(o, &e[i - 1]));
		err = eo_fail(o, -EINVAL, "%s", msg);
	}
	free(e);
	return err;
}

static int read_section(struct elfobj *o, size_t i)
{
	struct eo_sec *s = &o->secs[i];
	GElf_Shdr sh;
	const char *name;

	o->x[i].scn = elf_getscn(o->elf, i);
	if (!o->x[i].scn || !gelf_getshdr(o->x[i].scn, &sh))
		return eo_fail_elf(o, "cannot read a section header: %s");
	name = elf_strptr(o->elf, o->shstrndx, sh.sh_name);
	if (!name)
		return eo_fail(o, -EINVAL, "%s", "a section name offset is out of range");
	*s = (struct eo_sec){
		.name = name, .type = sh.sh_type, .link = sh.sh_link, .info = sh.sh_info,
		.flags = sh.sh_flags, .addr = sh.sh_addr, .offset = sh.sh_offset,
		.size = sh.sh_size, .entsize = sh.sh_entsize, .addralign = sh.sh_addralign,
	};
	if (s->type != SHT_NOBITS && (s->offset > o->fsize || s->size > o->fsize - s->offset))
		return eo_fail(o, -EINVAL, "section %s extends past the end of the file", name);
	if (s->link >= o->shnum && (s->type == SHT_REL || s->type == SHT_RELA ||
				    s->type == SHT_SYMTAB || s->type == SHT_SYMTAB_SHNDX))
		return eo_fail(o, -EINVAL, "section %s: sh_link out of range", name);
	if ((s->type == SHT_REL || s->type == SHT_RELA) && s->info >= o->shnum)
		return eo_fail(o, -EINVAL, "section %s: sh_info out of range", name);
	return 0;
}

Elf_Data *eo_sec_data(const struct elfobj *o, size_t i)
{
	struct secx *x = &o->x[i];

	if (!x->data)
		x->data = elf_getdata(x->scn, NULL);
	return x->data;
}

static int read_symbols(struct elfobj *o)
{
	Elf_Data *d, *xd = NULL, *sd;
	const char *str = NULL;
	size_t i, strtab;

	for (i = 1; i < o->shnum && !o->symtab; i++)
		if (o->secs[i].type == SHT_SYMTAB)
			o->symtab = i;
	if (!o->symtab)
		return 0;
	for (i = 1; i < o->shnum; i++)
		if (o->secs[i].type == SHT_SYMTAB_SHNDX && o->secs[i].link == o->symtab)
			o->shndx_sec = i;
	strtab = o->secs[o->symtab].link;
	if (o->secs[strtab].type != SHT_STRTAB)
		return eo_fail(o, -EINVAL, "%s", "symbol table does not link to a string table");
	if (check_strtab(o, strtab, "the symbol string table"))
		return -EINVAL;
	d = eo_sec_data(o, o->symtab);
	if (!d)
		return eo_fail_elf(o, "cannot read the symbol table: %s");
	if (o->shndx_sec && !(xd = eo_sec_data(o, o->shndx_sec)))
		return eo_fail_elf(o, "cannot read the extended section index table: %s");
	sd = eo_sec_data(o, strtab);
	/* A NUL-terminated table is indexed directly (elf_strptr: a tenth of the time). */
	if (sd && sd->d_buf && sd->d_size && !((const char *)sd->d_buf)[sd->d_size - 1])
		str = sd->d_buf;
	o->nsyms = d->d_size / gelf_fsize(o->elf, ELF_T_SYM, 1, EV_CURRENT);
	o->syms = big_calloc(o->nsyms ? o->nsyms : 1, sizeof(*o->syms));
	if (!o->syms)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = 0; i < o->nsyms; i++) {
		struct eo_sym *s = &o->syms[i];
		GElf_Sym sym;
		Elf32_Word xndx = 0;

		if (!gelf_getsymshndx(d, xd, (int)i, &sym, &xndx))
			return eo_fail_elf(o, "cannot read a symbol: %s");
		if (str)
			s->name = sym.st_name < sd->d_size ? str + sym.st_name : NULL;
		else
			s->name = elf_strptr(o->elf, strtab, sym.st_name);
		if (!s->name)
			return eo_fail(o, -EINVAL, "%s", "symbol name offset out of range");
		s->value = sym.st_value;
		s->size = sym.st_size;
		s->bind = GELF_ST_BIND(sym.st_info);
		s->type = GELF_ST_TYPE(sym.st_info);
		s->shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		s->defined = s->shndx != SHN_UNDEF && s->shndx < o->shnum &&
			     (sym.st_shndx < SHN_LORESERVE || sym.st_shndx == SHN_XINDEX);
	}
	return 0;
}

static int open_file(struct elfobj *o)
{
	struct stat st;

	/* O_NONBLOCK: a FIFO must be refused below, not wait for a writer. */
	o->fd = open(o->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (o->fd < 0)
		return eo_fail(o, -errno, "%s", strerror(errno));
	if (fstat(o->fd, &st))
		return eo_fail(o, -errno, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return eo_fail(o, -EINVAL, "%s", S_ISDIR(st.st_mode) ? "is a directory"
								: "is not a regular file");
	o->mode = st.st_mode & 07777;
	o->uid = st.st_uid;
	o->gid = st.st_gid;
	o->fsize = (uint64_t)st.st_size;
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf && o->fsize < sizeof(Elf64_Ehdr))
		return fail_truncated(o);
	if (!o->elf)
		return eo_fail_elf(o, "cannot read: %s");
	return check_kind(o);
}

/* An image already in memory (decompressed, an archive member, standard input). */
static int open_image(struct elfobj *o)
{
	o->elf = elf_memory(o->mem, o->fsize);
	if (!o->elf && o->fsize < sizeof(Elf64_Ehdr))
		return fail_truncated(o);
	if (!o->elf)
		return eo_fail_elf(o, "cannot read: %s");
	return check_kind(o);
}

static void init_libelf(void)
{
	elf_version(EV_CURRENT);
}

/* libelf's version is set once, whichever thread opens a file first. */
void eo_libelf_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, init_libelf);
}

static int open_common(const char *path, void *image, size_t size, struct elfobj **out)
{
	struct elfobj *o = calloc(1, sizeof(*o));
	size_t i;
	int err;

	*out = NULL;
	if (!o || !(o->path = strdup(path))) {
		free(o);
		diag_err(path, "out of memory");
		return -ENOMEM;
	}
	o->fd = -1;
	eo_libelf_init();
	if (image) {
		o->mem = image;
		o->fsize = size;
		err = open_image(o);
	} else {
		err = open_file(o);
	}
	if (!err)
		err = read_header(o);
	if (err)
		goto out;
	o->secs = big_calloc(o->shnum + 1, sizeof(*o->secs));
	o->x = big_calloc(o->shnum + 1, sizeof(*o->x));
	if (!o->secs || !o->x) {
		err = eo_fail(o, -ENOMEM, "%s", "out of memory");
		goto out;
	}
	o->secs[0].name = "";	/* the null section: named, so no caller meets NULL */
	if (o->shnum)
		err = check_strtab(o, o->shstrndx, "the section name table");
	for (i = 1; i < o->shnum && !err; i++)
		err = read_section(o, i);
	if (!err)
		err = check_overlaps(o);
	if (!err)
		err = read_symbols(o);
out:
	if (err) {
		elfobj_close(o);
		return err;
	}
	*out = o;
	return 0;
}

int elfobj_open(const char *path, struct elfobj **out)
{
	return open_common(path, NULL, 0, out);
}

int elfobj_open_image(const char *name, void *image, size_t size, struct elfobj **out)
{
	static char empty[1];

	/* libelf refuses a NULL image; an empty one is still "empty, not an ELF object". */
	return open_common(name, image ? image : empty, image ? size : 0, out);
}

void elfobj_close(struct elfobj *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; o->x && i < o->shnum; i++) {
		free(o->x[i].rw);
		free(o->x[i].rels);
	}
	for (i = 0; i < o->nadded; i++)
		free(o->added[i].buf);
	free(o->added);
	for (i = 0; i < o->ngroups; i++)
		free(o->groups[i].words);
	free(o->groups);
	free(o->group_of);
	free(o->shstr);
	free(o->symbuf);
	free(o->shndxbuf);
	free(o->syms);
	free(o->secs);
	free(o->x);
	if (o->elf)
		elf_end(o->elf);
	if (o->fd >= 0)
		close(o->fd);
	free(o->path);
	free(o);
}

const char *elfobj_path(const struct elfobj *o) { return o->path; }
const struct eo_hdr *elfobj_hdr(const struct elfobj *o) { return &o->hdr; }
const struct arch *elfobj_arch(const struct elfobj *o) { return o->arch; }
size_t elfobj_shnum(const struct elfobj *o) { return o->shnum; }
size_t elfobj_symtab_index(const struct elfobj *o) { return o->symtab; }
size_t elfobj_nsyms(const struct elfobj *o) { return o->nsyms; }

const struct eo_sec *elfobj_sec(const struct elfobj *o, size_t idx)
{
	return idx < o->shnum ? &o->secs[idx] : NULL;
}

const struct eo_sym *elfobj_sym(const struct elfobj *o, size_t idx)
{
	return idx < o->nsyms ? &o->syms[idx] : NULL;
}

size_t elfobj_sym_index(const struct elfobj *o, const struct eo_sym *sym)
{
	return (size_t)(sym - o->syms);
}

size_t elfobj_find_sec(const struct elfobj *o, const char *name)
{
	size_t i;

	for (i = 1; i < o->shnum; i++)
		if (!strcmp(o->secs[i].name, name))
			return i;
	return 0;
}

const uint8_t *elfobj_sec_bytes(const struct elfobj *o, size_t idx)
{
	Elf_Data *d;

	if (idx == 0 || idx >= o->shnum || o->secs[idx].type == SHT_NOBITS)
		return NULL;
	if (o->x[idx].rw)
		return o->x[idx].rw;
	d = eo_sec_data(o, idx);
	if (!d || d->d_size != o->secs[idx].size)
		return NULL;
	return d->d_buf;
}

uint8_t *elfobj_sec_bytes_rw(struct elfobj *o, size_t idx)
{
	const uint8_t *b = elfobj_sec_bytes(o, idx);
	struct secx *x = &o->x[idx];

	if (!b || x->rw)
		return x->rw;
	x->rw = malloc(o->secs[idx].size);
	if (x->rw)
		memcpy(x->rw, b, o->secs[idx].size);
	return x->rw;
}

bool elfobj_is_rel_sec(const struct elfobj *o, size_t idx)
{
	return idx < o->shnum && (o->secs[idx].type == SHT_REL || o->secs[idx].type == SHT_RELA);
}

/*
 * Entry i of a relocation section.  A 64-bit RELA entry is read from
 * libelf's translated (host order) array directly: gelf_getrela() per
 * entry was a fifth of recordmcount's instructions.  False: unreadable.
 */
static bool rel_read(const struct elfobj *o, Elf_Data *d, bool rela, size_t i, GElf_Rela *ra)
{
	const Elf64_Rela *v = d->d_buf;
	GElf_Rel rl;

	if (rela && o->hdr.elfclass == ELFCLASS64 && d->d_type == ELF_T_RELA && v &&
	    (i + 1) * sizeof(*v) <= d->d_size) {
		ra->r_offset = v[i].r_offset;
		ra->r_info = v[i].r_info;
		ra->r_addend = v[i].r_addend;
		return true;
	}
	if (rela)
		return gelf_getrela(d, (int)i, ra);
	if (!gelf_getrel(d, (int)i, &rl))
		return false;
	ra->r_offset = rl.r_offset;
	ra->r_info = rl.r_info;
	return true;
}

static int decode_rels(struct elfobj *o, size_t idx)
{
	struct secx *x = &o->x[idx];
	bool rela = o->secs[idx].type == SHT_RELA;
	Elf_Data *d = eo_sec_data(o, idx);
	size_t i, n;

	if (!d)
		return eo_fail_elf(o, "cannot read relocations: %s");
	n = d->d_size / gelf_fsize(o->elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
	/* Every field of every entry is set below: no need to zero them first. */
	x->rels = malloc((n ? n : 1) * sizeof(*x->rels));
	if (!x->rels)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (i = 0; i < n; i++) {
		struct eo_rel *r = &x->rels[i];
		GElf_Rela ra = { 0 };

		if (!rel_read(o, d, rela, i, &ra))
			return eo_fail_elf(o, "cannot read a relocation: %s");
		r->offset = ra.r_offset;
		r->addend = ra.r_addend;
		/* gelf gives ELF32 r_info in the ELF64 layout already. */
		if (o->arch && o->hdr.elfclass == ELFCLASS64) {
			arch_rinfo_split(o->arch, ra.r_info, o->hdr.big_endian, &r->sym, &r->type);
		} else {
			r->sym = (uint32_t)GELF_R_SYM(ra.r_info);
			r->type = (uint32_t)GELF_R_TYPE(ra.r_info);
		}
		if (o->secs[idx].link == o->symtab && r->sym >= o->nsyms)
			return eo_fail(o, -EINVAL, "relocation section %s: symbol index out of range",
				    o->secs[idx].name);
	}
	x->nrels = n;
	return 0;
}

int elfobj_rels(struct elfobj *o, size_t idx, const struct eo_rel **rels, size_t *n)
{
	int err;

	if (!elfobj_is_rel_sec(o, idx))
		return -EINVAL;
	if (!o->x[idx].rels && (err = decode_rels(o, idx)))
		return err;
	*rels = o->x[idx].rels;
	*n = o->x[idx].nrels;
	return 0;
}

int elfobj_set_rel(struct elfobj *o, size_t idx, size_t k, const struct eo_rel *rel)
{
	if (!elfobj_is_rel_sec(o, idx) || !o->x[idx].rels || k >= o->x[idx].nrels)
		return -EINVAL;
	o->x[idx].rels[k] = *rel;
	o->x[idx].rels_dirty = true;
	return 0;
}

