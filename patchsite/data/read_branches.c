// SPDX-License-Identifier: GPL-2.0-only
/*
 * The branch profiler's counts in a trace directory: the process directory's `branches` file
 * (patchsite-data(5)), written by the runtime (patchsite/record/branch_counts.c) and read here as untrusted
 * text: a line that is not exactly one of the forms patchsite-data(5) gives refuses the whole
 * file, in one line naming it, the line and why.  render/branch_report.c prints what is read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "read_branches.h"
#include "reader.h"

#define MAX_FIELD	8192

/* A name field, \ooo unescaped, into a new string; NULL when malformed. */
static char *unescape(const char *s, size_t n)
{
	char *o = malloc(n + 1), *w = o;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (s[i] != '\\') {
			*w++ = s[i];
			continue;
		}
		if (i + 3 >= n || s[i + 1] < '0' || s[i + 1] > '3' || s[i + 2] < '0' ||
		    s[i + 2] > '7' || s[i + 3] < '0' || s[i + 3] > '7')
			goto bad;
		v = (unsigned)(s[i + 1] - '0') << 6 | (unsigned)(s[i + 2] - '0') << 3 |
		    (unsigned)(s[i + 3] - '0');
		if (!v)
			goto bad;
		*w++ = (char)v;
		i += 3;
	}
	*w = 0;
	return o;
bad:
	free(o);
	return NULL;
}

/* Split line (NUL-terminated, no '\n') at single spaces: up to max fields. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, ' ');
		if (!line)
			break;
		*line++ = 0;
	}
	return line ? max + 1 : n;
}

static bool number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1]))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno && *v <= max;
}

static const char *branch_line(char **f, size_t nf, struct psr_branches *bs)
{
	struct psr_branch *b;
	uint64_t e, c, i, l;

	if (nf != 7)
		return "a branch line has 7 fields";
	if (!number(f[1], 1, &e) || !number(f[2], UINT64_MAX, &c) ||
	    !number(f[3], UINT64_MAX, &i) || !number(f[4], UINT32_MAX, &l))
		return "a bad number";
	if (!(bs->n & (bs->n - 1)) || !bs->n) {
		void *p = realloc(bs->b, (bs->n ? 2 * bs->n : 16) * sizeof(*bs->b));

		if (!p)
			return "out of memory";
		bs->b = p;
	}
	b = &bs->b[bs->n];
	*b = (struct psr_branch){ .line = (unsigned)l, .likely = e, .correct = c, .incorrect = i };
	b->func = unescape(f[5], strlen(f[5]));
	b->file = b->func ? unescape(f[6], strlen(f[6])) : NULL;
	if (!b->file) {
		free(b->func);
		return "a bad name";
	}
	bs->n++;
	return NULL;
}

static const char *one_line(char *line, struct psr_branches *bs)
{
	char *f[8];
	size_t nf = split(line, f, 7);
	uint64_t v;

	if (!strcmp(f[0], "branch"))
		return branch_line(f, nf, bs);
	if (!strcmp(f[0], "object"))
		return nf == 3 && (!strcmp(f[1], "loaded") || !strcmp(f[1], "unloaded")) && *f[2]
		       ? NULL : "a bad object line";
	if (!strcmp(f[0], "lost")) {
		if (nf != 2 || !number(f[1], UINT32_MAX, &v))
			return "a bad lost line";
		bs->lost += v;
		return NULL;
	}
	if (!strcmp(f[0], "refused")) {
		bs->refused++;
		return NULL;
	}
	return "not a line of a branches file";
}

int psr_branches_parse(const char *text, size_t len, struct psr_branches *out, char *why,
		       size_t whylen)
{
	static const char head[] = "# patchsite branches 1\n";
	struct psr_branches bs = { 0 };
	char line[MAX_FIELD * 2 + 128];
	const char *err = NULL;
	size_t at, lineno = 1;

	if (len < sizeof(head) - 1 || memcmp(text, head, sizeof(head) - 1)) {
		snprintf(why, whylen, "line 1: not '# patchsite branches 1'");
		return -EINVAL;
	}
	for (at = sizeof(head) - 1; at < len && !err; ) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - text) - at : len - at;

		lineno++;
		if (!nl)
			err = "the last line does not end (a cut file)";
		else if (n >= sizeof(line) || memchr(text + at, 0, n))
			err = "a line too long or with a NUL byte";
		else {
			memcpy(line, text + at, n);
			line[n] = 0;
			err = one_line(line, &bs);
		}
		at += n + 1;
	}
	if (err) {
		snprintf(why, whylen, "line %zu: %s", lineno, err);
		psr_branches_free(&bs);
		return strcmp(err, "out of memory") ? -EINVAL : -ENOMEM;
	}
	*out = bs;
	return 0;
}

void psr_branches_free(struct psr_branches *bs)
{
	for (size_t i = 0; i < bs->n; i++) {
		free(bs->b[i].func);
		free(bs->b[i].file);
	}
	free(bs->b);
	*bs = (struct psr_branches){ 0 };
}

/*
 * The process's file, as written (merge and order are the report's): 0 (an absent file is no
 * counts), or -errno said on stderr.
 */
int psr_branches_read(const struct psr_proc *p, struct psr_branches *bs, bool *absent)
{
	char path[4200], why[160], *text;
	size_t got;
	int err;

	err = read_proc_text(p, "branches", &text, &got, absent, path, sizeof(path));
	if (err || !text)
		return err;
	err = psr_branches_parse(text, got, bs, why, sizeof(why));
	free(text);
	if (err)
		fprintf(stderr, "patchsite: %s: %s\n", path, err == -ENOMEM ? "out of memory" : why);
	return err;
}
