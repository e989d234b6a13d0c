// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dynamic_events syntax (probe.h), parsed into a struct ps_probe_def:
 * the kernel's fprobe form, word by word.  Nothing here knows the
 * process: names of registers, symbols and DWARF names are kept as text
 * for probe_fetch.c (or the command) to resolve.  Every refusal says which
 * word and why, as the kernel's error_log does.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A group or event name: the kernel's rule, a C identifier. */
static bool ident_ok(const char *s, size_t n)
{
	if (!n || n >= PS_PROBE_NAME_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* A decimal number of the whole of s (no sign): false when it is not one. */
static bool number(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !*end && !errno;
}

static const struct {
	const char *name;
	uint8_t type, size;
} types[] = {
	{ "u8", PT_U, 1 }, { "u16", PT_U, 2 }, { "u32", PT_U, 4 }, { "u64", PT_U, 8 },
	{ "s8", PT_S, 1 }, { "s16", PT_S, 2 }, { "s32", PT_S, 4 }, { "s64", PT_S, 8 },
	{ "x8", PT_X, 1 }, { "x16", PT_X, 2 }, { "x32", PT_X, 4 }, { "x64", PT_X, 8 },
	{ "char", PT_CHAR, 1 }, { "string", PT_STRING, 8 }, { "float", PT_FLOAT, 4 },
	{ "double", PT_DOUBLE, 8 },
	/* All memory read here is the process's own, the user's: the same string (listed so). */
	{ "ustring", PT_STRING, 8 },
};

/*
 * The kernel's types that have no meaning here, or are not done yet: each
 * refused by name rather than as an unknown type.
 */
static const char *type_unsupported(const char *t)
{
	if (t[0] == 'b' && (isdigit((unsigned char)t[1]) || t[1] == '@'))
		return "not a bitfield: b<width>@<offset>/<size>, width > 0, size 8, 16, 32 or "
		       "64, width + offset <= size";
	if (strchr(t, '['))
		return "an array type (TYPE[N]) is not supported here";
	if (!strcmp(t, "symbol") || !strcmp(t, "symstr"))
		return "the symbol and symstr types are not supported here (record the address: x64)";
	if (!strcmp(t, "%pd") || !strcmp(t, "%pD"))
		return "%pd and %pD are the kernel's (a dentry's or file's name)";
	return NULL;
}

const char *ps_probe_type_name(const struct ps_probe_arg *a, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].type == a->type && types[i].size == a->size)
			return types[i].name;
	snprintf(buf, len, "?");
	return buf;
}

const char *ps_probe_type_text(const struct ps_probe_arg *a, char *buf, size_t len)
{
	if (!a->bw)
		return ps_probe_type_name(a, buf, len);
	snprintf(buf, len, "b%u@%u/%u", a->bw, a->bo, 8 * a->size);
	return buf;
}

/*
 * A bitfield type, b<width>@<offset>/<size> (the kernel's
 * __parse_bitfield_probe_arg): into a, the container unsigned of size
 * bits; false when t is not one.
 */
static bool bitfield(const char *t, struct ps_probe_arg *a)
{
	unsigned long bw, bo, bs;
	char *end;

	if (t[0] != 'b' || !isdigit((unsigned char)t[1]))
		return false;
	bw = strtoul(t + 1, &end, 10);
	if (*end != '@' || !isdigit((unsigned char)end[1]))
		return false;
	bo = strtoul(end + 1, &end, 10);
	if (*end != '/' || !isdigit((unsigned char)end[1]))
		return false;
	bs = strtoul(end + 1, &end, 10);
	if (*end || !bw || (bs != 8 && bs != 16 && bs != 32 && bs != 64) || bw > bs || bo > bs ||
	    bw + bo > bs)
		return false;	/* each compared alone first: a huge one wraps the sum */
	a->type = PT_U;
	a->size = (uint8_t)(bs / 8);
	a->bw = (uint8_t)bw;
	a->bo = (uint8_t)bo;
	return true;
}

