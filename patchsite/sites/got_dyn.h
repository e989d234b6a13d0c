/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What got.c reads of a loaded object's dynamic section (got_dyn.c): its
 * slots by relocation, the version each is needed at, where a call
 * through one goes, and the library that defines it.
 */
#ifndef PS_GOT_DYN_H
#define PS_GOT_DYN_H

#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sites/site.h"

/* The image's dynamic section, its pointers relocated (glibc adjusts them in place, or not). */
struct dyn {
	const Elf64_Sym *sym;
	const char *str;
	size_t strsz;
	const Elf64_Rela *jmprel, *rela;
	size_t jmpsz, relasz;
	bool plt_rela;
	const Elf64_Half *versym;
	const Elf64_Verneed *verneed;
	size_t nverneed;
};

/*
 * One slot a relocation binds: name, version, where, its symbol's st_other,
 * and whether the caller's PLT entry is the function's address for every
 * object (an undefined symbol with a value: non-PIE, where the address is taken).
 */
struct cand {
	const char *name, *version;
	uintptr_t *slot;
	bool known;			/* target and lib found already (got_dlopen.c) */
	uintptr_t target;
	const char *lib;		/* basename, or NULL */
	unsigned char other;
	bool canonical;
	const char *why;		/* never switched: why (found before, got_uses.c) */
};

/* The dynamic section of the object info describes; false without symbols. */
bool got_read_dyn(const struct dl_phdr_info *info, struct dyn *d);
/* The slots of kind type in relocs (bytes of them), into out[n...]; GLOB_DAT: functions only. */
size_t got_collect(const struct dyn *d, uintptr_t bias, const Elf64_Rela *r, size_t bytes,
		   uint32_t type, bool funcs_only, struct cand *out, size_t n);
/* Where a call through c's slot goes (0: nowhere); local: the caller's handle, or NULL. */
uintptr_t got_resolve(const struct ps_module *caller, const struct cand *c, void *local);
#define LIB_NAME_MAX	256		/* bytes kept of a library's basename */
/* The basename of the object holding target, copied into *pool (moved past it); NULL: unknown. */
const char *got_lib_of(uintptr_t target, char **pool);
/* The same for a basename found before (NULL: unknown). */
const char *got_lib_copy(const char *base, char **pool);

#endif
