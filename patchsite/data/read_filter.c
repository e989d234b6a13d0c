// SPDX-License-Identifier: GPL-2.0-only
/*
 * Filters on a recording (replay, report, graph and dump's -F -N -H -C -T
 * -D -t -Z -L -r --max-stack --no-libcall, uftrace's spellings): one stage over each
 * thread's events that says which to show.  Every verb reads through it
 * (render/walk.c), so each option means the same in all of them.
 *
 * A call is shown or not at its entry, and its exit goes with it, so what
 * is shown stays nested.  Depth is the number of shown calls open: a call
 * not shown whose children may be (-F outside FUNC, -H, -Z, -L, -r, a library
 * call under --no-libcall, tracing off) moves them up, as uftrace re-bases below -F and re-parents below -H.
 * A call that hides its whole subtree (-N, -D, -t, -C off the path) hides
 * every event inside it.  -t and -C need what a call's subtree holds before
 * its entry is shown: one pass over the thread first (mark_thread) marks
 * each entry, by its number in the thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "ps_glob.h"
#include "psread.h"

/* What a function is named in (flags of a site, from the patterns it matches). */
enum {
	FL_FILTER = 1,		/* -F: it and what it calls */
	FL_NOTRACE = 2,		/* -N: neither */
	FL_HIDE = 4,		/* -H: not it, what it calls moved up */
	FL_CALLER = 8,		/* -C: the paths to it */
	FL_DEPTH = 16,		/* -T FUNC@depth=N */
	FL_ON = 32,		/* -T FUNC@trace_on */
	FL_OFF = 64,		/* -T FUNC@trace_off */
	FL_SMALL = 128,		/* -Z: smaller than SIZE */
	FL_NOLOC = 256,		/* -L: not in LOCATION */
	FL_LIBCALL = 512,	/* --no-libcall: a library call (PLT or GOT slot) */
};

/* One -F, -N, -H, -C or -T: its tokens (a NUL-separated list) and what they set. */
struct pattern {
	bool is_re;		/* --match=regex: the whole argument one POSIX extended regex */
	regex_t re;
	char *toks;
	size_t len;
	unsigned flags;
	unsigned depth;		/* FL_DEPTH's N */
	char opt[24];		/* its option, for messages: "--filter" */
	char *arg;		/* as given, for messages */
};

struct psr_filter {
	struct pattern *pat;
	size_t npat;
	unsigned used;		/* FL_* some pattern sets */
	unsigned depth;		/* -D (0: none) */
	unsigned max_stack;	/* --max-stack (0: none) */
	uint64_t time_ns;	/* -t (0: none) */
	uint64_t size;		/* -Z (0: none) */
	char *loc;		/* -L */
	bool range;		/* -r */
	bool start_off;		/* --trace=off: nothing shown until a trace_on call */
	bool regex;		/* --match=regex: patterns after it are regular expressions */
	bool no_libcall;	/* --no-libcall */
	bool no_args;		/* --no-args */
	bool lo_rel, hi_rel;	/* elapsed from the first event, or CLOCK_MONOTONIC ns */
	uint64_t lo, hi;
	psr_srcline_fn srcline;
};

struct fframe {
	uint32_t id;
	bool shown;		/* its entry was shown: its exit is */
	bool hide_sub;		/* nothing inside it is shown */
	bool inside;		/* inside an -F function (or no -F given) */
	bool caller;		/* it is a -C function: its children are off the path */
	bool deep;		/* past -D below an -F call: not shown, a nested -F call is */
	bool quiet;		/* not shown only because tracing was off (keep_depths) */
	unsigned sdepth;	/* shown calls open, itself included */
	unsigned limit;		/* calls shown inside up to this shown depth */
};

struct site_flags {
	const char *name;	/* the name the flags were found for (NULL: not yet) */
	unsigned flags, depth;
};