/* How a value of the type is shown: the kernel's (u decimal, x 0x-hex, string quoted). */
const char *ps_probe_type_fmt(const struct ps_probe_arg *a)
{
	switch (a->type) {
	case PT_U: return "%u";
	case PT_S: return "%d";
	case PT_X: return "0x%x";
	case PT_CHAR: return "'%c'";
	case PT_STRING: return "\"%s\"";
	default: return "%.17g";
	}
}

/* A DWARF name: C identifiers joined by "->" or "." ($arg:NAME is the same as NAME). */
static bool dwarf_name(const char *s)
{
	bool want_ident = true;

	if (!*s)
		return false;
	while (*s) {
		if (want_ident) {
			if (!isalpha((unsigned char)*s) && *s != '_')
				return false;
			while (isalnum((unsigned char)*s) || *s == '_')
				s++;
			want_ident = false;
		} else if (!strncmp(s, "->", 2) || *s == '.') {
			s += *s == '.' ? 1 : 2;
			want_ident = true;
		} else {
			return false;
		}
	}
	return !want_ident;
}

/* A symbol's name: a C identifier, dots allowed (f.constprop.0). */
static bool sym_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.')
			return false;
	return true;
}

/* WHAT (without NAME= and :TYPE) into a; w is modified (the nesting is cut). */
static int parse_what(char *w, struct ps_probe_arg *a, bool ret, char *err, size_t errlen)
{
	uint64_t v;

	if (*w == '+' || *w == '-') {		/* +|-[u]OFF(WHAT) */
		char *open = strchr(w, '('), *close = w + strlen(w) - 1, *end;
		int64_t off;

		if (!open || *close != ')' || close < open)
			return bad(err, errlen, "'%s': expected +|-OFF(FETCHARG)", w);
		*open = *close = '\0';
		errno = 0;
		off = strtoll(w + 1 + (w[1] == 'u'), &end, 0);
		if (end == w + 1 + (w[1] == 'u') || *end || errno)
			return bad(err, errlen, "'%s': the offset is not a number", w);
		if (*w == '-')
			off = -off;
		if (parse_what(open + 1, a, ret, err, errlen))
			return -EINVAL;
		if (a->base == PF_IMM)
			return bad(err, errlen, "an immediate cannot be dereferenced");
		if (a->base == PF_COMM)
			return bad(err, errlen, "$comm cannot be dereferenced");
		if (a->nderef == PS_PROBE_MAX_DEREF)
			return bad(err, errlen, "more than %d nested dereferences",
				   PS_PROBE_MAX_DEREF);
		a->deref[a->nderef++] = off;
		return 0;
	}
	if (!strcmp(w, "$comm") || !strcmp(w, "$COMM")) {
		a->base = PF_COMM;
	} else if (!strcmp(w, "$arg*")) {
		return bad(err, errlen, "'$arg*' (every argument from BTF) is not supported here: "
			   "name them, or use record -a");
	} else if (!strncmp(w, "$arg", 4) && number(w + 4, &v)) {
		if (v < 1 || v > 64)
			return bad(err, errlen, "'%s': arguments are $arg1 .. $arg64", w);
		a->base = PF_ARG;
		a->n = v - 1;
	} else if (!strcmp(w, "$retval")) {
		if (!ret)
			return bad(err, errlen, "$retval is only for a FUNC%%return probe");
		a->base = PF_RETVAL;
	} else if (!strcmp(w, "$stack")) {
		a->base = PF_STACKADDR;
	} else if (!strncmp(w, "$stack", 6) && number(w + 6, &v) && v < 4096) {
		a->base = PF_STACK;
		a->n = v;
	} else if (!strncmp(w, "$arg:", 5) && dwarf_name(w + 5)) {
		if (strlen(w + 5) >= sizeof(a->sym))	/* not cut short: the fuzzer's find */
			return bad(err, errlen, "'%s': a name longer than %zu characters", w,
				   sizeof(a->sym) - 1);
		a->base = PF_NAME;
		snprintf(a->sym, sizeof(a->sym), "%s", w + 5);
	} else if (*w == '%' && ident_ok(w + 1, strlen(w + 1))) {
		a->base = PF_REG;
		snprintf(a->sym, sizeof(a->sym), "%s", w + 1);
	} else if (*w == '@' && w[1] == '+') {
		return bad(err, errlen, "'%s': a file offset (@+OFFS, the uprobes' form) is not "
			   "supported here: use @SYM[+|-OFF] or @ADDR", w);
	} else if (*w == '@' && number(w + 1, &v)) {
		a->base = PF_ADDR;
		a->n = v;
	} else if (*w == '@') {
		char *pm = strpbrk(w + 1, "+-"), *end;

		a->base = PF_SYM;
		if (pm) {
			errno = 0;
			a->off = strtoll(pm, &end, 0);
			if (end == pm + 1 || *end || errno)
				return bad(err, errlen, "'%s': expected @SYM+OFF", w);
			*pm = '\0';
		}
		if (!sym_ok(w + 1) || strlen(w + 1) >= sizeof(a->sym))
			return bad(err, errlen, "'%s': expected @ADDR or @SYM[+|-OFF]", w);
		snprintf(a->sym, sizeof(a->sym), "%s", w + 1);
	} else if (w[0] == '\\' && w[1] == '"') {
		return bad(err, errlen, "'%s': an immediate string (\\\"...\") is not supported here",
			   w);
	} else if (*w == '\\') {
		char *end;

		errno = 0;
		a->n = (uint64_t)strtoll(w + 1, &end, 0);
		if (end == w + 1 || *end || errno)
			return bad(err, errlen, "'%s': expected \\IMM, a number", w);
		a->base = PF_IMM;
	} else if (*w == '$') {
		return bad(err, errlen, "'%s': no such variable ($argN, $retval, $stackN, $stack, "
			   "$comm, $arg:NAME)", w);
	} else if (strlen(w) < sizeof(a->sym) && dwarf_name(w)) {
		a->base = PF_NAME;
		snprintf(a->sym, sizeof(a->sym), "%s", w);
	} else {
		return bad(err, errlen, "'%s': not a fetch argument", w);
	}
	return 0;
}

