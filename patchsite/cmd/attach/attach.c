// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attaching to a running process started without the runtime, and
 * `patchsite record -p PID`.  The work is in these files, lowest first
 * (each includes only the ones above it):
 *
 *   attach_target.c  what is read of the target (maps, its ELF files)
 *   attach_loader.c  has the target's dynamic loader finished (glibc's _r_debug)?
 *   attach_boost.c   the attach's threads ahead of the program's (nice -20)
 *   attach_ptrace.c  one borrowed thread: raw system calls, calls, restore
 *   attach_refuse.c  the refusals, by name, before a thread is touched
 *   attach_nops.c    gcc's one-byte NOP sites made one instruction, every thread stopped
 *   attach_safe.c    is a stopped thread at a safe point (blocked, not in a handler)?
 *   attach_inject.c  the borrowed call, the loader thread, dlopen (the design)
 *
 * Here: find the runtime to load, wait for its control channel, and the
 * verb record -p, which sets the tracer up through that channel, records
 * until a signal or the duration, and leaves the program untraced.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "attach.h"
#include "attach_boost.h"
#include "attach_inject.h"
#include "attach_nops.h"
#include "attach_refuse.h"
#include "../ctlclient.h"
#include "../runtime_path.h"

#define CHANNEL_WAIT_MS	5000	/* the control socket, made by the runtime's thread */

/* Does pid's channel answer? */
static bool answers(int pid)
{
	char *reply;
	int err = psctl_request(pid, PSCTL_READ, "current_tracer", NULL, &reply);

	free(reply);
	return !err;
}

static bool keep_boost;	/* record -p: the boost ends once the tracer is on (tracer_on) */
static const char *noflag;	/* record -p --noflag-proof: FILE[:FILE...] */

/*
 * The proof files for the runtime about to be loaded into pid: it cannot
 * read our environment, so the list (each path made absolute: its working
 * directory is not ours) goes to /tmp/patchsite-UID/PID.noflag, the
 * control sockets' fallback directory, made ours alone (0700) as the
 * runtime makes it and checks it (sites/noflag.c reads the file and
 * removes it).  0, or -1 with why.
 */
static int noflag_give(int pid, char *path, size_t plen, char *why, size_t len)
{
	char dir[64], tmp[200], abs[PATH_MAX], *list = strdup(noflag), *save = NULL;
	struct stat sb;
	FILE *f;

	snprintf(dir, sizeof(dir), "/tmp/patchsite-%d", (int)geteuid());
	snprintf(path, plen, "%s/%d.noflag", dir, pid);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	if (!list)
		return attach_fail(why, len, "--noflag-proof: out of memory");
	if ((mkdir(dir, 0700) && errno != EEXIST) || lstat(dir, &sb) || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 077) || !(f = fopen(tmp, "we"))) {
		free(list);
		return attach_fail(why, len, "--noflag-proof: %s: not a directory of ours alone "
				   "(0700) to give the runtime the proof files", dir);
	}
	for (char *p = strtok_r(list, ":", &save), *sep = ""; p; p = strtok_r(NULL, ":", &save)) {
		fprintf(f, "%s%s", sep, realpath(p, abs) ? abs : p);
		sep = ":";
	}
	free(list);
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return attach_fail(why, len, "--noflag-proof: %s: %s", path, strerror(errno));
	}
	return 0;
}

/* After the load: the runtime removed the file when it read it; else it did not (said). */
static int noflag_taken(int pid, const char *path, char *why, size_t len)
{
	if (access(path, F_OK))
		return 0;
	unlink(path);
	return attach_fail(why, len, "--noflag-proof: pid %d: the runtime loaded but did not read "
			   "%s (another /tmp in its mount namespace?): no-flag sites not armed", pid,
			   path);
}

/*
 * A channel that is still to come (attach_channel_coming: ctl right after
 * the program started; a forked child's comes 20 ms late), waited for
 * while that holds, CHANNEL_WAIT_MS at most: 0 it answers, 1 none is
 * coming (attach may load the runtime), -1 with why.
 */
static int await_channel(int pid, char *why, size_t len)
{
	long long end = attach_now_ms() + CHANNEL_WAIT_MS;
	bool coming = attach_channel_coming(pid);

	if (!coming)
		return 1;
	for (; coming && attach_now_ms() < end; coming = attach_channel_coming(pid)) {
		if (answers(pid))
			return 0;
		attach_sleep_ms(10);
	}
	if (!coming)
		return 1;	/* gone, or exec'd without the runtime: said by what follows */
	return attach_fail(why, len, "pid %d has the runtime, but its control channel did not "
			   "open in %d ms (still starting?)", pid, CHANNEL_WAIT_MS);
}