struct psr_fthread {
	const struct psr_filter *f;
	const struct psr_proc *p;
	struct fframe *stack;
	size_t depth, cap;
	int tid;
	bool on;		/* tracing on (-T trace_on/trace_off) */
	bool depths;		/* psr_filter_keep_depths: quiet calls kept, nest-only */
	bool nest_only;		/* the event psr_filter_keep last kept is nest-only */
	bool failed;		/* out of memory: nothing more shown (said once) */
	uint64_t lo_ns, hi_ns;	/* -r in CLOCK_MONOTONIC ns */
	uint8_t *marks;		/* per entry: MARK_* (mark_thread) */
	uint64_t nmarks, entry;	/* entries marked; entries seen */
	struct site_flags **cache;	/* [object][site]: an object's array made when first used */
	size_t ncache;		/* objects */
};

enum { MARK_SHORT = 1, MARK_OFFPATH = 2 };

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

/* An object's basename (a :mod: token's subject). */
static const char *base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

/* Does token tok (a copy: cut at :mod:) take the function name of module m? */
static bool tok_matches(const char *tok, const char *name, const struct psr_module *m)
{
	char copy[512];
	struct ps_glob_tok t;

	snprintf(copy, sizeof(copy), "%s", tok);
	ps_glob_token(copy, &t);
	if (t.mod && (!m || fnmatch(t.mod, base(m->path), 0)))
		return false;
	return ps_glob_match(t.func, t.literal, name);
}

/* A pattern's verdict on a name: its last token that matches says (a !token takes it away). */
static bool pattern_matches(const struct pattern *p, const char *name, const struct psr_module *m)
{
	bool in = false;

	if (p->is_re)
		return !regexec(&p->re, name, 0, NULL, 0);

	for (size_t at = 0; at < p->len; at += strlen(p->toks + at) + 1)
		if (tok_matches(p->toks + at, name, m))
			in = p->toks[at] != '!';
	return in;
}

/* -L: the function's source file is LOC, under the directory LOC, or its basename matches. */
static bool loc_matches(const char *loc, const char *line)
{
	char file[4200];
	size_t n = strlen(loc);
	char *colon;

	snprintf(file, sizeof(file), "%s", line);
	colon = strrchr(file, ':');
	if (colon)
		*colon = 0;
	return !fnmatch(loc, file, 0) || !fnmatch(loc, base(file), 0) ||
	       (!strncmp(file, loc, n) && (loc[n - 1] == '/' || file[n] == '/'));
}

/* An object of library calls: named by its caller's path so (patchsite-data(5), mod.N). */
static bool libcall_module(const struct psr_module *m)
{
	static const char mark[] = " (library calls)";
	size_t n = m && m->path ? strlen(m->path) : 0;

	return n >= sizeof(mark) - 1 && !strcmp(m->path + n - (sizeof(mark) - 1), mark);
}

/* Flags of site id's function at tsc (what the patterns, -Z and -L say of it). */
static struct site_flags site_flags(struct psr_fthread *ft, uint32_t id, uint64_t tsc)
{
	const struct psr_filter *f = ft->f;
	char buf[32], line[4200];
	const char *name = psr_site_name(ft->p, id, tsc, buf, sizeof(buf));
	struct site_flags sf = { .name = name };
	const struct psr_module *m;
	uint64_t off, size;

	struct site_flags *c = NULL;
	m = psr_site_module(ft->p, id, tsc);
	if (m && (size_t)(m - ft->p->mods) < ft->ncache && (id & PSD_ID_MASK) < m->nsites) {
		struct site_flags **mc = &ft->cache[m - ft->p->mods];

		if (!*mc)
			*mc = calloc(m->nsites, sizeof(**mc));
		c = *mc ? &(*mc)[id & PSD_ID_MASK] : NULL;
		if (c && c->name == name)
			return *c;
	}
	for (size_t i = 0; i < f->npat; i++)
		if (pattern_matches(&f->pat[i], name, m)) {
			sf.flags |= f->pat[i].flags;
			if (f->pat[i].flags & FL_DEPTH)
				sf.depth = f->pat[i].depth;
		}
	if (f->size && (!psr_addr_sym(ft->p, psr_site_addr(ft->p, id, tsc), tsc, &off, &size) ||
			size < f->size))
		sf.flags |= FL_SMALL;
	if (f->loc && (!f->srcline || !f->srcline(ft->p, id, tsc, line, sizeof(line)) ||
		       !loc_matches(f->loc, line)))
		sf.flags |= FL_NOLOC;
	if (f->no_libcall && libcall_module(m))
		sf.flags |= FL_LIBCALL;
	if (c && name != buf)	/* "site#N" is in buf, which goes */
		*c = sf;
	return sf;
}

