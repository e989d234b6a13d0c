// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probed function's DIE: its address from the symbol table (or, for a
 * C++ function named as written, from DWARF when one definition has that
 * name), then the outermost subprogram at that address, looked for in the
 * unit .debug_aranges names or, without them (clang), in every unit, and
 * into namespaces and classes.  Apart from probe_dwarf.c because it finds
 * a function, where that file reads what the function's DIE says.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe_dwarf_ctx.h"
#include "probe_dwarf_site.h"

/* The symbol func's address, in DWARF's addresses: 0, or -ENOENT. */
static int func_addr(Dwfl_Module *mod, const char *func, Dwarf_Addr *addr)
{
	int n = dwfl_module_getsymtab(mod);

	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *nm = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);

		if (nm && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value &&
		    !strcmp(nm, func)) {
			*addr = a;
			return 0;
		}
	}
	return -ENOENT;
}

/* A top-level DWARF function of one name (C++'s symbols are mangled): how many, the last's pc. */
struct by_name {
	const char *name;
	Dwfl_Module *mod;
	Dwarf_Addr bias, pc;
	unsigned n;
};

/*
 * Where fn is entered: its low pc, or (gcc's hot and cold parts, in
 * DW_AT_ranges) the start of the range a function symbol begins at,
 * not the .cold one.
 */
static bool entry_pc(struct by_name *b, Dwarf_Die *fn, Dwarf_Addr *pc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	if (!dwarf_lowpc(fn, pc))
		return true;
	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0) {
		GElf_Sym sym;
		GElf_Off at;
		const char *nm = dwfl_module_addrinfo(b->mod, start + b->bias, &at, &sym, NULL,
						      NULL, NULL);

		if (nm && !at && !strstr(nm, ".cold")) {
			*pc = start;
			return true;
		}
	}
	return false;
}

static int by_name_cb(Dwarf_Die *fn, void *arg)
{
	struct by_name *b = arg;
	const char *nm = dwarf_diename(fn);
	Dwarf_Addr pc;

	if (nm && !strcmp(nm, b->name) && entry_pc(b, fn, &pc)) {
		b->pc = pc;
		b->n++;
	}
	return DWARF_CB_OK;
}

/* func by its DWARF name, where no symbol has it (a C++ function): one definition only. */
static int func_addr_dwarf(Dwfl_Module *mod, const char *func, Dwarf_Addr *addr)
{
	struct by_name b = { func, mod, 0, 0, 0 };

	for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(mod, cu, &b.bias));)
		dwarf_getfuncs(cu, by_name_cb, &b, 0);
	if (b.n != 1)
		return -ENOENT;	/* none, or overloads: the mangled name says which */
	*addr = b.pc + b.bias;
	return 0;
}

/*
 * A subprogram holding pc among the children of die, looking into
 * namespaces and classes: clang++ defines a namespace's functions inside
 * its DW_TAG_namespace, where libdw 0.188's dwarf_getscopes does not look.
 */
static bool fn_nested(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *fn, int depth)
{
	Dwarf_Die kid;

	if (depth > 8 || dwarf_child(die, &kid))
		return false;
	do {
		int tag = dwarf_tag(&kid);

		if (tag == DW_TAG_subprogram && dwarf_haspc(&kid, pc) > 0) {
			*fn = kid;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) && fn_nested(&kid, pc, fn, depth + 1))
			return true;
	} while (!dwarf_siblingof(&kid, &kid));
	return false;
}

/* The outermost subprogram of unit cu at pc, into fn. */
static bool fn_in_cu(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);
	bool found = false;

	for (int i = n - 1; i >= 0 && !found; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*fn = scopes[i];
			found = true;
		}
	free(scopes);
	return found || fn_nested(cu, pc, fn, 0);
}

/* The function's DIE at module address addr, into c: 0, or -ENOENT. */
static int fn_at(struct ctx *c, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(c->mod, addr, &bias);

	if (cu && fn_in_cu(cu, addr - bias, &c->fn)) {
		c->pc = addr - bias;
		return 0;
	}
	/* No .debug_aranges (clang's default): the unit whose ranges hold the address. */
	for (Dwarf_Die *u = NULL; (u = dwfl_module_nextcu(c->mod, u, &bias));)
		if (dwarf_haspc(u, addr - bias) > 0 && fn_in_cu(u, addr - bias, &c->fn)) {
			c->pc = addr - bias;
			return 0;
		}
	return -ENOENT;
}

/* The function's DIE (the outermost subprogram at its address) and what the runtime maps. */
int probe_dwarf_find_fn(struct ctx *c, Dwfl_Module *mod, const char *func)
{
	Dwarf_Addr addr, bias;
	Dwarf_Die *cu;

	if (func_addr(mod, func, &addr) && func_addr_dwarf(mod, func, &addr))
		return probe_dwarf_bad(c, "no function symbol '%s' in the executable (names are resolved in "
			   "the program itself, not its libraries; a glob needs $argN)", func);
	c->mod = mod;
	c->skip = probe_dwarf_entry_skip(mod, addr);
	if (!fn_at(c, addr))
		return 0;
	/*
	 * gcc's aarch64 patchable NOPs are before the function's DWARF start:
	 * it is after them, where the registers are still the entry's.
	 */
	if (c->skip && !fn_at(c, addr + c->skip)) {
		c->skip = 0;
		return 0;
	}
	cu = dwfl_module_addrdie(mod, addr, &bias);
	return probe_dwarf_bad(c, cu ? "no DWARF subprogram at %s's address" :
		   "%s has no DWARF (build with -g, or install its debug file)", func);
}
