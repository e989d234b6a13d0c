// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace directory's view of the loaded objects (store.c has the
 * design): one mod.N file per object (its path, bias and file identity,
 * its sites by index, what a scan found or a library call refused, its
 * function symbols as traces show them) and the modules log of loads and
 * unloads, which follow the objects as sites/sync.c's watcher.  Apart from
 * store.c, which makes the directories and their other text files: this is
 * the one part that formats an object's sites and symbols (store_mods_later.c
 * keeps the ones that wait for the first tracer).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "host.h"

#include "store.h"
#include "record/linebuf.h"
#include "sites/scan.h"
#include "sites/got.h"
#include "sites/noflag.h"

/* Line of the modules log: what happened to object idx, and when (file: its mod.N file). */
static void modules_log(const char *what, const struct ps_module *m, uint64_t tsc,
			const char *file)
{
	char line[4400];
	int fd = openat(ps_session.procfd, "modules", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int len;

	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%s %u %llu %#lx %s %s\n", what, m->index,
		       (unsigned long long)tsc, (unsigned long)m->bias, file,
		       m->path && *m->path ? m->path : "-");
	if (len > 0)
		(void)!write(fd, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	close(fd);
}

/*
 * The `noflag` file: what start-up and later tracers did with the sites of
 * m's proof, appended ("proof INDEX SITES FILE", "armed INDEX N",
 * "refused INDEX SITE NAME<tab>WHY", or "unused INDEX WHY" for a proof of
 * an object none of whose sites are taken).  One write a line.
 */
__attribute__((format(printf, 1, 2)))
static void noflag_line(const char *fmt, ...)
{
	char line[4400];
	int fd = openat(ps_session.procfd, "noflag", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	va_list ap;
	int len;

	if (fd < 0)
		return;
	va_start(ap, fmt);
	len = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (len > 0)
		(void)!write(fd, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	close(fd);
}

static void noflag_refused(const struct ps_module *m, size_t i)
{
	const struct ps_noflag *nf = m->noflag;

	noflag_line("refused %u %#llx %s\t%s\n", m->index, (unsigned long long)nf->proof->s[i].site,
		    ps_sym_shown(&nf->syms[i]), nf->why[i]);
}

/* With m's mod.N: its proof, the sites armed and refused so far. */
static void write_noflag(struct ps_module *m)
{
	struct ps_noflag *nf = m->noflag;

	if (m->noflag_unused)
		noflag_line("proof %u %zu %s\nunused %u %s\n", m->index, m->noflag_unused_n,
			    m->noflag_unused, m->index, m->noflag_unused_why);
	if (!nf || nf->told)
		return;
	noflag_line("proof %u %zu %s\n", m->index, m->nsites, nf->proof->file);
	for (size_t i = 0; i < m->nsites; i++)
		if (nf->why[i])
			noflag_refused(m, i);
	noflag_line("armed %u %zu\n", m->index, nf->narmed);
	nf->told = true;
}

/* Later (a tracer turned on by ctl): one more refused, or armed (sites/noflag_arm.c). */
void ps_store_noflag(struct ps_module *m, size_t i)
{
	if (!ps_session.on || ps_session.pid != getpid() || !m->noflag || !m->noflag->told)
		return;
	if (i == PS_NOFLAG_ARMED)
		noflag_line("armed %u %zu\n", m->index, m->noflag->narmed);
	else
		noflag_refused(m, i);
}

static const char *kind_name(uint8_t kind)
{
	return kind == SITE_EXIT ? "exit" : kind == SITE_ENTRY_EXITS ? "entry-exits" : "entry";
}

/*
 * An object without a table (sites/scan.h): "scan HOW FOUND", then one
 * "notfound WHY NAME" per function that got no site.
 */
static void write_scan(struct ps_linebuf *b, const struct ps_module *m)
{
	const struct ps_scan_report *r = ps_scan_report_of(m);

	if (!r)
		return;
	ps_linebuf_str(b, "scan ");
	ps_linebuf_str(b, r->how);
	ps_linebuf_char(b, ' ');
	ps_linebuf_dec(b, r->found);
	ps_linebuf_char(b, '\n');
	for (size_t i = 0; i < r->nmiss; i++) {
		ps_linebuf_str(b, "notfound ");
		ps_linebuf_str(b, ps_scan_why_name(r->miss[i].why));
		ps_linebuf_char(b, ' ');
		ps_linebuf_str(b, ps_sym_shown(r->miss[i].fn));
		ps_linebuf_char(b, '\n');
	}
}

/* A library-call module: "refused NAME<tab>WHY" per slot never switched (sites/got.c says why). */
static void write_refused(struct ps_linebuf *b, const struct ps_module *m)
{
	for (size_t i = 0; i < m->nsites; i++) {
		const char *why = ps_got_refused(&m->sites[i]);

		if (!why || !m->sites[i].sym)
			continue;
		ps_linebuf_str(b, "refused ");
		ps_linebuf_str(b, ps_sym_shown(m->sites[i].sym));
		ps_linebuf_char(b, '\t');
		ps_linebuf_str(b, why);
		ps_linebuf_char(b, '\n');
	}
}

/* "site INDEX ADDR KIND OWNER NAME" per site (NAME: its address where no symbol has it). */
static void write_sites(struct ps_linebuf *b, const struct ps_module *m)
{
	for (size_t i = 0; i < m->nsites; i++) {
		const struct ps_site *s = &m->sites[i];

		ps_linebuf_str(b, "site ");
		ps_linebuf_dec(b, i);
		ps_linebuf_char(b, ' ');
		ps_linebuf_hex(b, (unsigned long)s->addr);
		ps_linebuf_char(b, ' ');
		ps_linebuf_str(b, kind_name(s->kind));
		ps_linebuf_char(b, ' ');
		ps_linebuf_dec(b, s->kind == SITE_EXIT ? s->owner : (unsigned)i);
		ps_linebuf_char(b, ' ');
		if (s->sym) {
			ps_linebuf_str(b, ps_sym_shown(s->sym));
		} else {
			/* printf's 0x%lx: the same as %#lx but for 0, never a site's address */
			ps_linebuf_hex(b, (unsigned long)s->addr);
		}
		ps_linebuf_char(b, '\n');
	}
}

/* mod.N, or mod.N.K where a later object reuses slot N, made new; its fd or -1 (name "-"). */
static int mod_open(const struct ps_module *m, char *name, size_t len)
{
	int fd = -1;

	/* A slot reused by a later object: mod.N.1, mod.N.2... */
	for (int k = 0; k < 100000 && fd < 0; k++) {
		if (k)
			snprintf(name, len, "mod.%u.%d", m->index, k);
		else
			snprintf(name, len, "mod.%u", m->index);
		fd = openat(ps_session.procfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	return fd;
}

/*
 * mod.N: the object (path, bias, file identity), its sites by index,
 * what a scan found (no table), and its function symbols, names as traces
 * show them.
 */
static void write_module(struct ps_module *m, char *name, size_t len)
{
	struct ps_linebuf *b = malloc(sizeof(*b));
	bool funcs = m->nsites || !strcmp(ps_session.tracer, "function");
	struct stat sb;
	int fd = b ? mod_open(m, name, len) : -1, err;

	if (fd < 0) {
		free(b);
		snprintf(name, len, "-");
		return;
	}
	*b = (struct ps_linebuf){ .fd = fd };
	/* Symbols are read only where they name something: sites, or callers (function). */
	if (funcs)
		ps_module_syms(m);
	ps_linebuf_str(b, "path ");
	ps_linebuf_str(b, m->path ? m->path : "");
	ps_linebuf_str(b, "\nbias ");
	ps_linebuf_hex(b, (unsigned long)m->bias);
	if (m->path && !stat(m->path, &sb)) {
		ps_linebuf_str(b, "\nfile ");
		ps_linebuf_dec(b, (unsigned long)sb.st_size);
		ps_linebuf_str(b, sb.st_mtime < 0 ? " -" : " ");
		ps_linebuf_dec(b, (unsigned long)(sb.st_mtime < 0 ? -sb.st_mtime : sb.st_mtime));
	}
	ps_linebuf_str(b, "\ntext ");
	ps_linebuf_hex(b, (unsigned long)m->text_lo);
	ps_linebuf_char(b, ' ');
	ps_linebuf_hex(b, (unsigned long)m->text_hi);
	ps_linebuf_char(b, '\n');
	write_sites(b, m);
	write_scan(b, m);
	write_refused(b, m);
	/* Function symbols: callers (the function tracer's parents) of objects with sites. */
	for (size_t i = 0; i < m->nsyms && funcs; i++) {
		ps_linebuf_str(b, "func ");
		ps_linebuf_hex(b, (unsigned long)m->syms[i].addr);
		ps_linebuf_char(b, ' ');
		ps_linebuf_dec(b, m->syms[i].size);
		ps_linebuf_char(b, ' ');
		ps_linebuf_str(b, ps_sym_shown(&m->syms[i]));
		ps_linebuf_char(b, '\n');
	}
	err = ps_linebuf_close(b);
	if (err)
		ps_log(PATCHSITE_LOG_WARNING, "%s/%s: writing it failed: %s: its functions will "
		       "show as addresses", ps_session.dir, name, strerror(-err));
	free(b);
}

void ps_store_module(struct ps_module *m)
{
	char name[48];

	if (!ps_session.on || ps_session.pid != getpid())
		return;
	write_module(m, name, sizeof(name));
	write_noflag(m);
	modules_log("load", m, ps_clock(), name);
}

static void ps_store_module_gone(struct ps_module *m)
{
	if (!ps_session.on || ps_session.pid != getpid())
		return;
	if (ps_store_mods_take(m))
		ps_store_module(m);	/* its load line before its unload line */
	modules_log("unload", m, m->gone_tsc, "-");
}

/* The mod.N files that waited for the tracer (store_mods_later.c), in load order; ps.lock not held. */
void ps_store_mods_write(void)
{
	pthread_mutex_lock(&ps.lock);
	for (unsigned i = 0; i < ps.nmods; i++)
		if (ps_store_mods_take(ps.mods[i]))
			ps_store_module(ps.mods[i]);
	ps_store_mods_none();	/* replaced in their slot meanwhile: written when they went */
	pthread_mutex_unlock(&ps.lock);
}

/* mod.N and the modules log follow the objects (sites/sync.c). */
const struct ps_watch ps_store_watch = { ps_store_module, ps_store_module_gone };
