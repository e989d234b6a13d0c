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

/*
 * Lines the process directory's text files did not get (a full disk, a
 * file limit): counted per file, said once each on stderr, and listed in
 * `end` ("lost FILE LINES", ps_store_text_lost) for patchsite info.  Under
 * ps.lock, as the watchers are; read at the exit without it.
 */
enum { LOST_NOFLAG, LOST_MODULES, LOST_MOD };
static struct {
	const char *file;
	unsigned long lines;
	bool said;
} lost[] = { { .file = "noflag" }, { .file = "modules" }, { .file = "mod.N" } };

static void text_lost(unsigned kind, const char *name, size_t lines, int err)
{
	char line[4800];
	int n;

	__atomic_fetch_add(&lost[kind].lines, lines, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&lost[kind].said, true, __ATOMIC_RELAXED))
		return;
	n = snprintf(line, sizeof(line), "patchsite: %s/%s: writing it failed: %s: %zu lines lost "
		     "(counted with any later ones in end: patchsite info says them)\n",
		     ps_session.proc, name, strerror(err), lines);
	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* "lost FILE LINES" per file that lost lines, into text (len bytes); its length. */
size_t ps_store_text_lost(char *text, size_t len)
{
	size_t at = 0;

	for (size_t k = 0; k < sizeof(lost) / sizeof(lost[0]); k++) {
		unsigned long n = __atomic_load_n(&lost[k].lines, __ATOMIC_RELAXED);
		int w = n ? snprintf(text + at, len - at, "lost %s %lu\n", lost[k].file, n) : 0;

		if (w > 0 && (size_t)w < len - at)
			at += (size_t)w;
	}
	return at;
}

/*
 * The objects whose proof the noflag file has, by slot: the lines of what
 * is refused or armed later follow it (ps_store_noflag).  Cleared when the
 * object goes, so that a later one in its slot is told anew.  ps.lock.
 */
static bool told[PS_MAX_MODULES];

/* A forked child's directory is new: no proof told there, nothing lost there yet. */
void ps_store_mods_forked(void)
{
	memset(told, 0, sizeof(told));
	for (size_t k = 0; k < sizeof(lost) / sizeof(lost[0]); k++)
		lost[k] = (typeof(lost[k])){ .file = lost[k].file };
}

/*
 * Lines to append to the process directory's file name (O_APPEND: lines
 * never mix), one write for them all; NULL (the lines counted lost) when
 * there is no memory for the buffer.  A file that does not open drops
 * what is put, counted at append_close.
 */
static struct ps_linebuf *append_open(unsigned kind, const char *name, size_t lines)
{
	struct ps_linebuf *b = malloc(sizeof(*b));

	if (!b) {
		text_lost(kind, name, lines, ENOMEM);
		return NULL;
	}
	*b = (struct ps_linebuf){
		.fd = openat(ps_session.procfd, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)
	};
	if (b->fd < 0)
		b->err = errno;
	return b;
}

static void append_close(struct ps_linebuf *b, unsigned kind, const char *name)
{
	int err = ps_linebuf_close(b);

	if (err)
		text_lost(kind, name, b->lost, -err);
	free(b);
}

/* Line of the modules log: what happened to object idx, and when (file: its mod.N file). */
static void modules_log(const char *what, const struct ps_module *m, uint64_t tsc,
			const char *file)
{
	struct ps_linebuf *b = append_open(LOST_MODULES, "modules", 1);

	if (!b)
		return;
	ps_linebuf_str(b, what);
	ps_linebuf_char(b, ' ');
	ps_linebuf_dec(b, m->index);
	ps_linebuf_char(b, ' ');
	ps_linebuf_dec(b, (unsigned long)tsc);
	ps_linebuf_char(b, ' ');
	ps_linebuf_hex(b, (unsigned long)m->bias);
	ps_linebuf_char(b, ' ');
	ps_linebuf_str(b, file);
	ps_linebuf_char(b, ' ');
	ps_linebuf_str(b, m->path && *m->path ? m->path : "-");
	ps_linebuf_char(b, '\n');
	append_close(b, LOST_MODULES, "modules");
}

