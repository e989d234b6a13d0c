// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite script: a recording's calls handed one at a time to a Python
 * script's callbacks (script_py.c), as `uftrace script -S` does, or printed
 * as JSON lines (--json: what the callbacks get, for the `patchsite` Python
 * module and other programs).  The calls come from the reader through
 * render_calls (render/calls.c), in the order replay shows them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "json.h"
#include "patchsite_event.h"
#include "script.h"
#include "../render/render.h"

/* Where each ctx goes: the script (py) or stdout. */
struct script_run {
	bool py;
	bool wants[4];	/* py: the script has the callback of each enum render_call_kind */
	int status;	/* the script's answer that stopped the walk */
};

static const char *const call_cb[] = {
	[RENDER_CALL_ENTRY] = "entry", [RENDER_CALL_EXIT] = "exit",
	[RENDER_CALL_FUNC] = "entry", [RENDER_CALL_EVENT] = "event",
};

static void json_int(FILE *f, const char *key, long long v)
{
	fprintf(f, ",\"%s\":%lld", key, v);
}

/* A probe field's value as JSON: a number, a string, or null (a NULL string, not recorded). */
static void field_json(FILE *f, const struct psr_evfield *fd, const uint8_t *rec, size_t bytes)
{
	struct psr_value v;
	char text[1100];

	if (!psr_event_field(fd, rec, bytes, &v) || v.null) {
		fputs("null", f);
		return;
	}
	switch (fd->kind) {
	case PATCHSITE_FIELD_SIGNED: fprintf(f, "%lld", (long long)v.u); return;
	case PATCHSITE_FIELD_FLOAT: fprintf(f, "%.17g", v.d); return;
	case PATCHSITE_FIELD_STRING: case PATCHSITE_FIELD_BYTES:
		snprintf(text, sizeof(text), "%.*s", (int)v.slen, (const char *)v.s);
		json_str(f, text);	/* cut at a NUL, as the text output shows it */
		return;
	default: fprintf(f, "%llu", (unsigned long long)v.u); return;
	}
}

/*
 * A probe's values (its fields but the probe's own __probe_*): all of them as a list (args),
 * or the first alone (retval).
 */
static void probe_json(FILE *f, const struct psr_proc *p, const struct psr_event *e, bool list)
{
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, e, &rec, &bytes);
	const char *sep = "";

	fputs(list ? ",\"args\":[" : ",\"retval\":", f);
	for (unsigned i = 0; d && i < d->nfields; i++) {
		if (!strncmp(d->f[i].name, "__probe_", 8))
			continue;
		fputs(sep, f);
		field_json(f, &d->f[i], rec, bytes);
		sep = ",";
		if (!list)
			break;
	}
	fputs(list ? "]" : *sep ? "" : "null", f);
}

/* One call's ctx: the keys uftrace's script_context has, and pid. */
static void call_json(FILE *f, const struct render_call *c)
{
	fprintf(f, "{\"cb\":\"%s\"", call_cb[c->kind]);
	json_int(f, "pid", c->p->pid);
	json_int(f, "tid", c->tid);
	json_int(f, "depth", (long long)c->depth);
	fprintf(f, ",\"timestamp\":%llu", (unsigned long long)c->ns);
	if (c->kind == RENDER_CALL_EXIT)
		fprintf(f, ",\"duration\":%llu", (unsigned long long)c->dur_ns);
	if (c->kind != RENDER_CALL_EVENT)
		fprintf(f, ",\"address\":%llu", (unsigned long long)c->addr);
	fprintf(f, ",\"name\":");
	json_str(f, c->name);
	if (c->kind == RENDER_CALL_FUNC)
		fprintf(f, ",\"untimed\":true");	/* the function tracer's: no exit follows */
	if (c->args) {
		fprintf(f, ",\"args\":[");
		for (unsigned i = 0; i < c->nargs; i++)
			fprintf(f, "%s%lld", i ? "," : "", (long long)c->args[i]);
		fputc(']', f);
	}
	if (c->kind == RENDER_CALL_EVENT) {
		fprintf(f, ",\"args\":");
		json_str(f, c->text);
	}
	if (c->args_probe)
		probe_json(f, c->p, c->args_probe, true);
	if (c->has_ret)
		json_int(f, "retval", (long long)c->ret);
	else if (c->ret_probe)
		probe_json(f, c->p, c->ret_probe, false);
	fputc('}', f);
}

/* The ctx written by write into memory, handed to the script: its answer, or -ENOMEM. */
static int to_script(void (*write)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	if (!f)
		return -ENOMEM;
	write(f, arg);
	if (fclose(f)) {
		free(buf);
		return -ENOMEM;
	}
	r = script_py_call(buf);
	free(buf);
	return r;
}

