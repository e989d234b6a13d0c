// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite: record a program with libpatchsite into a trace directory,
 * then replay, report and convert what it recorded (patchsite(1)).
 */
#include <dirent.h>
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

#include "ctlclient.h"
#include "pipe.h"
#include "attach.h"
#include "branches.h"
#include "render.h"

#define DEFAULT_DIR "patchsite.data"

static const char usage[] =
	"usage: patchsite record [-d DIR] [--tracer=function|function_graph|latency] [-F GLOB]...\n"
	"                        [-N GLOB]... [-G GLOB]... [-D DEPTH] [--buffer-kb=N]\n"
	"                        [--overwrite] [--live] [--] CMD [ARGS...]\n"
	"       patchsite record -p PID [-d DIR] [--tracer=...] [-F GLOB]... [--duration=S]\n"
	"       patchsite pipe   [-d DIR | PID] [--pid=P] [--from-start] [--reader=NAME]\n"
	"                        [--options=LIST]\n"
	"       patchsite replay [-d DIR] [--pid=P] [--tid=T] [--latency] [--snapshot[=N]]\n"
	"                        [--options=LIST]\n"
	"       patchsite report [-d DIR] [--sort=total|self|calls|avg|max] [--pid=P] [--json]\n"
	"       patchsite report [-d DIR] --branches [--pid=P] [--json]\n"
	"       patchsite dump   [-d DIR] --chrome|--folded [--pid=P] [--tid=T]\n"
	"       patchsite info   [-d DIR] [--pid=P]\n"
	"       patchsite ctl    [--append] PID FILE [VALUE...] | --list PID\n"
	"\n"
	"record   runs CMD with libpatchsite preloaded; it records into DIR (default\n"
	"         ./" DEFAULT_DIR ") as it runs, one directory per process; the exit status\n"
	"         is CMD's.  -F/-N: functions to trace / not to trace (ftrace globs,\n"
	"         glob:mod:OBJECT); -G: function_graph only below these; -D: graph depth;\n"
	"         --overwrite: keep the newest --buffer-kb KB per thread (flight recorder).\n"
	"         --live: print the events as they are recorded too, as pipe does.\n"
	"         -p PID: attach to a running process (loading the runtime if it has\n"
	"         none) until Ctrl-C, SIGTERM or --duration=S; it then runs on untraced.\n"
	"pipe     ftrace's trace_pipe: print the events of DIR's processes (or of the\n"
	"         running process PID, where it records) as they are\n"
	"         recorded, until they end; the next pipe goes on where this one stopped\n"
	"         (--from-start: from the beginning; --reader=NAME: a position of its own).\n"
	"replay   the ftrace text of the function or function_graph tracer; --latency:\n"
	"         the longest call the latency tracer kept\n"
	"report   per function: total, self, calls, average, min, max time;\n"
	"         --branches: patchsite_likely/unlikely counts, worst predicted first\n"
	"dump     Chrome trace-event JSON (Perfetto) or folded stacks (flamegraph.pl)\n"
	"info     the session: processes, threads, objects, events and losses\n"
	"ctl      read or write a control file of a running process (ftrace's tracefs\n"
	"         files: current_tracer, set_ftrace_filter, tracing_on...; --list)\n"
	"replay, report, dump and info read snapshot N (default: the latest) with\n"
	"--snapshot[=N]: a copy taken while the program ran (the snapshot control file).\n"
	"--options: trace_options for the text, over the ones recorded: print-parent,\n"
	"sym-offset, funcgraph-proc, funcgraph-abstime (noNAME clears), comma-separated.\n"
	"See patchsite(1) and patchsite-data(5).\n";

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "patchsite: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(patchsite --help for usage)\n");
	return 2;
}