static int push(struct psr_fthread *ft, const struct fframe *fr)
{
	if (ft->depth == ft->cap) {
		size_t n = ft->cap * 2 + 64;
		struct fframe *g = realloc(ft->stack, n * sizeof(*g));

		if (!g)
			return -ENOMEM;
		ft->stack = g;
		ft->cap = n;
	}
	ft->stack[ft->depth++] = *fr;
	return 0;
}

/* The open call an exit of id closes: its index + 1, or 0 when none is open. */
static size_t match(const struct psr_fthread *ft, uint32_t id)
{
	size_t k = ft->depth;

	while (k > 0 && ft->stack[k - 1].id != id)
		k--;
	return k;
}

/*
 * The pass before the walk, for -t and -C: each entry of the thread marked
 * MARK_SHORT (its call returned sooner than -t) and MARK_OFFPATH (no -C
 * function is it or inside it).  A call without its return is never short.
 */
struct mark {
	uint64_t n, tsc;
	uint32_t id;
	bool path;
};

static void mark_close(struct psr_fthread *ft, struct mark *m, struct mark *parent, uint64_t end,
		       bool returned)
{
	if (m->n < ft->nmarks) {
		if (returned && ft->f->time_ns && psr_ns(ft->p, end) - psr_ns(ft->p, m->tsc) <
		    ft->f->time_ns && psr_ns(ft->p, end) >= psr_ns(ft->p, m->tsc))
			ft->marks[m->n] |= MARK_SHORT;
		if (ft->f->used & FL_CALLER && !m->path)
			ft->marks[m->n] |= MARK_OFFPATH;
	}
	if (parent && m->path)
		parent->path = true;
}

static int mark_thread(struct psr_fthread *ft, const struct psr_thread *t)
{
	struct psr_cursor c;
	struct psr_event ev;
	struct mark *st = NULL;
	size_t depth = 0, cap = 0;
	uint64_t n = 0;

	ft->nmarks = t->entries;
	ft->marks = calloc(ft->nmarks ? ft->nmarks : 1, 1);
	if (!ft->marks)
		return -ENOMEM;
	psr_cursor_init(&c, ft->p, t);
	while (psr_next(&c, &ev)) {
		if (ev.type == PSR_ENTRY) {
			if (depth == cap) {
				struct mark *g = realloc(st, (cap = cap * 2 + 64) * sizeof(*g));

				if (!g) {
					free(st);
					return -ENOMEM;
				}
				st = g;
			}
			st[depth++] = (struct mark){ n++, ev.tsc, ev.id,
				(site_flags(ft, ev.id, ev.tsc).flags & FL_CALLER) != 0 };
		} else if (ev.type == PSR_EXIT) {
			size_t k = depth;

			while (k > 0 && st[k - 1].id != ev.id)
				k--;
			while (k && depth >= k) {
				depth--;
				mark_close(ft, &st[depth], depth ? &st[depth - 1] : NULL, ev.tsc,
					   depth == k - 1);
			}
		}
	}
	while (depth--)
		mark_close(ft, &st[depth], depth ? &st[depth - 1] : NULL, 0, false);
	free(st);
	return 0;
}

