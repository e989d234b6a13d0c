// SPDX-License-Identifier: GPL-2.0-only
/*
 * One file, start to finish: open it, refuse what we cannot audit (by
 * name), then the steps of verify.h in order, then its report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

static void audit_free(struct audit *au)
{
	report_free(au);
	free(au->tables);
	free(au->sites);
	symindex_free(au->si);
	free(au->calls);
	free(au->badrefs);
	free(au->pads);
	free(au->direct);
	free(au->slots);
	elfquery_close(au->q);
	elfobj_close(au->o);
}

static int refuse(struct audit *au)
{
	if (!au->a) {
		diag_err(au->path, "unsupported architecture: %s (%d-bit)",
			 arch_machine_name(au->h->machine, au->h->elfclass),
			 au->h->elfclass == 2 ? 64 : 32);
		return -ENOTSUP;
	}
	if (au->h->type != EO_ET_REL && au->h->type != EO_ET_EXEC && au->h->type != EO_ET_DYN) {
		diag_err(au->path, "unsupported ELF type %u: not an object, executable or "
			 "shared library", au->h->type);
		return -ENOTSUP;
	}
	if (au->linked && !au->a->decodes_linked) {
		diag_err(au->path, "linked %s files are not supported yet (the calls and PLT "
			 "entries ld leaves are not decoded for this arch); objects are",
			 au->a->name);
		return -ENOTSUP;
	}
	return 0;
}

/* --system-map serves a linked file whose own symbols do not bound the table. */
static const struct sysmap *sysmap_for(const struct audit *au)
{
	size_t i;

	if (!au->linked || !au->opt->sysmap)
		return NULL;
	for (i = 1; i < elfobj_nsyms(au->o); i++)
		if (!strcmp(elfobj_sym(au->o, i)->name, "__start_mcount_loc"))
			return NULL;
	return au->opt->sysmap;
}

/* --system-map was given and still no table: never a silent pass. */
static void sysmap_no_table(struct audit *au)
{
	uint64_t start;

	if (!sysmap_addr(au->sysmap, "__start_mcount_loc", &start))
		report_table(au, CHK_NO_TABLE, "-", "no table: the System.map has no "
			     "__start_mcount_loc");
	else
		report_table(au, CHK_NO_TABLE, "-", "no table: the System.map's "
			     "__start_mcount_loc..__stop_mcount_loc (from 0x%llx) is not inside this "
			     "file's sections (the map of another build?)", (unsigned long long)start);
}

/*
 * Calls to a hook and no table: the sites are unknown, which is no
 * all-clear.  A stripped static image (a vmlinux) shows no calls either,
 * since the hook's address went with the symbols: say so, as a note.
 */
static void no_table(struct audit *au)
{
	if (au->ntables)
		return;
	if (!au->ncalls && cyg_imports(au))
		report_table_note(au, CHK_NO_TABLE, "-", "built with -finstrument-functions: no table "
				  "needed, libpatchsite traces its calls to __cyg_profile_func_enter/exit");
	else if (au->ncalls)
		report_table(au, CHK_NO_TABLE, "-", "%zu call%s to %s but no __mcount_loc or "
			     "__patchable_function_entries table", au->ncalls,
			     au->ncalls == 1 ? "" : "s",
			     au->mode_hook ? au->mode_hook : "a profiling hook");
	else if (au->sysmap)
		sysmap_no_table(au);
	else if (au->h->type == EO_ET_EXEC && !elfobj_nsyms(au->o) && !elfquery_ndynsyms(au->q))
		report_table_note(au, CHK_NO_TABLE, "-", "no symbols and no table: calls to a hook "
				  "cannot be found (a stripped kernel image? give --system-map)");
	else if (au->linked && !elfobj_find_sec(au->o, "patchsite_event_sites"))
		/* "0 tables, 0 sites" read as a pass; it is an LTO link that lost -pg. */
		report_table(au, CHK_NO_TABLE, "-", "no __mcount_loc or __patchable_function_entries "
			     "table and no call to a profiling hook: nothing here can be traced "
			     "(built without -pg, or an LTO link without it)");
}

int audit_object(const struct options *opt, struct output *out, const char *name,
		 struct elfobj *o)
{
	struct audit au = { .opt = opt, .out = out, .path = name, .o = o };
	int err;

	au.h = elfobj_hdr(au.o);
	au.a = elfobj_arch(au.o);
	au.linked = au.h->type != EO_ET_REL;
	if ((err = refuse(&au)))
		goto out;
	if (au.linked && (err = elfquery_open(au.o, &au.q)))
		goto out;
	au.sysmap = sysmap_for(&au);
	err = table_find(&au);
	if (!err && !(au.si = symindex_build_linked(au.o, au.q)))
		err = -ENOMEM;
	if (!err)
		err = calls_find(&au);
	if (!err)
		err = table_resolve(&au);
	if (!err)
		err = checks_run(&au);
	if (!err)
		err = events_check(&au);
	if (!err)
		no_table(&au);
	if (err) {
		if (err == -ENOMEM)
			diag_err(name, "out of memory");
		goto out;
	}
	report_file(&au);
	err = au.count[DIAG_ERROR] ? 1 : 0;
out:
	audit_free(&au);
	return err;
}
