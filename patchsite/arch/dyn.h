/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The address a d_ptr entry of a loaded object's dynamic section (found
 * through dl_iterate_phdr) points to.
 *
 * glibc's loader adds the load bias to some of these entries in place
 * (glibc 2.36, elf/get-dynamic-info.h: DT_HASH, DT_PLTGOT, DT_STRTAB,
 * DT_SYMTAB, DT_RELA, DT_REL, DT_JMPREL, DT_VERSYM, DT_GNU_HASH, DT_RELR),
 * and only where it may write the section (dl_relocate_ld): not on an
 * arch that keeps it read-only for its ABI (DL_RO_DYN_SECTION, in
 * sysdeps/mips and sysdeps/riscv: PS_DYN_READONLY in the arch's host.h),
 * nor where the segment holding it has no PF_W (l_ld_readonly: the
 * vDSO's).  Every other d_ptr (DT_VERNEED, DT_VERDEF, ...) keeps the
 * value it was linked with.
 */
#ifndef PS_ARCH_DYN_H
#define PS_ARCH_DYN_H

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>

#include "host.h"

/* Is the object's dynamic section written by the loader (see above)? */
static inline bool ps_dyn_written(const struct dl_phdr_info *info)
{
	if (PS_DYN_READONLY)
		return false;
	for (unsigned i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			return info->dlpi_phdr[i].p_flags & PF_W;
	return false;
}

/* The object's dynamic section; NULL if it has none. */
static inline const ElfW(Dyn) *ps_dyn_section(const struct dl_phdr_info *info)
{
	for (unsigned i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			return (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	return NULL;
}

/* The address the d_ptr entry d of the object points to; NULL for 0 (no table: glibc leaves it). */
static inline const void *ps_dyn_ptr(const struct dl_phdr_info *info, const ElfW(Dyn) *d)
{
	bool relocated = false;

	if (!d->d_un.d_ptr)
		return NULL;
	switch (d->d_tag) {
	case DT_HASH: case DT_PLTGOT: case DT_STRTAB: case DT_SYMTAB: case DT_RELA:
	case DT_REL: case DT_JMPREL: case DT_VERSYM: case DT_GNU_HASH:
#ifdef DT_RELR
	case DT_RELR:
#endif
		relocated = ps_dyn_written(info);
		break;
	}
	return (const void *)(uintptr_t)(d->d_un.d_ptr + (relocated ? 0 : info->dlpi_addr));
}

#endif