/*
 * What a return probe reads at the entry and keeps with the call (the
 * kernel's fprobe entry data): the argument registers and the entry's
 * stack are gone at the return.  DWARF names are the entry's too.
 */
bool ps_probe_arg_at_entry(const struct ps_probe_arg *a)
{
	return a->base == PF_ARG || a->base == PF_STACK || a->base == PF_STACKADDR ||
	       a->base == PF_REG || a->base == PF_NAME;
}

/*
 * The kernel's rules for a string (finalize_fetch_insn): it is read at an
 * address, the one the last dereference, @ADDR or \IMM gives; a register's
 * or a stack slot's value is not one (BAD_STRING), but for a name, or a
 * $retval, whose type says char * (there the command adds the +0(...), as
 * the kernel does from BTF).  $comm is a string and nothing else.
 */
static int string_check(const char *w, const char *colon, struct ps_probe_arg *a, unsigned k,
			char *err, size_t errlen)
{
	if (a->base == PF_COMM) {
		if (colon && a->type != PT_STRING)
			return bad(err, errlen, "argument %u: $comm is a string: no other type", k + 1);
		a->type = PT_STRING;
		a->size = 8;
		return 0;
	}
	if (a->type != PT_STRING || a->nderef || a->base == PF_ADDR || a->base == PF_SYM ||
	    a->base == PF_IMM || a->base == PF_NAME || a->base == PF_RETVAL)
		return 0;
	return bad(err, errlen, "argument %u: '%s': a string is read at an address, as in the "
		   "kernel: +0(%s):string is the one it points to", k + 1, w, w);
}

