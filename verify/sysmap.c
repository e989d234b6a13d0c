// SPDX-License-Identifier: GPL-2.0-only
/*
 * --system-map FILE: the symbols a stripped kernel image no longer holds,
 * from the System.map its package ships ("ADDRESS TYPE NAME" per line, as
 * nm prints).  Only what the audit needs is kept: the bounds of the
 * ftrace table (__start_mcount_loc, __stop_mcount_loc) and the addresses
 * of the profiling hooks, so that the calls to them can be found.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

struct sysmap {
	char *path;
	struct { char *name; uint64_t addr; } *v;
	size_t n;
};

static bool wanted(const char *name)
{
	const struct arch *const *a;

	if (!strcmp(name, "__start_mcount_loc") || !strcmp(name, "__stop_mcount_loc"))
		return true;
	for (a = arch_all; *a; a++)
		if (arch_is_hook(*a, name))
			return true;
	return false;
}

static int keep(struct sysmap *m, const char *name, uint64_t addr)
{
	void *p = realloc(m->v, (m->n + 1) * sizeof(*m->v));

	if (!p)
		return -ENOMEM;
	m->v = p;
	m->v[m->n].name = strdup(name);
	if (!m->v[m->n].name)
		return -ENOMEM;
	m->v[m->n++].addr = addr;
	return 0;
}

int sysmap_read(const char *path, struct sysmap **out)
{
	struct sysmap *m = calloc(1, sizeof(*m));
	FILE *f = fopen(path, "r");
	char line[512], name[256], type;
	unsigned long long addr;
	unsigned lineno = 0, bad = 0;
	uint64_t start;
	int err = 0;

	*out = NULL;
	if (!f || !m) {
		err = f ? -ENOMEM : -errno;
		diag_err(path, "%s", strerror(-err));
		goto out;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		lineno++;
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3) {
			bad++;
			continue;
		}
		if (wanted(name))
			err = keep(m, name, addr);
	}
	if (err) {
		diag_err(path, "out of memory");
	} else if (!lineno || bad > lineno / 2) {
		err = -EINVAL;
		diag_err(path, "is not a System.map (lines of ADDRESS TYPE NAME)");
	} else if (!sysmap_addr(m, "__start_mcount_loc", &start)) {
		diag_warn(path, "has no __start_mcount_loc: it cannot locate the ftrace table%s",
			  lineno < 100 ? " (a placeholder? Debian ships the real System.map in "
					 "the linux-image-*-dbg package)" : "");
	}
out:
	if (f)
		fclose(f);
	if (err) {
		sysmap_free(m);
		return err;
	}
	m->path = strdup(path);
	*out = m;
	return 0;
}

bool sysmap_addr(const struct sysmap *m, const char *name, uint64_t *addr)
{
	size_t i;

	for (i = 0; m && i < m->n; i++)
		if (!strcmp(m->v[i].name, name)) {
			*addr = m->v[i].addr;
			return true;
		}
	return false;
}

size_t sysmap_count(const struct sysmap *m)
{
	return m ? m->n : 0;
}

const char *sysmap_sym(const struct sysmap *m, size_t i, uint64_t *addr)
{
	*addr = m->v[i].addr;
	return m->v[i].name;
}

void sysmap_free(struct sysmap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	free(m->path);
	free(m);
}