/* "a b" + c: the tokens of repeated -F options, one space apart. */
static char *append(char *list, const char *tok)
{
	size_t a = list ? strlen(list) : 0, b = strlen(tok);
	char *s = realloc(list, a + b + 2);

	if (!s) {
		perror("patchsite");
		exit(2);
	}
	if (a)
		s[a++] = ' ';
	memcpy(s + a, tok, b + 1);
	return s;
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
 * CMD's end, in the directory of its last image (what info and replay say);
 * a run that recorded nothing is said, with the likely reason.
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
	if (!procs)
		fprintf(stderr, "patchsite: %s: nothing recorded: the runtime did not start in it "
			"(a static executable? a setting refused above?)\n", cmd);
	else if (!with_sites)
		fprintf(stderr, "patchsite: %s: nothing recorded: no traceable functions (build with "
			"-pg -mfentry -mrecord-mcount or -fpatchable-function-entry=5)\n", cmd);
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

static int parse_int(const char *s, const char *what, int *out);

static int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "tracer", required_argument, NULL, 't' },
		{ "buffer-kb", required_argument, NULL, 'b' },
		{ "overwrite", no_argument, NULL, 'o' },
		{ "live", no_argument, NULL, 'l' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct attach_record at = { .fresh_dir = fresh_dir };
	char *end;
	struct pipe_opts live = { 0 };
	const char *dir = DEFAULT_DIR, *tracer = "function_graph", *depth = NULL, *kb = NULL;
	char *filter = NULL, *notrace = NULL, *graph = NULL, lib[PATH_MAX], preload[2 * PATH_MAX];
	const char *old;
	bool overwrite = false;
	int c, st;
	pid_t pid;

	while ((c = getopt_long(argc, argv, "+d:F:N:G:D:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; at.dir_given = true; break;
		case 'p': if (parse_int(optarg, "-p", &at.pid)) return 2; break;
		case 'T':
			at.duration = strtod(optarg, &end);
			if (*end || end == optarg || !(at.duration > 0))
				return bad_usage("record: --duration=%s: expected seconds", optarg);
			break;
		case 't': tracer = optarg; break;
		case 'F': filter = append(filter, optarg); break;
		case 'N': notrace = append(notrace, optarg); break;
		case 'G': graph = append(graph, optarg); break;
		case 'D': depth = optarg; break;
		case 'b': kb = optarg; break;
		case 'o': overwrite = true; break;
		case 'l': live.dir = dir; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return bad_usage("record: bad option", "");
		}
	}
	if (optind >= argc && !at.pid)
		return bad_usage("record: no command to run%s", "");
	if (strcmp(tracer, "function") && strcmp(tracer, "function_graph") &&
	    strcmp(tracer, "latency"))
		return bad_usage("record: --tracer=%s: expected function, function_graph or latency",
				 tracer);
	if (at.pid) {
		/* attach.c: into a running process, through its control channel. */
		if (optind < argc || overwrite || live.dir)
			return bad_usage("record: -p attaches to a running process: no command, "
					 "--overwrite or --live with it%s", "");
		at.dir = dir, at.tracer = tracer, at.filter = filter, at.notrace = notrace;
		at.graph = graph, at.depth = depth, at.kb = kb;
		c = attach_record(&at);
		free(filter), free(notrace), free(graph);
		return c;
	}
	if (at.duration > 0)
		return bad_usage("record: --duration is for -p PID%s", "");
	if (live.dir && overwrite)
		return bad_usage("record: --live follows a growing record; --overwrite reuses its "
				 "chunks%s", "");
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
	set_env("PATCHSITE_MAX_DEPTH", depth);
	set_env("PATCHSITE_BUFFER_KB", kb);
	set_env("PATCHSITE_OVERWRITE", overwrite ? "1" : NULL);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("patchsite: fork");
		return 2;
	}
	if (!pid) {
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "patchsite: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
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
	free(filter);
	free(notrace);
	free(graph);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "patchsite: %s: killed by signal %d (%s); recorded up to then in %s\n",
			argv[optind], WTERMSIG(st), strsignal(WTERMSIG(st)), dir);
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

static int parse_int(const char *s, const char *what, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v <= 0 || v > INT_MAX) {
		bad_usage("%s: expected a positive number", what);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* --options LIST: -1 when a word is not an option (said). */
static int parse_options(const char *list, unsigned *set, unsigned *clear)
{
	const char *bad;

	if (!psr_options_parse(list, set, clear, &bad))
		return 0;
	bad_usage("--options: '%s': expected print-parent, sym-offset, funcgraph-proc or "
		  "funcgraph-abstime, each with no before it to clear it", bad);
	return -1;
}

/*
 * `pipe PID`: the trace directory a running process records into, asked
 * over its control channel (trace_dir), made absolute through the
 * process's working directory when it is relative.
 */
static int pipe_dir_of(int pid, char *dir, size_t len)
{
	char *reply = NULL;
	int err = psctl_request(pid, PSCTL_READ, "trace_dir", NULL, &reply);
	char why[1024];
	size_t n;

	/* No channel (or an exec'd image's stale one): attach (attach.c). */
	if ((err == -ENOENT || err == -ECONNREFUSED) &&
	    !attach_runtime(pid, "pipe", why, sizeof(why))) {
		free(reply);
		err = psctl_request(pid, PSCTL_READ, "trace_dir", NULL, &reply);
	} else if (err == -ENOENT || err == -ECONNREFUSED) {
		fprintf(stderr, "patchsite: pipe: %s\n", why);
	}
	if (err) {
		fprintf(stderr, "patchsite: pipe: %s\n", reply ? reply : strerror(-err));
		free(reply);
		return -1;
	}
	n = strcspn(reply, "\n");
	reply[n] = '\0';
	if (!n) {
		fprintf(stderr, "patchsite: pipe: process %d records nothing (no tracer set: "
			"patchsite ctl %d current_tracer function)\n", pid, pid);
		free(reply);
		return -1;
	}
	if (reply[0] == '/')
		snprintf(dir, len, "%s", reply);
	else
		snprintf(dir, len, "/proc/%d/cwd/%s", pid, reply);
	free(reply);
	return 0;
}

static int cmd_pipe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "from-start", no_argument, NULL, 's' },
		{ "reader", required_argument, NULL, 'r' },
		{ "options", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct pipe_opts o = { .dir = DEFAULT_DIR, .consume = true };
	char dir[PATH_MAX + 64];
	bool dir_given = false;
	int c;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o.dir = optarg; dir_given = true; break;
		case 'p': if (parse_int(optarg, "--pid", &o.pid)) return 2; break;
		case 's': o.from_start = true; break;
		case 'r':
			if (!*optarg || strlen(optarg) > 64 || strspn(optarg, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(optarg))
				return bad_usage("pipe: --reader=%s: a name of up to 64 letters, digits, "
						 "_ and -", optarg);
			o.reader = optarg;
			break;
		case 'O': if (parse_options(optarg, &o.opt_set, &o.opt_clear)) return 2; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return bad_usage("pipe: bad option%s", "");
		}
	}
	if (optind + 1 == argc && !dir_given && strspn(argv[optind], "0123456789") ==
	    strlen(argv[optind]) && o.pid <= 0) {
		if (parse_int(argv[optind], "pid", &o.pid))
			return 2;
		if (pipe_dir_of(o.pid, dir, sizeof(dir)))
			return 1;
		o.dir = dir;
		optind++;
	}
	if (optind < argc)
		return bad_usage("pipe: unexpected argument '%s' (-d DIR or a pid)", argv[optind]);
	return pipe_follow(stdout, &o);
}