/* The earliest event of the process: where elapsed times of -r count from. */
static uint64_t first_ns(const struct psr_proc *p)
{
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < p->nthreads; i++) {
		struct psr_cursor c;
		struct psr_event ev;

		psr_cursor_init(&c, p, &p->threads[i]);
		if (psr_next(&c, &ev) && psr_ns(p, ev.tsc) < min)
			min = psr_ns(p, ev.tsc);
	}
	return min == UINT64_MAX ? 0 : min;
}

int psr_filter_thread(const struct psr_filter *f, const struct psr_proc *p,
		      const struct psr_thread *t, struct psr_fthread **out)
{
	struct psr_fthread *ft;

	*out = NULL;
	if (!psr_filter_any(f))
		return 0;
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return -ENOMEM;
	ft->f = f;
	ft->p = p;
	ft->tid = t->tid;
	ft->ncache = p->nmods;
	ft->cache = calloc(p->nmods ? p->nmods : 1, sizeof(*ft->cache));
	if (!ft->cache) {
		free(ft);
		return -ENOMEM;
	}
	ft->on = !f->start_off;	/* as uftrace's replay: trace_off turns it off, trace_on back on */
	if (f->range) {
		uint64_t base0 = f->lo_rel || f->hi_rel ? first_ns(p) : 0;

		ft->lo_ns = f->lo + (f->lo_rel ? base0 : 0);
		ft->hi_ns = f->hi == UINT64_MAX ? UINT64_MAX : f->hi + (f->hi_rel ? base0 : 0);
	}
	if ((f->time_ns || (f->used & FL_CALLER)) && mark_thread(ft, t)) {
		psr_filter_thread_free(ft);
		return -ENOMEM;
	}
	*out = ft;
	return 0;
}

void psr_filter_thread_free(struct psr_fthread *ft)
{
	if (!ft)
		return;
	free(ft->stack);
	free(ft->marks);
	for (size_t i = 0; i < ft->ncache; i++)
		free(ft->cache[i]);
	free(ft->cache);
	free(ft);
}

static bool in_range(const struct psr_fthread *ft, uint64_t tsc)
{
	uint64_t ns;

	if (!ft->f->range)
		return true;
	ns = psr_ns(ft->p, tsc);
	return ns >= ft->lo_ns && ns <= ft->hi_ns;
}

/* The frame an event happens in: the innermost open call, or the thread's top. */
static struct fframe top(const struct psr_fthread *ft)
{
	if (ft->depth)
		return ft->stack[ft->depth - 1];
	return (struct fframe){ .inside = !(ft->f->used & FL_FILTER),
				.limit = ft->f->depth ? ft->f->depth : UINT_MAX };
}

static bool entry(struct psr_fthread *ft, const struct psr_event *ev)
{
	const struct psr_filter *f = ft->f;
	struct fframe up = top(ft), fr = { .id = ev->id };
	struct site_flags sf = site_flags(ft, ev->id, ev->tsc);
	uint8_t mark = ft->entry < ft->nmarks ? ft->marks[ft->entry] : 0;

	ft->entry++;
	if (sf.flags & FL_ON)
		ft->on = true;
	if (sf.flags & FL_OFF)
		ft->on = false;
	fr.inside = up.inside || (sf.flags & FL_FILTER);
	fr.limit = up.limit;
	/*
	 * With -F, -D counts from the innermost -F call, as uftrace's: each -F call starts
	 * the count again, so an -F function below the depth is shown (the calls between
	 * are not).  Without -F, what lies past the depth goes with its call.
	 */
	if ((sf.flags & FL_FILTER) && f->depth)
		fr.limit = up.sdepth + f->depth;
	fr.deep = (f->used & FL_FILTER) && up.sdepth >= fr.limit;
	fr.hide_sub = up.hide_sub || up.caller || (sf.flags & FL_NOTRACE) || (mark & MARK_SHORT) ||
		      (mark & MARK_OFFPATH) || (!fr.deep && up.sdepth >= fr.limit) ||
		      (f->max_stack && ft->depth >= f->max_stack);
	fr.caller = (sf.flags & FL_CALLER) != 0;
	fr.shown = !fr.hide_sub && !fr.deep && fr.inside && in_range(ft, ev->tsc) &&
		   !(sf.flags & (FL_HIDE | FL_SMALL | FL_NOLOC | FL_LIBCALL));
	fr.quiet = ft->depths && fr.shown && !ft->on;
	fr.shown = fr.shown && ft->on;
	ft->nest_only = fr.quiet;
	fr.sdepth = up.sdepth + fr.shown;
	/* -D counts from the first call -F shows (uftrace re-bases its depth there too). */
	if (sf.flags & FL_DEPTH && fr.sdepth - fr.shown + sf.depth < fr.limit)
		fr.limit = fr.sdepth - fr.shown + sf.depth;
	if (push(ft, &fr)) {
		/* Said, and nothing more of the thread shown: never a tree filtered wrong. */
		if (ft->p->session && ft->p->session->err)
			fprintf(ft->p->session->err, "patchsite: %s: thread %d: out of memory for "
				"the filters: its events from here on are not shown\n", ft->p->dir,
				ft->tid);
		ft->failed = true;
		return false;
	}
	return fr.shown || fr.quiet;
}

