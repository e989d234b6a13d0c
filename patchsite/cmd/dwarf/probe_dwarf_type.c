// SPDX-License-Identifier: GPL-2.0-only
/*
 * A pointer parameter's struct is often only declared where the probed
 * function is compiled (C's opaque types: lua.h's `typedef struct lua_State
 * lua_State;` in every unit but lstate.c), so its members are in another
 * unit's DWARF.  gdb takes the definition of that name from the unit that
 * has one; so does this, for `L->member` names.  Units are searched at
 * their top level (C's tags; C++ types in a namespace are not looked for),
 * the first definition wins, as gdb's does for C.
 */
#include <dwarf.h>
#include <string.h>

#include "probe_dwarf_type.h"

static bool defines(Dwarf_Die *d, int tag, const char *name)
{
	const char *nm = dwarf_diename(d);

	return dwarf_tag(d) == tag && nm && !strcmp(nm, name) &&
	       !dwarf_hasattr(d, DW_AT_declaration) && dwarf_haschildren(d);
}

bool probe_dwarf_complete_type(Dwfl_Module *mod, Dwarf_Die *st, Dwarf_Die *out)
{
	const char *name = dwarf_diename(st);
	int tag = dwarf_tag(st);
	Dwarf_Addr bias;
	Dwarf_Die kid;

	*out = *st;
	if (!dwarf_hasattr(st, DW_AT_declaration) || !name || !mod)
		return false;
	for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(mod, cu, &bias));) {
		if (dwarf_child(cu, &kid))
			continue;
		do {
			if (defines(&kid, tag, name)) {
				*out = kid;
				return true;
			}
		} while (!dwarf_siblingof(&kid, &kid));
	}
	return false;
}
