// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core control files (patchsite(7)): ftrace's current_tracer,
 * available_tracers, set_ftrace_filter, set_ftrace_notrace,
 * set_graph_function, max_graph_depth, buffer_size_kb,
 * available_filter_functions and enabled_functions, and our trace_dir
 * (tracing_on is ctl/record_files.c's, with the other recording switches).
 * Each one is a thin layer over the C API (api.c), so that the control
 * channel, programs and the environment share one behaviour.
 *
 * Values are ftrace's: a write replaces (append adds, as `>>` does), a
 * number or a name may end in white space (echo's newline).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/control.h"
#include "internal.h"
#include "sites/got.h"
#include "sites/scan.h"
#include "events/probe.h"

#define SEPARATORS " \t\n,"

static char chosen_dir[4096];	/* trace_dir written before recording started */
static bool store_tried;	/* once: a program without sites opens none */

/*
 * Before the first tracer: a trace directory to record into (trace_dir if
 * written, PATCHSITE_DATA, else PID.data next to the control socket).
 */
static int open_store(void)
{
	const char *over = getenv("PATCHSITE_OVERWRITE"), *dir = chosen_dir;
	char made[4200];
	int err;

	if (ps_store_on() || store_tried)
		return 0;
	if (!*dir)
		dir = getenv("PATCHSITE_DATA");
	if ((!dir || !*dir) && ps_store_default_dir()) {
		snprintf(made, sizeof(made), "%s/%d.data", ps_store_default_dir(), (int)getpid());
		dir = made;
	}
	if (!dir || !*dir)
		dir = "patchsite.data";
	/* Tracers may change from now on: "ctl" says so, and readers tell them by their events. */
	err = ps_store_open(dir, "ctl", over && !strcmp(over, "1"), ps_ring_bytes, true);
	if (err) {
		ps_log(PATCHSITE_LOG_ERROR, "current_tracer: cannot record into '%.300s': %s", dir,
		       strerror(-err));
		return err;
	}
	store_tried = true;
	return 0;
}

static int tracer_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_buf_printf(out, "%s\n", patchsite_get_tracer());
	return 0;
}

static int tracer_write(const char *sub, const char *value, bool append)
{
	const struct ps_tracer *t;
	char name[32];
	int err;

	(void)sub, (void)append;
	if (ps_ctl_word("current_tracer", value, name, sizeof(name)))
		return -EINVAL;
	t = ps_tracer_find(name);
	if (!t) {
		struct ps_buf names = { 0 };

		ps_tracer_names(&names, " ");
		ps_log(PATCHSITE_LOG_ERROR, "current_tracer: no tracer named '%s' "
		       "(available_tracers: %s)", name, names.p ? names.p : "");
		ps_buf_free(&names);
		return -EINVAL;
	}
	err = t->ops ? open_store() : 0;	/* nop records nothing */
	if (!err)
		err = patchsite_set_tracer(name);
	/*
	 * The first event sooner: the objects' mod.N after the tracer
	 * (record/store_mods_later.c), and after the answer: `record -p`
	 * says "recording" and ends its boost 10-20 ms sooner.
	 */
	if (t->ops)
		ps_ctl_after_reply(ps_store_mods_write);
	return err;
}

static int tracers_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_tracer_names(out, " ");
	ps_buf_puts(out, "\n");
	return 0;
}

/* Which selection a filter file edits. */
enum which { FILTER, NOTRACE, GRAPH };
static const char *const which_file[] = { "set_ftrace_filter", "set_ftrace_notrace",
					   "set_graph_function" };

/* The functions selected, "name [module]" a line; ftrace's line when the filter is empty. */
static void list_selected(enum which w, struct ps_buf *out)
{
	const struct ps_globs *g;
	size_t n = 0;
	char buf[32];

	pthread_mutex_lock(&ps.lock);
	g = w == GRAPH ? &ps_graph_trigger : !ps_function_ops.state ? NULL :
	    w == FILTER ? &ps_function_ops.state->s.filter : &ps_function_ops.state->s.notrace;
	if (g && g->set) {
		ps_all_syms();
		for (size_t i = 0; i < ps.nsites; i++) {
			const struct ps_site *s = ps.site_index[i];

			if (!s || s->kind == SITE_EXIT || !g->set[i])
				continue;
			ps_buf_printf(out, "%s [%s]\n", ps_site_name(s, buf, sizeof(buf)), s->mod->name);
			n++;
		}
	}
	/* An empty selection with tokens waits for an object (:mod:): nothing, as ftrace shows. */
	if (!n && w != NOTRACE && !(g && g->text))
		ps_buf_puts(out, "#### all functions enabled ####\n");
	pthread_mutex_unlock(&ps.lock);
}

static int globs_read(enum which w, struct ps_buf *out)
{
	list_selected(w, out);
	if (w == FILTER) {
		ps_filter_command_list(out);
		ps_probes_trace_if_list(out);	/* "FUNC name:type... if COND" */
	}
	return 0;
}

static int apply_globs(enum which w, const char *globs, bool reset)
{
	if (w == FILTER)
		return patchsite_set_filter(NULL, globs, reset);
	if (w == NOTRACE)
		return patchsite_set_notrace(NULL, globs, reset);
	return patchsite_set_graph_function(globs, reset);
}