void psr_filter_keep_depths(struct psr_fthread *ft)
{
	if (ft)
		ft->depths = true;
}

bool psr_filter_nest_only(const struct psr_fthread *ft)
{
	return ft && ft->nest_only;
}

bool psr_filter_no_args(const struct psr_fthread *ft)
{
	return ft && ft->f->no_args;
}

/* --no-args: a probe of record -A, -a or -R its call did not take (psr_uprobe). */
static bool args_probe(const struct psr_fthread *ft, const struct psr_event *ev)
{
	return ev->type == PSR_EXT && ev->ext_kind == PSD_EXT_EVENT &&
	       psr_uprobe(ft->p, ev, NULL) != PSR_UPROBE_NONE;
}

bool psr_filter_keep(struct psr_fthread *ft, const struct psr_event *ev)
{
	struct fframe up;
	size_t k;

	if (!ft)
		return true;
	if (ft->failed)
		return false;
	ft->nest_only = false;
	if (ft->f->no_args && args_probe(ft, ev))
		return false;
	if (ev->type == PSR_ENTRY)
		return entry(ft, ev);
	if (ev->type == PSR_EXIT && (k = match(ft, ev->id))) {
		bool shown = ft->stack[k - 1].shown;

		/* keep_depths: uftrace's replay draws a return when tracing is on at it. */
		if (ft->depths && (shown || ft->stack[k - 1].quiet)) {
			ft->nest_only = !ft->on;
			shown = true;
		}
		ft->depth = k - 1;
		return shown && in_range(ft, ev->tsc);	/* -r: after END, the call is left open */
	}
	/* A function event, a record, a switch, a return without its call: as where it is. */
	up = top(ft);
	return !up.hide_sub && !up.deep && up.inside && ft->on && in_range(ft, ev->tsc) &&
	       !(ev->type == PSR_FUNC &&
		 (site_flags(ft, ev->id, ev->tsc).flags & (FL_NOTRACE | FL_HIDE | FL_SMALL | FL_NOLOC |
							    FL_LIBCALL)));
}

