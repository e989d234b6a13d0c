// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite script: a recording's calls handed one at a time to a Python
 * script's callbacks (script_py.c), as `uftrace script -S` does, or printed
 * as JSON lines (--json: what the callbacks get, for the `patchsite` Python
 * module and other programs).  The calls come from the reader through
 * render_calls (render/calls.c), in the order replay shows them.  What a
 * ctx holds is said once (call_ctx, begin_ctx, end_ctx), through
 * script_ctx.h's writers: JSON text here, a Python dict in script_py.c.
 */
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "patchsite_event.h"
#include "script.h"
#include "script_ctx.h"
#include "../render/render.h"

static const char *const call_cb[] = {
	[RENDER_CALL_ENTRY] = "entry", [RENDER_CALL_EXIT] = "exit",
	[RENDER_CALL_FUNC] = "entry", [RENDER_CALL_EVENT] = "event",
};

/* The JSON form of a ctx, one line: --json's output. */
static void json_key(struct ctx_out *o, const char *key)
{
	FILE *f = o->sink;

	if (o->depth && o->more[o->depth - 1])
		fputc(',', f);
	if (o->depth)
		o->more[o->depth - 1] = true;
	if (key)
		fprintf(f, "\"%s\":", key);
}

static void json_open(struct ctx_out *o, const char *key, bool list)
{
	json_key(o, key);
	fputc(list ? '[' : '{', o->sink);
	o->more[o->depth++] = false;
}

static void json_close(struct ctx_out *o, bool list)
{
	o->depth--;
	fputc(list ? ']' : '}', o->sink);
}

static void json_i64(struct ctx_out *o, const char *key, long long v)
{
	json_key(o, key);
	fprintf(o->sink, "%lld", v);
}

static void json_u64(struct ctx_out *o, const char *key, unsigned long long v)
{
	json_key(o, key);
	fprintf(o->sink, "%llu", v);
}

static void json_f64(struct ctx_out *o, const char *key, double v)
{
	json_key(o, key);
	/* Python's json reads its names of the values JSON has none for */
	if (v != v)
		fputs("NaN", o->sink);
	else if (v > DBL_MAX || v < -DBL_MAX)
		fputs(v > 0 ? "Infinity" : "-Infinity", o->sink);
	else
		fprintf(o->sink, "%.17g", v);
}

static void json_string(struct ctx_out *o, const char *key, const char *s)
{
	json_key(o, key);
	json_str(o->sink, s);
}

static void json_atom(struct ctx_out *o, const char *key, int v)
{
	json_key(o, key);
	fputs(v < 0 ? "null" : v ? "true" : "false", o->sink);
}

static const struct ctx_ops json_ops = {
	.open = json_open, .close = json_close, .i64 = json_i64, .u64 = json_u64,
	.f64 = json_f64, .str = json_string, .atom = json_atom,
};

/* A probe field's value: a number, a string, or null (a NULL string, not recorded). */
static void field_ctx(struct ctx_out *o, const char *key, const struct psr_evfield *fd,
		      const uint8_t *rec, size_t bytes)
{
	struct psr_value v;
	char text[1100];

	if (!psr_event_field(fd, rec, bytes, &v) || v.null)
		o->ops->atom(o, key, -1);
	else if (fd->kind == PATCHSITE_FIELD_SIGNED)
		o->ops->i64(o, key, (long long)v.u);
	else if (fd->kind == PATCHSITE_FIELD_FLOAT)
		o->ops->f64(o, key, v.d);
	else if (fd->kind == PATCHSITE_FIELD_STRING || fd->kind == PATCHSITE_FIELD_BYTES) {
		snprintf(text, sizeof(text), "%.*s", (int)v.slen, (const char *)v.s);
		o->ops->str(o, key, text);	/* cut at a NUL, as the text output shows it */
	} else
		o->ops->u64(o, key, (unsigned long long)v.u);
}

/*
 * A probe's values (its fields but the probe's own __probe_*): all of them as a list (args),
 * or the first alone (retval).
 */
