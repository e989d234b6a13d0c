// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay --srcline (the kernel's funcgraph-srcline idea, uftrace's
 * --srcline): each function's file and line, resolved at read time by the
 * command from the DWARF of the object the record names (libdw, as
 * probe_dwarf.c; separate debug files by build-id or debuglink too).  The
 * line is the function's declaration's (DW_AT_decl_line of the subprogram
 * holding its first address: "int f(void)", not the "{" after it), its file
 * the declaration's, relative to the compilation's directory when under it:
 * both as uftrace shows them, so its users see the same FILE:LINE.  A
 * function whose object has no DWARF, or no subprogram there, shows none.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../data/psread.h"
#include "srcline.h"

/* One object's DWARF, opened on first use; its failure is kept too (asked once). */
struct obj {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct obj *next;
};

static struct obj *objs;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static struct obj *obj_of(const char *path)
{
	struct obj *o;

	for (o = objs; o; o = o->next)
		if (!strcmp(o->path, path))
			return o;
	o = calloc(1, sizeof(*o));
	if (!o || !(o->path = strdup(path))) {
		free(o);
		return NULL;
	}
	o->dwfl = dwfl_begin(&callbacks);
	o->mod = o->dwfl ? dwfl_report_offline(o->dwfl, "", path, -1) : NULL;
	if (o->dwfl)
		dwfl_report_end(o->dwfl, NULL, NULL);
	o->next = objs;
	objs = o;
	return o;
}

/* The subprogram whose code holds addr (the object's own address), into *fn. */
static Dwarf_Die *subprogram_at(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Die *fn,
				Dwarf_Die **cu)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *scopes = NULL;
	int i, n;

	*cu = dwfl_module_addrdie(mod, addr, &bias);
	n = *cu ? dwarf_getscopes(*cu, addr - bias, &scopes) : 0;
	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	if (i < n)
		*fn = scopes[i];
	free(scopes);
	return i < n ? fn : NULL;
}

const char *srcline_of(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
		       size_t len)
{
	const struct psr_module *m = psr_site_module(p, id, tsc);
	uint64_t addr = psr_site_addr(p, id, tsc), off = 0, size;
	Dwarf_Addr base = 0;
	Dwarf_Attribute at;
	Dwarf_Die fn, *cu;
	struct obj *o;
	const char *file, *dir;
	size_t dlen;
	int line = 0;

	if (!m || !m->path || !addr)
		return NULL;
	if (psr_addr_sym(p, addr, tsc, &off, &size))
		addr -= off;	/* the function's first address, not its site's */
	o = obj_of(m->path);
	if (!o || !o->mod)
		return NULL;
	dwfl_module_info(o->mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	if (!subprogram_at(o->mod, addr - m->bias + base, &fn, &cu))
		return NULL;
	file = dwarf_decl_file(&fn);	/* libdw joins it to its directory */
	if (!file || dwarf_decl_line(&fn, &line) || line <= 0)
		return NULL;
	dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
	dlen = dir ? strlen(dir) : 0;
	if (dlen && !strncmp(file, dir, dlen) && file[dlen] == '/')
		file += dlen + 1;
	snprintf(buf, len, "%s:%d", file, line);
	return buf;
}

void srcline_end(void)
{
	while (objs) {
		struct obj *o = objs;

		objs = o->next;
		if (o->dwfl)
			dwfl_end(o->dwfl);
		free(o->path);
		free(o);
	}
}