/* "glob:cmd[:arg]" with cmd not "mod": a filter command (set_ftrace_filter only). */
static bool is_command(const char *tok)
{
	const char *c = strchr(tok, ':');

	return c && strncmp(c, ":mod:", 5);
}

static int run_command(char *tok)
{
	bool remove = tok[0] == '!';
	char *glob = tok + remove, *cmd = strchr(glob, ':'), *arg;

	*cmd++ = '\0';
	arg = strchr(cmd, ':');
	if (arg)
		*arg++ = '\0';
	return ps_filter_command(glob, cmd, arg, remove);
}

/*
 * set_ftrace_filter's "FUNC [FETCHARG...] if COND" lines (events/filter_if.c)
 * moved from rest to conds, whole: their fetch arguments (len=$arg2:u32) are
 * not glob:command tokens, nor their blanks separators.
 */
static void take_conds(char *rest, char *conds)
{
	for (char *s = rest; *s;) {
		size_t n = strcspn(s, "\n;");
		char end = s[n];
		bool cond;

		s[n] = '\0';
		cond = ps_filter_if_wants(s, 0);
		if (cond)
			strcat(strcat(conds, "\n"), s);
		s[n] = end;
		if (cond)
			memset(s, ' ', n);
		s += n + (end != '\0');
	}
}

/*
 * Globs first, as one call (a typo leaves the old set), then commands.  A
 * write of commands alone leaves the functions selected as they were, as
 * in ftrace; an empty write clears them.
 */
static int globs_write(enum which w, const char *value, bool append)
{
	size_t len = strlen(value) + 2;
	char *copy = strdup(value), *globs = calloc(1, 2 * len), *save = NULL, *tok;
	char *conds = calloc(1, len), *rest = strdup(value);
	bool any_cmd = false, any_glob = false;
	int err = copy && globs && conds && rest ? 0 : -ENOMEM;

	if (!err && w == FILTER) {
		take_conds(rest, conds);
		strcpy(copy, rest);
		any_glob = conds[0] != '\0';
	}
	for (tok = err ? NULL : strtok_r(copy, SEPARATORS, &save); tok;
	     tok = strtok_r(NULL, SEPARATORS, &save)) {
		if (!is_command(tok)) {
			strcat(strcat(globs, any_glob ? " " : ""), tok);
			any_glob = true;
		} else if (w != FILTER) {
			ps_log(PATCHSITE_LOG_ERROR, "%s: '%.100s': filter commands go to "
			       "set_ftrace_filter", which_file[w], tok);
			err = -EINVAL;
		}
		any_cmd |= is_command(tok);
	}
	if (!err && (any_glob || !any_cmd))
		err = apply_globs(w, strcat(globs, conds), !append);
	/* The globs took: now the commands, in order, from a fresh copy. */
	if (!err && any_cmd) {
		strcpy(copy, rest);
		for (tok = strtok_r(copy, SEPARATORS, &save); tok && !err;
		     tok = strtok_r(NULL, SEPARATORS, &save))
			if (is_command(tok))
				err = run_command(tok);
	}
	free(copy);
	free(globs);
	free(conds);
	free(rest);
	return err;
}

static int filter_read(const char *sub, struct ps_buf *out) { (void)sub; return globs_read(FILTER, out); }
static int notrace_read(const char *sub, struct ps_buf *out) { (void)sub; return globs_read(NOTRACE, out); }
static int graph_read(const char *sub, struct ps_buf *out) { (void)sub; return globs_read(GRAPH, out); }

static int filter_write(const char *sub, const char *value, bool append)
{
	(void)sub;
	return globs_write(FILTER, value, append);
}

static int notrace_write(const char *sub, const char *value, bool append)
{
	(void)sub;
	return globs_write(NOTRACE, value, append);
}

static int graph_write(const char *sub, const char *value, bool append)
{
	(void)sub;
	return globs_write(GRAPH, value, append);
}

static int depth_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_buf_printf(out, "%u\n", patchsite_get_graph_max_depth());
	return 0;
}

/* 0 is ftrace's "no limit": here the deepest the shadow stack holds. */
static int depth_write(const char *sub, const char *value, bool append)
{
	unsigned long v;

	(void)sub, (void)append;
	if (ps_ctl_number("max_graph_depth", value, 0, 1024, &v))
		return -EINVAL;
	return patchsite_set_graph_max_depth(v ? (unsigned)v : 1024);
}

static int kb_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_buf_printf(out, "%lu\n", patchsite_get_buffer_kb());
	return 0;
}

static int kb_write(const char *sub, const char *value, bool append)
{
	unsigned long v;

	(void)sub, (void)append;
	if (ps_ctl_number("buffer_size_kb", value, 4, 1ul << 22, &v))
		return -EINVAL;
	return patchsite_set_buffer_kb(v);
}

static int func_line(const char *name, const char *module, unsigned long ip, unsigned flags,
		     void *arg)
{
	(void)ip;
	if (!(flags & PATCHSITE_FUNC_REFUSED))
		ps_buf_printf(arg, "%s [%s]\n", name, module);
	return 0;
}

