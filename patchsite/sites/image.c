// SPDX-License-Identifier: GPL-2.0-only
/*
 * The file behind a loaded object.  The image in memory has no section
 * headers; the file on disk has them, and the symbol tables.  The file is
 * mapped once and checked against the image (same PT_LOADs) before it is
 * trusted; everything read from it is bounds-checked: it is the file as it
 * is on disk.
 *
 * A section is only given out by name (ps_module_section) when it is
 * allocated and lies inside one of the file's PT_LOADs, so that its
 * address (bias + sh_addr) is memory of the image.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sites.h"

uintptr_t ps_page_size(void)
{
	static uintptr_t ps_page;

	if (!ps_page)
		ps_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	return ps_page;
}

uintptr_t ps_page_down(uintptr_t a)
{
	return a & ~(ps_page_size() - 1);
}

uintptr_t ps_page_up(uintptr_t a)
{
	return ps_page_down(a + ps_page_size() - 1);
}

bool ps_module_has_code(const struct ps_module *m, uintptr_t addr, size_t len)
{
	for (unsigned i = 0; i < m->nsegs; i++)
		if (addr >= m->segs[i].lo && addr + len <= m->segs[i].hi && addr + len > addr)
			return true;
	return false;
}


const void *ps_file_at(const struct elf_file *f, uint64_t off, uint64_t len)
{
	if (off > f->size || len > f->size - off)
		return NULL;
	return f->data + off;
}

const char *ps_section_name(const struct elf_file *f, const Elf64_Shdr *s)
{
	if (!f->shstr || s->sh_name >= f->shstr_size)
		return "";
	return f->shstr + s->sh_name;
}

int ps_file_open(struct ps_module *m, struct elf_file *f)
{
	struct stat st;
	void *p;
	int fd;

	memset(f, 0, sizeof(*f));
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -ENOEXEC;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	m->map = p;
	m->map_size = (size_t)st.st_size;
	f->data = p;
	f->size = m->map_size;
	f->eh = p;
	if (memcmp(f->eh->e_ident, ELFMAG, SELFMAG) || f->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    f->eh->e_machine != ps.arch->machine || f->eh->e_shentsize != sizeof(Elf64_Shdr))
		return -ENOEXEC;
	f->sh = ps_file_at(f, f->eh->e_shoff, (uint64_t)f->eh->e_shnum * sizeof(Elf64_Shdr));
	if (!f->sh || f->eh->e_shnum == 0)
		return -ENOEXEC;
	if (f->eh->e_shstrndx < f->eh->e_shnum) {
		const Elf64_Shdr *s = &f->sh[f->eh->e_shstrndx];

		f->shstr = ps_file_at(f, s->sh_offset, s->sh_size);
		f->shstr_size = f->shstr ? s->sh_size : 0;
	}
	return 0;
}

/* The file must describe the image we run: same loadable segments. */
bool ps_file_matches_image(const struct elf_file *f, const struct dl_phdr_info *info)
{
	const Elf64_Phdr *ph = ps_file_at(f, f->eh->e_phoff, (uint64_t)f->eh->e_phnum * sizeof(*ph));
	unsigned nf = 0, ni = 0;

	if (!ph)
		return false;
	for (unsigned i = 0; i < f->eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		nf++;
		for (unsigned j = 0; j < info->dlpi_phnum; j++) {
			const Elf64_Phdr *q = &info->dlpi_phdr[j];

			if (q->p_type == PT_LOAD && q->p_vaddr == ph[i].p_vaddr &&
			    q->p_memsz == ph[i].p_memsz && q->p_flags == ph[i].p_flags)
				ni++;
		}
	}
	return nf && nf == ni;
}

/*
 * The file's bytes at a code address of the module, or NULL.  Only a
 * prediction of what the image holds (text relocations or an earlier
 * patcher may have changed it): start-up reads it to decide, before it
 * touches the text, whether the text will be written.
 */
