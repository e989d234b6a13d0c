// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process's `noflag` file (patchsite-data(5)): per proof of an object,
 * its sites, how many were armed (the last "armed" line) and each one
 * refused, with the check that refused it.  A line that does not read is
 * damage: the file is said (path, line) and none of it is used.
 */
#include <stdlib.h>
#include <string.h>

#include "reader.h"

void read_noflag_free(struct psr_proc *p)
{
	for (size_t i = 0; i < p->nnoflag; i++) {
		for (size_t k = 0; k < p->noflag[i].nr; k++) {
			free(p->noflag[i].r[k].name);
			free(p->noflag[i].r[k].why);
		}
		free(p->noflag[i].r);
		free(p->noflag[i].file);
		free(p->noflag[i].unused);
	}
	free(p->noflag);
	p->noflag = NULL;
	p->nnoflag = 0;
}

/* One proof per object: proof_line refuses a second. */
struct psr_noflag *psr_noflag_of(const struct psr_proc *p, unsigned index)
{
	for (size_t i = 0; i < p->nnoflag; i++)
		if (p->noflag[i].index == index)
			return &p->noflag[i];
	return NULL;
}

/* An unsigned decimal and the one space after it; NULL when it is not there. */
static const char *dec(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	*v = strtoull(s, &end, 10);
	return *end == ' ' ? end + 1 : NULL;
}

/* "proof INDEX SITES FILE" */
static bool proof_line(struct psr_proc *p, const char *l, size_t len)
{
	unsigned long long index, sites;
	const char *f = dec(l, &index);
	struct psr_noflag *g;

	f = f ? dec(f, &sites) : NULL;
	if (!f || f >= l + len || index > 0xffffffffu || psr_noflag_of(p, (unsigned)index))
		return false;
	g = realloc(p->noflag, (p->nnoflag + 1) * sizeof(*g));
	if (!g)
		return false;
	p->noflag = g;
	g = &p->noflag[p->nnoflag];
	*g = (struct psr_noflag){ .index = (unsigned)index, .sites = sites,
				  .file = strndup(f, (size_t)(l + len - f)) };
	if (!g->file)
		return false;
	p->nnoflag++;
	return true;
}

/* "refused INDEX 0xSITE NAME<tab>WHY" */
static bool refused_line(struct psr_proc *p, const char *l, size_t len)
{
	unsigned long long index;
	const char *a = dec(l, &index), *name, *tab = memchr(l, '\t', len);
	struct psr_noflag *g = a ? psr_noflag_of(p, (unsigned)index) : NULL;
	struct psr_noflag_refusal *r;
	char *end;
	uint64_t site;

	if (!g || index > 0xffffffffu || strncmp(a, "0x", 2) || !tab || tab + 1 >= l + len ||
	    g->nr == g->sites)
		return false;
	site = strtoull(a, &end, 16);
	name = end + 1;
	if (*end != ' ' || name >= tab)
		return false;
	r = realloc(g->r, (g->nr + 1) * sizeof(*r));
	if (!r)
		return false;
	g->r = r;
	r = &g->r[g->nr];
	*r = (struct psr_noflag_refusal){ .site = site, .name = strndup(name, (size_t)(tab - name)),
					  .why = strndup(tab + 1, (size_t)(l + len - tab - 1)) };
	g->nr++;
	return r->name && r->why;
}

/* "armed INDEX N": the count so far. */
static bool armed_line(struct psr_proc *p, const char *l, size_t len)
{
	unsigned long long index, n;
	const char *a = dec(l, &index);
	struct psr_noflag *g = a ? psr_noflag_of(p, (unsigned)index) : NULL;
	char *end;

	if (!g || index > 0xffffffffu || *a < '0' || *a > '9')
		return false;
	n = strtoull(a, &end, 10);
	if (end != l + len || n > g->sites)
		return false;
	g->armed = n;
	return true;
}

/* "unused INDEX WHY": none of the proof's sites taken (one word). */
static bool unused_line(struct psr_proc *p, const char *l, size_t len)
{
	unsigned long long index;
	const char *w = dec(l, &index);
	struct psr_noflag *g = w ? psr_noflag_of(p, (unsigned)index) : NULL;

	if (!g || index > 0xffffffffu || g->unused || g->nr || w >= l + len ||
	    memchr(w, ' ', (size_t)(l + len - w)))
		return false;
	g->unused = strndup(w, (size_t)(l + len - w));
	return g->unused != NULL;
}

void read_noflag(struct psr_proc *p)
{
	char *path = read_join(p->dir, "noflag"), *text = path ? read_slurp(path, NULL) : NULL;
	unsigned line = 0;
	bool ok = true;

	read_noflag_free(p);
	for (const char *l = text; ok && l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) : strlen(l);

		line++;
		if (!nl || memchr(l, '\0', len))
			ok = false;
		else if (!strncmp(l, "proof ", 6))
			ok = proof_line(p, l + 6, len - 6);
		else if (!strncmp(l, "refused ", 8))
			ok = refused_line(p, l + 8, len - 8);
		else if (!strncmp(l, "armed ", 6))
			ok = armed_line(p, l + 6, len - 6);
		else if (!strncmp(l, "unused ", 7))
			ok = unused_line(p, l + 7, len - 7);
		/* else: a line of a later version, not known here */
		l = nl ? nl + 1 : l + len;
	}
	if (!ok) {
		read_noflag_free(p);
		if (!p->session->follow)
			read_say(p->session, path, "line %u: damaged no-flag record: none of the file "
				 "used", line);
	}
	free(text);
	free(path);
}
