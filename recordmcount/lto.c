// SPDX-License-Identifier: GPL-2.0-only
/*
 * An object compiled with gcc's -flto (and no -ffat-lto-objects) holds
 * GIMPLE bytecode in .gnu.lto_* sections and no machine code: its hook
 * calls only come to exist when the link generates the code.  Recording
 * nothing there and exiting 0 left LTO builds without a single site of
 * their own, so such an object is refused by name, with the way out.
 */
#include <string.h>

#include "diag.h"
#include "elfobj.h"
#include "record.h"

static bool has_code(const struct elfobj *o)
{
	size_t i;

	for (i = 1; i < elfobj_shnum(o); i++) {
		const struct eo_sec *s = elfobj_sec(o, i);

		if (s->type == EO_SHT_PROGBITS && (s->flags & EO_SHF_EXECINSTR) && s->size)
			return true;
	}
	return false;
}

static bool has_lto_bytecode(const struct elfobj *o)
{
	size_t i;

	for (i = 1; i < elfobj_shnum(o); i++)
		if (!strncmp(elfobj_sec(o, i)->name, ".gnu.lto_", 9))
			return true;
	return false;
}

bool lto_bytecode_only(const struct record *r)
{
	if (!has_lto_bytecode(r->o) || has_code(r->o))
		return false;
	diag_err(r->path, "LTO bytecode (.gnu.lto_* sections) and no code: its sites are made "
		 "by the link's code generation; link through patchsite-cc (which records them "
		 "there), or compile with -ffat-lto-objects for a non-LTO link");
	return true;
}
