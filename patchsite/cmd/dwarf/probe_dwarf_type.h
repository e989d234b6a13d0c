/* SPDX-License-Identifier: GPL-2.0-only */
/* A struct only declared in a unit, completed from another (probe_dwarf_type.c). */
#ifndef PS_PROBE_DWARF_TYPE_H
#define PS_PROBE_DWARF_TYPE_H

#include <stdbool.h>
#include <elfutils/libdwfl.h>

/*
 * The definition, in any unit of mod, of the struct, union or class st
 * declares (DW_AT_declaration, no members: an opaque `typedef struct
 * lua_State lua_State;` in the unit of the probed function), into out.
 * False: st is complete already (out = st), or no unit defines it.
 */
bool probe_dwarf_complete_type(Dwfl_Module *mod, Dwarf_Die *st, Dwarf_Die *out);

#endif