/*
 * The `noflag` file: what start-up and later tracers did with the sites of
 * m's proof, appended ("proof INDEX SITES FILE", "armed INDEX N",
 * "refused INDEX SITE NAME<tab>WHY", or "unused INDEX WHY" for a proof of
 * an object none of whose sites are taken).
 */
static void noflag_proof(struct ps_linebuf *b, const struct ps_module *m, size_t sites,
			 const char *file)
{
	ps_linebuf_str(b, "proof ");
	ps_linebuf_dec(b, m->index);
	ps_linebuf_char(b, ' ');
	ps_linebuf_dec(b, sites);
	ps_linebuf_char(b, ' ');
	ps_linebuf_str(b, file);
	ps_linebuf_char(b, '\n');
}

static void noflag_armed(struct ps_linebuf *b, const struct ps_module *m)
{
	ps_linebuf_str(b, "armed ");
	ps_linebuf_dec(b, m->index);
	ps_linebuf_char(b, ' ');
	ps_linebuf_dec(b, m->noflag->narmed);
	ps_linebuf_char(b, '\n');
}

static void noflag_refused(struct ps_linebuf *b, const struct ps_module *m, size_t i)
{
	const struct ps_noflag *nf = m->noflag;

	ps_linebuf_str(b, "refused ");
	ps_linebuf_dec(b, m->index);
	ps_linebuf_char(b, ' ');
	ps_linebuf_hex(b, (unsigned long)nf->proof->s[i].site);
	ps_linebuf_char(b, ' ');
	ps_linebuf_str(b, ps_sym_shown(&nf->syms[i]));
	ps_linebuf_char(b, '\t');
	ps_linebuf_str(b, nf->why[i]);
	ps_linebuf_char(b, '\n');
}

/* With m's mod.N: its proof, the sites armed and refused so far. */
static void write_noflag(struct ps_module *m)
{
	struct ps_noflag *nf = m->noflag;
	struct ps_linebuf *b;

	if (m->noflag_unused && (b = append_open(LOST_NOFLAG, "noflag", 2))) {
		noflag_proof(b, m, m->noflag_unused_n, m->noflag_unused);
		ps_linebuf_str(b, "unused ");
		ps_linebuf_dec(b, m->index);
		ps_linebuf_char(b, ' ');
		ps_linebuf_str(b, m->noflag_unused_why);
		ps_linebuf_char(b, '\n');
		append_close(b, LOST_NOFLAG, "noflag");
	}
	if (!nf || told[m->index])
		return;
	told[m->index] = true;
	b = append_open(LOST_NOFLAG, "noflag", 2 + nf->refused);
	if (!b)
		return;
	noflag_proof(b, m, m->nsites, nf->proof->file);
	for (size_t i = 0; i < m->nsites; i++)
		if (nf->why[i])
			noflag_refused(b, m, i);
	noflag_armed(b, m);
	append_close(b, LOST_NOFLAG, "noflag");
}

/* Later (a tracer turned on by ctl): one more refused, or armed (sites/noflag_arm.c). */
void ps_store_noflag(struct ps_module *m, size_t i)
{
	struct ps_linebuf *b;

	if (!ps_session.on || ps_session.pid != getpid() || !m->noflag || !told[m->index])
		return;
	b = append_open(LOST_NOFLAG, "noflag", 1);
	if (!b)
		return;
	if (i == PS_NOFLAG_ARMED)
		noflag_armed(b, m);
	else
		noflag_refused(b, m, i);
	append_close(b, LOST_NOFLAG, "noflag");
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
	if (err)	/* its functions show as addresses */
		text_lost(LOST_MOD, name, b->lost, -err);
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
	if (ps_session.on && ps_session.pid == getpid()) {
		if (ps_store_mods_take(m))
			ps_store_module(m);	/* its load line before its unload line */
		modules_log("unload", m, m->gone_tsc, "-");
	}
	told[m->index] = false;
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