static int load_runtime(int pid, const char *who, char *why, size_t len)
{
	struct target t = { .pid = pid, .mem = -1, .noflag = noflag != NULL };
	char lib[PATH_MAX], given[128] = "";
	long long t0 = attach_now_ms();
	int err;

	err = answers(pid) ? 0 : await_channel(pid, why, len);
	if (err < 0)
		return err;
	if (!err)
		return noflag ? attach_fail(why, len, "--noflag-proof: pid %d has the runtime already "
					    "(loaded at its start or by an earlier attach): proof files "
					    "are read when the runtime loads, not armed now", pid) : 0;
#if !defined(__x86_64__)
	/*
	 * Refused before the target is read: its checks assume a thread that
	 * ptrace can borrow, and under qemu-user (where aarch64 is tested) the
	 * target's maps and exe are qemu's, which would be refused for a wrong
	 * reason (a static program).
	 */
	(void)t, (void)lib, (void)t0, (void)err;
	return attach_fail(why, len, "attach: not supported on %s yet: pid %d has no runtime "
			   "answering (start the program with patchsite record, or with "
			   "LD_PRELOAD=libpatchsite.so, and ctl, pipe and record -p talk to it)",
#if defined(__aarch64__)
			   "aarch64",
#else
			   "this architecture",
#endif
			   pid);
#endif
	err = attach_check_target(&t, why, len);
	if (err) {
		if (err == 1)
			attach_fail(why, len, "pid %d has the runtime already but its control "
				    "channel does not answer (PATCHSITE_CTL=0 in its "
				    "environment?)", pid);
		target_free(&t);
		return -1;
	}
	if (runtime_path(lib, sizeof(lib), true)) {	/* absolute: the target's cwd is not ours */
		target_free(&t);
		return attach_fail(why, len, "cannot find libpatchsite.so next to this program or "
				   "in ../lib (set PATCHSITE_LIB)");
	}
	if (attach_lib_loadable(&t, lib, why, len)) {
		target_free(&t);
		return -1;
	}
	fprintf(stderr, "patchsite: %s: pid %d has no runtime: attaching (loading %s; it stays "
		"loaded, untraced, after we leave)\n", who, pid, lib);
	/* without proofs: a file an attach that died left for this pid is not read */
	snprintf(given, sizeof(given), "/tmp/patchsite-%d/%d.noflag", (int)geteuid(), pid);
	if (!noflag)
		unlink(given);
	err = noflag ? noflag_give(pid, given, sizeof(given), why, len) : 0;
	if (!err)
		err = attach_nop_bytes(&t, why, len);
	if (!err)
		err = attach_inject(&t, lib, why, len);
	target_free(&t);
	if (err) {
		if (noflag)
			unlink(given);
		return -1;
	}
	if (noflag && noflag_taken(pid, given, why, len))
		return -1;
	for (long long end = attach_now_ms() + CHANNEL_WAIT_MS; !answers(pid); attach_sleep_ms(2))
		if (attach_now_ms() > end)
			return attach_fail(why, len, "pid %d: the runtime loaded, but its control "
					   "channel did not answer in %d ms (PATCHSITE_CTL=0 in "
					   "its environment? a setting "
					   "refused?)", pid, CHANNEL_WAIT_MS);
	if (getenv("PATCHSITE_ATTACH_TIME"))
		fprintf(stderr, "patchsite: %s: pid %d: attached in %lld ms (checks and a safe "
			"point %lld ms; a thread %s, stopped %lld us; dlopen and the runtime's "
			"start-up %lld ms, %lld ms of CPU; its channel %lld ms; %u threads "
			"stopped, the longest %lld us; %s)\n", who, pid,
			attach_now_ms() - t0, attach_timing.found_ms - t0, attach_timing.where,
			attach_timing.borrowed_us, attach_timing.loaded_ms - attach_timing.found_ms,
			attach_timing.loader_cpu_us / 1000, attach_now_ms() - attach_timing.loaded_ms,
			attach_timing.nstopped, attach_timing.max_stop_us, attach_boost_said());
	return 0;
}

int attach_runtime(int pid, const char *who, char *why, size_t len)
{
	int err;

	attach_await_exec(pid);
	attach_boost_self();
	err = load_runtime(pid, who, why, len);
	if (!keep_boost || err)
		attach_boost_end(pid);
	return err;
}

/* ---- record -p ---- */

