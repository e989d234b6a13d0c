// SPDX-License-Identifier: GPL-2.0-only
/*
 * The filters' options (psr_filter_add: -F -N -H -C -T -D -t -Z -L -r
 * --max-stack --no-libcall --no-args --trace --match, uftrace's spellings)
 * into one struct psr_filter: each argument checked as it comes, a bad one
 * said in one line.  read_filter.c applies them to a thread's events.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ps_glob.h"
#include "read_filter.h"

bool psr_filter_any(const struct psr_filter *f)
{
	return f && (f->npat || f->depth || f->max_stack || f->time_ns || f->size || f->loc ||
		     f->range || f->start_off || f->no_libcall ||
		     f->no_args);
}

__attribute__((format(printf, 3, 4)))
static int say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/*
 * A time as uftrace takes it: a number, then ns (the default), us, ms, s or m;
 * *unit tells whether one was written.  -EINVAL when it is not one.
 */
static int parse_time(const char *s, size_t n, uint64_t *ns, bool *unit)
{
	static const struct { const char *u; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 },
	};
	char buf[64], *end;
	double v;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	v = strtod(buf, &end);
	*unit = *end != 0;
	if (*unit) {
		size_t k = 0;

		while (k < sizeof(units) / sizeof(units[0]) && strcmp(end, units[k].u))
			k++;
		if (k == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		v *= units[k].mul;
	} else if (strchr(buf, '.')) {
		v *= 1e9;	/* a time stamp: seconds, as replay prints them */
	}
	if (!isfinite(v) || v < 0 || v > 1.8e19)
		return -EINVAL;
	*ns = (uint64_t)v;
	return 0;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*s < '0' || *s > '9' || *end || !v || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* "1234", "4k", "1M": -Z's size in bytes. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (*s < '0' || *s > '9')
		return -EINVAL;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || !v)
		return -EINVAL;
	*out = v;
	return 0;
}

/* The tokens of a pattern list, NUL-separated, each checked as a glob. */
static int add_pattern(struct psr_filter *f, const char *opt, const char *arg, size_t n,
		       unsigned flags, unsigned depth, char *why, size_t len)
{
	struct pattern *g = realloc(f->pat, (f->npat + 1) * sizeof(*g)), *p;
	size_t at = 0;

	if (!g)
		return -ENOMEM;
	f->pat = g;
	p = &g[f->npat];
	*p = (struct pattern){ .flags = flags, .depth = depth };
	snprintf(p->opt, sizeof(p->opt), "%s", opt);
	p->arg = strdup(arg);
	p->toks = malloc(n + 1);
	if (!p->toks || !p->arg) {
		free(p->toks);
		free(p->arg);
		return -ENOMEM;
	}
	/* As uftrace: a name without a regex's special character matches itself only. */
	if (f->regex && strpbrk(arg, ".^$*+?()[]{}|\\")) {
		int rc;

		memcpy(p->toks, arg, n);
		p->toks[n] = 0;
		rc = regcomp(&p->re, p->toks, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[128];

			regerror(rc, &p->re, msg, sizeof(msg));
			free(p->toks);
			free(p->arg);
			return say(why, len, "'%s' is not a regular expression: %s", arg, msg);
		}
		p->is_re = true;
		p->len = n + 1;
		f->npat++;
		f->used |= flags;
		return 0;
	}
	for (const char *s = arg; s < arg + n;) {
		size_t k = strcspn(s, PS_GLOB_SEPARATORS);

		if (k > (size_t)(arg + n - s))
			k = (size_t)(arg + n - s);
		if (k) {
			memcpy(p->toks + at, s, k);
			p->toks[at + k] = 0;
			if (ps_glob_fault(p->toks + at + (s[0] == '!'))) {
				int err = say(why, len, "'%s' is not a valid glob: %s", p->toks + at,
					      ps_glob_fault(p->toks + at + (s[0] == '!')));

				free(p->toks);
				free(p->arg);
				return err;
			}
			at += k + 1;
		}
		s += k + (s + k < arg + n);
	}
	if (!at) {
		free(p->toks);
		free(p->arg);
		return say(why, len, "expected a function's name");
	}
	p->len = at;
	f->npat++;
	f->used |= flags;
	return 0;
}

