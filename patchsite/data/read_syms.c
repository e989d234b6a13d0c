// SPDX-License-Identifier: GPL-2.0-only
/*
 * Objects, sites and names as of a time stamp: the modules log, each
 * object's mod.N file, and the look-ups every renderer makes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "reader.h"

static char *(*demangler)(const char *mangled);

void psr_set_demangler(char *(*f)(const char *mangled))
{
	demangler = f;
}

/* A name of a mod file as shown, malloc'd (NULL: no memory). */
static char *read_name(const char *raw)
{
	char *d = demangler && raw[0] == '_' && raw[1] == 'Z' ? demangler(raw) : NULL;

	return d ? d : strdup(raw);
}

static int cmp_func(const void *a, const void *b)
{
	const struct psr_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* rest and a newline, added to the lines at *text (*len bytes); false without memory. */
static bool add_line(char **text, size_t *len, const char *rest)
{
	size_t have = *len, n = strlen(rest);
	char *t = realloc(*text, have + n + 2);

	if (!t)
		return false;
	memcpy(t + have, rest, n);
	t[have + n] = '\n';
	t[have + n + 1] = '\0';
	*text = t;
	*len = have + n + 1;
	return true;
}

/* A "notfound WHY NAME" line: kept as "WHY NAME\n" for info (render/info.c). */
static void read_scan_miss(struct psr_module *m, const char *rest)
{
	if (add_line(&m->scan_miss, &m->scan_miss_len, rest))
		m->scan_nmiss++;
}

/* mod.N: site and func lines. */
static void read_module(struct psr_session *s, struct psr_module *m, const char *path)
{
	char *text = read_slurp(path, NULL), *line, *save = NULL;
	size_t capf = 0, caps = 0;

	if (!text) {
		if (errno != EINVAL)	/* EINVAL: read_slurp said it */
			read_say(s, path, "cannot read: %s: its events are shown by site number",
				 strerror(errno));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, c;
		char kind[16];
		int off = 0;

		if (sscanf(line, "site %llu %llx %15s %llu %n", &a, &b, kind, &c, &off) == 4 && off) {
			if (a > PSD_ID_MASK || a != m->nsites) {
				read_say(s, path, "site %llu out of order: ignored", a);
				continue;
			}
			if (m->nsites == caps) {
				struct psr_site *g = realloc(m->sites, (caps = caps * 2 + 64) * sizeof(*g));

				if (!g)
					break;
				m->sites = g;
			}
			m->sites[m->nsites].addr = b;
			m->sites[m->nsites].exit = !strcmp(kind, "exit");
			m->sites[m->nsites].owner = c <= PSD_ID_MASK ? (uint32_t)c : (uint32_t)a;
			m->sites[m->nsites].name = read_name(line + off);
			if (!m->sites[m->nsites].name)
				break;
			m->nsites++;
		} else if (sscanf(line, "func %llx %llu %n", &a, &b, &off) == 2 && off) {
			if (m->nfuncs == capf) {
				struct psr_func *g = realloc(m->funcs, (capf = capf * 2 + 64) * sizeof(*g));

				if (!g)
					break;
				m->funcs = g;
			}
			m->funcs[m->nfuncs].addr = a;
			m->funcs[m->nfuncs].size = b;
			m->funcs[m->nfuncs].name = read_name(line + off);
			if (!m->funcs[m->nfuncs].name)
				break;
			m->nfuncs++;
		} else if (!strncmp(line, "path ", 5) && !m->path) {
			m->path = strdup(line + 5);
		} else if (sscanf(line, "scan %7s %llu", kind, &a) == 2) {
			snprintf(m->scan_how, sizeof(m->scan_how), "%.7s", kind);
			m->scan_found = a;
		} else if (!strncmp(line, "notfound ", 9) && strchr(line + 9, ' ')) {
			read_scan_miss(m, line + 9);
		} else if (!strncmp(line, "refused ", 8) && strchr(line + 8, '\t')) {
			add_line(&m->refused, &m->refused_len, line + 8);
		}
	}
	free(text);
	if (m->nfuncs)
		qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), cmp_func);
}

