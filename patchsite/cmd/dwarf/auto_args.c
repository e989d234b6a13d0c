// SPDX-License-Identifier: GPL-2.0-only
/*
 * record -a (uftrace's -a, the kernel's funcgraph-args): each function of a
 * -g program shown with its arguments by name and type and its return
 * value.  The command reads the program's DWARF once: every subprogram
 * with code is a probe on its symbol, each parameter resolved alone by
 * probe_dwarf.c (what it cannot read exactly at the entry, a struct by
 * value or an optimised-out value, is left out of that function's probe,
 * never guessed), and each function returning a value a -R FUNC@retval.
 * The runtime gets plain probe definitions: it reads no DWARF.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../events/probe.h"
#include "auto_args.h"
#include "../cmd.h"
#include "probe_dwarf.h"

struct walk {
	const char *exe;
	const char *args_of, *rets_of;	/* globs of the functions wanted (auto_args) */
	char **probes, **retvals;
	char *seen;		/* " FUNC " of each function done */
	const char **syms;	/* the function symbols' names, sorted */
	size_t nsyms;
	unsigned n;
};

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The names of mod's function symbols, sorted: sites are named by them, so a
 * function DWARF names but whose code has another symbol (luaK_codek.isra.0)
 * would be a probe without a site, which stops the whole record.
 */
static void function_symbols(struct walk *w, Dwfl_Module *mod)
{
	int n = dwfl_module_getsymtab(mod);

	w->syms = n > 0 ? calloc((size_t)n, sizeof(*w->syms)) : NULL;
	for (int i = 0; w->syms && i < n; i++) {
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym(mod, i, &sym, NULL);

		if (nm && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value)
			w->syms[w->nsyms++] = nm;
	}
	if (w->syms)
		qsort(w->syms, w->nsyms, sizeof(*w->syms), by_str);
}

static bool has_symbol(const struct walk *w, const char *func)
{
	return w->syms && bsearch(&func, w->syms, w->nsyms, sizeof(*w->syms), by_str);
}

