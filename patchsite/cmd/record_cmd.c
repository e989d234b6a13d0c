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
#include "pipe.h"

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
			"-pg (x86-64, aarch64), -pg -mfentry -mrecord-mcount or -fpatchable-function-entry=5)\n", cmd);
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

int cmd_record(int argc, char **argv)
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
	    strcmp(tracer, "latency") && strcmp(tracer, "nop"))
		return bad_usage("record: --tracer=%s: expected function, function_graph, latency "
				 "or nop", tracer);
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
	env_names_say(dir);
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
