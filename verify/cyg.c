// SPDX-License-Identifier: GPL-2.0-only
/*
 * -finstrument-functions: code that calls __cyg_profile_func_enter/exit is
 * traced through those calls (libpatchsite defines both) and has no table,
 * which is then no finding: a note says which form it is instead of
 * no-table's "nothing here can be traced".  The object's own symbols, or a
 * linked file's dynamic ones, show the import.
 */
#include <string.h>

#include "verify.h"

static bool names_enter(const struct eo_sym *s)
{
	return s && !s->defined && !strncmp(s->name, "__cyg_profile_func_enter", 24) &&
	       (s->name[24] == '\0' || s->name[24] == '@');
}

bool cyg_imports(const struct audit *au)
{
	for (size_t i = 1; i < elfobj_nsyms(au->o); i++)
		if (names_enter(elfobj_sym(au->o, i)))
			return true;
	for (size_t i = 1; au->q && i < elfquery_ndynsyms(au->q); i++)
		if (names_enter(elfquery_dynsym(au->q, i)))
			return true;
	return false;
}