static void probe_ctx(struct ctx_out *o, const struct psr_proc *p, const struct psr_event *e,
		      bool list)
{
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, e, &rec, &bytes);

	if (list)
		o->ops->open(o, "args", true);
	for (unsigned i = 0; d && i < d->nfields; i++)
		if (strncmp(d->f[i].name, "__probe_", 8)) {
			field_ctx(o, list ? NULL : "retval", &d->f[i], rec, bytes);
			if (!list)
				return;
		}
	if (list)
		o->ops->close(o, true);
	else
		o->ops->atom(o, "retval", -1);
}

/* One call's ctx: the keys uftrace's script_context has, and pid. */
static void call_ctx(struct ctx_out *o, const struct render_call *c)
{
	const struct ctx_ops *op = o->ops;

	op->open(o, NULL, false);
	op->str(o, "cb", call_cb[c->kind]);
	op->i64(o, "pid", c->p->pid);
	op->i64(o, "tid", c->tid);
	op->i64(o, "depth", (long long)c->depth);
	op->u64(o, "timestamp", c->ns);
	if (c->kind == RENDER_CALL_EXIT)
		op->u64(o, "duration", c->dur_ns);
	if (c->kind != RENDER_CALL_EVENT)
		op->u64(o, "address", c->addr);
	op->str(o, "name", c->name);
	if (c->kind == RENDER_CALL_FUNC)
		op->atom(o, "untimed", 1);	/* the function tracer's: no exit follows */
	if (c->args) {
		op->open(o, "args", true);
		for (unsigned i = 0; i < c->nargs; i++)
			op->i64(o, NULL, (long long)c->args[i]);
		op->close(o, true);
	} else if (c->args_probe) {	/* set_ftrace_args' values first, as for retval */
		probe_ctx(o, c->p, c->args_probe, true);
	}
	if (c->kind == RENDER_CALL_EVENT)
		op->str(o, "args", c->text);
	if (c->has_ret)
		op->i64(o, "retval", (long long)c->ret);
	else if (c->ret_probe)
		probe_ctx(o, c->p, c->ret_probe, false);
	op->close(o, false);
}

