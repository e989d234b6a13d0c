// SPDX-License-Identifier: GPL-2.0-only
/*
 * A loaded object's sections by name.  The image in memory has no section
 * headers; the file that module.c mapped (and checked against the image:
 * same PT_LOADs) has them.  A section is only given out when it is
 * allocated and lies inside one of the file's PT_LOADs, so that its
 * address (bias + sh_addr) is memory of the image.  Everything read from
 * the file is bounds-checked: it is the file as it is on disk.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "internal.h"

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
