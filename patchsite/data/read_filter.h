/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the filters' files share (psread.h has their interface):
 * read_filter_parse.c turns the options into a struct psr_filter,
 * read_filter_match.c matches its patterns against function names (one
 * function's for the walk, a recording's for psr_filter_check), and
 * read_filter.c is the stage over each thread's events.
 */
#ifndef PS_READ_FILTER_H
#define PS_READ_FILTER_H

#include <regex.h>

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

/* read_filter_match.c: what a pattern, -L and --no-libcall say of one function. */
bool psr_pattern_matches(const struct pattern *p, const char *name, const struct psr_module *m);
bool psr_loc_matches(const char *loc, const char *line);
bool psr_libcall_module(const struct psr_module *m);

#endif
