// SPDX-License-Identifier: GPL-2.0-only
/*
 * A loaded object's dynamic section, as got.c needs it (got_dyn.h): the
 * pointers in it are relocated by glibc in place or not (arch/dyn.h), DT_REL
 * PLTs are not ours, and a lazy slot is resolved as the dynamic linker's
 * global scope would resolve it.
 */
#include <dlfcn.h>
#include <string.h>

#include "dyn.h"
#include "got_dyn.h"
#include "sites.h"

bool got_read_dyn(const struct dl_phdr_info *info, struct dyn *d)
{
	memset(d, 0, sizeof(*d));
	for (const Elf64_Dyn *dy = ps_dyn_section(info); dy && dy->d_tag != DT_NULL; dy++) {
		switch (dy->d_tag) {
		case DT_SYMTAB: d->sym = ps_dyn_ptr(info, dy); break;
		case DT_STRTAB: d->str = ps_dyn_ptr(info, dy); break;
		case DT_STRSZ: d->strsz = dy->d_un.d_val; break;
		case DT_JMPREL: d->jmprel = ps_dyn_ptr(info, dy); break;
		case DT_PLTRELSZ: d->jmpsz = dy->d_un.d_val; break;
		case DT_PLTREL: d->plt_rela = dy->d_un.d_val == DT_RELA; break;
		case DT_RELA: d->rela = ps_dyn_ptr(info, dy); break;
		case DT_RELASZ: d->relasz = dy->d_un.d_val; break;
		case DT_VERSYM: d->versym = ps_dyn_ptr(info, dy); break;
		case DT_VERNEED: d->verneed = ps_dyn_ptr(info, dy); break;
		case DT_VERNEEDNUM: d->nverneed = dy->d_un.d_val; break;
		}
	}
	if (!d->plt_rela)
		d->jmprel = NULL;	/* DT_REL PLTs are not x86-64's or aarch64's */
	return d->sym && d->str;
}

/* The version a symbol is needed at ("GLIBC_2.2.5"), or NULL. */
static const char *needed_version(const struct dyn *d, size_t sym)
{
	const Elf64_Verneed *vn = d->verneed;
	unsigned v;

	if (!d->versym || !vn)
		return NULL;
	v = d->versym[sym] & 0x7fff;
	if (v < 2)
		return NULL;
	for (size_t i = 0; i < d->nverneed; i++) {
		const Elf64_Vernaux *a = (const Elf64_Vernaux *)((const char *)vn + vn->vn_aux);

		for (unsigned k = 0; k < vn->vn_cnt; k++) {
			if (a->vna_other == v && a->vna_name < d->strsz)
				return d->str + a->vna_name;
			a = (const Elf64_Vernaux *)((const char *)a + a->vna_next);
		}
		if (!vn->vn_next)
			break;
		vn = (const Elf64_Verneed *)((const char *)vn + vn->vn_next);
	}
	return NULL;
}

/* The slots of kind type in relocs (bytes of them); GLOB_DAT: functions only. */
size_t got_collect(const struct dyn *d, uintptr_t bias, const Elf64_Rela *r, size_t bytes,
		   uint32_t type, bool funcs_only, struct cand *out, size_t n)
{
	for (size_t i = 0; r && i < bytes / sizeof(*r); i++) {
		size_t si = ELF64_R_SYM(r[i].r_info);
		const Elf64_Sym *s = &d->sym[si];
		unsigned st = ELF64_ST_TYPE(s->st_info);

		if (ELF64_R_TYPE(r[i].r_info) != type || !si || s->st_name >= d->strsz)
			continue;
		/* An addend: a pointer into the function (riscv's R_RISCV_64), not a slot of it. */
		if (funcs_only && ((st != STT_FUNC && st != STT_GNU_IFUNC) || r[i].r_addend))
			continue;
		if (out) {
			out[n].name = d->str + s->st_name;
			out[n].version = needed_version(d, si);
			out[n].slot = (uintptr_t *)(bias + r[i].r_offset);
			out[n].other = s->st_other;
			out[n].canonical = s->st_shndx == SHN_UNDEF && s->st_value;
		}
		n++;
	}
	return n;
}

/*
 * Where a call through the slot goes: what it holds once bound; while it
 * still points into its own object (a lazy PLT entry) the symbol looked up
 * as the dynamic linker's global scope would.  0: nowhere (weak, unbound).
 */
/* The name in one scope: the first object's definition, and the needed version of it. */
static void look_up(void *scope, const struct cand *c, void **first, void **exact)
{
	*first = dlsym(scope, c->name);
	*exact = c->version ? dlvsym(scope, c->name, c->version) : NULL;
	if (!*first || (c->version && !*exact))
		dlerror();	/* a name not there is no error of the program's */
}

uintptr_t got_resolve(const struct ps_module *caller, const struct cand *c, void *local)
{
	uintptr_t cur = __atomic_load_n(c->slot, __ATOMIC_RELAXED);
	void *first, *exact;
	Dl_info a, b;

	if (!cur || !ps_module_has_code(caller, cur, 1))
		return cur;
	/*
	 * The first object in the scope that defines the name wins, as in the
	 * dynamic linker: an interposer without versions (a sanitizer's malloc)
	 * too, where dlvsym would skip it.  Within that object, the version the
	 * slot needs (an old memcpy@GLIBC_2.2.5, not the default).  A dlopened
	 * object searches the global scope, then its own (local) one: local is
	 * its handle, whose dlsym searches it and its dependencies.
	 */
	look_up(RTLD_DEFAULT, c, &first, &exact);
	if (!first && !exact && local)
		look_up(local, c, &first, &exact);
	if (!first || !exact)
		return (uintptr_t)(first ? first : exact);
	if (dladdr(first, &a) && dladdr(exact, &b) && a.dli_fbase == b.dli_fbase)
		return (uintptr_t)exact;
	return (uintptr_t)first;
}

const char *got_lib_of(uintptr_t target, char **pool)
{
	Dl_info di;

	if (!dladdr((void *)target, &di) || !di.dli_fname)
		return NULL;
	return got_lib_copy(strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1
			    : di.dli_fname, pool);
}

const char *got_lib_copy(const char *base, char **pool)
{
	size_t len;

	if (!base)
		return NULL;
	len = strnlen(base, LIB_NAME_MAX - 1);
	memcpy(*pool, base, len);
	(*pool)[len] = '\0';
	*pool += len + 1;
	return *pool - len - 1;
}