static void call_write(FILE *f, const void *c)
{
	call_json(f, c);
}

static int one_call(const struct render_call *c, void *arg)
{
	struct script_run *run = arg;

	if (!run->py) {
		call_json(stdout, c);
		return putchar('\n') == EOF ? -EIO : 0;
	}
	if (!run->wants[c->kind])
		return 0;	/* no callback for it: no ctx made (most of the time goes there) */
	return (run->status = to_script(call_write, c));
}

/* begin's ctx: uftrace's keys (record, version, cmds), the directory, and what was lost. */
struct begin {
	const struct psr_session *s;
	const struct render_opts *o;
};

static void begin_write(FILE *f, const void *arg)
{
	const struct begin *b = arg;
	const struct psr_proc *first = NULL;
	unsigned long long lost = 0;
	const char *sep = "";

	fprintf(f, "{\"cb\":\"begin\",\"record\":false,\"version\":\"patchsite\",\"dir\":");
	json_str(f, b->s->dir);
	fprintf(f, ",\"losses\":[");
	for (size_t i = 0; i < b->s->nprocs; i++) {
		const struct psr_proc *p = &b->s->procs[i];
		char *text = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *m;

		if (!render_proc_wanted(p, b->o))
			continue;
		first = first ? first : p;
		for (size_t k = 0; k < p->nthreads; k++)
			lost += p->threads[k].lost + p->threads[k].overwritten;
		/* the lines the other readers print, one string each */
		if (!(m = open_memstream(&text, &len)))
			continue;
		render_losses(m, p, "");
		fclose(m);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			fputs(sep, f);
			json_str(f, line);
			sep = ",";
		}
		free(text);
	}
	fprintf(f, "],\"lost\":%llu,\"cmds\":[", lost);
	sep = "";
	if (first && first->cmdline) {
		char *words = strdup(first->cmdline), *w, *save = NULL;

		for (w = words ? strtok_r(words, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save)) {
			fputs(sep, f);
			json_str(f, w);
			sep = ",";
		}
		free(words);
	}
	fprintf(f, "]}");
}

static void end_write(FILE *f, const void *arg)
{
	(void)arg;
	fprintf(f, "{\"cb\":\"end\"}");
}

/* The walk, between begin and end: 0, the script's answer, or -errno. */
static int run_calls(const struct psr_session *s, const struct render_opts *o, bool py)
{
	struct script_run run = { .py = py };
	struct begin b = { s, o };
	int err;

	for (size_t k = 0; py && k < sizeof(run.wants); k++)
		run.wants[k] = script_py_wants(call_cb[k]);
	if (py)
		err = script_py_wants("begin") ? to_script(begin_write, &b) : 0;
	else {
		begin_write(stdout, &b);
		err = putchar('\n') == EOF ? -EIO : 0;
	}
	if (!err)
		err = render_calls(s, o, one_call, &run);
	if (err)
		return err;
	if (py)
		return script_py_wants("end") ? to_script(end_write, NULL) : 0;
	end_write(stdout, NULL);
	return putchar('\n') == EOF ? -EIO : 0;
}

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct render_opts o = { 0 };
	struct psr_session *s;
	const char *dir = DEFAULT_DIR, *file;
	bool json = false, any = false;
	int c, err;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': if (parse_int(optarg, "--pid", &o.pid)) return 2; break;
		case 't': if (parse_int(optarg, "--tid", &o.tid)) return 2; break;
		case 'j': json = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return bad_usage("bad option%s", "");
		}
	}
	if (json && optind < argc)
		return bad_usage("script --json: no script (unexpected '%s')", argv[optind]);
	if (!json && optind >= argc)
		return bad_usage("script: expected a Python file (or --json)%s", "");
	file = json ? NULL : argv[optind++];
	if (psr_open(dir, stderr, &s))
		return 1;
	/* As the other readers do: what the recording lost, on stderr too. */
	for (size_t i = 0; i < s->nprocs; i++)
		if (render_proc_wanted(&s->procs[i], &o)) {
			render_losses(stderr, &s->procs[i], "patchsite: ");
			any = true;
		}
	if (o.pid && !any) {
		fprintf(stderr, "patchsite: %s: no process %d recorded\n", dir, o.pid);
		psr_close(s);
		return 1;
	}
	err = file ? script_py_load(file, argc - optind, argv + optind) : 0;
	if (!err)
		err = run_calls(s, &o, file);
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
