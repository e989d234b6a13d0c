// SPDX-License-Identifier: GPL-2.0-only
/*
 * `patchsite report --branches`: the branch profiler's counts of every
 * process of a trace directory, in the layout and order of the kernel's
 * trace_stat/branch_annotated (kernel/trace/trace_branch.c): correct,
 * incorrect, percent incorrect ("X" when never evaluated), function, the
 * file's base name, line; the worst predictions first.
 *
 * The file is the runtime's (patchsite/branches.c), read as untrusted
 * text: a line that is not exactly one of the forms patchsite-data(5)
 * gives refuses the whole file, in one line naming it, the line and why.
 * The same site counted in several records (a static inline function in
 * many files of one object keeps one per file; a library loaded twice)
 * is shown once, with the sums.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "json.h"
#include "branches.h"

#define MAX_FIELD	8192
#define MAX_FILE	(256ul << 20)

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

/* The kernel's get_incorrect_percent: -1 when never evaluated (128 bits: no overflow). */
static long percent(const struct psr_branch *b)
{
	if (b->correct)
		return (long)((unsigned __int128)b->incorrect * 100 /
			      ((unsigned __int128)b->correct + b->incorrect));
	return b->incorrect ? 100 : -1;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int cmp_site(const void *x, const void *y)
{
	const struct psr_branch *a = x, *b = y;
	int c = strcmp(a->file, b->file);

	if (!c)
		c = (a->line > b->line) - (a->line < b->line);
	if (!c)
		c = strcmp(a->func, b->func);
	return c ? c : a->likely - b->likely;
}

/* The kernel's order: percent incorrect, then incorrect, descending; then correct ascending. */
static int cmp_shown(const void *x, const void *y)
{
	const struct psr_branch *a = x, *b = y;
	long pa = percent(a), pb = percent(b);

	if (pa != pb)
		return pa < pb ? 1 : -1;
	if (a->incorrect != b->incorrect)
		return a->incorrect < b->incorrect ? 1 : -1;
	if (a->correct != b->correct)
		return a->correct > b->correct ? 1 : -1;
	return cmp_site(a, b);
}

/* One record per site: the sums of its records. */
static void merge(struct psr_branches *bs)
{
	size_t k = 0;

	if (!bs->n)
		return;
	qsort(bs->b, bs->n, sizeof(*bs->b), cmp_site);
	for (size_t i = 1; i < bs->n; i++) {
		struct psr_branch *last = &bs->b[k];

		if (!cmp_site(last, &bs->b[i])) {
			last->correct = add_sat(last->correct, bs->b[i].correct);
			last->incorrect = add_sat(last->incorrect, bs->b[i].incorrect);
			free(bs->b[i].func);
			free(bs->b[i].file);
		} else {
			bs->b[++k] = bs->b[i];
		}
	}
	bs->n = k + 1;
	qsort(bs->b, bs->n, sizeof(*bs->b), cmp_shown);
}

/* The process's file: 0 (an absent file is no counts), or -errno said on stderr. */
static int read_proc(const struct psr_proc *p, struct psr_branches *bs, bool *absent)
{
	char path[4200], why[160];
	struct stat sb;
	char *text = NULL;
	size_t got = 0;
	FILE *f;
	int err;

	*absent = false;
	snprintf(path, sizeof(path), "%s/branches", p->dir);
	f = fopen(path, "r");
	if (!f) {
		err = -errno;
		*absent = err == -ENOENT;
		if (!*absent)
			fprintf(stderr, "patchsite: %s: %s\n", path, strerror(-err));
		return *absent ? 0 : err;
	}
	if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode) || (size_t)sb.st_size > MAX_FILE) {
		fprintf(stderr, "patchsite: %s: not a regular file of at most 256 MB\n", path);
		fclose(f);
		return -EINVAL;
	}
	text = malloc((size_t)sb.st_size + 1);
	if (text)
		got = fread(text, 1, (size_t)sb.st_size, f);
	fclose(f);
	if (!text)
		return -ENOMEM;
	err = psr_branches_parse(text, got, bs, why, sizeof(why));
	free(text);
	if (err)
		fprintf(stderr, "patchsite: %s: %s\n", path, err == -ENOMEM ? "out of memory" : why);
	else
		merge(bs);
	return err;
}

static const char *base(const char *file)
{
	const char *s = strrchr(file, '/');

	return s ? s + 1 : file;
}

