// SPDX-License-Identifier: GPL-2.0-only
/*
 * record -A in uftrace's spelling (uftrace-record(1), ARGUMENTS):
 *
 *	-A FUNC@arg1[/FMT],arg2,...,fparg1[/FMT]
 *
 * turned into one probe definition (dynamic_events' syntax), group "args",
 * event FUNC: argN -> $argN, fpargN -> the Nth floating-point argument
 * register; FMT d/i (long, uftrace's default), i8..i64, u, u8..u64, x,
 * x8..x64, c, s (a string), p (a pointer), f/f32/f64 (fpargs).  What
 * uftrace has and this does not (retval in -A: record -R FUNC@retval is
 * set_ftrace_args's, with function_graph; std::string /S; register
 * overrides %REG) is refused by name.  Several specs of one function are
 * one definition (argspec_merge), as uftrace merges them.
 *
 * -R FUNC@retval/FMT: the same formats (f, f32, f64: the floating-point
 * return register), as the return probe "f:retval/FUNC__exit FUNC%return
 * $retval:TYPE".  The groups args and retval (and -a's auto) tell the
 * readers these are uftrace's spellings, shown in the call as uftrace does
 * (data/read_uprobe.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argspec.h"

static const struct {
	const char *fmt, *type;
} fmts[] = {
	{ "d", "s64" }, { "i", "s64" }, { "i8", "s8" }, { "i16", "s16" }, { "i32", "s32" },
	{ "i64", "s64" }, { "u", "u64" }, { "u8", "u8" }, { "u16", "u16" }, { "u32", "u32" },
	{ "u64", "u64" }, { "x", "x64" }, { "x8", "x8" }, { "x16", "x16" }, { "x32", "x32" },
	{ "x64", "x64" }, { "c", "char" }, { "s", "string" }, { "p", "x64" },
};

const char *argspec_type(const char *fmt, bool fp)
{
	if (fp)
		return !fmt[0] || !strcmp(fmt, "f") || !strcmp(fmt, "f64") ? "double" :
		       !strcmp(fmt, "f32") ? "float" : NULL;
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (!strcmp(fmt[0] ? fmt : "d", fmts[i].fmt))
			return fmts[i].type;
	return NULL;
}

/* One item ("arg2/s", "fparg1/f32") appended to out as " NAME=FETCH:TYPE". */
static int item(const char *it, const char *fpreg, char *out, size_t len, char *err,
		size_t errlen)
{
	char reg[16], fmt[16] = "";
	const char *type, *slash = strchr(it, '/');
	size_t at = strlen(out);
	unsigned n;
	int used = 0;
	bool fp = !strncmp(it, "fparg", 5);

	if (sscanf(it, fp ? "fparg%u%n" : "arg%u%n", &n, &used) != 1 || !n || n > 64 ||
	    (it[used] && it[used] != '/')) {
		snprintf(err, errlen, "'%s': expected argN[/FMT] or fpargN[/FMT]%s", it,
			 strstr(it, "retval") ? " (a return value: -R FUNC@retval)" :
			 "");
		return -EINVAL;
	}
	if (slash)
		snprintf(fmt, sizeof(fmt), "%s", slash + 1);
	type = argspec_type(fmt, fp);
	if (fp && n > 8) {
		snprintf(err, errlen, "'%s': only fparg1..fparg8 are in registers", it);
		return -EINVAL;
	}
	if (!type) {
		snprintf(err, errlen, "'%s': format '%s' is not recorded (d i u x with sizes, c, s, "
			 "p; fparg: f f32 f64)", it, fmt);
		return -EINVAL;
	}
	if (!fp) {	/* s: the string the argument points to, the kernel's +0($argN):string */
		snprintf(out + at, len - at, strcmp(type, "string") ? " arg%u=$arg%u:%s" :
			 " arg%u=+0($arg%u):%s", n, n, type);
		return 0;
	}
	if (!fpreg) {
		snprintf(err, errlen, "'%s': floating-point arguments are read on x86-64 and "
			 "aarch64 only", it);
		return -EINVAL;
	}
	snprintf(reg, sizeof(reg), fpreg, n - 1);
	snprintf(out + at, len - at, " fparg%u=%%%s:%s", n, reg, type);
	return 0;
}

const char *argspec_event(const char *func, size_t n, const char *suffix, char *ev, size_t len)
{
	size_t k = 0;

	if (isdigit((unsigned char)func[0]) && k + 1 < len)
		ev[k++] = '_';
	for (size_t i = 0; i < n && func[i] && k + 1 + strlen(suffix) < len && k < 48; i++)
		ev[k++] = isalnum((unsigned char)func[i]) || func[i] == '_' ? func[i] : '_';
	snprintf(ev + k, len - k, "%s", suffix);
	return ev;
}

int argspec_probe(const char *spec, const char *fpreg, char *out, size_t len, char *err,
		  size_t errlen)
{
	char buf[1024], ev[64], *at, *save = NULL;

	if (strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "a spec longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	at = strchr(buf, '@');
	if (!at || at == buf || !at[1]) {
		snprintf(err, errlen, "'%s': expected FUNC@arg1,arg2,...", spec);
		return -EINVAL;
	}
	*at = '\0';
	snprintf(out, len, "f:args/%s %s", argspec_event(buf, strlen(buf), "", ev, sizeof(ev)),
		 buf);
	for (char *it = strtok_r(at + 1, ",", &save); it; it = strtok_r(NULL, ",", &save))
		if (item(it, fpreg, out, len, err, errlen))
			return -EINVAL;
	return 0;
}

/* The length of line's FUNC@, or 0 when it has none. */
static size_t func_len(const char *line)
{
	const char *at = strchr(line, '@');

	return at ? (size_t)(at - line) + 1 : 0;
}

char *argspec_merge(const char *specs)
{
	char *copy = strdup(specs), *out = malloc(strlen(specs) + 2), *save = NULL, **lines;
	size_t n = 0, at = 0;

	lines = copy ? calloc(strlen(specs) / 2 + 2, sizeof(*lines)) : NULL;
	if (!lines || !out) {
		free(copy), free(out), free(lines);
		return NULL;
	}
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	for (size_t i = 0; i < n; i++) {
		size_t f = func_len(lines[i]);

		if (!lines[i][0])
			continue;	/* merged into an earlier line */
		at += (size_t)sprintf(out + at, "%s", lines[i]);
		for (size_t j = i + 1; f && j < n; j++)
			if (func_len(lines[j]) == f && !strncmp(lines[j], lines[i], f)) {
				at += (size_t)sprintf(out + at, ",%s", lines[j] + f);
				lines[j][0] = '\0';
			}
		out[at++] = '\n';
	}
	out[at] = '\0';
	free(lines);
	free(copy);
	return out;
}