/* -T FUNC@ACTION[,ACTION...]: the actions that mean something on a recording. */
static int add_trigger(struct psr_filter *f, const char *arg, char *why, size_t len)
{
	const char *at = strchr(arg, '@');
	unsigned flags = 0, depth = 0;
	char act[64];

	if (!at || at == arg || !at[1])
		return say(why, len, "expected FUNC@ACTION[,ACTION...]");
	for (const char *s = at + 1; *s;) {
		size_t k = strcspn(s, ",");

		snprintf(act, sizeof(act), "%.*s", (int)(k < 60 ? k : 60), s);
		if (!strncmp(act, "depth=", 6)) {
			if (parse_uint(act + 6, 65535, &depth))
				return say(why, len, "'%s': expected depth=N, N from 1", act);
			flags |= FL_DEPTH;
		} else if (!strcmp(act, "trace_on") || !strcmp(act, "traceon") ||
			   !strcmp(act, "trace-on")) {	/* uftrace takes both spellings */
			flags |= FL_ON;
		} else if (!strcmp(act, "trace_off") || !strcmp(act, "traceoff") ||
			   !strcmp(act, "trace-off")) {
			flags |= FL_OFF;
		} else if (!strcmp(act, "filter")) {
			flags |= FL_FILTER;
		} else if (!strcmp(act, "notrace")) {
			flags |= FL_NOTRACE;
		} else if (!strcmp(act, "hide")) {
			flags |= FL_HIDE;
		} else {
			return say(why, len, "'%s': not an action on a recording (depth=N, trace_on, "
				   "trace_off, filter, notrace, hide)", act);
		}
		s += k + (s[k] != 0);
	}
	return add_pattern(f, "--trigger", arg, (size_t)(at - arg), flags, depth, why, len);
}

static int parse_range(struct psr_filter *f, const char *arg, char *why, size_t len)
{
	const char *tilde = strchr(arg, '~');
	bool unit;

	if (!tilde || !strcmp(arg, "~"))
		return say(why, len, "expected START~END (either may be left out), times with "
			   "a unit (elapsed: 100us) or time stamps (12345.678901)");
	f->hi = UINT64_MAX;
	f->lo_rel = f->hi_rel = false;
	if (tilde > arg) {
		if (parse_time(arg, (size_t)(tilde - arg), &f->lo, &unit))
			return say(why, len, "'%.*s' is not a time (100us, 2ms, 1.5s, or a time "
				   "stamp 12345.678901)", (int)(tilde - arg), arg);
		f->lo_rel = unit;
	}
	if (tilde[1]) {
		if (parse_time(tilde + 1, strlen(tilde + 1), &f->hi, &unit))
			return say(why, len, "'%s' is not a time (100us, 2ms, 1.5s, or a time stamp "
				   "12345.678901)", tilde + 1);
		f->hi_rel = unit;
	}
	f->range = true;
	return 0;
}

int psr_filter_add(struct psr_filter **fp, int opt, const char *arg, char *why, size_t len)
{
	struct psr_filter *f = *fp;
	bool unit;

	if (!f && !(f = *fp = calloc(1, sizeof(*f))))
		return -ENOMEM;
	switch (opt) {
	case 'F': case 'G':
		return add_pattern(f, "--filter", arg, strlen(arg), FL_FILTER, 0, why, len);
	case 'N': return add_pattern(f, "--notrace", arg, strlen(arg), FL_NOTRACE, 0, why, len);
	case 'H': return add_pattern(f, "--hide", arg, strlen(arg), FL_HIDE, 0, why, len);
	case 'C': return add_pattern(f, "--caller-filter", arg, strlen(arg), FL_CALLER, 0, why, len);
	case 'T': return add_trigger(f, arg, why, len);
	case 'D':
		if (parse_uint(arg, 65535, &f->depth))
			return say(why, len, "expected a depth from 1 to 65535");
		return 0;
	case 'M':
		if (parse_uint(arg, 65535, &f->max_stack))
			return say(why, len, "expected a depth from 1 to 65535");
		return 0;
	case 't':
		if (parse_time(arg, strlen(arg), &f->time_ns, &unit) || (strchr(arg, '.') && !unit) ||
		    !f->time_ns)
			return say(why, len, "expected a time: a number, then ns (the default), us, "
				   "ms, s or m");
		return 0;
	case 'Z':
		if (parse_size(arg, &f->size))
			return say(why, len, "expected a size in bytes (k and M multiply)");
		return 0;
	case 'L':
		if (!*arg)
			return say(why, len, "expected a source file or directory");
		free(f->loc);
		f->loc = strdup(arg);
		return f->loc ? 0 : -ENOMEM;
	case 'r': return parse_range(f, arg, why, len);
	case 'o':
		if (strcmp(arg, "on") && strcmp(arg, "off"))
			return say(why, len, "expected on or off");
		f->start_off = !strcmp(arg, "off");
		return 0;
	case 'l':
		f->no_libcall = true;
		return 0;
	case 'a':
		f->no_args = true;
		return 0;
	case 'm':
		if (strcmp(arg, "glob") && strcmp(arg, "regex"))
			return say(why, len, "expected glob (ftrace's, the default) or regex");
		f->regex = !strcmp(arg, "regex");
		return 0;
	default: return say(why, len, "no such filter");
	}
}

void psr_filter_srcline(struct psr_filter *f, psr_srcline_fn fn)
{
	if (f)
		f->srcline = fn;
}

void psr_filter_free(struct psr_filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->npat; i++) {
		if (f->pat[i].is_re)
			regfree(&f->pat[i].re);
		free(f->pat[i].toks);
		free(f->pat[i].arg);
	}
	free(f->pat);
	free(f->loc);
	free(f);
}
