/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace's globs over function names, the one reading of a pattern for the
 * runtime's filters (sites/filter.c: PATCHSITE_FILTER, record -F -N -G) and
 * the readers' filters on a recording (data/read_filter_match.c: replay -F -N ...).
 * Header-only: the runtime and the reader are separate layers that share no
 * object file below them.
 */
#ifndef PS_GLOB_H
#define PS_GLOB_H

#include <fnmatch.h>
#include <stdbool.h>
#include <string.h>

/* Blanks and commas separate a list's tokens. */
#define PS_GLOB_SEPARATORS " \t\n,"

/* A glob without a special character matches only itself (strcmp, not fnmatch's walk). */
static inline bool ps_glob_literal(const char *glob)
{
	return !strpbrk(glob, "*?[\\");
}

static inline bool ps_glob_match(const char *glob, bool literal, const char *name)
{
	return literal ? !strcmp(glob, name) : !fnmatch(glob, name, 0);
}

/*
 * One token of a list: [!]GLOB[:mod:OBJ] (ftrace's set_ftrace_filter form), cut
 * in place at ":mod:".  An empty GLOB (":mod:libm.so") is every function.
 */
struct ps_glob_tok {
	bool neg;		/* !GLOB: remove what it matches */
	bool literal;
	const char *func;
	const char *mod;	/* the object's basename (a glob), or NULL */
};

static inline void ps_glob_token(char *tok, struct ps_glob_tok *t)
{
	char *mod;

	t->neg = tok[0] == '!';
	t->func = tok + t->neg;
	mod = strstr(tok, ":mod:");
	t->mod = NULL;
	if (mod) {
		*mod = '\0';
		t->mod = mod + strlen(":mod:");
	}
	if (!*t->func)
		t->func = "*";
	t->literal = ps_glob_literal(t->func);
}

/* Why a glob is not one (an unclosed '[', a trailing '\\'), or NULL when it is. */
static inline const char *ps_glob_fault(const char *g)
{
	for (const char *p = g; *p; p++) {
		if (*p == '\\' && !*++p)
			return "a '\\' escapes nothing";
		if (*p != '[')
			continue;
		p += p[1] == '!' || p[1] == '^';
		p += p[1] == ']';	/* a ']' first is a member */
		p = strchr(p + 1, ']');
		if (!p)
			return "a '[' is never closed";
	}
	return NULL;
}

#endif
