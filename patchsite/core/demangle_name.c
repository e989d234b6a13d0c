// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shown form of a demangled C++ declaration (demangle.c says which):
 * pure string work, shared by the runtime and the patchsite command, which
 * demangles the names a process without libstdc++ left mangled.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

static bool ends_with(const char *s, size_t n, const char *tail)
{
	size_t t = strlen(tail);

	return n >= t && !memcmp(s + n - t, tail, t);
}

/* Length of s[0..n) without trailing " [clone .x]" groups; their ".x" parts go to clones. */
static size_t cut_clones(const char *s, size_t n, char *clones)
{
	const char *open;

	while (n && s[n - 1] == ']') {
		open = NULL;
		for (size_t i = n; i-- > 0;)
			if (s[i] == '[') {
				open = s + i;
				break;
			}
		if (!open || open == s || open[-1] != ' ' || strncmp(open, "[clone ", 7))
			break;
		/* Prepend: the groups are read from the right. */
		memmove(clones + (size_t)(s + n - 1 - (open + 7)), clones, strlen(clones) + 1);
		memcpy(clones, open + 7, (size_t)(s + n - 1 - (open + 7)));
		n = (size_t)(open - 1 - s);
	}
	return n;
}

/* Length without the qualifiers after the parameter list, then without the list. */
static size_t cut_params(const char *s, size_t n)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept",
					     NULL };
	int depth = 0;
	bool again = true;

	while (again) {
		again = false;
		for (int i = 0; quals[i]; i++)
			if (ends_with(s, n, quals[i])) {
				n -= strlen(quals[i]);
				again = true;
			}
	}
	if (!n || s[n - 1] != ')')
		return n;
	for (size_t i = n; i-- > 0;) {
		depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
		if (!depth)
			return i;
	}
	return n;	/* unbalanced: leave it as it is */
}

/* s + i begins the word `operator` (not `operators` or `my_operator`). */
static bool is_operator(const char *s, size_t i, size_t n)
{
	char next = i + 8 < n ? s[i + 8] : ' ';

	return (i == 0 || s[i - 1] == ':' || s[i - 1] == ' ') && n - i >= 8 &&
	       !strncmp(s + i, "operator", 8) && !isalnum((unsigned char)next) && next != '_';
}

/*
 * Where the name starts in s[0..n): after a template function's return
 * type, i.e. after the last space outside brackets of any kind, before an
 * operator's name (`operator<`, `operator unsigned long`) begins.
 */
static size_t name_start(const char *s, size_t n)
{
	size_t start = 0;
	int depth = 0;

	if (!n || s[n - 1] != '>')
		return 0;	/* not a template function: no return type */
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!depth && is_operator(s, i, n))
			break;
		if (c == '(' || c == '<' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == '>' || c == ']' || c == '}') && depth)
			depth--;
		else if (c == ' ' && !depth)
			start = i + 1;
	}
	return start;
}

char *ps_name_simple(const char *d)
{
	size_t len = strlen(d), n, start;
	char *clones = calloc(1, len + 1), *out;

	if (!clones)
		return NULL;
	n = cut_clones(d, len, clones);
	n = cut_params(d, n);
	start = name_start(d, n);
	out = malloc(n - start + strlen(clones) + 1);
	if (out) {
		memcpy(out, d + start, n - start);
		strcpy(out + (n - start), clones);
	}
	free(clones);
	return out;
}

char *ps_demangle_by(char *(*f)(const char *, char *, size_t *, int *), const char *name)
{
	char *d, *s;
	int status = -1;

	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	d = f(name, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		return NULL;
	}
	s = ps_name_simple(d);
	free(d);
	return s;
}