/* begin's ctx: uftrace's keys (record, version, cmds), the directory, and what was lost. */
static void begin_ctx(struct ctx_out *o, const struct psr_session *s, const struct render_opts *ro)
{
	const struct psr_proc *first = NULL;
	unsigned long long lost = 0;

	o->ops->open(o, NULL, false);
	o->ops->str(o, "cb", "begin");
	o->ops->atom(o, "record", 0);
	o->ops->str(o, "version", "patchsite");
	o->ops->str(o, "dir", s->dir);
	o->ops->open(o, "losses", true);
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct psr_proc *p = &s->procs[i];
		char *text = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *m;

		if (!render_proc_wanted(p, ro))
			continue;
		first = first ? first : p;
		for (size_t k = 0; k < p->nthreads; k++)
			lost += p->threads[k].lost + p->threads[k].overwritten;
		/* the lines the other readers print, one string each */
		if (!(m = open_memstream(&text, &len)))
			continue;
		render_losses(m, p, "");
		fclose(m);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			o->ops->str(o, NULL, line);
		free(text);
	}
	o->ops->close(o, true);
	o->ops->u64(o, "lost", lost);
	o->ops->open(o, "cmds", true);
	if (first && first->cmdline) {
		char *words = strdup(first->cmdline), *w, *save = NULL;

		for (w = words ? strtok_r(words, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
			o->ops->str(o, NULL, w);
		free(words);
	}
	o->ops->close(o, true);
	o->ops->close(o, false);
}

static void end_ctx(struct ctx_out *o)
{
	o->ops->open(o, NULL, false);
	o->ops->str(o, "cb", "end");
	o->ops->close(o, false);
}

/* Where each ctx goes: the script (py) or stdout, as JSON lines. */
struct script_run {
	bool py;
	bool wants[4];	/* py: the script has the callback of each enum render_call_kind */
	struct ctx_out json;
};

/* The ctx just written: to the script (its answer), or ended as a line. */
static int ctx_done(struct script_run *run)
{
	if (run->py)
		return script_py_call();
	return putchar('\n') == EOF ? -EIO : 0;
}

static struct ctx_out *ctx_for(struct script_run *run)
{
	return run->py ? script_py_ctx() : &run->json;
}

static int one_call(const struct render_call *c, void *arg)
{
	struct script_run *run = arg;

	if (run->py && !run->wants[c->kind])
		return 0;	/* no callback for it: no ctx made (most of the time goes there) */
	call_ctx(ctx_for(run), c);
	return ctx_done(run);
}

/* The walk, between begin and end: 0, the script's answer, or -errno. */
static int run_calls(const struct psr_session *s, const struct render_opts *o, bool py)
{
	struct script_run run = { .py = py, .json = { .ops = &json_ops, .sink = stdout } };
	int err = 0;

	for (size_t k = 0; py && k < sizeof(run.wants); k++)
		run.wants[k] = script_py_wants(call_cb[k]);
	if (!py || script_py_wants("begin")) {
		begin_ctx(ctx_for(&run), s, o);
		err = ctx_done(&run);
	}
	if (!err)
		err = render_calls(s, o, one_call, &run);
	if (!err && (!py || script_py_wants("end"))) {
		end_ctx(ctx_for(&run));
		err = ctx_done(&run);
	}
	return err;
}

/* cmd_script's work once its options are read. */
static int script_run(int argc, char **argv, const char *dir, const char *file, bool json,
		      struct render_opts *o)
{
	struct psr_session *s;
	bool any = false;
	int err;

	if (json && (file || optind < argc))
		return bad_usage("script --json: no script (unexpected '%s')",
				 file ? file : argv[optind]);
	if (!json && !file && optind >= argc)
		return bad_usage("script: expected a Python file (or --json)%s", "");
	if (!json && !file)
		file = argv[optind++];
	if (psr_open(dir, stderr, &s))
		return 1;
	/* As the other readers do: what the recording lost, on stderr too. */
	for (size_t i = 0; i < s->nprocs; i++)
		if (render_proc_wanted(&s->procs[i], o)) {
			render_losses(stderr, &s->procs[i], "patchsite: ");
			any = true;
		}
	if (o->pid && !any) {
		fprintf(stderr, "patchsite: %s: no process %d recorded\n", dir, o->pid);
		psr_close(s);
		return 1;
	}
	if (psr_filter_any(o->filter) && !filter_fits(s, o)) {
		psr_close(s);
		return 1;
	}
	err = file ? script_py_load(file, argc - optind, argv + optind) : 0;
	if (!err)
		err = run_calls(s, o, file);
	if (file && script_py_end() && !err)
		err = 1;
	psr_close(s);
	if (err == -ENOMEM)
		fprintf(stderr, "patchsite: out of memory\n");
	if (err == -EIO || (!file && (fflush(stdout) || ferror(stdout)))) {
		fprintf(stderr, "patchsite: writing the output: %s\n", strerror(errno));
		return 1;
	}
	return err < 0 ? 1 : err >= 2 ? err - 2 : err;
}

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "script", required_argument, NULL, 'S' },	/* uftrace's spelling */
		{ "help", no_argument, NULL, 'h' },
		FILTER_LONG_OPTIONS,	/* the readers' filters, as uftrace script takes them */
		{ 0 }
	};
	struct render_opts o = { 0 };
	struct psr_filter *filter = NULL;
	struct filter_args fa = { .n = 0 };
	const char *dir = DEFAULT_DIR, *file = NULL;
	bool json = false;
	int c, err;

	while ((c = getopt_long(argc, argv, "d:hS:F:N:H:C:T:D:t:Z:L:r:", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': if (parse_int(optarg, "--pid", &o.pid)) return 2; break;
		case 'i': if (parse_int(optarg, "--tid", &o.tid)) return 2; break;
		case 'j': json = true; break;
		case 'S': file = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		case 'F': case 'N': case 'H': case 'C': case 'T': case 'D': case 't': case 'Z':
		case 'L': case 'r': case 'M': case 'o': case OPT_NO_LIBCALL: case OPT_NO_ARGS:
		case 'm':
			if (filter_arg_add(&fa, c, optarg, argv[optind - 1]))
				return 2;
			break;
		default: return bad_usage("bad option%s", "");
		}
	}
	err = filter_options(&filter, &fa);
	o.filter = filter;
	err = err ? err : script_run(argc, argv, dir, file, json, &o);
	psr_filter_free(filter);
	return err;
}

