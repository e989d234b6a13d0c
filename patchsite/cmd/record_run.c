// SPDX-License-Identifier: GPL-2.0-only
/*
 * record's run of CMD (record_run.h): the runtime found and preloaded
 * after whatever LD_PRELOAD holds, the settings put in CMD's environment,
 * the trace directory made fresh, CMD started (under --emulator too) and
 * waited for, then its end written in the directory and said.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "record_run.h"
#include "runtime_path.h"
#include "../data/env.h"

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
int record_fresh_dir(const char *dir)
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
	else if (!procs && WIFEXITED(st) && WEXITSTATUS(st) == 127)
		;	/* CMD could not be run: exec_cmd said why */
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

/* The runtime preloaded, record's settings in the environment CMD inherits. */
static int settings_to_env(const struct record_run *r)
{
	char lib[PATH_MAX], preload[2 * PATH_MAX];
	const char *old = getenv("LD_PRELOAD");

	if (runtime_path(lib, sizeof(lib), false)) {
		fprintf(stderr, "patchsite: cannot find libpatchsite.so next to this program or in "
			"../lib (set PATCHSITE_LIB)\n");
		return -1;
	}
	if (record_fresh_dir(r->dir))
		return -1;
	/* After what is there: a sanitizer's runtime must stay first. */
	snprintf(preload, sizeof(preload), "%s%s%s", old ? old : "", old && *old ? " " : "", lib);
	unsetenv("PATCHSITE_OUTPUT");
	unsetenv("PATCHSITE_FORMAT");
	set_env("LD_PRELOAD", preload);
	set_env("PATCHSITE_TRACER", r->tracer);
	set_env("PATCHSITE_DATA", r->dir);
	set_env("PATCHSITE_FILTER", r->filter);
	set_env("PATCHSITE_NOTRACE", r->notrace);
	set_env("PATCHSITE_GRAPH_FUNCTION", r->graph);
	set_env("PATCHSITE_PROBES", r->probes);
	set_env("PATCHSITE_ARGS", r->retvals);	/* -R FUNC@retval: set_ftrace_args */
	set_env("PATCHSITE_MAX_DEPTH", r->depth);
	set_env("PATCHSITE_BUFFER_KB", r->kb);
	set_env("PATCHSITE_OVERWRITE", r->overwrite ? "1" : NULL);
	set_env("PATCHSITE_LIBCALL", r->libcall);
	set_env("PATCHSITE_NOFLAG", r->noflag);
	set_env("PATCHSITE_SCHED", r->no_sched ? "0" : NULL);	/* else the environment's (default 1) */
	env_names_say(r->dir);
	return make_session(r->dir);
}

/* CMD's wait status, following the session meanwhile under --live; -1 said. */
static int wait_cmd(const struct record_run *r, pid_t pid, int *st)
{
	struct pipe_opts *live = r->live;

	/* Like time(1): ^C and ^\ are for the program; we stay to say how it ended. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (live && live->dir) {
		/* A reader that goes away (| head) ends the streaming, not us: CMD runs on. */
		signal(SIGPIPE, SIG_IGN);
		live->dir = r->dir;
		live->child = pid;
		pipe_follow(stdout, live);
		if (live->child_done) {
			*st = live->child_status;
			return 0;
		}
	}
	while (waitpid(pid, st, 0) < 0)
		if (errno != EINTR) {
			perror("patchsite: waitpid");
			return -1;
		}
	return 0;
}

int record_run(const struct record_run *r)
{
	const char *cmd = r->cmd[0];
	pid_t pid;
	int st;

	if (settings_to_env(r))
		return 2;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("patchsite: fork");
		return 2;
	}
	if (!pid)
		exec_cmd(r->emulator, r->cmd);
	if (wait_cmd(r, pid, &st))
		return 2;
	write_status(r->dir, cmd, pid, st);
	record_say_lost(r->dir, cmd);
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "patchsite: %s: killed by signal %d (%s); recorded up to then in %s\n",
			cmd, WTERMSIG(st), strsignal(WTERMSIG(st)), r->dir);
		return 128 + WTERMSIG(st);
	}
	if (!WEXITSTATUS(st) && refused(r->dir, pid))
		return 2;	/* it ran untraced: not a recording (the runtime said why) */
	return WEXITSTATUS(st);
}
