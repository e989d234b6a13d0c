// SPDX-License-Identifier: GPL-2.0-only
/*
 * replay --srcline (the kernel's funcgraph-srcline idea, uftrace's
 * --srcline): each function's file and line, resolved at read time by the
 * command from the DWARF of the object the record names (libdw, as
 * probe_dwarf.c; separate debug files by build-id or debuglink too).  The
 * line is the line table's at the function's first address, its file
 * joined to the compilation's directory, as addr2line gives both; a
 * function whose object has no DWARF shows none.
 */
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

const char *srcline_of(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
		       size_t len)
{
	const struct psr_module *m = psr_site_module(p, id, tsc);
	uint64_t addr = psr_site_addr(p, id, tsc), off = 0, size;
	Dwarf_Addr base = 0;
	struct obj *o;
	Dwfl_Line *l;
	const char *file, *dir;
	int line = 0;

	if (!m || !m->path || !addr)
		return NULL;
	if (psr_addr_sym(p, addr, tsc, &off, &size))
		addr -= off;	/* the function's first address, not its site's */
	o = obj_of(m->path);
	if (!o || !o->mod)
		return NULL;
	dwfl_module_info(o->mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	l = dwfl_module_getsrc(o->mod, addr - m->bias + base);
	file = l ? dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL) : NULL;
	if (!file || line <= 0)
		return NULL;
	dir = file[0] != '/' ? dwfl_line_comp_dir(l) : NULL;
	/* Relative to the compilation's directory: joined, as addr2line shows it. */
	snprintf(buf, len, "%s%s%s:%d", dir ? dir : "", dir ? "/" : "", file, line);
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