static int ctl_set(int pid, const char *file, const char *value)
{
	char *reply;
	int err = psctl_request(pid, value ? PSCTL_WRITE : PSCTL_READ, file, value, &reply);

	if (err)
		fprintf(stderr, "patchsite: record: pid %d: %s %s: %s\n", pid, file, value ? value : "",
			reply ? reply : strerror(-err));
	/* a write's reply: what its work refused ("warning: ..." lines, as ctl says them) */
	for (char *l = !err && value ? reply : NULL, *nl; l && *l; l = nl ? nl + 1 : l + strlen(l)) {
		nl = strchr(l, '\n');
		fprintf(stderr, "patchsite: record: pid %d: %.*s\n", pid,
			(int)(nl ? nl - l : (long)strlen(l)), l);
	}
	free(reply);
	return err;
}

static int ctl_get(int pid, const char *file, char *out, size_t len)
{
	char *reply;
	int err = psctl_request(pid, PSCTL_READ, file, NULL, &reply);

	snprintf(out, len, "%s", !err && reply ? reply : "");
	out[strcspn(out, "\n")] = '\0';
	free(reply);
	return err;
}

/*
 * A filter file set to value, or cleared when value is NULL: a clear is
 * written only if the file is not clear already (its text is then
 * cleared_text), as the first glob written costs the runtime a walk of
 * every function (0.1 s for 100,000).
 */
static int ctl_filter(int pid, const char *file, const char *value, const char *cleared_text)
{
	char cur[256];

	if (value)
		return ctl_set(pid, file, value);
	if (ctl_get(pid, file, cur, sizeof(cur)))
		return -1;
	return strcmp(cur, cleared_text) ? ctl_set(pid, file, "") : 0;
}

/*
 * Whether the runtime can change the code at all: a W^X policy refuses it,
 * and the runtime then says why to every write that needs it.  Asked with
 * tracing_on written as it is, before the trace directory is made.
 */
static int can_trace(int pid)
{
	char cur[16];

	return ctl_get(pid, "tracing_on", cur, sizeof(cur)) ? -1 : ctl_set(pid, "tracing_on", cur);
}

/* dir as an absolute path (the process has its own working directory). */
static int absolute(const char *dir, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (dir[0] == '/')
		return snprintf(out, len, "%s", dir) < (int)len ? 0 : -ENAMETOOLONG;
	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	return snprintf(out, len, "%s/%s", cwd, dir) < (int)len ? 0 : -ENAMETOOLONG;
}

/* What switching the tracer on needs (a pipe_opts ready callback for --live). */
struct tracer_start {
	const struct attach_record *o;
	const char *dir;
	long long t0;
	bool on;		/* it was switched on */
	int off;		/* 1: switched off (0: ok), -1: not yet */
};

/* The tracer last: it starts recording. */
static int tracer_on(void *arg)
{
	struct tracer_start *ts = arg;
	const struct attach_record *o = ts->o;
	char cur[PATH_MAX];

	if (ctl_set(o->pid, "current_tracer", o->tracer)) {
		attach_boost_end(o->pid);
		return 1;
	}
	attach_boost_end(o->pid);	/* recording: the attach's threads at their own nice again */
	if (getenv("PATCHSITE_ATTACH_TIME"))
		fprintf(stderr, "patchsite: record: pid %d: tracer on %lld ms after the start\n",
			o->pid, attach_now_ms() - ts->t0);
	fprintf(stderr, "patchsite: record: pid %d: recording (%s) into %s; %s\n", o->pid, o->tracer,
		ts->dir, o->duration > 0 ? "for the duration given" : "Ctrl-C or SIGTERM stops");
	/*
	 * A filter whose functions all have refused sites (one-byte NOPs in a
	 * runtime the program dlopened itself, sites/late.c) is silent.  Asked after "recording": the channel writes the
	 * objects' mod.N first (tracer_files.c), 10-20 ms.
	 */
	if (o->filter && !ctl_get(o->pid, "enabled_functions", cur, sizeof(cur)) && !*cur)
		fprintf(stderr, "patchsite: record: pid %d: warning: no function of -F %s is traced: "
			"their sites were refused (gcc's -fpatchable-function-entry one-byte NOPs are "
			"left as built by a runtime loaded late but not by attach: see patchsite(1), "
			"ATTACH)\n", o->pid,
			o->filter);
	ts->on = true;
	return 0;
}

/* current_tracer nop: 0, or 1 (said). */
static int tracer_off(void *arg)
{
	struct tracer_start *ts = arg;

	if (ts->off < 0)
		ts->off = ctl_set(ts->o->pid, "current_tracer", "nop") ? 1 : 0;
	return ts->off;
}

