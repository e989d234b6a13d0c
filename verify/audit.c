// SPDX-License-Identifier: GPL-2.0-only
/*
 * One file, start to finish: open it, refuse what we cannot audit (by
 * name), then the steps of verify.h in order, then its report.
 */
#include <errno.h>
#include <stdlib.h>

#include "verify.h"

static void audit_free(struct audit *au)
{
	report_free(au);
	free(au->tables);
	free(au->sites);
	symindex_free(au->si);
	free(au->calls);
	free(au->badrefs);
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

uint64_t audit_addr(const struct audit *au, size_t sec, uint64_t off)
{
	const struct eo_sec *s = elfobj_sec(au->o, sec);

	return au->linked && s ? s->addr + off : off;
}

void audit_where(const struct audit *au, size_t sec, uint64_t off, char *buf, size_t len)
{
	symindex_func_where(au->si, au->o, sec, off, buf, len);
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
	err = table_find(&au);
	if (!err && !(au.si = symindex_build_linked(au.o, au.q)))
		err = -ENOMEM;
	if (!err)
		err = calls_find(&au);
	if (!err)
		err = table_resolve(&au);
	if (!err)
		err = checks_run(&au);
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
