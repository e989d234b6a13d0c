// SPDX-License-Identifier: GPL-2.0-only
/*
 * The filters' patterns against function names: what a pattern (its
 * tokens, FUNC:mod:OBJ, or a --match=regex), -L and --no-libcall say of one
 * function, for the walk (read_filter.c), and psr_filter_check, which says
 * before the walk a pattern that matches no recorded function, or what a
 * recording lacks that the filters given need.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "ps_glob.h"
#include "read_filter.h"

/* An object's basename (a :mod: token's subject). */
static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

/* Does token tok (a copy: cut at :mod:) take the function name of module m? */
static bool tok_matches(const char *tok, const char *name, const struct psr_module *m)
{
	char copy[512];
	struct ps_glob_tok t;

	snprintf(copy, sizeof(copy), "%s", tok);
	ps_glob_token(copy, &t);
	if (t.mod && (!m || fnmatch(t.mod, base(m->path), 0)))
		return false;
	return ps_glob_match(t.func, t.literal, name);
}

/* A pattern's verdict on a name: its last token that matches says (a !token takes it away). */
bool psr_pattern_matches(const struct pattern *p, const char *name, const struct psr_module *m)
{
	bool in = false;

	if (p->is_re)
		return !regexec(&p->re, name, 0, NULL, 0);

	for (size_t at = 0; at < p->len; at += strlen(p->toks + at) + 1)
		if (tok_matches(p->toks + at, name, m))
			in = p->toks[at] != '!';
	return in;
}

/* -L: the function's source file is LOC, under the directory LOC, or its basename matches. */
bool psr_loc_matches(const char *loc, const char *line)
{
	char file[4200];
	size_t n = strlen(loc);
	char *colon;

	snprintf(file, sizeof(file), "%s", line);
	colon = strrchr(file, ':');
	if (colon)
		*colon = 0;
	return !fnmatch(loc, file, 0) || !fnmatch(loc, base(file), 0) ||
	       (!strncmp(file, loc, n) && (loc[n - 1] == '/' || file[n] == '/'));
}

/* An object of library calls: named by its caller's path so (patchsite-data(5), mod.N). */
bool psr_libcall_module(const struct psr_module *m)
{
	static const char mark[] = " (library calls)";
	size_t n = m && m->path ? strlen(m->path) : 0;

	return n >= sizeof(mark) - 1 && !strcmp(m->path + n - (sizeof(mark) - 1), mark);
}

/* What a process's data lets the filters do: one line on err when it lacks what they need. */
static int check_proc(const struct psr_filter *f, const struct psr_proc *p, FILE *err)
{
	uint64_t entries = 0, funcs = 0;
	bool sizes = false;

	for (size_t i = 0; i < p->nthreads; i++) {
		entries += p->threads[i].entries;
		funcs += p->threads[i].funcs;
	}
	for (size_t i = 0; i < p->nmods; i++)
		sizes |= p->mods[i].nfuncs > 0;
	if (funcs && !entries && (f->depth || f->time_ns ||
				  (f->used & (FL_CALLER | FL_DEPTH | FL_FILTER | FL_ON | FL_OFF)))) {
		fprintf(err, "patchsite: %s: %s: recorded without calls' returns (tracer %s): "
			"-F, -C, -D, -t and -T need function_graph's\n", p->dir,
			f->time_ns ? "--time-filter" : f->depth ? "--depth" :
			f->used & FL_FILTER ? "--filter" : f->used & FL_CALLER ? "--caller-filter" :
			"--trigger", p->tracer);
		return -EINVAL;
	}
	if (f->size && (entries || funcs) && !sizes) {
		fprintf(err, "patchsite: %s: --size-filter: the functions' sizes were not "
			"recorded\n", p->dir);
		return -EINVAL;
	}
	return 0;
}

/* Does a recorded function of p match tok (a token of pattern g), or g's regex? */
static bool proc_has(const struct psr_proc *p, const struct pattern *g, const char *tok)
{
	for (size_t m = 0; m < p->nmods; m++)
		for (size_t s = 0; s < p->mods[m].nsites; s++) {
			const struct psr_site *x = &p->mods[m].sites[s];

			if (!x->exit && x->name &&
			    (g->is_re ? !regexec(&g->re, x->name, 0, NULL, 0) :
			     tok_matches(tok, x->name, &p->mods[m])))
				return true;
		}
	return false;
}

/* -L: 2 a recorded function of p is in f->loc, 1 only source lines known, 0 none known. */
static int proc_loc(const struct psr_filter *f, const struct psr_proc *p)
{
	char line[4200];
	int found = 0;

	for (size_t m = 0; m < p->nmods && found < 2; m++)
		for (size_t s = 0; s < p->mods[m].nsites && found < 2; s++) {
			const char *l = p->mods[m].sites[s].exit || !f->srcline ? NULL :
				f->srcline(p, p->mods[m].index << PSD_ID_SHIFT | (uint32_t)s,
					   p->mods[m].load_tsc, line, sizeof(line));

			if (l)
				found = psr_loc_matches(f->loc, l) ? 2 : 1;
		}
	return found;
}

int psr_filter_check(const struct psr_filter *f, const struct psr_proc *const *procs, size_t n,
		     const char *dir, FILE *err)
{
	int loc = 0;

	if (!psr_filter_any(f))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (check_proc(f, procs[i], err))
			return -EINVAL;
	/* A pattern names functions of the session: one process having it is enough. */
	for (size_t i = 0; i < f->npat; i++)
		for (size_t at = 0; at < f->pat[i].len; at += strlen(f->pat[i].toks + at) + 1) {
			const char *tok = f->pat[i].toks + at;
			bool hit = !f->pat[i].is_re && tok[0] == '!';

			for (size_t k = 0; k < n && !hit; k++)
				hit = proc_has(procs[k], &f->pat[i], tok);
			if (!hit && !(f->pat[i].flags & (FL_NOTRACE | FL_HIDE))) {
				fprintf(err, "patchsite: %s: %s %s: no recorded function matches "
					"'%s'\n", dir, f->pat[i].opt, f->pat[i].arg, tok);
				return -ENOENT;
			}
			/*
			 * Leaving out what was not recorded leaves the trace as it is, as
			 * uftrace's -N and -H do (its runner passes -N memcpy to every
			 * test); said once, as a typo would be.
			 */
			if (!hit)
				fprintf(err, "patchsite: %s: %s %s: no recorded function matches "
					"'%s', nothing left out by it\n", dir, f->pat[i].opt,
					f->pat[i].arg, tok);
		}
	for (size_t k = 0; f->loc && k < n && loc < 2; k++) {
		int l = proc_loc(f, procs[k]);

		loc = l > loc ? l : loc;
	}
	if (f->loc && loc < 2) {
		fprintf(err, "patchsite: %s: --loc-filter %s: %s\n", dir, f->loc,
			loc ? "no recorded function is there" :
			"no source lines (no DWARF in the objects recorded)");
		return -ENOENT;
	}
	return 0;
}