/* Until a signal in stop, the end (ms, or 0) or the process's end: the signal, 0 or -1 (gone). */
static int wait_stop(const struct attach_record *o, const sigset_t *stop, long long end)
{
	struct timespec ts = { 0 };
	int sig = 0;

	while (!sig) {
		long long left = end ? end - attach_now_ms() : 200;

		if (end && left <= 0)
			break;
		if (left > 200)
			left = 200;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = left % 1000 * 1000000L;
		sig = sigtimedwait(stop, NULL, &ts);
		if (sig < 0)
			sig = 0;
		if (kill(o->pid, 0) && errno == ESRCH)
			return -1;
	}
	return sig;
}

/*
 * --live: the session's events as they are recorded, from now on (what the
 * directory held before, a running session's, is not shown: pipe
 * --from-now); the tracer is switched on once following has begun.
 */
static int follow_live(const struct attach_record *o, struct tracer_start *ts,
		       const sigset_t *stop, long long end)
{
	struct attach_follow f = {
		.dir = ts->dir, .pid = o->pid, .on = tracer_on, .off = tracer_off, .arg = ts,
		.until_ms = end, .held = stop,
	};

	o->follow(&f);
	sigprocmask(SIG_BLOCK, stop, NULL);
	if (!ts->on)
		return 1;	/* refused (said), or nothing followed: never switched on */
	return kill(o->pid, 0) && errno == ESRCH ? -1 : 0;
}

static int record_attached(const struct attach_record *o)
{
	char why[1024], dir[PATH_MAX], cur[PATH_MAX];
	struct tracer_start ts = { .o = o, .dir = dir, .t0 = attach_now_ms(), .off = -1 };
	sigset_t stop;
	long long end;
	int sig;

	if (attach_runtime(o->pid, "record", why, sizeof(why))) {
		fprintf(stderr, "patchsite: record: %s\n", why);
		return 1;
	}
	if (can_trace(o->pid))
		return 1;
	if (absolute(o->dir, dir, sizeof(dir))) {
		fprintf(stderr, "patchsite: record: %s: path too long\n", o->dir);
		return 2;
	}
	if (ctl_get(o->pid, "trace_dir", cur, sizeof(cur)))
		return 1;
	if (*cur && (o->dir_given && strcmp(cur, dir))) {
		fprintf(stderr, "patchsite: record: pid %d records into %s since its first tracer "
			"(a process keeps one trace directory): use -d %s\n", o->pid, cur, cur);
		return 1;
	}
	if (*cur)
		snprintf(dir, sizeof(dir), "%s", cur);	/* a second attach goes on in it */
	else if (o->fresh_dir(dir) || ctl_set(o->pid, "trace_dir", dir))
		return 2;
	/* Every setting first, the tracer last: it starts recording. */
	if ((o->kb && ctl_set(o->pid, "buffer_size_kb", o->kb)) ||
	    ctl_set(o->pid, "max_graph_depth", o->depth ? o->depth : "0") ||
	    ctl_filter(o->pid, "set_ftrace_filter", o->filter, "#### all functions enabled ####") ||
	    ctl_filter(o->pid, "set_ftrace_notrace", o->notrace, "") ||
	    ctl_filter(o->pid, "set_graph_function", o->graph, "#### all functions enabled ####") ||
	    ctl_set(o->pid, "tracing_on", "1"))
		return 1;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, NULL);
	end = o->duration > 0 ? attach_now_ms() + (long long)(o->duration * 1000) : 0;
	if (o->live) {
		sig = follow_live(o, &ts, &stop, end);
		if (sig > 0)
			return sig;
	} else {
		if (tracer_on(&ts))
			return 1;
		sig = wait_stop(o, &stop, end);
	}
	if (sig < 0) {
		fprintf(stderr, "patchsite: record: pid %d ended; recorded up to then in %s\n",
			o->pid, dir);
		return 0;
	}
	if (tracer_off(&ts))
		return 1;
	fprintf(stderr, "patchsite: record: pid %d: stopped%s; it runs on untraced (every site a "
		"NOP; libpatchsite stays loaded in it); recorded in %s\n", o->pid,
		sig ? " by a signal" : "", dir);
	return 0;
}

int attach_record(const struct attach_record *o)
{
	int err;

	keep_boost = true;
	noflag = o->noflag;
	err = record_attached(o);
	attach_boost_end(o->pid);	/* a path that never switched the tracer on */
	return err;
}