/* TYPE of the k-th argument into a: 0, or refused. */
static int parse_type(const char *t, struct ps_probe_arg *a, unsigned k, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(t, types[i].name)) {
			a->type = types[i].type;
			a->size = types[i].size;
			return 0;
		}
	if (bitfield(t, a))
		return 0;
	if (type_unsupported(t))
		return bad(err, errlen, "argument %u: '%s': %s", k + 1, t, type_unsupported(t));
	return bad(err, errlen, "argument %u: no such type '%s' (u8..u64, s8..s64, x8..x64, char, "
		   "string, ustring, b<width>@<offset>/<size>, float, double)", k + 1, t);
}

/* One FETCHARG word, the k-th: into a. */
static int parse_arg(const char *word, unsigned k, struct ps_probe_arg *a, bool ret, char *err,
		     size_t errlen)
{
	char buf[512], *w = buf, *eq, *colon;
	size_t n = strlen(word);

	memset(a, 0, sizeof(*a));
	if (n >= sizeof(buf))
		return bad(err, errlen, "argument %u: longer than %zu characters", k + 1,
			   sizeof(buf) - 1);
	memcpy(buf, word, n + 1);
	eq = strchr(w, '=');
	if (eq) {
		if (!ident_ok(w, (size_t)(eq - w)))
			return bad(err, errlen, "argument %u: '%.*s' is not a name", k + 1,
				   (int)(eq - w), w);
		if (eq - w > PS_PROBE_ARG_NAME_MAX)
			return bad(err, errlen, "argument %u: '%.*s': a name longer than %d characters",
				   k + 1, (int)(eq - w), w, PS_PROBE_ARG_NAME_MAX);
		snprintf(a->name, sizeof(a->name), "%.*s", (int)(eq - w), w);
		w = eq + 1;
	}
	if (!*w)
		return bad(err, errlen, "argument %u: '%s' fetches nothing", k + 1, word);
	a->type = PT_X;
	a->size = 8;
	colon = strrchr(w, ':');
	if (colon && !(colon == w + 4 && !strncmp(w, "$arg:", 5))) {
		if (parse_type(colon + 1, a, k, err, errlen))
			return -EINVAL;
		*colon = '\0';
	}
	if (parse_what(w, a, ret, err, errlen))
		return -EINVAL;
	if (string_check(w, colon, a, k, err, errlen))
		return -EINVAL;
	if (!a->name[0]) {		/* the kernel's default: argN, or the DWARF name */
		if (a->base == PF_NAME && strlen(a->sym) <= PS_PROBE_ARG_NAME_MAX) {
			char *o = a->name;	/* host->name: host_name, as perf probe names it */

			for (const char *p = a->sym; *p; p++) {
				if (*p == '-')
					continue;
				*o++ = *p == '>' || *p == '.' ? '_' : *p;
			}
		} else {
			snprintf(a->name, sizeof(a->name), "arg%u", k + 1);
		}
	}
	return 0;
}

/* "f[:[GRP/][EVENT]]" or "-:[GRP/]EVENT" */
static int parse_head(const char *w, struct ps_probe_def *d, char *err, size_t errlen)
{
	const char *name = w + 1, *slash;

	if (w[0] == 'f' && isdigit((unsigned char)w[1]))
		return bad(err, errlen, "'%s': MAXACTIVE is not taken here (every return is "
			   "hooked): f[:[GRP/][EVENT]]", w);
	if ((w[0] == 'p' || w[0] == 'r') && (!w[1] || w[1] == ':'))
		return bad(err, errlen, "'%s': a kprobe: write it as an fprobe, f (p FUNC) or "
			   "f FUNC%%return (r FUNC)", w);
	if ((w[0] != 'f' && w[0] != '-') || (w[1] && w[1] != ':'))
		return bad(err, errlen, "'%s': expected f[:[GRP/][EVENT]] (an fprobe) or "
			   "-:[GRP/]EVENT", w);
	d->remove = w[0] == '-';
	snprintf(d->group, sizeof(d->group), "fprobes");
	if (!*name) {
		if (d->remove)
			return bad(err, errlen, "-: names the event to remove: -:[GRP/]EVENT");
		return 0;
	}
	name++;
	if (!*name)
		return bad(err, errlen, "'%s': no event name after ':'", w);
	slash = strchr(name, '/');
	if (slash) {
		if (!ident_ok(name, (size_t)(slash - name)))
			return bad(err, errlen, "'%s': the group is not a name", w);
		snprintf(d->group, sizeof(d->group), "%.*s", (int)(slash - name), name);
		name = slash + 1;
	}
	if (*name && !ident_ok(name, strlen(name)))
		return bad(err, errlen, "'%s': the event is not a name", w);
	snprintf(d->event, sizeof(d->event), "%s", name);
	if (d->remove && !d->event[0])
		return bad(err, errlen, "'%s': names no event", w);
	return 0;
}