/* What a process's data lets the filters do: one line on err when it lacks what they need. */
static int check_proc(const struct psr_filter *f, const struct psr_proc *p, FILE *err)
{
	uint64_t entries = 0, funcs = 0;
	bool sizes = false;

	for (size_t i = 0; i < p->nthreads; i++) {
		entries += p->threads[i].entries;
		funcs += p->threads[i].funcs;
	}
	for (size_t i = 0; i < p->nmods; i++)
		sizes |= p->mods[i].nfuncs > 0;
	if (funcs && !entries && (f->depth || f->time_ns ||
				  (f->used & (FL_CALLER | FL_DEPTH | FL_FILTER | FL_ON | FL_OFF)))) {
		fprintf(err, "patchsite: %s: %s: recorded without calls' returns (tracer %s): "
			"-F, -C, -D, -t and -T need function_graph's\n", p->dir,
			f->time_ns ? "--time-filter" : f->depth ? "--depth" :
			f->used & FL_FILTER ? "--filter" : f->used & FL_CALLER ? "--caller-filter" :
			"--trigger", p->tracer);
		return -EINVAL;
	}
	if (f->size && (entries || funcs) && !sizes) {
		fprintf(err, "patchsite: %s: --size-filter: the functions' sizes were not "
			"recorded\n", p->dir);
		return -EINVAL;
	}
	return 0;
}

/* Does a recorded function of p match tok (a token of pattern g), or g's regex? */
static bool proc_has(const struct psr_proc *p, const struct pattern *g, const char *tok)
{
	for (size_t m = 0; m < p->nmods; m++)
		for (size_t s = 0; s < p->mods[m].nsites; s++) {
			const struct psr_site *x = &p->mods[m].sites[s];

			if (!x->exit && x->name &&
			    (g->is_re ? !regexec(&g->re, x->name, 0, NULL, 0) :
			     tok_matches(tok, x->name, &p->mods[m])))
				return true;
		}
	return false;
}

/* -L: 2 a recorded function of p is in f->loc, 1 only source lines known, 0 none known. */
static int proc_loc(const struct psr_filter *f, const struct psr_proc *p)
{
	char line[4200];
	int found = 0;

	for (size_t m = 0; m < p->nmods && found < 2; m++)
		for (size_t s = 0; s < p->mods[m].nsites && found < 2; s++) {
			const char *l = p->mods[m].sites[s].exit || !f->srcline ? NULL :
				f->srcline(p, p->mods[m].index << PSD_ID_SHIFT | (uint32_t)s,
					   p->mods[m].load_tsc, line, sizeof(line));

			if (l)
				found = loc_matches(f->loc, l) ? 2 : 1;
		}
	return found;
}

int psr_filter_check(const struct psr_filter *f, const struct psr_proc *const *procs, size_t n,
		     const char *dir, FILE *err)
{
	int loc = 0;

	if (!psr_filter_any(f))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (check_proc(f, procs[i], err))
			return -EINVAL;
	/* A pattern names functions of the session: one process having it is enough. */
	for (size_t i = 0; i < f->npat; i++)
		for (size_t at = 0; at < f->pat[i].len; at += strlen(f->pat[i].toks + at) + 1) {
			const char *tok = f->pat[i].toks + at;
			bool hit = !f->pat[i].is_re && tok[0] == '!';

			for (size_t k = 0; k < n && !hit; k++)
				hit = proc_has(procs[k], &f->pat[i], tok);
			if (!hit && !(f->pat[i].flags & (FL_NOTRACE | FL_HIDE))) {
				fprintf(err, "patchsite: %s: %s %s: no recorded function matches "
					"'%s'\n", dir, f->pat[i].opt, f->pat[i].arg, tok);
				return -ENOENT;
			}
			/*
			 * Leaving out what was not recorded leaves the trace as it is, as
			 * uftrace's -N and -H do (its runner passes -N memcpy to every
			 * test); said once, as a typo would be.
			 */
			if (!hit)
				fprintf(err, "patchsite: %s: %s %s: no recorded function matches "
					"'%s', nothing left out by it\n", dir, f->pat[i].opt,
					f->pat[i].arg, tok);
		}
	for (size_t k = 0; f->loc && k < n && loc < 2; k++) {
		int l = proc_loc(f, procs[k]);

		loc = l > loc ? l : loc;
	}
	if (f->loc && loc < 2) {
		fprintf(err, "patchsite: %s: --loc-filter %s: %s\n", dir, f->loc,
			loc ? "no recorded function is there" :
			"no source lines (no DWARF in the objects recorded)");
		return -ENOENT;
	}
	return 0;
}