const uint8_t *ps_module_file_code(const struct ps_module *m, uintptr_t addr, size_t len)
{
	struct elf_file f = { .data = m->map, .size = m->map_size, .eh = m->map };
	const Elf64_Phdr *ph;
	uint64_t va = addr - m->bias;

	if (!m->map || m->map_size < sizeof(Elf64_Ehdr))
		return NULL;
	ph = ps_file_at(&f, f.eh->e_phoff, (uint64_t)f.eh->e_phnum * sizeof(*ph));
	for (unsigned i = 0; ph && i < f.eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va + len > va &&
		    va + len <= ph[i].p_vaddr + ph[i].p_filesz)
			return ps_file_at(&f, ph[i].p_offset + (va - ph[i].p_vaddr), len);
	return NULL;
}

bool ps_image_readable(const struct dl_phdr_info *info, uintptr_t addr, size_t len)
{
	for (unsigned j = 0; j < info->dlpi_phnum; j++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[j];
		uintptr_t lo = info->dlpi_addr + q->p_vaddr;

		if (q->p_type == PT_LOAD && (q->p_flags & PF_R) && addr >= lo &&
		    addr + len <= lo + q->p_memsz)
			return true;
	}
	return false;
}

static const void *at(const struct ps_module *m, uint64_t off, uint64_t len)
{
	if (off > m->map_size || len > m->map_size - off)
		return NULL;
	return (const uint8_t *)m->map + off;
}

static const Elf64_Phdr *phdrs(const struct ps_module *m, unsigned *n)
{
	const Elf64_Ehdr *eh = m->map;

	*n = eh->e_phnum;
	return at(m, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr));
}

/* [va, va + len) of the file's addresses inside one PT_LOAD's memory. */
static bool in_load(const struct ps_module *m, uint64_t va, uint64_t len)
{
	unsigned n;
	const Elf64_Phdr *ph = phdrs(m, &n);

	for (unsigned i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va + len >= va &&
		    va + len <= ph[i].p_vaddr + ph[i].p_memsz)
			return true;
	return false;
}

/* The bytes of m's image from addr to the end of its PT_LOAD; 0 when addr is not in one. */
size_t ps_module_room(const struct ps_module *m, uintptr_t addr)
{
	uint64_t va = addr - m->bias;
	const Elf64_Phdr *ph;
	unsigned n;

	if (!m->file_ok || addr < m->bias || !(ph = phdrs(m, &n)))
		return 0;
	for (unsigned i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
		    va - ph[i].p_vaddr < ph[i].p_memsz)
			return (size_t)(ph[i].p_memsz - (va - ph[i].p_vaddr));
	return 0;
}

/*
 * The section called name in m: its address in memory and size.  0;
 * -ENOENT when m has none (or its file could not be read), -ENOEXEC when
 * the file's section is not memory of the image.
 */
int ps_module_section(const struct ps_module *m, const char *name, uintptr_t *addr, size_t *size)
{
	const Elf64_Ehdr *eh = m->map;
	const Elf64_Shdr *sh, *strs;
	const char *names;

	if (!m->file_ok || !m->map || m->map_size < sizeof(*eh))
		return -ENOENT;
	sh = at(m, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh));
	if (!sh || eh->e_shstrndx >= eh->e_shnum)
		return -ENOENT;
	strs = &sh[eh->e_shstrndx];
	names = at(m, strs->sh_offset, strs->sh_size);
	if (!names)
		return -ENOENT;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		size_t left = strs->sh_size - (sh[i].sh_name < strs->sh_size ? sh[i].sh_name : strs->sh_size);

		if (strnlen(names + strs->sh_size - left, left) == left ||
		    strcmp(names + strs->sh_size - left, name))
			continue;
		if (!(sh[i].sh_flags & SHF_ALLOC) || !in_load(m, sh[i].sh_addr, sh[i].sh_size))
			return -ENOEXEC;
		*addr = m->bias + sh[i].sh_addr;
		*size = sh[i].sh_size;
		return 0;
	}
	return -ENOENT;
}
