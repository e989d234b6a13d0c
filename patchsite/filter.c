// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace's filter syntax over the sites we know, as one byte per site:
 *   glob            add the matching functions (fnmatch: name, prefix*, *suffix, *mid*)
 *   !glob           remove them
 *   glob:mod:M      only in the object whose basename matches M (M may be a glob)
 * A C++ function matches by its mangled name or by its demangled name
 * without parameters (`ns::Class::method`).
 * Tokens are separated by spaces or commas.  The new set is built aside and
 * installed only if every adding token matched something, so a typo leaves
 * the old set in force and the call fails with -EINVAL.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static size_t apply_token(uint8_t *set, char *tok)
{
	bool neg = tok[0] == '!';
	char *func = tok + neg, *mod = strstr(func, ":mod:");
	size_t hits = 0;

	if (mod) {
		*mod = '\0';
		mod += strlen(":mod:");
	}
	if (!*func)
		func = "*";
	for (size_t i = 0; i < ps.nsites; i++) {
		const struct ps_site *s = ps.site_index[i];

		/* C++: the mangled name or the demangled one without parameters. */
		if (!s->sym || (fnmatch(func, s->sym->name, 0) &&
				fnmatch(func, ps_sym_shown(s->sym), 0)))
			continue;
		if (mod && fnmatch(mod, s->mod->name, 0))
			continue;
		set[i] = !neg;
		hits++;
	}
	return hits;
}

int ps_filter_apply(uint8_t **set, const char *globs, int reset, const char *what)
{
	uint8_t *next = calloc(ps.nsites ? ps.nsites : 1, 1);
	char *copy = strdup(globs ? globs : ""), *save = NULL, *tok;
	bool any = false;
	int err = 0;

	if (!next || !copy) {
		err = -ENOMEM;
		goto out;
	}
	ps_all_syms();
	if (!reset && *set)
		memcpy(next, *set, ps.nsites);
	for (tok = strtok_r(copy, " \t\n,", &save); tok; tok = strtok_r(NULL, " \t\n,", &save)) {
		char shown[256];

		snprintf(shown, sizeof(shown), "%s", tok);
		if (!apply_token(next, tok) && tok[0] != '!') {
			ps_log(PATCHSITE_LOG_ERROR, "%s: no traceable function matches '%s'", what,
			       shown);
			err = -EINVAL;
			goto out;
		}
	}
	for (size_t i = 0; i < ps.nsites && !any; i++)
		any = next[i];
	free(*set);
	*set = any ? next : NULL;
	if (any)
		next = NULL;
out:
	free(next);
	free(copy);
	return err;
}