/* The words of line (blanks separate), at most max, each NUL-ended in buf. */
static int split(const char *line, char *buf, size_t len, char **words, unsigned max,
		 unsigned *n, char *err, size_t errlen)
{
	size_t l = strlen(line);
	char *p = buf;

	*n = 0;
	if (l >= len)
		return bad(err, errlen, "a definition longer than %zu characters", len - 1);
	memcpy(buf, line, l + 1);
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return 0;
		if (*n == max)
			return bad(err, errlen, "more than %u fetch arguments (an event has at most "
				   "%u fields)", PS_PROBE_MAX_ARGS, PS_PROBE_MAX_ARGS);
		words[(*n)++] = p;
		p += strcspn(p, " \t");
		if (*p)
			*p++ = '\0';
	}
}

/* A trailing "if EXPR" (a word "if"): EXPR into d->filter, the line cut before it. */
static int cut_filter(const char *line, size_t *len, struct ps_probe_def *d, char *err,
		      size_t errlen)
{
	const char *p = line;

	*len = strlen(line);
	for (; (p = strstr(p, "if")); p += 2) {
		const char *e = p + 2;

		if (p == line || (p[-1] != ' ' && p[-1] != '\t') || (*e && *e != ' ' && *e != '\t'))
			continue;
		while (*e == ' ' || *e == '\t')
			e++;
		if (!*e)
			return bad(err, errlen, "'if' without a condition");
		if (strlen(e) >= sizeof(d->filter))
			return bad(err, errlen, "a condition longer than %zu characters",
				   sizeof(d->filter) - 1);
		snprintf(d->filter, sizeof(d->filter), "%s", e);
		*len = (size_t)(p - line);
		return 0;
	}
	return 0;
}

