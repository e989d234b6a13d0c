// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite record: run a program with libpatchsite preloaded into a fresh
 * trace directory, then write how it ended (the status file).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach.h"
#include "cmd.h"
#include "../data/env.h"
#include "../events/probe.h"
#include "probe_dwarf.h"
#include "filter_if_cmd.h"
#include "auto_args.h"
#include "argspec.h"
#include "libcall_args.h"
#include "pipe.h"

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

/*
 * -R FUNC@retval as the return probe "f FUNC%return $retval", typed from
 * exe's DWARF: every one under a tracer without returns (function, nop);
 * under function_graph only a float or double one, whose value is not in
 * the integer register its return line shows, or a library call's signed
 * int, which the line would show unsigned (the others stay in *keep, for
 * set_ftrace_args).  A library call is typed by libc_protos.c.  A void
 * function is refused.  0, or said.
 */
static int retvals_as_probes(const char *retvals, const char *exe, bool all, char **probes,
			     char **keep)
{
	char *copy = strdup(retvals), *save = NULL, def[600], why[300], text[4096];
	int err = 0;

	for (char *w = copy ? strtok_r(copy, " ", &save) : NULL; w && !err;
	     w = strtok_r(NULL, " ", &save)) {
		struct ps_probe_def d;
		bool fp;
		int lib;

		*strstr(w, "@retval") = '\0';
		if (!all && strpbrk(w, "*?[!:")) {	/* a glob: function_graph's line, untyped */
			snprintf(def, sizeof(def), "%.500s@retval", w);
			*keep = append(*keep, def);
			continue;
		}
		snprintf(def, sizeof(def), "f %.500s%%return $retval", w);
		err = ps_probe_parse(def, &d, why, sizeof(why));
		lib = err ? 1 : libcall_proto_resolve(exe, &d, why, sizeof(why));
		err = err || lib < 0 || (lib && probe_dwarf_resolve(exe, &d, why, sizeof(why)));
		if (err) {
			fprintf(stderr, "patchsite: record: -R %s@retval: %s\n", w, why);
			break;
		}
		/* A library call's narrower signed int too: the return line shows rax unsigned. */
		fp = d.a[0].type == PT_FLOAT || d.a[0].type == PT_DOUBLE ||
		     (!lib && d.a[0].type == PT_S && d.a[0].size < 8);
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

/* -A specs (one a line) as probe definitions added to *probes: 0, or said. */
static int add_argspecs(char *specs, const char *cmd, char **probes)
{
	char exe[PATH_MAX], def[2048], why[300], *save = NULL;
	const char *fpreg = probe_dwarf_fpreg(find_exe(cmd, exe, sizeof(exe)));
	int err = 0;

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

/* The runtime to preload: $PATCHSITE_LIB, next to this program, or in ../lib. */
static int find_runtime(char *buf, size_t len)
{
	char exe[PATH_MAX - 64];
	const char *env = getenv("PATCHSITE_LIB");
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return access(buf, R_OK) ? -errno : 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	*slash = 0;
	snprintf(buf, len, "%s/libpatchsite.so", exe);
	if (!access(buf, R_OK))
		return 0;
	snprintf(buf, len, "%s/../lib/libpatchsite.so", exe);
	return access(buf, R_OK) ? -ENOENT : 0;
}

static int rm_tree(const char *path)
{
	char *argv[] = { "rm", "-rf", "--", (char *)path, NULL };
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		execvp("rm", argv);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/*
 * A misspelt PATCHSITE_* in what CMD gets, said here on our stderr, once:
 * the env-warnings file tells the runtime in CMD's processes that it was
 * said (they would otherwise say it on the first traced process's stderr).
 */
static void env_names_say(const char *dir)
{
	extern char **environ;
	char text[2048], path[PATH_MAX];
	size_t n = psd_env_check(environ, text, sizeof(text));
	FILE *f;

	if (!n)
		return;
	fputs(text, stderr);
	if (mkdir(dir, 0755) && errno != EEXIST)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, PSD_ENV_WARNINGS);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* An older session in DIR goes to DIR.old (as uftrace does): processes never mix sessions. */
static int fresh_dir(const char *dir)
{
	char old[PATH_MAX], sess[PATH_MAX];
	struct stat sb;

	if (stat(dir, &sb))
		return 0;
	snprintf(sess, sizeof(sess), "%s/session", dir);
	if (!S_ISDIR(sb.st_mode) || stat(sess, &sb)) {
		fprintf(stderr, "patchsite: %s: exists and is not a trace directory: not touched\n", dir);
		return -1;
	}
	snprintf(old, sizeof(old), "%s.old", dir);
	if ((!stat(old, &sb) && rm_tree(old)) || rename(dir, old)) {
		fprintf(stderr, "patchsite: %s: cannot move the older session to %s\n", dir, old);
		return -1;
	}
	return 0;
}

/*
 * Did CMD's own process refuse a setting (the runtime said it on stderr and
 * noted it in DIR/refused, "PID line")?  A child's refusal (an exec'd
 * program without the probed function) leaves CMD's recording whole.
 */
static bool refused(const char *dir, pid_t pid)
{
	char path[PATH_MAX], line[1024];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, PSD_REFUSED);
	f = fopen(path, "r");
	while (f && !found && fgets(line, sizeof(line), f))
		found = atoi(line) == (int)pid;
	if (f)
		fclose(f);
	return found;
}

/*
 * The trace directory, with its (empty) session list, there before CMD
 * starts: a setting its runtime refuses is noted in it (refused()), and a
 * later record over it finds a trace directory to move aside.
 */
static int make_session(const char *dir)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/session", dir);
	if ((mkdir(dir, 0755) && errno != EEXIST) || !(f = fopen(path, "a"))) {
		fprintf(stderr, "patchsite: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fclose(f);
	return 0;
}

/*
 * CMD's end, in the directory of its last image (what info and replay say);
 * a run that recorded nothing is said, with the likely reason (none when
 * the runtime said it: a setting refused).
 */
static void write_status(const char *dir, const char *cmd, pid_t pid, int st)
{
	char path[PATH_MAX], line[256], name[64] = "", text[64];
	unsigned procs = 0, with_sites = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/session", dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		int p, pp;
		char n[64];

		if (sscanf(line, "%d %d %63s", &p, &pp, n) != 3)
			continue;
		procs++;
		with_sites += strcmp(n, "-") != 0;
		if (p == pid && strcmp(n, "-"))
			snprintf(name, sizeof(name), "%s", n);
	}
	if (f)
		fclose(f);
	if (refused(dir, pid))
		;	/* said by the runtime, one line */
	else if (!procs)
		fprintf(stderr, "patchsite: %s: nothing recorded: the runtime did not start in it "
			"(a static executable?)\n", cmd);
	else if (!with_sites)
		fprintf(stderr, "patchsite: %s: nothing recorded: no traceable functions (build with "
			"-pg (x86-64, aarch64) or -finstrument-functions (x86-64, aarch64), -pg -mfentry "
			"-mrecord-mcount or -fpatchable-function-entry=5)\n", cmd);
	if (!name[0] || strchr(name, '/'))
		return;
	if (WIFSIGNALED(st))
		snprintf(text, sizeof(text), "signal %d (%s)\n", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(text, sizeof(text), "exit %d\n", WEXITSTATUS(st));
	snprintf(path, sizeof(path), "%s/%s/status", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void set_env(const char *name, const char *value)
{
	if (value && setenv(name, value, 1)) {
		perror("patchsite: setenv");
		exit(2);
	}
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

/*
 * The child: CMD, or --emulator=PROG CMD (qemu-aarch64 running an aarch64
 * CMD on another machine; the runtime preloaded is then CMD's arch's,
 * PATCHSITE_LIB).  CMD stays the program whose DWARF names resolve in.
 */
static void exec_cmd(const char *emulator, char **cmd)
{
	if (emulator) {
		cmd[-1] = (char *)emulator;	/* argv[optind - 1]: an option of ours, done with */
		execvp(emulator, cmd - 1);
		fprintf(stderr, "patchsite: --emulator=%s: %s\n", emulator, strerror(errno));
		_exit(127);
	}
	execvp(cmd[0], cmd);
	fprintf(stderr, "patchsite: %s: %s\n", cmd[0], strerror(errno));
	_exit(127);
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
		{ "duration", required_argument, NULL, 'T' },
		{ "probe", required_argument, NULL, 'P' },
		{ "libcall", optional_argument, NULL, 'L' },
		{ "no-libcall", no_argument, NULL, 'n' },
		{ "nest-libcall", no_argument, NULL, 'E' },
		{ "emulator", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct attach_record at = { .fresh_dir = fresh_dir, .follow = follow_attached };
	char *end;
	struct pipe_opts live = { 0 };
	const char *dir = DEFAULT_DIR, *tracer = "function_graph", *depth = NULL, *kb = NULL;
	char *filter = NULL, *notrace = NULL, *graph = NULL, *probes = NULL, *argspecs = NULL;
	char *retvals = NULL, lib[PATH_MAX], preload[2 * PATH_MAX];
	const char *old;
	const char *libcall = NULL, *emulator = NULL;
	bool overwrite = false, nest = false, no_sched = false, auto_all = false;
	int c, st;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+d:F:N:G:D:p:A:R:ah", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; at.dir_given = true; break;
		case 'p': if (parse_int(optarg, "-p", &at.pid)) return 2; break;
		case 'T':
			at.duration = strtod(optarg, &end);
			if (*end || end == optarg || !(at.duration > 0))
				return bad_usage("record: --duration=%s: expected seconds", optarg);
			break;
		case 't': tracer = optarg; break;
		case 'F': filter = append_line(filter, optarg); break;	/* a condition has blanks */
		case 'N': notrace = append(notrace, optarg); break;
		case 'G': graph = append(graph, optarg); break;
		case 'A': argspecs = append_line(argspecs, optarg); break;
		case 'R':
			if (!strstr(optarg, "@retval") || strchr(optarg, ',') ||
			    strcmp(strstr(optarg, "@retval"), "@retval"))
				return bad_usage("record: -R %s: expected FUNC@retval (a format after "
						 "retval is not read yet)", optarg);
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
		if (probes || argspecs || retvals || auto_all)
			return bad_usage("record: --probe, -A, -R with -p: write the definition to the "
					 "process's dynamic_events (patchsite ctl PID dynamic_events)%s", "");
		if (optind < argc || overwrite || libcall || nest || no_sched || emulator)
			return bad_usage("record: -p attaches to a running process: no command, "
					 "--overwrite, --libcall, --no-sched or --emulator with it%s", "");
		at.live = live.dir != NULL;
		at.dir = dir, at.tracer = tracer, at.filter = filter, at.notrace = notrace;
		at.graph = graph, at.depth = depth, at.kb = kb;
		c = attach_record(&at);
		free(filter), free(notrace), free(graph);
		return c;
	}
	if (at.duration > 0)
		return bad_usage("record: --duration is for -p PID%s", "");
	if (!libcall)
		libcall = default_libcall();
	if (live.dir && overwrite)
		return bad_usage("record: --live follows a growing record; --overwrite reuses its "
				 "chunks%s", "");
	if (auto_all) {
		/* -a: every function's arguments (probes) and return value (-R), from DWARF. */
		char exe[PATH_MAX];

		const char *path = find_exe(argv[optind], exe, sizeof(exe));
		int own = auto_args(path, &probes, &retvals);

		if (own < 0)
			return 2;
		if (own && !strcmp(libcall, "off"))
			return bad_usage("record: -a --no-libcall: %s's functions have no sites "
					 "(build with -pg -mfentry or the like)", path);
		if (own)	/* said, as the program's functions are not traced at all */
			fprintf(stderr, "patchsite: record -a: %s: its functions have no sites "
				"(built without -pg): library calls only\n", path);
		/* Library calls: from the prototype list of common libc functions. */
		if (strcmp(libcall, "off") && libcall_args_auto(path, strstr(libcall, "got") != NULL,
								&probes, &retvals))
			return 2;
	}
	if (retvals) {
		char exe[PATH_MAX], *keep = NULL;

		if (retvals_as_probes(retvals, find_exe(argv[optind], exe, sizeof(exe)),
				      strcmp(tracer, "function_graph") != 0, &probes, &keep))
			return 2;
		free(retvals);
		retvals = keep;
	}
	if (argspecs && add_argspecs(argspecs, argv[optind], &probes))
		return 2;
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
	if (find_runtime(lib, sizeof(lib))) {
		fprintf(stderr, "patchsite: cannot find libpatchsite.so next to this program or in "
			"../lib (set PATCHSITE_LIB)\n");
		return 2;
	}
	if (fresh_dir(dir))
		return 2;
	old = getenv("LD_PRELOAD");
	/* After what is there: a sanitizer's runtime must stay first. */
	snprintf(preload, sizeof(preload), "%s%s%s", old ? old : "", old && *old ? " " : "", lib);
	unsetenv("PATCHSITE_OUTPUT");
	unsetenv("PATCHSITE_FORMAT");
	set_env("LD_PRELOAD", preload);
	set_env("PATCHSITE_TRACER", tracer);
	set_env("PATCHSITE_DATA", dir);
	set_env("PATCHSITE_FILTER", filter);
	set_env("PATCHSITE_NOTRACE", notrace);
	set_env("PATCHSITE_GRAPH_FUNCTION", graph);
	set_env("PATCHSITE_PROBES", probes);
	set_env("PATCHSITE_ARGS", retvals);	/* -R FUNC@retval: set_ftrace_args */
	set_env("PATCHSITE_MAX_DEPTH", depth);
	set_env("PATCHSITE_BUFFER_KB", kb);
	set_env("PATCHSITE_OVERWRITE", overwrite ? "1" : NULL);
	set_env("PATCHSITE_LIBCALL", libcall);
	set_env("PATCHSITE_SCHED", no_sched ? "0" : NULL);	/* else the environment's (default 1) */
	env_names_say(dir);
	if (make_session(dir))
		return 2;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("patchsite: fork");
		return 2;
	}
	if (!pid)
		exec_cmd(emulator, argv + optind);
	/* Like time(1): ^C and ^\ are for the program; we stay to say how it ended. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (live.dir) {
		/* A reader that goes away (| head) ends the streaming, not us: CMD runs on. */
		signal(SIGPIPE, SIG_IGN);
		live.dir = dir;
		live.child = pid;
		pipe_follow(stdout, &live);
	}
	if (live.child_done)
		st = live.child_status;
	else while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			perror("patchsite: waitpid");
			return 2;
		}
	write_status(dir, argv[optind], pid, st);
	record_say_lost(dir, argv[optind]);
	free(filter);
	free(probes);
	free(retvals);
	free(notrace);
	free(graph);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "patchsite: %s: killed by signal %d (%s); recorded up to then in %s\n",
			argv[optind], WTERMSIG(st), strsignal(WTERMSIG(st)), dir);
		return 128 + WTERMSIG(st);
	}
	if (!WEXITSTATUS(st) && refused(dir, pid))
		return 2;	/* it ran untraced: not a recording (the runtime said why) */
	return WEXITSTATUS(st);
}
