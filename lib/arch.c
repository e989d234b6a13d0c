// SPDX-License-Identifier: GPL-2.0-only
/*
 * The registry of arch tables and the few helpers every arch shares.
 */
#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "arch_list.h"

const struct arch *const arch_all[] = {
	&arch_x86_64, &arch_i386, &arch_arm, &arch_aarch64, &arch_mips, &arch_mips64,
	&arch_ppc, &arch_ppc64, &arch_sparc64, &arch_s390x, &arch_sh, &arch_riscv64,
	NULL,
};

const struct arch *arch_find(uint16_t machine, uint8_t elfclass, uint32_t e_flags)
{
	const struct arch *const *a;

	(void)e_flags;
	for (a = arch_all; *a; a++)
		if ((*a)->machine == machine && (*a)->elfclass == elfclass)
			return *a;
	return NULL;
}

bool arch_is_hook(const struct arch *a, const char *name)
{
	const char *const *h;

	if (a->strip_dot && name[0] == '.')
		name++;
	for (h = a->hooks; *h; h++)
		if (!strcmp(*h, name))
			return true;
	return false;
}

const char *arch_reloc_str(const struct arch *a, uint32_t type, char *buf, size_t len)
{
	const char *n = a->reloc_name ? a->reloc_name(type) : NULL;

	if (n)
		return n;
	snprintf(buf, len, "relocation type %u", type);
	return buf;
}

uint64_t arch_rinfo_make(const struct arch *a, uint32_t sym, uint32_t type, bool big_endian)
{
	if (a->rinfo_make)
		return a->rinfo_make(sym, type, big_endian);
	return (uint64_t)sym << 32 | type;
}

void arch_rinfo_split(const struct arch *a, uint64_t info, bool big_endian,
		      uint32_t *sym, uint32_t *type)
{
	if (a->rinfo_split) {
		a->rinfo_split(info, big_endian, sym, type);
	} else {
		*sym = (uint32_t)(info >> 32);
		*type = (uint32_t)info;
	}
}

const char *arch_machine_name(uint16_t machine, uint8_t elfclass)
{
	const struct arch *a = arch_find(machine, elfclass, 0);

	return a ? a->name : arch_unsupported_name(machine);
}
