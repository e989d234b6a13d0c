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
 * overrides %REG) is refused by name.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
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

/* One item ("arg2/s", "fparg1/f32") appended to out as " NAME=FETCH:TYPE". */
static int item(const char *it, const char *fpreg, char *out, size_t len, char *err,
		size_t errlen)
{
	char reg[16], fmt[16] = "";
	const char *type = NULL, *slash = strchr(it, '/');
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
	if (fp) {
		type = !fmt[0] || !strcmp(fmt, "f") || !strcmp(fmt, "f64") ? "double" :
		       !strcmp(fmt, "f32") ? "float" : NULL;
		if (n > 8) {
			snprintf(err, errlen, "'%s': only fparg1..fparg8 are in registers", it);
			return -EINVAL;
		}
	} else {
		for (size_t i = 0; !type && i < sizeof(fmts) / sizeof(fmts[0]); i++)
			if (!strcmp(fmt[0] ? fmt : "d", fmts[i].fmt))
				type = fmts[i].type;
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

int argspec_probe(const char *spec, const char *fpreg, char *out, size_t len, char *err,
		  size_t errlen)
{
	char buf[1024], ev[64], *at, *save = NULL;
	size_t k = 0;

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
	/* The event's name: FUNC as a C identifier (a glob's * and . become _). */
	for (const char *p = buf; *p && k + 1 < sizeof(ev) - 8; p++)
		ev[k++] = isalnum((unsigned char)*p) || *p == '_' ? *p : '_';
	ev[k] = '\0';
	snprintf(out, len, "f:args/%s%s %s", isdigit((unsigned char)ev[0]) ? "_" : "", ev, buf);
	for (char *it = strtok_r(at + 1, ",", &save); it; it = strtok_r(NULL, ",", &save))
		if (item(it, fpreg, out, len, err, errlen))
			return -EINVAL;
	return 0;
}
