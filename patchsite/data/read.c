// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a trace directory (psread.h, patchsite-data(5)): the session and
 * each process's text files (info, end, cmdline, options, events), then
 * its objects (read_syms.c) and threads (read_thread.c).  Thread files
 * are mapped read-only and walked chunk by chunk; every index into them is
 * checked against the mapping, every text line is parsed with bounds, and
 * whatever is missing or wrong is said once and skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "format.h"
#include "reader.h"

/* The options file: "NAME 0|1" lines; missing: the defaults (a record made before it). */
void read_options(struct psr_proc *p)
{
	char *path = read_join(p->dir, "options"), *text = path ? read_slurp(path, NULL) : NULL;

	p->options = PSR_OPT_DEFAULT;
	for (const struct psr_option *o = psr_options; text && o->name; o++) {
		char buf[8];

		if (read_field(text, o->name, buf, sizeof(buf)))
			p->options = (p->options & ~o->bit) | (!strcmp(buf, "1") ? o->bit : 0);
	}
	free(text);
	free(path);
}

static void read_info(struct psr_proc *p)
{
	char *path = read_join(p->dir, "info"), *text = path ? read_slurp(path, NULL) : NULL, buf[4096];
	bool ok = true;
	double rate;

	p->ns_per_tsc = 1.0;
	p->sched_asked = -1;
	if (!text) {
		read_say(p->session, path ? path : p->dir, "missing: times are raw time stamps");
		free(path);
		return;
	}
	if (!read_field(text, "format", buf, sizeof(buf)) || strncmp(buf, "patchsite-data ", 15) ||
	    (strcmp(buf + 15, "1") && strcmp(buf + 15, "2")))
		read_say(p->session, path, "format '%s', expected 'patchsite-data 1' or '2': read anyway",
			    read_field(text, "format", buf, sizeof(buf)) ? buf : "(none)");
	p->pid = (int)read_field_u64(text, "pid", &ok);
	p->ppid = (int)read_field_u64(text, "ppid", &ok);
	p->tsc0 = read_field_u64(text, "tsc0", &ok);
	p->ns0 = read_field_u64(text, "ns0", &ok);
	p->realtime0 = read_field_u64(text, "realtime0", &ok);
	p->overwrite = read_field_u64(text, "overwrite", &ok);
	if (read_field(text, "exe", buf, sizeof(buf)))
		p->exe = strdup(buf);
	if (read_field(text, "tracer", buf, sizeof(buf)))
		snprintf(p->tracer, sizeof(p->tracer), "%.31s", buf);
	if (read_field(text, "sched", buf, sizeof(buf)))
		p->sched_asked = !strcmp(buf, "on");
	if (read_field(text, "ns_per_tsc", buf, sizeof(buf)) && (rate = strtod(buf, NULL)) > 0 &&
	    rate < 1e6)
		p->ns_per_tsc = rate;
	if (!ok)
		read_say(p->session, path, "damaged: some fields missing or not numbers");
	free(text);
	free(path);
}

/* end's "lost FILE LINES": lines of the process directory's text files the runtime could not write. */
static void read_text_lost(struct psr_proc *p, const char *text)
{
	p->ntext_lost = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		struct psr_text_lost *t = &p->text_lost[p->ntext_lost];
		unsigned long long n;
		char file[16];

		if (p->ntext_lost < sizeof(p->text_lost) / sizeof(p->text_lost[0]) &&
		    sscanf(l, "lost %15s %llu", file, &n) == 2) {
			snprintf(t->file, sizeof(t->file), "%s", file);
			t->lines = n;
			p->ntext_lost++;
		}
	}
}

/* end: the clean trailer; with it, the rate over the whole run. */
void read_end(struct psr_proc *p)
{
	char *path = read_join(p->dir, "end"), *text = path ? read_slurp(path, NULL) : NULL;
	bool ok = true;
	uint64_t tsc, ns;

	if (text) {
		tsc = read_field_u64(text, "tsc", &ok);
		ns = read_field_u64(text, "ns", &ok);
		p->end_realtime = read_field_u64(text, "realtime", &ok);
		if (ok) {
			bool has_exit = true;
			uint64_t st = read_field_u64(text, "exit", &has_exit);

			p->has_end = true;
			p->end_ns = ns;
			read_text_lost(p, text);
			/* Written by the runtime's _exit: the status (record's status file, read below, wins). */
			if (has_exit && st < 256)
				snprintf(p->status, sizeof(p->status), "exit %u", (unsigned)st);
			if (ns > p->ns0 + 10000000 && tsc > p->tsc0)
				p->ns_per_tsc = (double)(ns - p->ns0) / (double)(tsc - p->tsc0);
		} else if (!p->session->follow) {
			/* (followed: being written now, read again at the next look) */
			read_say(p->session, path, "damaged: the run's end is not known");
		}
	}
	free(text);
	free(path);
	path = read_join(p->dir, "status");
	text = path ? read_slurp(path, NULL) : NULL;
	if (text) {
		text[strcspn(text, "\n")] = 0;
		snprintf(p->status, sizeof(p->status), "%s", text);
	}
	free(text);
	free(path);
	/* The tracers it ran (read again when followed: one may have been switched since). */
	free(p->tracers);
	path = read_join(p->dir, "tracers");
	p->tracers = path ? read_slurp(path, NULL) : NULL;
	free(path);
	read_noflag(p);
}

static void read_cmdline(struct psr_proc *p)
{
	size_t n = 0;
	char *path = read_join(p->dir, "cmdline"), *text = path ? read_slurp(path, &n) : NULL;

	for (size_t i = 0; text && n && i < n - 1; i++)
		if (!text[i])
			text[i] = ' ';
	p->cmdline = text;
	free(path);
}