static int available_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	return patchsite_for_each_function(func_line, out);
}

/*
 * Objects without a table (sites/scan.h): each function start-up found no
 * site in, "name [object] why" (no ftrace counterpart: ftrace's sites
 * always come from a table).
 */
static int unfound_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	pthread_mutex_lock(&ps.lock);
	for (unsigned i = 0; i < ps.nmods; i++) {
		const struct ps_module *m = ps.mods[i];
		const struct ps_scan_report *r = m ? ps_scan_report_of(m) : NULL;

		for (size_t k = 0; r && k < r->nmiss; k++)
			ps_buf_printf(out, "%s [%s] %s\n", ps_sym_shown(r->miss[k].fn), m->name,
				      ps_scan_why_name(r->miss[k].why));
	}
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

/* Who wants a site: the built-in tracers by name, other ops by address. */
static void wanted_by(uint64_t want, struct ps_buf *out)
{
	const char *sep = "";

	for (int k = 0; k < PS_MAX_OPS; k++) {
		const struct patchsite_ops *o = ps.slots[k];

		if (!(want >> k & 1) || !o)
			continue;
		if (ps_tracer_of(o))
			ps_buf_printf(out, "%s%s", sep, ps_tracer_of(o)->name);
		else
			ps_buf_printf(out, "%sops@%p", sep, (const void *)o);
		sep = ",";
	}
}

/* ftrace's "func (refs) ops": the entry sites that are calls now, and who wants them. */
static int enabled_read(const char *sub, struct ps_buf *out)
{
	char buf[32];

	(void)sub;
	pthread_mutex_lock(&ps.lock);
	ps_all_syms();
	for (size_t i = 0; i < ps.nsites; i++) {
		const struct ps_site *s = ps.site_index[i];
		uint64_t want;

		if (!s || s->kind == SITE_EXIT)
			continue;
		want = atomic_load_explicit(&s->want, memory_order_relaxed);
		/* A -finstrument-functions site is never written: wanted is enabled. */
		if (s->state != SITE_CALL && !(s->state == SITE_INTERPOSED && want))
			continue;
		ps_buf_printf(out, "%s%s%s [%s] (%d)\t", ps_site_name(s, buf, sizeof(buf)),
			      ps_got_library(s) ? "@" : "", ps_got_library(s) ? ps_got_library(s) : "",
			      s->mod->name, __builtin_popcountll(want));
		wanted_by(want, out);
		ps_buf_puts(out, "\n");
	}
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

static int dir_read(const char *sub, struct ps_buf *out)
{
	const char *proc;

	(void)sub;
	if (ps_store_on())
		ps_buf_printf(out, "%s\n", ps_store_dir(&proc));
	return 0;
}

static int dir_write(const char *sub, const char *value, bool append)
{
	const char *proc;
	char dir[sizeof(chosen_dir)];

	(void)sub, (void)append;
	if (ps_store_on()) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_dir: already recording into '%.300s'",
		       ps_store_dir(&proc));
		return -EBUSY;
	}
	if (ps_ctl_word("trace_dir", value, dir, sizeof(dir)))
		return -EINVAL;
	memcpy(chosen_dir, dir, sizeof(dir));
	return 0;
}

const struct ps_ctl_file ps_ctl_core[] = {
	{ "current_tracer", "the tracer recording now: latency, function_graph, function or nop "
	  "(ftrace's current_tracer)", tracer_read, tracer_write, NULL },
	{ "available_tracers", "the tracers current_tracer takes (ftrace's available_tracers)",
	  tracers_read, NULL, NULL },
	{ "set_ftrace_filter", "functions to trace: globs, glob:mod:OBJECT, !glob, glob:CMD[:ARG] "
	  "(ftrace's set_ftrace_filter)", filter_read, filter_write, NULL },
	{ "set_ftrace_notrace", "functions never to trace, same globs (ftrace's set_ftrace_notrace)",
	  notrace_read, notrace_write, NULL },
	{ "set_graph_function", "function_graph records only below these functions "
	  "(ftrace's set_graph_function)", graph_read, graph_write, NULL },
	{ "max_graph_depth", "function_graph's deepest level, 0 for no limit "
	  "(ftrace's max_graph_depth)", depth_read, depth_write, NULL },
	{ "buffer_size_kb", "per-thread buffer in KB, for buffers made from now on "
	  "(ftrace's buffer_size_kb)", kb_read, kb_write, NULL },
	{ "available_filter_functions", "every traceable function, \"name [object]\" "
	  "(ftrace's available_filter_functions)", available_read, NULL, NULL },
	{ "unfound_functions", "functions of objects without a site table that got no site, "
	  "\"name [object] why\" (no ftrace counterpart)", unfound_read, NULL, NULL },
	{ "enabled_functions", "functions patched now and the tracers wanting them "
	  "(ftrace's enabled_functions)", enabled_read, NULL, NULL },
	{ "trace_dir", "the trace directory recorded into (patchsite replay -d); written before "
	  "the first tracer, where to record (no ftrace counterpart)", dir_read, dir_write, NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};