int ps_probe_parse(const char *line, struct ps_probe_def *d, char *err, size_t errlen)
{
	char buf[4096], head[4096], *w[2 + PS_PROBE_MAX_ARGS], *pct;
	unsigned n;
	size_t len;

	memset(d, 0, sizeof(*d));
	if (cut_filter(line, &len, d, err, errlen))
		return -EINVAL;
	if (len >= sizeof(head))
		return bad(err, errlen, "a definition longer than %zu characters", sizeof(head) - 1);
	memcpy(head, line, len);
	head[len] = '\0';
	if (split(head, buf, sizeof(buf), w, 2 + PS_PROBE_MAX_ARGS, &n, err, errlen))
		return -EINVAL;
	if (!n)
		return bad(err, errlen, "empty definition");
	if (parse_head(w[0], d, err, errlen))
		return -EINVAL;
	if (d->remove)
		return n == 1 && !d->filter[0] ? 0 : bad(err, errlen, "-:%s/%s: nothing may follow",
							 d->group, d->event);
	if (n < 2)
		return bad(err, errlen, "'%s': names no function", w[0]);
	pct = strchr(w[1], '%');
	if (pct) {
		if (strcmp(pct, "%return"))
			return bad(err, errlen, "'%s': expected FUNC or FUNC%%return", w[1]);
		*pct = '\0';
		d->ret = true;
	}
	if (strchr(w[1], '+'))
		return bad(err, errlen, "'%s': an fprobe is at a function's entry or return, no "
			   "offset", w[1]);
	if (!w[1][0] || strlen(w[1]) >= sizeof(d->func) || strpbrk(w[1], "()$@=\\"))
		return bad(err, errlen, "'%s': not a function name", w[1]);
	snprintf(d->func, sizeof(d->func), "%s", w[1]);
	if (!d->event[0]) {		/* the kernel's default: FUNC__entry, FUNC__exit */
		size_t m = strlen(d->func);

		if (!ident_ok(d->func, m) || m > 50)
			return bad(err, errlen, "'%s' is no event name: name it, f:GRP/EVENT",
				   d->func);
		snprintf(d->event, sizeof(d->event), "%.50s__%s", d->func, d->ret ? "exit" : "entry");
	}
	d->nargs = n - 2;
	if (d->ret && d->nargs > PS_PROBE_MAX_ARGS - 1)
		return bad(err, errlen, "more than %u fetch arguments in a %%return probe (its event "
			   "has at most %u fields, the caller's address one of them)",
			   PS_PROBE_MAX_ARGS - 1, PS_PROBE_MAX_ARGS);
	for (unsigned i = 0, at_entry = 0; i < d->nargs; i++) {
		if (parse_arg(w[2 + i], i, &d->a[i], d->ret, err, errlen))
			return -EINVAL;
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(d->a[j].name, d->a[i].name))
				return bad(err, errlen, "two arguments named %s", d->a[i].name);
		at_entry += d->ret && ps_probe_arg_at_entry(&d->a[i]);
		if (at_entry > PS_PROBE_RET_ENTRY)
			return bad(err, errlen, "argument %u: a %%return probe keeps at most %d values "
				   "of the entry ($argN, $stackN, %%REG, names) until the return",
				   i + 1, PS_PROBE_RET_ENTRY);
	}
	return 0;
}

/* One fetch argument as written in the kernel's form (the innermost first). */
static void what_text(const struct ps_probe_arg *a, char *out, size_t len)
{
	char in[300], tmp[300];

	switch (a->base) {
	case PF_ARG: snprintf(in, sizeof(in), "$arg%" PRIu64, a->n + 1); break;
	case PF_RETVAL: snprintf(in, sizeof(in), "$retval"); break;
	case PF_STACK: snprintf(in, sizeof(in), "$stack%" PRIu64, a->n); break;
	case PF_STACKADDR: snprintf(in, sizeof(in), "$stack"); break;
	case PF_REG: snprintf(in, sizeof(in), "%%%s", a->sym); break;
	case PF_ADDR: snprintf(in, sizeof(in), "@%" PRIu64, a->n); break;
	case PF_SYM:
		snprintf(in, sizeof(in), "@%s%+" PRId64, a->sym, a->off);
		if (!a->off)
			in[strlen(in) - 2] = '\0';
		break;
	case PF_IMM: snprintf(in, sizeof(in), "\\%" PRId64, (int64_t)a->n); break;
	case PF_COMM: snprintf(in, sizeof(in), "$comm"); break;
	default: snprintf(in, sizeof(in), "%s", a->sym); break;
	}
	for (unsigned i = 0; i < a->nderef; i++) {
		snprintf(tmp, sizeof(tmp), "%+" PRId64 "(%.270s)", a->deref[i], in);
		memcpy(in, tmp, sizeof(in));
	}
	snprintf(out, len, "%s", in);
}

void ps_probe_text(const struct ps_probe_def *d, char *out, size_t len)
{
	size_t at;

	snprintf(out, len, "f:%s/%s %s%s", d->group, d->event, d->func, d->ret ? "%return" : "");
	for (unsigned i = 0; i < d->nargs; i++) {
		char what[320], tn[16];

		at = strlen(out);
		what_text(&d->a[i], what, sizeof(what));
		snprintf(out + at, len - at, " %s=%s:%s", d->a[i].name, what,
			 ps_probe_type_text(&d->a[i], tn, sizeof(tn)));
	}
	if (d->filter[0]) {
		at = strlen(out);
		snprintf(out + at, len - at, " if %s", d->filter);
	}
}