/* No trailer: the latest chunk header's clock pair measures the rate over the run. */
static void rate_from_chunks(struct psr_proc *p)
{
	uint64_t tsc = 0, ns = 0;

	for (size_t i = 0; i < p->nthreads; i++)
		for (size_t k = 0; k < p->threads[i].nchunks; k++) {
			const uint64_t *w = p->threads[i].words + p->threads[i].chunks[k].first;

			if (w[-1] > ns && w[-2] > p->tsc0)
				ns = w[-1], tsc = w[-2];
		}
	if (ns > p->ns0 + 10000000 && ns - p->ns0 < (1ull << 50))
		p->ns_per_tsc = (double)(ns - p->ns0) / (double)(tsc - p->tsc0);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct psr_thread *x = a, *y = b;

	return x->tid - y->tid;
}

/* The events file: only where events were recorded. */
static void read_events(struct psr_proc *p)
{
	char *path = read_join(p->dir, "events"), *text = path ? read_slurp(path, NULL) : NULL;

	if (text && psr_events_parse(p, text))
		read_say(p->session, path, "damaged lines (events with them cannot be decoded)");
	free(text);
	free(path);
}

void read_proc(struct psr_session *s, const char *name)
{
	struct psr_proc *p = &s->procs[s->nprocs];
	DIR *d;
	struct dirent *e;

	memset(p, 0, sizeof(*p));
	p->session = s;
	p->name = strdup(name);
	p->dir = read_join(s->dir, name);
	if (!p->dir || !p->name || !(d = opendir(p->dir))) {
		read_say(s, p->dir ? p->dir : name, "cannot read the process directory: %s", strerror(errno));
		free(p->dir);
		free(p->name);
		return;
	}
	s->nprocs++;
	read_info(p);
	read_end(p);
	read_cmdline(p);
	read_modules(p);
	read_options(p);
	read_events(p);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "thread.", 7))
			read_thread(p, e->d_name);
	closedir(d);
	if (p->nthreads)
		qsort(p->threads, p->nthreads, sizeof(*p->threads), cmp_thread);
	if (s->follow)
		return;		/* psr_follow indexes the chunks and reads the switches */
	for (size_t k = 0; k < p->nthreads; k++)
		read_sched(p, &p->threads[k]);
	if (!p->has_end)
		rate_from_chunks(p);
	for (size_t k = 0; k < p->nthreads; k++)
		read_count_events(p, &p->threads[k]);
	if (p->end_ns > p->last_ns)
		p->last_ns = p->end_ns;
}

/*
 * Process directories: from the session list, in its order (start order).  follow: opened by
 * psr_open_live, so parts being written are left for psr_follow.
 */
int read_open_session(const char *dir, FILE *err, bool follow, struct psr_session **out)
{
	struct psr_session *s = calloc(1, sizeof(*s));
	char *path, *text, *line, *save = NULL;
	size_t cap = 0;

	if (!s)
		return -ENOMEM;
	s->err = err;
	s->follow = follow;
	s->dir = strdup(dir);
	path = read_join(dir, "session");
	text = path ? read_slurp(path, NULL) : NULL;
	if (!text) {
		int e = errno;

		if (err)	/* NULL: a caller waiting for the directory to appear */
			fprintf(err, "patchsite: %s: not a trace directory (no session list: %s)\n",
				dir, strerror(e));
		free(path);
		psr_close(s);
		return -(e ? e : ENOENT);
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int pid, ppid;
		char name[64];

		s->nlines++;
		if (sscanf(line, "%d %d %63s", &pid, &ppid, name) != 3) {
			read_say(s, path, "not a session line: '%.40s': ignored", line);
			continue;
		}
		if (!strcmp(name, "-")) {
			s->nosites++;
			continue;
		}
		if (strchr(name, '/') || name[0] == '.') {
			read_say(s, path, "bad process directory '%s': ignored", name);
			continue;
		}
		if (s->nprocs == cap) {
			struct psr_proc *g = realloc(s->procs, (cap = cap * 2 + 4) * sizeof(*g));

			if (!g)
				break;
			s->procs = g;
		}
		read_proc(s, name);
	}
	/* Nothing but damaged lines: nothing to show, and no empty output taken for a trace. */
	if (!follow && !s->nprocs && !s->nosites && s->problems) {
		if (err)
			fprintf(err, "patchsite: %s: not a trace directory (no process in its "
				"session list)\n", dir);
		free(text);
		free(path);
		psr_close(s);
		return -EINVAL;
	}
	/* A later image of the same pid: the earlier one ended by exec, not a crash. */
	for (size_t i = 0; i < s->nprocs; i++)
		for (size_t j = i + 1; j < s->nprocs; j++)
			if (s->procs[j].pid == s->procs[i].pid)
				s->procs[i].exec_followed = true;
	free(text);
	free(path);
	*out = s;
	return 0;
}

int psr_open(const char *dir, FILE *err, struct psr_session **out)
{
	return read_open_session(dir, err, false, out);
}

void psr_close(struct psr_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nprocs; i++) {
		struct psr_proc *p = &s->procs[i];

		for (size_t k = 0; k < p->nthreads; k++) {
			munmap((void *)p->threads[k].words, p->threads[k].map_bytes);
			free(p->threads[k].chunks);
			free(p->threads[k].file);
			read_sched_free(&p->threads[k]);
		}
		psr_events_free(p);
		free(p->threads);
		read_modules_free(p);
		free(p->dir);
		free(p->name);
		free(p->exe);
		free(p->cmdline);
		free(p->tracers);
		read_noflag_free(p);
	}
	free(s->procs);
	free(s->dir);
	free(s);
}
