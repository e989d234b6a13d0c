// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite record: its options, checked, and the names in them resolved
 * from the program's DWARF; record_run.c then runs the program with
 * libpatchsite preloaded into a fresh trace directory and writes how it
 * ended (the status file); -p goes to attach.c.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach.h"
#include "cmd.h"
#include "../events/probe.h"
#include "dwarf/probe_dwarf.h"
#include "filter_if_cmd.h"
#include "dwarf/auto_args.h"
#include "dwarf/argspec.h"
#include "dwarf/libcall_args.h"
#include "pipe.h"
#include "record_run.h"
#include "noflag_proof.h"

/* list + s, sep between them (textlist.c); out of memory: said, exit 2. */
static char *append_sep(char *list, const char *s, char sep)
{
	list = list_add(list, s, sep);
	if (!list) {
		perror("patchsite");
		exit(2);
	}
	return list;
}

/* "a b" + c: the tokens of repeated -N, -G options, one space apart. */
static char *append(char *list, const char *tok)
{
	return append_sep(list, tok, ' ');
}

/* A --probe definition, parsed as the runtime will: 0, or said (usage). */
static int check_probe(const char *def)
{
	struct ps_probe_def d;
	char why[300];

	if (!ps_probe_parse(def, &d, why, sizeof(why)))
		return 0;
	fprintf(stderr, "patchsite: record: --probe='%s': %s\n", def, why);
	return -1;
}

static char *append_line(char *list, const char *def);

/* cmd as execvp finds it: a path, or the first executable file of that name in $PATH. */
static const char *find_exe(const char *cmd, char *buf, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/'))
		return cmd;
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");

		snprintf(buf, len, "%.*s%s%s", (int)n, p, n ? "/" : "", cmd);
		if (!access(buf, X_OK))
			return buf;
		p += n + (p[n] == ':');
	}
	return cmd;
}

/* d's names and untyped $retval: a library call's from the prototype list, else from DWARF. */
static int resolve_def(const char *exe, struct ps_probe_def *d, char *why, size_t len)
{
	int rc = libcall_proto_resolve(exe, d, why, len);

	return rc <= 0 ? rc : probe_dwarf_resolve(exe, d, why, len);
}

/*
 * The definitions (one a line) with their names resolved from exe's DWARF,
 * in the form the runtime reads; NULL said when one cannot be.
 */
static char *resolve_probes(const char *defs, const char *exe)
{
	char *out = NULL, *copy = strdup(defs), *save = NULL, why[300], text[4096];

	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		struct ps_probe_def d;

		if (ps_probe_parse(l, &d, why, sizeof(why)) ||
		    resolve_def(exe, &d, why, sizeof(why))) {
			fprintf(stderr, "patchsite: record: --probe='%s': %s\n", l, why);
			free(out);
			out = NULL;
			break;
		}
		ps_probe_text(&d, text, sizeof(text));
		out = append_line(out, text);
	}
	free(copy);
	return out;
}

/* "f:retval/FUNC__exit FUNC%return FETCH": -R's group, which replay shows in the call. */
static void retval_def(char *def, size_t len, const char *func, const char *fetch)
{
	char ev[64];

	snprintf(def, len, "f:retval/%s %.500s%%return %s",
		 argspec_event(func, strlen(func), "__exit", ev, sizeof(ev)), func, fetch);
}

/* -R FUNC@retval/FMT: the return probe of $retval:TYPE (argspec.c), 0 or said. */
static int retval_typed(const char *func, const char *fmt, char **probes)
{
	const char *type = argspec_type(fmt, fmt[0] == 'f');
	char def[600], why[300], text[4096], fetch[32];
	struct ps_probe_def d;

	snprintf(fetch, sizeof(fetch), "$retval:%s", type ? type : "?");
	retval_def(def, sizeof(def), func, fetch);
	if (!type) {
		fprintf(stderr, "patchsite: record: -R %s@retval/%s: format '%s' is not recorded "
			"(d i u x with sizes, c, p, f f32 f64)\n", func, fmt, fmt);
		return -EINVAL;
	}
	if (ps_probe_parse(def, &d, why, sizeof(why))) {
		fprintf(stderr, "patchsite: record: -R %s@retval/%s: %s\n", func, fmt, why);
		return -EINVAL;
	}
	ps_probe_text(&d, text, sizeof(text));
	*probes = append_line(*probes, text);
	return 0;
}