/* The modules log: load/unload lines, each load naming its mod file. */
void read_modules(struct psr_proc *p)
{
	char *path = read_join(p->dir, "modules"), *text = path ? read_slurp(path, NULL) : NULL;
	char *line, *save = NULL;
	size_t cap = 0;

	if (!text) {
		if (path && !p->session->follow)	/* followed: written just after the session line */
			read_say(p->session, path, "missing: events are shown by site number");
		free(path);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned idx;
		unsigned long long tsc, bias;
		char file[64];
		int off = 0;

		if (sscanf(line, "load %u %llu %llx %63s %n", &idx, &tsc, &bias, file, &off) == 4) {
			struct psr_module *m;
			char *mp;

			if (p->nmods == cap) {
				struct psr_module *g = realloc(p->mods, (cap = cap * 2 + 8) * sizeof(*g));

				if (!g)
					break;
				p->mods = g;
			}
			m = &p->mods[p->nmods++];
			memset(m, 0, sizeof(*m));
			m->index = idx;
			m->load_tsc = tsc;
			m->bias = bias;
			if (strchr(file, '/') || !strncmp(file, "..", 2)) {
				read_say(p->session, path, "bad module file name '%s': ignored", file);
				continue;
			}
			mp = strcmp(file, "-") ? read_join(p->dir, file) : NULL;
			if (mp)
				read_module(p->session, m, mp);
			free(mp);
			if (!m->path && off)
				m->path = strdup(line + off);
		} else if (sscanf(line, "unload %u %llu", &idx, &tsc) == 2) {
			for (size_t i = p->nmods; i-- > 0;)
				if (p->mods[i].index == idx && !p->mods[i].unload_tsc) {
					p->mods[i].unload_tsc = tsc;
					break;
				}
		} else {
			read_say(p->session, path, "not a modules line: '%.40s': ignored", line);
		}
	}
	free(text);
	free(path);
}

void read_modules_free(struct psr_proc *p)
{
	for (size_t k = 0; k < p->nmods; k++) {
		for (size_t j = 0; j < p->mods[k].nsites; j++)
			free(p->mods[k].sites[j].name);
		for (size_t j = 0; j < p->mods[k].nfuncs; j++)
			free(p->mods[k].funcs[j].name);
		free(p->mods[k].sites);
		free(p->mods[k].funcs);
		free(p->mods[k].scan_miss);
		free(p->mods[k].refused);
		free(p->mods[k].path);
	}
	free(p->mods);
	p->mods = NULL;
	p->nmods = 0;
}

/* The object that slot idx held at tsc. */
static const struct psr_module *module_at(const struct psr_proc *p, unsigned idx, uint64_t tsc)
{
	const struct psr_module *best = NULL;

	for (size_t i = 0; i < p->nmods; i++) {
		const struct psr_module *m = &p->mods[i];

		if (m->index != idx)
			continue;
		if (!best || (m->load_tsc <= tsc && (best->load_tsc > tsc || m->load_tsc > best->load_tsc)))
			best = m;
	}
	return best;
}

const struct psr_site *read_site_at(const struct psr_proc *p, uint32_t id, uint64_t tsc)
{
	const struct psr_module *m = module_at(p, id >> PSD_ID_SHIFT, tsc);

	return m && (id & PSD_ID_MASK) < m->nsites ? &m->sites[id & PSD_ID_MASK] : NULL;
}

const struct psr_module *psr_site_module(const struct psr_proc *p, uint32_t id, uint64_t tsc)
{
	return module_at(p, id >> PSD_ID_SHIFT, tsc);
}

const char *psr_site_name(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
			  size_t len)
{
	const struct psr_site *s = read_site_at(p, id, tsc);

	if (s && s->name)
		return s->name;
	snprintf(buf, len, "site#%u", id);
	return buf;
}

const char *psr_addr_sym(const struct psr_proc *p, uint64_t addr, uint64_t tsc, uint64_t *off,
			 uint64_t *size)
{
	for (size_t i = p->nmods; i-- > 0;) {
		const struct psr_module *m = &p->mods[i];
		size_t lo = 0, hi = m->nfuncs;

		if (m->load_tsc > tsc || (m->unload_tsc && m->unload_tsc <= tsc))
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (m->funcs[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr - m->funcs[lo - 1].addr < (m->funcs[lo - 1].size ? m->funcs[lo - 1].size : 1)) {
			*off = addr - m->funcs[lo - 1].addr;
			*size = m->funcs[lo - 1].size;
			return m->funcs[lo - 1].name;
		}
	}
	return NULL;
}

uint64_t psr_site_addr(const struct psr_proc *p, uint32_t id, uint64_t tsc)
{
	const struct psr_site *s = read_site_at(p, id, tsc);

	return s ? s->addr : 0;
}

const char *psr_addr_name(const struct psr_proc *p, uint64_t addr, uint64_t tsc, char *buf,
			  size_t len)
{
	uint64_t off, size;
	const char *name = psr_addr_sym(p, addr, tsc, &off, &size);

	if (name)
		return name;
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}

uint64_t psr_ns(const struct psr_proc *p, uint64_t tsc)
{
	double d = (double)(int64_t)(tsc - p->tsc0) * p->ns_per_tsc;

	/* A stamp before the start or past the clock's range (damage): clamped, never undefined. */
	if (d < 0)
		return -d < (double)p->ns0 ? p->ns0 - (uint64_t)-d : 0;
	if (d >= 18446744073709549568.0 - (double)p->ns0)
		return UINT64_MAX;
	return p->ns0 + (uint64_t)d;
}
