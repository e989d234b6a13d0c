// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_graph in a runtime loaded into a running process (sites/late.c).
 *
 * What a dlopened runtime lacks: its dlopen/dlclose wrappers do not
 * interpose (the loader notices loads at the next change, sites/sync.c), nor
 * do its longjmp and unwinder wrappers, which function_graph needs to keep
 * its hooked return addresses right.  ps_attach_graph_check refuses
 * function_graph in a process that could longjmp or throw through a hooked
 * frame, by name; the function tracer needs none of them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <string.h>

#include "dyn.h"
#include "record/record.h"
#include "sites/late.h"

static const char *const jumps[] = { "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", NULL };

/* The relocations of one table that name a longjmp function; the first such name, or NULL. */
static const char *jump_import(const ElfW(Rela) *r, size_t size, const ElfW(Sym) *sym,
			       const char *str, size_t strsz)
{
	for (size_t i = 0; r && i < size / sizeof(*r); i++) {
		size_t k = ELF64_R_SYM(r[i].r_info);

		if (!k || sym[k].st_name >= strsz)
			continue;
		for (unsigned j = 0; jumps[j]; j++)
			if (!strcmp(str + sym[k].st_name, jumps[j]))
				return jumps[j];
	}
	return NULL;
}

struct jump_scan {
	const char *obj, *name;
};

/* dl_iterate_phdr: an object whose relocations import a longjmp function. */
static int jump_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct jump_scan *js = arg;
	const ElfW(Rela) *rela = NULL, *jmprel = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL, *hit;
	size_t relasz = 0, pltsz = 0, strsz = 0;

	(void)size;
	for (const ElfW(Dyn) *d = ps_dyn_section(info); d && d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_RELA: rela = ps_dyn_ptr(info, d); break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_JMPREL: jmprel = ps_dyn_ptr(info, d); break;
		case DT_PLTRELSZ: pltsz = d->d_un.d_val; break;
		case DT_SYMTAB: sym = ps_dyn_ptr(info, d); break;
		case DT_STRTAB: str = ps_dyn_ptr(info, d); break;
		case DT_STRSZ: strsz = d->d_un.d_val; break;
		}
	}
	if (!sym || !str)
		return 0;
	hit = jump_import(rela, relasz, sym, str, strsz);
	if (!hit)
		hit = jump_import(jmprel, pltsz, sym, str, strsz);
	if (!hit)
		return 0;
	js->obj = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the program";
	js->name = hit;
	return 1;
}

int ps_attach_graph_check(void)
{
	Dl_info ours, theirs;
	struct jump_scan js = { NULL, NULL };
	void *jump = dlsym(RTLD_DEFAULT, "longjmp");

	/*
	 * Loaded with the program (preloaded, linked in), our wrappers are the
	 * process's: all is seen.  (A non-PIE program's longjmp may resolve to
	 * its own PLT entry, so the address alone does not say.)
	 */
	if (!ps_attach_started_late())
		return 0;
	if (!jump || (dladdr((void *)ps_attach_graph_check, &ours) && dladdr(jump, &theirs) &&
		      ours.dli_fbase == theirs.dli_fbase))
		return 0;
	if (dlsym(RTLD_DEFAULT, "_Unwind_RaiseException")) {
		ps_log(PATCHSITE_LOG_ERROR, "function_graph: libpatchsite was loaded into the running "
		       "process (not preloaded), so its unwinder wrappers are not in effect, and an "
		       "unwinder is loaded (C++ exceptions, pthread_cancel): an unwind through a "
		       "hooked return would crash it; use the function tracer, or start the program "
		       "with patchsite record");
		return -ENOTSUP;
	}
	dl_iterate_phdr(jump_object, &js);
	if (js.obj) {
		ps_log(PATCHSITE_LOG_ERROR, "function_graph: libpatchsite was loaded into the running "
		       "process (not preloaded), so its longjmp wrappers are not in effect, and %s "
		       "calls %s: a jump over a hooked return would crash it; use the function "
		       "tracer, or start the program with patchsite record", js.obj, js.name);
		return -ENOTSUP;
	}
	return 0;
}