/*
 * -R FUNC@retval as the return probe "f FUNC%return $retval", typed from
 * exe's DWARF: every one under a tracer without returns (function, nop);
 * under function_graph only a float or double one, whose value is not in
 * the integer register its return line shows (the others stay in *keep, for
 * set_ftrace_args: the register, as uftrace's -R records it).  A library
 * call is typed by libc_protos.c.  A void function is refused.  With a
 * format, the probe goes to *typed, which needs no DWARF (its $retval:x64 is
 * what an untyped one is, until DWARF types it).  0, or said.
 */
static int retvals_as_probes(const char *retvals, const char *exe, bool all, char **probes,
			     char **typed, char **keep)
{
	char *copy = strdup(retvals), *save = NULL, def[600], why[300], text[4096];
	int err = 0;

	for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w && !err;
	     w = strtok_r(NULL, " ", &save)) {
		struct ps_probe_def d;
		bool fp;
		int lib;

		char *fmt = strstr(w, "@retval") + 7;

		*strstr(w, "@retval") = '\0';
		if (*fmt == '/') {
			err = retval_typed(w, fmt + 1, typed);
			continue;
		}
		if (!all && strpbrk(w, "*?[!:")) {	/* a glob: function_graph's line, untyped */
			snprintf(def, sizeof(def), "%.500s@retval", w);
			*keep = append(*keep, def);
			continue;
		}
		retval_def(def, sizeof(def), w, "$retval");
		err = ps_probe_parse(def, &d, why, sizeof(why));
		lib = err ? 1 : libcall_proto_resolve(exe, &d, why, sizeof(why));
		err = err || lib < 0 || (lib && probe_dwarf_resolve(exe, &d, why, sizeof(why)));
		if (err) {
			fprintf(stderr, "patchsite: record: -R %s@retval: %s\n", w, why);
			break;
		}
		fp = d.a[0].type == PT_FLOAT || d.a[0].type == PT_DOUBLE;
		if (all || fp) {
			ps_probe_text(&d, text, sizeof(text));
			*probes = append_line(*probes, text);
		} else {
			snprintf(def, sizeof(def), "%.500s@retval", w);
			*keep = append(*keep, def);
		}
	}
	free(copy);
	return err;
}

/*
 * -a (every function) or -A FUNC, -R FUNC without a spec (of[0], of[1]: the
 * globs): arguments (probes) and return values (-R) of the program's functions
 * from its DWARF, of its library calls from the prototype list.  0, or said.
 */
static int auto_args_all(const char *cmd, bool all, char *of[2], const char *libcall,
			 char **probes, char **retvals)
{
	char exe[PATH_MAX];
	const char *path = find_exe(cmd, exe, sizeof(exe));
	const char *args_of = all ? "*" : of[0], *rets_of = all ? "*" : of[1];
	size_t had = (*probes ? strlen(*probes) : 0) + (*retvals ? strlen(*retvals) : 0);
	int own = auto_args(path, args_of, rets_of, probes, retvals);

	if (own >= 0 && strcmp(libcall, "off"))
		own = libcall_args_auto(path, strstr(libcall, "got") != NULL, args_of, rets_of,
					probes, retvals) ? -1 : own;
	if (own >= 0 && !all &&
	    (*probes ? strlen(*probes) : 0) + (*retvals ? strlen(*retvals) : 0) == had) {
		fprintf(stderr, "patchsite: record: -A/-R %s%s%s: no function of %s's DWARF, nor a "
			"library call of the prototype list, matches (build with -g)\n",
			of[0] ? of[0] : "", of[0] && of[1] ? " " : "", of[1] ? of[1] : "", path);
		own = -1;
	}
	free(of[0]), free(of[1]);
	if (own < 0)
		return -1;
	if (own && !strcmp(libcall, "off"))
		return bad_usage("record: -a --no-libcall: %s's functions have no sites "
				 "(build with -pg -mfentry or the like)", path);
	if (own)	/* said, as the program's functions are not traced at all */
		fprintf(stderr, "patchsite: record -a: %s: its functions have no sites "
			"(built without -pg): library calls only\n", path);
	return 0;
}