/* A symbol name the runtime and the probe syntax take (C identifiers, C++'s mangled ones). */
static bool plain_name(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* The parameters of fn that resolve alone, as " name name ..." into out. */
static void readable_params(struct walk *w, Dwarf_Die *fn, const char *func, char *out,
			    size_t len)
{
	char def[600], why[300];
	struct ps_probe_def d;
	Dwarf_Die kid;
	unsigned k = 0;

	out[0] = '\0';
	if (dwarf_child(fn, &kid))
		return;
	do {
		const char *nm = dwarf_diename(&kid);

		if (dwarf_tag(&kid) != DW_TAG_formal_parameter || !nm || !plain_name(nm) ||
		    k == PS_PROBE_MAX_ARGS)
			continue;
		snprintf(def, sizeof(def), "f %s %s", func, nm);
		if (ps_probe_parse(def, &d, why, sizeof(why)) ||
		    probe_dwarf_resolve(w->exe, &d, why, sizeof(why)))
			continue;	/* not readable exactly at the entry: left out */
		snprintf(out + strlen(out), len - strlen(out), " %s", nm);
		k++;
	} while (!dwarf_siblingof(&kid, &kid));
}

bool auto_wanted(const char *globs, const char *func, const char *name)
{
	char g[256];

	for (const char *s = globs; s && *s;) {
		size_t n = strcspn(s, " ");

		if (n && n < sizeof(g)) {
			memcpy(g, s, n);
			g[n] = '\0';
			if (!fnmatch(g, func, 0) || (name && !fnmatch(g, name, 0)))
				return true;
		}
		s += n + (s[n] != '\0');
	}
	return false;
}

/*
 * d's chars (DWARF's signed char: a 1-byte signed) typed char, as uftrace's -a shows a
 * char return value (an argument's: the readers, data/read_uprobe.c): d.
 */
static struct ps_probe_def *chars(struct ps_probe_def *d)
{
	for (unsigned i = 0; i < d->nargs; i++)
		if (d->a[i].type == PT_S && d->a[i].size == 1 && !d->a[i].bw)
			d->a[i].type = PT_CHAR;
	return d;
}

static int one_func(Dwarf_Die *fn, void *arg)
{
	struct walk *w = arg;
	Dwarf_Attribute at;
	const char *func = dwarf_formstring(dwarf_attr_integrate(fn, DW_AT_linkage_name, &at));
	char params[512], def[1200], why[300], text[4096];
	struct ps_probe_def d;
	Dwarf_Addr pc;
	bool args, ret;

	if (!func)
		func = dwarf_diename(fn);
	if (!func || !plain_name(func) || dwarf_hasattr(fn, DW_AT_declaration) ||
	    (dwarf_lowpc(fn, &pc) && !dwarf_hasattr(fn, DW_AT_ranges)) || strlen(func) > 50)
		return DWARF_CB_OK;	/* no code of its own (inlined only), or no name to probe */
	if (!has_symbol(w, func))
		return DWARF_CB_OK;	/* only clones of it have code (f.isra.0): no site */
	args = auto_wanted(w->args_of, func, dwarf_diename(fn));
	ret = auto_wanted(w->rets_of, func, dwarf_diename(fn));
	if (!args && !ret)
		return DWARF_CB_OK;
	snprintf(def, sizeof(def), " %s ", func);
	if (w->seen && strstr(w->seen, def))
		return DWARF_CB_OK;	/* described twice (Lua's luaL_getmetafield): one probe */
	w->seen = list_add(w->seen, def, ' ');
	readable_params(w, fn, func, params, sizeof(params));
	snprintf(def, sizeof(def), "f:auto/%s %s%s", func, func, params);
	if (args && params[0] && !ps_probe_parse(def, &d, why, sizeof(why)) &&
	    !probe_dwarf_resolve(w->exe, &d, why, sizeof(why))) {
		ps_probe_text(&d, text, sizeof(text));
		*w->probes = list_add(*w->probes, text, '\n');
	}
	snprintf(def, sizeof(def), "f:retval/%s__exit %s%%return $retval", func, func);
	if (ret && dwarf_hasattr_integrate(fn, DW_AT_type) &&
	    !ps_probe_parse(def, &d, why, sizeof(why)) &&
	    !probe_dwarf_resolve(w->exe, &d, why, sizeof(why))) {	/* a struct: left out */
		snprintf(def, sizeof(def), "%s@retval", func);
		if (d.a[0].type == PT_S && d.a[0].size == 1) {	/* a char: its probe, as 'c' */
			ps_probe_text(chars(&d), text, sizeof(text));
			*w->probes = list_add(*w->probes, text, '\n');
		} else {
			*w->retvals = list_add(*w->retvals, def, ' ');
		}
	}
	w->n++;
	return DWARF_CB_OK;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/*
 * Whether exe's own functions can have sites (sites/module.c, scan.c): a
 * table of them, or a hook its code calls (-pg, -finstrument-functions).
 * Without one a probe on them would stop the record, whose library calls
 * are traced all the same.
 */
static bool own_sites(Dwfl_Module *mod)
{
	static const char *const tables[] = { "__mcount_loc", "__patchable_function_entries",
					      "__mcount_loc_pcrel" };
	static const char *const hooks[] = { "mcount", "_mcount", "__fentry__",
					     "__cyg_profile_func_enter" };
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t shstr;
	int n = dwfl_module_getsymtab(mod);

	for (Elf_Scn *scn = NULL; elf && !elf_getshdrstrndx(elf, &shstr) &&
	     (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *nm = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstr, sh.sh_name) : NULL;

		for (size_t i = 0; nm && i < sizeof(tables) / sizeof(tables[0]); i++)
			if (!strcmp(nm, tables[i]))
				return true;
	}
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *nm = dwfl_module_getsym(mod, i, &sym, NULL);

		/* The symbol table names an imported hook with its version: mcount@GLIBC_2.2.5. */
		for (size_t k = 0; nm && k < sizeof(hooks) / sizeof(hooks[0]); k++)
			if (!strncmp(nm, hooks[k], strlen(hooks[k])) &&
			    (nm[strlen(hooks[k])] == '\0' || nm[strlen(hooks[k])] == '@'))
				return true;
	}
	return false;
}

int auto_args(const char *exe, const char *args_of, const char *rets_of, char **probes,
	      char **retvals)
{
	struct walk w = { exe, args_of, rets_of, probes, retvals, NULL, NULL, 0, 0 };
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, "", exe, -1) : NULL;
	Dwarf_Addr bias;

	if (dwfl)
		dwfl_report_end(dwfl, NULL, NULL);
	if (mod && !own_sites(mod)) {
		dwfl_end(dwfl);
		return 1;
	}
	if (mod)
		function_symbols(&w, mod);
	for (Dwarf_Die *cu = NULL; mod && (cu = dwfl_module_nextcu(mod, cu, &bias));)
		dwarf_getfuncs(cu, one_func, &w, 0);
	if (dwfl)
		dwfl_end(dwfl);
	free(w.seen);
	free(w.syms);
	if (!w.n && args_of && !strcmp(args_of, "*")) {
		fprintf(stderr, "patchsite: record -a: %s: no function in its DWARF (build with -g, "
			"or install its debug file)\n", exe);
		return -1;
	}
	return 0;
}
