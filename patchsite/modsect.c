// SPDX-License-Identifier: GPL-2.0-only
/*
 * A loaded object's section by name, from its file's section headers,
 * as an address in the running image (the events' tables, and any other
 * part of the runtime that reads a section the linker kept).
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

/*
 * 0 with the section's address and size in the image; -ENOENT when the
 * object has no such section (or it is not loaded: SHF_ALLOC unset),
 * -ENOEXEC when its file cannot be read as ELF.
 */
int ps_module_section(const struct ps_module *m, const char *name, uintptr_t *addr,
		      size_t *size)
{
	const Elf64_Ehdr *eh = m->map;
	const Elf64_Shdr *sh, *strs;
	const char *names;

	if (!m->map || m->map_size < sizeof(*eh) || eh->e_shentsize != sizeof(*sh))
		return -ENOEXEC;
	sh = at(m, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(*sh));
	if (!sh || eh->e_shstrndx >= eh->e_shnum)
		return -ENOEXEC;
	strs = &sh[eh->e_shstrndx];
	names = at(m, strs->sh_offset, strs->sh_size);
	if (!names)
		return -ENOEXEC;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= strs->sh_size ||
		    strnlen(names + sh[i].sh_name, strs->sh_size - sh[i].sh_name) ==
			    strs->sh_size - sh[i].sh_name ||
		    strcmp(names + sh[i].sh_name, name))
			continue;
		if (!(sh[i].sh_flags & SHF_ALLOC) || sh[i].sh_type == SHT_NOBITS)
			return -ENOENT;
		*addr = m->bias + sh[i].sh_addr;
		*size = sh[i].sh_size;
		return 0;
	}
	return -ENOENT;
}