/* -A specs (one a line; one FUNC's merged) as probe definitions added to *probes: 0, or said. */
static int add_argspecs(char *given, const char *cmd, char **probes)
{
	char exe[PATH_MAX], def[2048], why[300], *save = NULL, *specs = argspec_merge(given);
	const char *fpreg = probe_dwarf_fpreg(find_exe(cmd, exe, sizeof(exe)));
	int err = 0;

	free(given);
	if (!specs) {
		fprintf(stderr, "patchsite: record: -A: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (char *l = strtok_r(specs, "\n", &save); l && !err; l = strtok_r(NULL, "\n", &save)) {
		err = argspec_probe(l, fpreg, def, sizeof(def), why, sizeof(why));
		if (err)
			fprintf(stderr, "patchsite: record: -A %s: %s\n", l, why);
		else
			*probes = append_line(*probes, def);
	}
	free(specs);
	return err;
}

/* Probe definitions hold blanks: one a line. */
static char *append_line(char *list, const char *def)
{
	return append_sep(list, def, '\n');
}

/*
 * --noflag-proof FILE: read whole here (include/noflag_proof.h), so that a
 * damaged file stops the command with one line, before CMD runs; the
 * runtime reads it again (PATCHSITE_NOFLAG) and checks its bytes in memory.
 */
static int noflag_proof_check(const char *file)
{
	struct nf_record *r = malloc(sizeof(*r));
	struct nf_object o;
	char err[256];
	unsigned line = 0;
	FILE *f = fopen(file, "re");
	int got = -1;

	if (!f || !r)
		fprintf(stderr, "patchsite: record: --noflag-proof %s: %s\n", file, strerror(errno));
	else if (strchr(file, ':'))
		fprintf(stderr, "patchsite: record: --noflag-proof %s: a ':' in the name (the "
			"runtime's list separator)\n", file);
	else if (!(got = nf_read_object(f, &o, &line, err, sizeof(err))))
		while ((got = nf_read_record(f, r, &line, err, sizeof(err))) > 0)
			;
	if (got < 0 && f && r && !strchr(file, ':'))
		fprintf(stderr, "patchsite: record: --noflag-proof %s: %s\n", file, err);
	if (f)
		fclose(f);
	free(r);
	return got < 0 ? -1 : 0;
}

/*
 * What a uftrace user expects first: the program's library calls.  Only
 * the command turns them on: the runtime alone (preloaded or linked in)
 * leaves them off unless PATCHSITE_LIBCALL asks, and a value there is the
 * user's, kept.  Slots an arch cannot switch are refused by name there
 * (sites/got.c), the others traced.
 */
static const char *default_libcall(void)
{
	return getenv("PATCHSITE_LIBCALL") ? NULL : "plt";
}

/*
 * record -p --live (attach.h): pipe --from-now on the session, the tracer
 * switched on once following has begun.  A reader that goes away (| head)
 * ends the streaming; the tracer is then switched off.
 */
static int follow_attached(const struct attach_follow *f)
{
	struct pipe_opts p = {
		.dir = f->dir, .from_now = true, .ready = f->on, .stopping = f->off,
		.ready_arg = f->arg,
		.target = f->pid, .until_ms = f->until_ms, .held = f->held,
	};

	signal(SIGPIPE, SIG_IGN);
	return pipe_follow(stdout, &p);
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "tracer", required_argument, NULL, 't' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "overwrite", no_argument, NULL, 'o' },
		{ "no-sched", no_argument, NULL, 'S' },
		{ "live", no_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'u' },
		{ "trigger", required_argument, NULL, 'T' },
		{ "probe", required_argument, NULL, 'P' },
		{ "libcall", optional_argument, NULL, 'L' },
		{ "no-libcall", no_argument, NULL, 'n' },
		{ "nest-libcall", no_argument, NULL, 'E' },
		{ "emulator", required_argument, NULL, 'M' },
		{ "noflag-proof", required_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct attach_record at = { .fresh_dir = record_fresh_dir, .follow = follow_attached };
	char *end;
	struct pipe_opts live = { 0 };
	const char *dir = DEFAULT_DIR, *tracer = "function_graph", *depth = NULL, *kb = NULL;
	char *filter = NULL, *notrace = NULL, *graph = NULL, *probes = NULL, *argspecs = NULL;
	char *retvals = NULL, *reads = NULL, *noflag = NULL, *auto_of[2] = { NULL, NULL };
	char *typed = NULL;
	const char *libcall = NULL, *emulator = NULL;
	bool overwrite = false, nest = false, no_sched = false, auto_all = false;
	int c;

	while ((c = getopt_long(argc, argv, "+d:F:N:G:D:p:A:R:T:ah", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; at.dir_given = true; break;
		case 'p': if (parse_int(optarg, "-p", &at.pid)) return 2; break;
		case 'T':
			if (record_trigger(optarg, &reads)) {
				free(reads);
				return 2;
			}
			break;
		case 'u':
			at.duration = strtod(optarg, &end);
			if (*end || end == optarg || !(at.duration > 0))
				return bad_usage("record: --duration=%s: expected seconds", optarg);
			break;
		case 't': tracer = optarg; break;
		case 'F': filter = append_line(filter, optarg); break;	/* a condition has blanks */
		case 'N': notrace = append(notrace, optarg); break;
		case 'G': graph = append(graph, optarg); break;
		case 'A':	/* FUNC alone: its arguments as DWARF types them, as -a's */
			if (!strchr(optarg, '@'))
				auto_of[0] = append(auto_of[0], optarg);
			else
				argspecs = append_line(argspecs, optarg);
			break;
		case 'R':
			if (!strchr(optarg, '@')) {
				auto_of[1] = append(auto_of[1], optarg);
				break;
			}
			if (!strstr(optarg, "@retval") || strchr(optarg, ',') ||
			    (strcmp(strstr(optarg, "@retval"), "@retval") &&
			     strncmp(strstr(optarg, "@retval"), "@retval/", 8)))
				return bad_usage("record: -R %s: expected FUNC@retval[/FMT]", optarg);
			retvals = append(retvals, optarg);
			break;
		case 'P':
			if (check_probe(optarg))
				return 2;
			probes = append_line(probes, optarg);
			break;
		case 'a': auto_all = true; break;
		case 'D': depth = optarg; break;
		case 'b': kb = optarg; break;
		case 'o': overwrite = true; break;
		case 'L':
			libcall = optarg ? optarg : "plt";
			if (strcmp(libcall, "plt") && strcmp(libcall, "got"))
				return bad_usage("record: --libcall=%s: expected plt or got", libcall);
			break;
		case 'n': libcall = "off"; break;
		case 'E': nest = true; break;
		case 'S': no_sched = true; break;
		case 'M': emulator = optarg; break;
		case 'Q':
			if (noflag_proof_check(optarg))
				return 2;
			noflag = append_sep(noflag, optarg, ':');
			break;
		case 'l': live.dir = dir; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return bad_usage("record: bad option", "");
		}
	}
	if (optind >= argc && !at.pid)
		return bad_usage("record: no command to run%s", "");
	if (strcmp(tracer, "function") && strcmp(tracer, "function_graph") &&
	    strcmp(tracer, "latency") && strcmp(tracer, "function_profile") && strcmp(tracer, "nop"))
		return bad_usage("record: --tracer=%s: expected function, function_graph, latency, "
				 "function_profile or nop", tracer);
	/* --nest-libcall: the libraries' calls too (PATCHSITE_LIBCALL=nest, nest-got). */
	if (nest && libcall && !strcmp(libcall, "off"))
		return bad_usage("record: --nest-libcall with --no-libcall%s", "");
	if (nest)
		libcall = libcall && !strcmp(libcall, "got") ? "nest-got" : "nest";
	if (at.pid) {
		/* attach.c: into a running process, through its control channel. */
		if (reads) {
			free(reads);
			return bad_usage("record: -T is not taken with -p (read= triggers are set when "
					 "the program starts)%s", "");
		}
		if (probes || argspecs || retvals || auto_all || auto_of[0] || auto_of[1])
			return bad_usage("record: --probe, -A, -R with -p: write the definition to the "
					 "process's dynamic_events (patchsite ctl PID dynamic_events)%s", "");
		if (optind < argc || overwrite || libcall || nest || no_sched || emulator)
			return bad_usage("record: -p attaches to a running process: no command, "
					 "--overwrite, --libcall, --no-sched or --emulator with it%s", "");
		at.live = live.dir != NULL;
		at.dir = dir, at.tracer = tracer, at.filter = filter, at.notrace = notrace;
		at.graph = graph, at.depth = depth, at.kb = kb, at.noflag = noflag;
		c = attach_record(&at);
		free(filter), free(notrace), free(graph), free(noflag);
		return c;
	}
	if (at.duration > 0)
		return bad_usage("record: --duration is for -p PID%s", "");
	if (!libcall)
		libcall = default_libcall();
	if (live.dir && overwrite)
		return bad_usage("record: --live follows a growing record; --overwrite reuses its "
				 "chunks%s", "");
	if ((auto_all || auto_of[0] || auto_of[1]) &&
	    auto_args_all(argv[optind], auto_all, auto_of, libcall, &probes, &retvals))
		return 2;
	if (retvals) {
		char exe[PATH_MAX], *keep = NULL;

		if (retvals_as_probes(retvals, find_exe(argv[optind], exe, sizeof(exe)),
				      strcmp(tracer, "function_graph") != 0, &probes, &typed, &keep))
			return 2;
		free(retvals);
		retvals = keep;
	}
	if (argspecs && add_argspecs(argspecs, argv[optind], &probes))
		return 2;
	if (reads) {	/* read= triggers: set_ftrace_args specs beside -R's */
		retvals = append(retvals, reads);
		free(reads);
		if (!retvals)
			return 2;
	}
	if (filter) {
		/* Conditions' names (-F 'f if len > 1000') from the program's DWARF. */
		char exe[PATH_MAX], *resolved = filter_if_resolve(filter, find_exe(argv[optind], exe,
										     sizeof(exe)));

		free(filter);
		if (!resolved)
			return 2;
		filter = resolved;
	}
	if (probes) {
		/* Names (len, host->name) from the program's DWARF: the runtime reads none. */
		char exe[PATH_MAX], *resolved = resolve_probes(probes, find_exe(argv[optind], exe,
										 sizeof(exe)));

		free(probes);
		if (!resolved)
			return 2;
		probes = resolved;
	}
	if (typed) {	/* -R's with a format: typed as given */
		probes = append_line(probes, typed);
		free(typed);
	}
	c = record_run(&(struct record_run){
		.dir = dir, .tracer = tracer, .depth = depth, .kb = kb, .libcall = libcall,
		.filter = filter, .notrace = notrace, .graph = graph, .probes = probes,
		.retvals = retvals, .overwrite = overwrite, .no_sched = no_sched,
		.emulator = emulator, .live = &live, .cmd = argv + optind, .noflag = noflag,
	});
	free(noflag);
	free(filter);
	free(probes);
	free(retvals);
	free(notrace);
	free(graph);
	return c;
}
