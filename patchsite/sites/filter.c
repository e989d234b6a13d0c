// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace's filter syntax over the sites we know, as one byte per site:
 *   glob            add the matching functions (fnmatch: name, prefix*, *suffix, *mid*)
 *   !glob           remove them
 *   glob:mod:M      only in the object whose basename matches M (M may be a glob)
 * A C++ function matches by its mangled name or by its name as shown
 * (demangle.c: `ns::Class::method`, `ns::twice<int>`); a function with
 * several names at one address (aliases, functions gcc's -fipa-icf folded)
 * by any of them.
 * Tokens are separated by spaces or commas.  The new set is built aside and
 * installed only if every adding token matched something, so a typo leaves
 * the old set in force and the call fails with -EINVAL.
 *
 * The tokens are kept with the set: when an object is loaded later they are
 * applied, in order, to its sites alone.  As the kernel does for modules
 * not loaded yet, a `:mod:` token whose object is not loaded is kept
 * pending rather than refused; the set is then allocated (all zero), so
 * that it selects nothing until the object comes.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ps_glob.h"
#include "sites/got.h"
#include "sites/site.h"

#define SEPARATORS PS_GLOB_SEPARATORS

/* Any name of the site's function (aliases too), mangled or as shown (C++), matches glob. */
static bool sym_matches(const struct ps_site *s, const char *glob, bool literal)
{
	const struct ps_sym *a;
	size_t n = ps_sym_aliases(s->mod, s->sym, &a);

	const char *lib = ps_got_library(s);
	char full[512];

	for (size_t k = 0; k < n; k++) {
		const char *shown = ps_sym_shown(&a[k]);

		if (ps_glob_match(glob, literal, a[k].name) ||
		    (shown != a[k].name && ps_glob_match(glob, literal, shown)))
			return true;
	}
	/* A library call is also "malloc@libc.so.6", as the function lists show it. */
	if (lib && (size_t)snprintf(full, sizeof(full), "%s@%s", s->sym->name, lib) < sizeof(full))
		return !fnmatch(glob, full, 0);
	return false;
}

/* Sites [from, to) a token matches are set (or cleared for !glob); returns the hits. */
static size_t apply_token(uint8_t *set, char *tok, size_t from, size_t to, bool *pending)
{
	struct ps_glob_tok t;
	size_t hits = 0;

	ps_glob_token(tok, &t);
	*pending = false;
	if (t.mod) {
		*pending = true;
		for (unsigned i = 0; i < ps.nmods && *pending; i++)
			if (!ps.mods[i]->gone && !fnmatch(t.mod, ps.mods[i]->name, 0))
				*pending = false;
	}
	for (size_t i = from; i < to; i++) {
		const struct ps_site *s = ps.site_index[i];

		if (!s || !s->sym || !sym_matches(s, t.func, t.literal))
			continue;
		/* :mod: of a library call: the object that calls, or the library that defines it. */
		if (t.mod && fnmatch(t.mod, s->mod->name, 0) &&
		    !(ps_got_library(s) && !fnmatch(t.mod, ps_got_library(s), 0)))
			continue;
		set[i] = !t.neg;
		hits++;
	}
	return hits;
}

/* Run every token of text over sites [from, to); *pending when an adding one waits for its object. */
static int apply_text(uint8_t *set, const char *text, size_t from, size_t to, const char *what,
		      bool *pending)
{
	char *copy = strdup(text ? text : ""), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	*pending = false;
	for (tok = strtok_r(copy, SEPARATORS, &save); tok; tok = strtok_r(NULL, SEPARATORS, &save)) {
		char shown[256];
		bool wait;

		snprintf(shown, sizeof(shown), "%s", tok);
		if (ps_glob_fault(tok + (tok[0] == '!'))) {
			ps_log(PATCHSITE_LOG_ERROR, "%s: '%s' is not a valid glob: %s", what ? what : "filter",
			       shown, ps_glob_fault(tok + (tok[0] == '!')));
			err = -EINVAL;
			break;
		}
		if (!apply_token(set, tok, from, to, &wait) && tok[0] != '!' && !wait && what) {
			ps_log(PATCHSITE_LOG_ERROR, "%s: no traceable function matches '%s'", what,
			       shown);
			err = -EINVAL;
			break;
		}
		if (wait && tok[0] != '!' && what)
			ps_log(PATCHSITE_LOG_NOTE, "%s: no object '%s' loaded: '%s' waits for it",
			       what, strstr(shown, ":mod:") ? strstr(shown, ":mod:") + 5 : "",
			       shown);
		*pending |= wait && tok[0] != '!';
	}
	free(copy);
	return err;
}

/*
 * A set read without the lock (g->rcu: the graph trigger, which the graph
 * tracer reads on each call) is freed only when no thread can be reading it.
 */
static void set_replace(struct ps_globs *g, uint8_t *next)
{
	uint8_t *old = g->set;

	__atomic_store_n(&g->set, next, __ATOMIC_RELEASE);
	if (old && g->rcu)
		ps_sync_dispatchers();
	free(old);
}

static bool set_any(const uint8_t *set)
{
	for (size_t i = 0; i < ps.nsites; i++)
		if (set[i])
			return true;
	return false;
}

int ps_filter_apply(struct ps_globs *g, const char *globs, int reset, const char *what)
{
	uint8_t *next = calloc(ps.nsites ? ps.nsites : 1, 1);
	char *text = NULL;
	bool pending;
	int err;

	if (!next)
		return -ENOMEM;
	ps_all_syms();
	if (!reset && g->set)
		memcpy(next, g->set, ps.nsites);
	err = apply_text(next, globs, 0, ps.nsites, what, &pending);
	if (err)
		goto out;
	/* Keep what every object loaded later must hear: all the tokens since the last reset. */
	if (!reset && g->text && globs && *globs) {
		size_t n = strlen(g->text) + strlen(globs) + 2;

		text = malloc(n);
		if (text)
			snprintf(text, n, "%s %s", g->text, globs);
	} else if (!reset && g->text) {
		text = strdup(g->text);
	} else if (globs && *globs) {
		text = strdup(globs);
	}
	if (!text && ((globs && *globs) || (!reset && g->text))) {
		err = -ENOMEM;
		goto out;
	}
	/* A pending token that an earlier call left also keeps the set allocated. */
	if (!pending && !reset && g->set && g->text)
		pending = !set_any(g->set);
	free(g->text);
	g->text = text;
	if (!pending && !g->keep_empty && !set_any(next)) {
		free(next);
		next = NULL;
	}
	set_replace(g, next);
	next = NULL;
out:
	free(next);
	return err;
}

/*
 * ps.nsites grew from old_n: the set grows with it (new sites unselected).
 * The old array goes to *old, for the caller to free (after a grace
 * period for the graph trigger).
 */
/* Sets that are not an ops' (the graph trigger) but grow with ps.nsites too. */
static struct ps_globs *tracked[PS_TRACKED_MAX];
static unsigned ntracked;

/* Once, at init (api.c wire). */
void ps_globs_track(struct ps_globs *g)
{
	if (ntracked < PS_TRACKED_MAX)
		tracked[ntracked++] = g;
}

static int ps_filter_grow(struct ps_globs *g, size_t old_n, uint8_t **old)
{
	uint8_t *next;

	*old = NULL;
	if (!g->set || ps.nsites == old_n)
		return 0;
	next = calloc(ps.nsites, 1);
	if (!next)
		return -ENOMEM;
	memcpy(next, g->set, old_n);
	*old = g->set;
	__atomic_store_n(&g->set, next, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Sites [from, to) were just loaded: apply the tokens to them alone.  A set
 * that is NULL stays NULL (every site, or none for notrace).
 */
static void ps_filter_eval(struct ps_globs *g, size_t from, size_t to)
{
	bool pending;

	if (!g->set || !g->text)
		return;
	memset(g->set + from, 0, to - from);
	apply_text(g->set, g->text, from, to, NULL, &pending);
}

void ps_globs_free(struct ps_globs *g)
{
	free(g->set);
	free(g->text);
	g->set = NULL;
	g->text = NULL;
}

/* A copy of from into to (to keeps its rcu flag): the built-in tracers share one filter set. */
int ps_globs_copy(struct ps_globs *to, const struct ps_globs *from)
{
	struct ps_globs g = { NULL, NULL, to->rcu, from->keep_empty };

	if (from->set && !(g.set = malloc(ps.nsites ? ps.nsites : 1)))
		return -ENOMEM;
	if (from->text && !(g.text = strdup(from->text))) {
		free(g.set);
		return -ENOMEM;
	}
	if (g.set)
		memcpy(g.set, from->set, ps.nsites);
	ps_globs_free(to);
	*to = g;
	return 0;
}

/*
 * ps.nsites grew from old_n: every ops' sets, then the tracked ones.  An
 * ops' old set is freed now (read under the lock only); a tracked one read
 * without it (rcu) goes to old, for the caller to free after a grace
 * period.  ps.lock held.
 */
int ps_globs_grow_all(size_t old_n, struct ps_old_sets *old)
{
	int err = 0;

	for (struct ps_ops_state *st = ps.states; st && !err; st = st->next) {
		uint8_t *prev = NULL, *prev_notrace = NULL;

		err = ps_filter_grow(&st->filter, old_n, &prev);
		if (!err)
			err = ps_filter_grow(&st->notrace, old_n, &prev_notrace);
		free(prev);
		free(prev_notrace);
	}
	for (unsigned i = 0; i < ntracked && !err; i++) {
		uint8_t *prev = NULL;

		err = ps_filter_grow(tracked[i], old_n, &prev);
		if (prev && tracked[i]->rcu)
			old->set[old->n++] = prev;
		else
			free(prev);
	}
	return err;
}

/* Sites [from, to) were just indexed: every ops' sets, then the tracked ones.  ps.lock held. */
void ps_globs_eval_all(size_t from, size_t to)
{
	for (struct ps_ops_state *st = ps.states; st; st = st->next) {
		ps_filter_eval(&st->filter, from, to);
		ps_filter_eval(&st->notrace, from, to);
	}
	for (unsigned i = 0; i < ntracked; i++)
		ps_filter_eval(tracked[i], from, to);
}