enum verb { REPLAY, REPORT, DUMP, INFO };

/* DIR/snapshot.N; N 0: the latest (the highest number).  -1 when there is none. */
static int snapshot_dir(const char *dir, int n, char *buf, size_t len)
{
	DIR *d;
	struct dirent *e;

	if (!n && (d = opendir(dir))) {
		while ((e = readdir(d))) {
			char *end;
			long k = !strncmp(e->d_name, "snapshot.", 9) ? strtol(e->d_name + 9, &end, 10) : 0;

			if (k > n && k <= INT_MAX && !*end)
				n = (int)k;
		}
		closedir(d);
	}
	if (!n) {
		fprintf(stderr, "patchsite: %s: no snapshot taken (echo 1 > snapshot, or "
			"patchsite_snapshot())\n", dir);
		return -1;
	}
	snprintf(buf, len, "%s/snapshot.%d", dir, n);
	return 0;
}

static int cmd_read(enum verb verb, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "chrome", no_argument, NULL, 'c' },
		{ "folded", no_argument, NULL, 'f' },
		{ "latency", no_argument, NULL, 'l' },
		{ "snapshot", optional_argument, NULL, 'S' },
		{ "options", required_argument, NULL, 'O' },
		{ "branches", no_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static const char *const sorts[] = { "total", "self", "calls", "avg", "max", NULL };
	struct render_opts o = { 0 };
	struct psr_session *s;
	const char *dir = DEFAULT_DIR;
	char snap[PATH_MAX];
	int c, err, fmt = 0, snapshot = -1;
	bool sorted = false, branches = false;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'p': if (parse_int(optarg, "--pid", &o.pid)) return 2; break;
		case 't': if (parse_int(optarg, "--tid", &o.tid)) return 2; break;
		case 'j': o.json = true; break;
		case 'l': o.latency = true; break;
		case 'c': case 'f': fmt = c; break;
		case 'O':
			if (verb != REPLAY)
				return bad_usage("--options: only replay and pipe print ftrace's text%s", "");
			if (parse_options(optarg, &o.opt_set, &o.opt_clear))
				return 2;
			break;
		case 'S':
			snapshot = 0;
			if (optarg && parse_int(optarg, "--snapshot", &snapshot))
				return 2;
			break;
		case 'B': branches = true; break;
		case 's':
			sorted = true;
			for (o.sort = 0; sorts[o.sort] && strcmp(sorts[o.sort], optarg); o.sort++)
				;
			if (!sorts[o.sort])
				return bad_usage("--sort=%s: expected total, self, calls, avg or max",
						 optarg);
			break;
		case 'h': fputs(usage, stdout); return 0;
		default: return bad_usage("bad option%s", "");
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if ((o.json && verb != REPORT) || (sorted && verb != REPORT))
		return bad_usage("--json and --sort are report's options%s", "");
	if (o.latency && verb != REPLAY)
		return bad_usage("--latency is replay's option%s", "");
	if (branches && (verb != REPORT || sorted))
		return bad_usage("--branches is report's, without --sort (sorted as the kernel "
				 "does)%s", "");
	if (verb == DUMP && !fmt)
		return bad_usage("dump: --chrome or --folded?%s", "");
	if (snapshot >= 0) {
		if (snapshot_dir(dir, snapshot, snap, sizeof(snap)))
			return 1;
		dir = snap;
	}
	if (psr_open(dir, stderr, &s))
		return 1;
	switch (verb) {
	case REPLAY: err = render_replay(stdout, s, &o); break;
	case REPORT:
		err = branches ? render_branches(stdout, s, &o) : render_report(stdout, s, &o);
		break;
	case DUMP: err = fmt == 'c' ? render_chrome(stdout, s, &o) : render_folded(stdout, s, &o); break;
	default: err = render_info(stdout, s, &o); break;
	}
	/* Folded stacks and JSON have no room for comments: what is missing goes to stderr. */
	if ((verb == DUMP || o.json) && !branches)
		for (size_t i = 0; i < s->nprocs; i++)
			if (render_proc_wanted(&s->procs[i], &o))
				render_losses(stderr, &s->procs[i], "patchsite: ");
	if (o.pid) {
		bool any = false;

		for (size_t i = 0; i < s->nprocs; i++)
			any |= s->procs[i].pid == o.pid;
		if (!any) {
			fprintf(stderr, "patchsite: %s: no process %d recorded\n", dir, o.pid);
			err = err ? err : -ESRCH;
		}
	}
	psr_close(s);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "patchsite: writing the output: %s\n", strerror(errno));
		return 1;
	}
	if (err == -ENOMEM)
		fprintf(stderr, "patchsite: out of memory\n");
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : "";

	if (!strcmp(verb, "--help") || !strcmp(verb, "-h") || !strcmp(verb, "help")) {
		fputs(usage, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (!strcmp(verb, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(verb, "pipe"))
		return cmd_pipe(argc - 1, argv + 1);
	if (!strcmp(verb, "replay"))
		return cmd_read(REPLAY, argc - 1, argv + 1);
	if (!strcmp(verb, "report"))
		return cmd_read(REPORT, argc - 1, argv + 1);
	if (!strcmp(verb, "dump"))
		return cmd_read(DUMP, argc - 1, argv + 1);
	if (!strcmp(verb, "info"))
		return cmd_read(INFO, argc - 1, argv + 1);
	if (!strcmp(verb, "ctl"))
		return cmd_ctl(argc - 1, argv + 1);
	fprintf(stderr, "patchsite: %s%s\n", *verb ? "unknown command " : "no command given",
		verb);
	fputs(usage, stderr);
	return 2;
}
