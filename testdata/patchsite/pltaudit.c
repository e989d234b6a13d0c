// SPDX-License-Identifier: GPL-2.0-only
/*
 * The oracle of the library-call tests (tests/patchsite/libcall.sh,
 * libcall_dl.sh, tests/patchsite-qemu/libcall.sh): an rtld-audit
 * library (LD_AUDIT=pltaudit.so) the dynamic linker calls at each call
 * through a PLT slot, independent of patchsite.  Into $AUDIT_OUT, one line
 * a call: "symbol" for the executable's calls; with AUDIT_ALL set, every
 * object's, as "caller symbol" (caller: the object's basename, "exe" for a
 * name without a slash, the executable's empty one among them).  One
 * write(2) a line, so that threads' lines stay whole.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int out = -1;
static int all;

unsigned int la_version(unsigned int v)
{
	const char *p = getenv("AUDIT_OUT");

	if (p)
		out = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	all = getenv("AUDIT_ALL") != NULL;
	return v < LAV_CURRENT ? v : LAV_CURRENT;
}

unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)lmid;
	*cookie = (uintptr_t)map;
	return map->l_name[0] == '\0' || all ? LA_FLG_BINDFROM | LA_FLG_BINDTO : LA_FLG_BINDTO;
}

static void said(const uintptr_t *refcook, const char *symname)
{
	const char *caller = ((const struct link_map *)*refcook)->l_name;
	char line[512];
	int n;

	if (all) {
		caller = strrchr(caller, '/') ? strrchr(caller, '/') + 1 : "exe";
		n = snprintf(line, sizeof(line), "%s %s\n", caller, symname);
	} else {
		n = snprintf(line, sizeof(line), "%s\n", symname);
	}
	if (out >= 0 && n > 0 && n < (int)sizeof(line))
		(void)!write(out, line, (size_t)n);
}

#if defined(__x86_64__)
ElfW(Addr) la_x86_64_gnu_pltenter(ElfW(Sym) *sym, unsigned int ndx, uintptr_t *refcook,
				  uintptr_t *defcook, La_x86_64_regs *regs, unsigned int *flags,
				  const char *symname, long int *framesizep)
#elif defined(__aarch64__)
ElfW(Addr) la_aarch64_gnu_pltenter(ElfW(Sym) *sym, unsigned int ndx, uintptr_t *refcook,
				   uintptr_t *defcook, La_aarch64_regs *regs, unsigned int *flags,
				   const char *symname, long int *framesizep)
#else
#error "pltaudit.c: no la_*_gnu_pltenter for this arch (riscv64's glibc calls none)"
#endif
{
	(void)ndx, (void)defcook, (void)regs, (void)flags, (void)framesizep;
	said(refcook, symname);
	return sym->st_value;
}
