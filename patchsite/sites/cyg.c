// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sites of an object built with -finstrument-functions: its functions call
 * __cyg_profile_func_enter(this_fn, call_site) after the prologue and
 * __cyg_profile_func_exit(this_fn, call_site) before each return, and those
 * calls reach our definitions (arch/<arch>/cyg.S) instead of glibc's no-ops.
 * Each function symbol gets two sites, never written (SITE_INTERPOSED): its
 * entry at the function's address, which is this_fn, and its exit one byte
 * on, owned by the entry as -mrecord-return's exit sites are.  So function
 * and function_graph trace from the compiler's own calls: the exit call
 * says when the function returns (also when an exception unwinds it), and
 * no return address is hooked.  Filters, want masks and the ops list are
 * the patched sites' own; a call nobody wants costs a lookup and returns.
 *
 * A runtime that came after the program bound its calls (loaded late)
 * would never see them: that object is named and not traced.  The calls
 * themselves come to cyg_dispatch.c.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "scan.h"
#include "sites.h"

/* Does the object import __cyg_profile_func_enter (built with -finstrument-functions)? */
bool ps_cyg_imports(const struct ps_module *m)
{
	const Elf64_Sym *syms = m->symtab;

	for (size_t i = 0; syms && i < m->nsymtab; i++) {
		const char *name = syms[i].st_name < m->strtab_size ?
				   m->strtab + syms[i].st_name : "";

		if (syms[i].st_shndx == SHN_UNDEF &&
		    !strncmp(name, "__cyg_profile_func_enter", 24) &&
		    (name[24] == '\0' || name[24] == '@'))
			return true;
	}
	return false;
}

#ifdef PS_HAVE_CYG
/* Where the program's calls go: ours only if we were in the lookup scope before it bound them. */
static bool calls_reach_us(void)
{
	void *f = dlvsym(RTLD_DEFAULT, "__cyg_profile_func_enter", PS_CYG_VERSION);

	if (!f)
		f = dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter");
	return f == (void *)PS_CYG_ENTER;
}

int ps_cyg_sites(struct ps_module *m)
{
	struct ps_scan_report *rep;
	struct ps_site *sites;
	size_t found = 0, small = 0;
	int err;

	if (!calls_reach_us()) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: built with -finstrument-functions, but its "
		       "calls to __cyg_profile_func_enter/exit were bound before the runtime was "
		       "loaded: not traced (start it with patchsite record or LD_PRELOAD)",
		       m->name);
		return 0;
	}
	err = ps_module_syms(m);
	if (err)
		return err;
	sites = realloc(m->sites, (2 * m->nsyms + 1) * sizeof(*sites));
	if (!sites)
		return -ENOMEM;
	m->sites = sites;
	rep = ps_scan_report_new(m, "cyg");
	for (size_t i = 0; i < m->nsyms; i++) {
		const struct ps_sym *fn = &m->syms[i];

		if (i && fn->addr == m->syms[i - 1].addr)
			continue;	/* an alias of the last one */
		if (fn->size < 2) {
			small++;	/* no room for the exit's address inside it */
			ps_scan_report_miss(rep, fn, PS_SCAN_NO_SIZE);
			continue;
		}
		m->sites[m->nsites++] = (struct ps_site){ .addr = fn->addr, .sym = fn,
							  .kind = SITE_ENTRY_EXITS,
							  .state = SITE_INTERPOSED };
		m->sites[m->nsites] = (struct ps_site){ .addr = fn->addr + 1, .sym = fn,
							.kind = SITE_EXIT, .state = SITE_INTERPOSED,
							.owner = (uint32_t)(m->nsites - 1) };
		m->nsites++;
		found++;
	}
	if (rep)
		rep->found = found;
	ps_log(PATCHSITE_LOG_NOTE, "%s: built with -finstrument-functions: %zu functions traced "
	       "from their calls to __cyg_profile_func_enter/exit (a function that makes none is "
	       "listed but never seen); %zu without a size", m->name, found, small);
	return 0;
}

#else
int ps_cyg_sites(struct ps_module *m)
{
	ps_log(PATCHSITE_LOG_WARNING, "%s: built with -finstrument-functions: its calls to "
	       "__cyg_profile_func_enter/exit are traced on x86-64 and aarch64 only; build with "
	       "-fpatchable-function-entry (patchsite(7) gives this arch's form)", m->name);
	return 0;
}
#endif