/* p NULL: no process line (the runtime's trace_stat/branch_annotated). */
static void show_text(FILE *out, const struct psr_proc *p, const struct psr_branches *bs,
		      bool absent)
{
	if (p)
		fprintf(out, "# pid %d: %s\n", p->pid, p->exe ? p->exe : "?");
	if (absent && p)
		fprintf(out, "# no branch counts recorded%s\n",
			p->has_end ? "" : " (the process did not end normally: they are written at exit)");
	if (bs->lost)
		fprintf(out, "# %" PRIu64 " branch counters lost: objects unloaded without patchsite's "
			"dlclose\n", bs->lost);
	if (bs->refused)
		fprintf(out, "# %zu damaged branch sections or entries not read (the program said "
			"which)\n", bs->refused);
	fputs(" correct incorrect  %        Function                  File              Line\n"
	      " ------- ---------  -        --------                  ----              ----\n",
	      out);
	for (size_t i = 0; i < bs->n; i++) {
		const struct psr_branch *b = &bs->b[i];
		long pc = percent(b);

		fprintf(out, "%8" PRIu64 " %8" PRIu64 " ", b->correct, b->incorrect);
		if (pc < 0)
			fputs("  X ", out);
		else
			fprintf(out, "%3ld ", pc);
		fprintf(out, "%-30.30s %-20.20s %u\n", b->func, base(b->file), b->line);
	}
}

static void show_json(FILE *out, const struct psr_proc *p, const struct psr_branches *bs,
		      bool *first)
{
	for (size_t i = 0; i < bs->n; i++) {
		const struct psr_branch *b = &bs->b[i];
		long pc = percent(b);

		fprintf(out, "%s\n{\"pid\":%d,\"function\":", *first ? "" : ",", p->pid);
		json_str(out, b->func);
		fprintf(out, ",\"file\":");
		json_str(out, b->file);
		fprintf(out, ",\"line\":%u,\"expect\":\"%s\",\"correct\":%" PRIu64 ",\"incorrect\":%"
			PRIu64 ",\"percent_incorrect\":", b->line, b->likely ? "likely" : "unlikely",
			b->correct, b->incorrect);
		if (pc < 0)
			fputs("null}", out);
		else
			fprintf(out, "%ld}", pc);
		*first = false;
	}
	if (bs->lost)
		fprintf(stderr, "patchsite: pid %d: %" PRIu64 " branch counters lost: objects unloaded "
			"without patchsite's dlclose\n", p->pid, bs->lost);
	if (bs->refused)
		fprintf(stderr, "patchsite: pid %d: %zu damaged branch sections or entries not read\n",
			p->pid, bs->refused);
}

void psr_branches_show(FILE *out, const struct psr_proc *p, struct psr_branches *bs, bool json)
{
	bool first = true;

	merge(bs);
	if (json)
		show_json(out, p, bs, &first);
	else
		show_text(out, p, bs, false);
}

/* info: one line for the process's branch counts, when it has a branches file. */
void render_branches_info(FILE *out, const struct psr_proc *p)
{
	struct psr_branches bs = { 0 };
	uint64_t c = 0, i = 0;
	bool absent;

	if (read_proc(p, &bs, &absent)) {
		fprintf(out, "  branches: damaged file (said on stderr)\n");
		return;
	}
	if (absent)
		return;
	for (size_t k = 0; k < bs.n; k++) {
		c = add_sat(c, bs.b[k].correct);
		i = add_sat(i, bs.b[k].incorrect);
	}
	fprintf(out, "  branches: %zu sites, %" PRIu64 " predicted right, %" PRIu64 " wrong%s\n",
		bs.n, c, i, bs.lost || bs.refused ? " (some not read: report --branches says which)" : "");
	psr_branches_free(&bs);
}

int render_branches(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	bool first = true, shown = false;
	int err = 0;

	if (o->json)
		fputc('[', out);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];
		struct psr_branches bs = { 0 };
		bool absent;
		int e;

		if (!render_proc_wanted(p, o))
			continue;
		e = read_proc(p, &bs, &absent);
		if (e) {
			err = err ? err : e;
			continue;
		}
		if (o->json)
			show_json(out, p, &bs, &first);
		else {
			if (shown)
				fputc('\n', out);
			show_text(out, p, &bs, absent);
		}
		shown = true;
		psr_branches_free(&bs);
	}
	if (o->json)
		fputs("\n]\n", out);
	return err;
}
