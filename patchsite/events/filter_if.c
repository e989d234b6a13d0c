// SPDX-License-Identifier: GPL-2.0-only
/*
 * Conditions on a traced function's arguments in set_ftrace_filter
 * (uftrace's -F f@if:arg1==1; the kernel's event filters' syntax):
 *
 *	FUNC [FETCHARG...] if COND
 *
 * a line of its own among the glob lines.  The function is traced only for
 * the calls whose arguments make COND true.  Each such line becomes a
 * probe on FUNC (probe.c, the dynamic_events machinery: a fetch program
 * at the entry, the event filter's parser and matcher for COND) whose hit
 * hands the call to the tracer; the tracer's own filter gets "FUNC !FUNC"
 * so that it never takes FUNC by itself (a filter of conditions alone then
 * selects nothing else, as ftrace's filter with functions in it).
 * Without FETCHARGs the fields are arg1..arg6, the integer argument
 * registers as s64 (no DWARF here); `patchsite record -F` writes the
 * fetch arguments DWARF gives the names of COND (len=$arg2:u32).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "record/record.h"
#include "probe.h"

/* The word "if" in line (blanks around it): where, or NULL. */
static const char *if_word(const char *line, size_t n)
{
	for (size_t i = 1; i + 2 <= n; i++)
		if (!strncmp(line + i, "if", 2) && (line[i - 1] == ' ' || line[i - 1] == '\t') &&
		    (i + 2 == n || line[i + 2] == ' ' || line[i + 2] == '\t'))
			return line + i;
	return NULL;
}

static _Atomic bool active;	/* conditions are set (ps_filter_if_done) */

bool ps_filter_if_wants(const char *text, int reset)
{
	if (reset && active)
		return true;	/* the conditions go, and the empty set's meaning with them */
	for (const char *s = text; s && *s;) {
		size_t n = strcspn(s, "\n;");

		if (if_word(s, n))
			return true;
		s += n + (s[n] != '\0');
	}
	return false;
}

/* arg1..arg6 as s64: the fields of a condition written without fetch arguments. */
static void default_args(struct ps_probe_def *d)
{
	for (unsigned i = 0; i < 6; i++) {
		struct ps_probe_arg *a = &d->a[i];

		memset(a, 0, sizeof(*a));
		snprintf(a->name, sizeof(a->name), "arg%u", i + 1);
		a->base = PF_ARG;
		a->n = i;
		a->type = PT_S;
		a->size = 8;
	}
	d->nargs = 6;
}

/* One "FUNC [FETCHARG...] if COND" line into d: 0, or -EINVAL said. */
static int cond_line(const char *line, size_t n, struct ps_probe_def *d)
{
	static unsigned seq;	/* event names: ftrace_if/cN, never reused (ps.lock not needed: ours) */
	char def[4200], why[300];

	snprintf(def, sizeof(def), "f:ftrace_if/c%u %.*s", __atomic_add_fetch(&seq, 1,
		 __ATOMIC_RELAXED), (int)n, line);
	if (ps_probe_parse(def, d, why, sizeof(why))) {
		ps_log(PATCHSITE_LOG_ERROR, "filter: '%.*s': %s", (int)n, line, why);
		return -EINVAL;
	}
	if (d->ret || !d->filter[0]) {
		ps_log(PATCHSITE_LOG_ERROR, "filter: '%.*s': expected FUNC [FETCHARG...] if COND",
		       (int)n, line);
		return -EINVAL;
	}
	if (!d->nargs)
		default_args(d);
	return 0;
}

void ps_filter_if_free(struct ps_filter_if *fi)
{
	if (fi) {
		free(fi->plain);
		free(fi);
	}
}

bool ps_filter_if_done(const struct ps_filter_if *fi, int reset)
{
	bool on = fi->n > 0 || (!reset && active);

	active = on;
	return on;
}

bool ps_filter_if_keep_empty(const struct ps_filter_if *fi, int reset)
{
	return fi->n > 0 || (!reset && active);
}

int ps_filter_if_parse(const char *text, struct ps_filter_if **out)
{
	struct ps_filter_if *fi = calloc(1, sizeof(*fi));
	struct ps_buf plain = { 0 };
	int err = fi ? 0 : -ENOMEM;

	for (const char *s = text ? text : ""; *s && !err;) {
		size_t len = strcspn(s, "\n;");

		while (len && (*s == ' ' || *s == '\t'))
			s++, len--;
		if (!if_word(s, len)) {
			ps_buf_printf(&plain, "%.*s ", (int)len, s);
		} else if (fi->n == PS_FILTER_IF_MAX) {
			ps_log(PATCHSITE_LOG_ERROR, "filter: more than %d conditions",
			       PS_FILTER_IF_MAX);
			err = -EINVAL;
		} else if (!(err = cond_line(s, len, &fi->defs[fi->n]))) {
			/* The tracer never takes it by itself: only through its condition. */
			ps_buf_printf(&plain, "%s !%s ", fi->defs[fi->n].func, fi->defs[fi->n].func);
			fi->n++;
		}
		s += len + (s[len] != '\0');
	}
	if (!err && !plain.p && !(plain.p = strdup("")))
		err = -ENOMEM;
	if (err) {
		ps_buf_free(&plain);
		ps_filter_if_free(fi);
		return err;
	}
	fi->plain = plain.p;	/* the text buffer's own memory: freed with free() */
	*out = fi;
	return 0;
}
