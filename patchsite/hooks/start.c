// SPDX-License-Identifier: GPL-2.0-only
/*
 * Start-up from the environment, and the end of the process.
 *
 * The constructor (ps_start, below) finds every site and NOPs it while the
 * process still has one thread (as the kernel does at boot: patchsite_init),
 * then reads the environment.  If PATCHSITE_TRACER is set, the
 * built-in tracer is configured from the environment (PATCHSITE_*) and its
 * trace written at exit.  A bad setting prints one line on stderr and
 * leaves the program untraced; nothing here ever exits or aborts the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/channel.h"
#include "ctl/control.h"
#include "internal.h"
#include "sites/late.h"
#include "events/probe.h"
#include "events/event.h"
#include "data/env.h"
#include "record/sched_switch.h"

static int env_out_fd = -1;	/* PATCHSITE_OUTPUT, written at exit */
static bool env_said;		/* env_bad said why start-up stopped */

/*
 * The refusal in the trace directory too, when it exists (patchsite record
 * made it): record then exits non-zero instead of passing an untraced run
 * for a recorded one.  Appended whole: several processes may refuse.
 */
static void refused_note(const char *line, size_t n)
{
	const char *dir = getenv("PATCHSITE_DATA");
	char path[4200], text[800];
	int fd, k;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, PSD_REFUSED);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;		/* no directory: nobody to tell */
	k = snprintf(text, sizeof(text), "%d %.*s", (int)getpid(), (int)n, line);
	if (k > 0)
		(void)!write(fd, text, (size_t)k < sizeof(text) ? (size_t)k : sizeof(text) - 1);
	close(fd);
}

/* One line on stderr for a bad setting; the program then runs untraced. */
static void env_bad(const char *var, const char *why)
{
	char line[768];
	int n = snprintf(line, sizeof(line), "patchsite: error: %s: %s: not tracing\n", var, why);
	const char *out = getenv("PATCHSITE_OUTPUT");
	struct stat sb;
	int fd;

	env_said = true;
	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	if (n > 0)
		refused_note(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	/* A trace file of an earlier run must not pass for this one's: it says why there is none. */
	if (out && *out && !stat(out, &sb) && S_ISREG(sb.st_mode) &&
	    (fd = open(out, O_WRONLY | O_TRUNC | O_CLOEXEC)) >= 0) {
		if (n > 0)
			(void)!write(fd, "# ", 2), (void)!write(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
		close(fd);
	}
}

/*
 * The standard streams by name share the program's file and offset: a new
 * open of /dev/stdout redirected to a file would truncate it and write over
 * what the program writes.
 */
static int output_fd(const char *output)
{
	if (!output || !*output || !strcmp(output, "/dev/stderr"))
		return fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (!strcmp(output, "-") || !strcmp(output, "/dev/stdout"))
		return fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	return open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

/*
 * A PATCHSITE_* variable nobody reads, named once per trace directory and
 * only by a process that records into one: a program that traces nothing
 * keeps its stderr as it was (a test harness may fail on any output
 * there).  The first process to create the session's env-warnings file
 * says them; `patchsite record` creates it itself when it has said them.
 */
static void env_names_say(void)
{
	extern char **environ;
	char text[2048], path[4200];
	const char *procname, *dir;
	size_t n;
	int fd;

	if (!ps_store_on())
		return;
	n = psd_env_check(environ, text, sizeof(text));
	if (!n)
		return;
	dir = ps_store_dir(&procname);
	snprintf(path, sizeof(path), "%s/%s", dir, PSD_ENV_WARNINGS);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return;		/* said already, by `patchsite record` or another process */
	(void)!write(fd, text, n);
	close(fd);
	(void)!write(STDERR_FILENO, text, n);
}

/* PATCHSITE_OVERWRITE: 1 or 0 (unset: 0). */
static int env_overwrite(bool *on)
{
	const char *v = getenv("PATCHSITE_OVERWRITE");

	*on = v && !strcmp(v, "1");
	return !v || !*v || !strcmp(v, "0") || !strcmp(v, "1") ? 0 : -EINVAL;
}

/* PATCHSITE_SCHED: 1 or 0 (unset: 1): scheduler switches beside each thread file. */
static int env_sched(void)
{
	const char *v = getenv("PATCHSITE_SCHED");

	ps_sched_set(!v || strcmp(v, "0"));
	return !v || !*v || !strcmp(v, "0") || !strcmp(v, "1") ? 0 : -EINVAL;
}

/* No PATCHSITE_OUTPUT: record into the trace directory (PATCHSITE_DATA). */
static int env_store(const char *tracer, bool for_output)
{
	const char *dir = getenv("PATCHSITE_DATA"), *tmp = getenv("TMPDIR");
	char why[4400], made[4096];
	bool over;
	int err;

	if (env_overwrite(&over)) {
		env_bad("PATCHSITE_OVERWRITE", "expected 0 or 1");
		return -EINVAL;
	}
	if (env_sched()) {
		env_bad("PATCHSITE_SCHED", "expected 0 or 1");
		return -EINVAL;
	}
	if (ps_options_env(&over)) {
		env_bad("PATCHSITE_OPTIONS", ps_last_error);
		return -EINVAL;
	}
	if ((!dir || !*dir) && for_output) {
		/* Only for PATCHSITE_OUTPUT: a private session, removed once the trace is written. */
		snprintf(made, sizeof(made), "%s/patchsite-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		dir = mkdtemp(made);
		if (!dir) {
			snprintf(why, sizeof(why), "cannot make a directory to record into: %s",
				 strerror(errno));
			env_bad("PATCHSITE_OUTPUT", why);
			return -errno;
		}
		ps_store_set_private(true);
	}
	if (!dir || !*dir)
		dir = "patchsite.data";
	err = ps_store_open(dir, tracer, over, ps_ring_bytes, false);
	if (!err)
		ps_options_started(over);
	if (err && ps_store_private())
		rmdir(dir);
	if (err) {
		snprintf(why, sizeof(why), "cannot record into '%s': %s", dir, strerror(-err));
		env_bad("PATCHSITE_DATA", why);
	}
	return err;
}

/* A private trace directory not to be rendered after all. */
static void env_drop_data(void)
{
	if (ps_store_private() && ps_store_on())
		ps_store_remove();
	ps_store_set_private(false);
}

/* PATCHSITE_TRIGGER: filter commands (FUNC:traceoff:2 ...), separated by blanks or ';'. */
static int env_triggers(void)
{
	const char *v = getenv("PATCHSITE_TRIGGER");
	char tok[512];

	for (; v && *v;) {
		size_t n = strcspn(v, " \t\n;");

		if (n >= sizeof(tok)) {
			env_bad("PATCHSITE_TRIGGER", "a command longer than 511 characters");
			return -1;
		}
		memcpy(tok, v, n);
		tok[n] = '\0';
		if (n && patchsite_set_trigger(tok, 0)) {
			env_bad("PATCHSITE_TRIGGER", ps_last_error);
			return -1;
		}
		v += n + (v[n] != '\0');
	}
	return 0;
}

/* The settings that are also control files (ctl/record_files.c), written through them. */
static int env_controls(void)
{
	static const char *const vars[][2] = {
		{ "PATCHSITE_TRACING_ON", "tracing_on" },
		{ "PATCHSITE_PID", "set_ftrace_pid" },
		{ "PATCHSITE_THRESH", "tracing_thresh" },
		{ "PATCHSITE_ARGS", "set_ftrace_args" },
		{ "PATCHSITE_GRAPH_NOTRACE", "set_graph_notrace" },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i][0]);

		if (v && *v && patchsite_ctl_write(vars[i][1], v, 0)) {
			env_bad(vars[i][0], ps_last_error);
			return -1;
		}
	}
	return env_triggers();
}

/*
 * PATCHSITE_EVENTS: rules applied now and to objects loaded later.  With
 * no tracer the events are recorded alone, into the trace directory (also
 * with PATCHSITE_DATA alone, for a program with events that enables them).
 * True when the start-up is over (no tracer, or an error said).
 */
static bool env_events(const char *tracer)
{
	const char *ev = getenv("PATCHSITE_EVENTS");
	const char *probes = getenv("PATCHSITE_PROBES");
	bool alone = !tracer || !*tracer;

	if ((!ev || !*ev) && (!probes || !*probes) &&
	    !(alone && getenv("PATCHSITE_DATA") && ps_event_count()))
		return false;	/* PATCHSITE_DATA alone: recorded for events the program enables */
	if (patchsite_init()) {
		env_bad("PATCHSITE_EVENTS", ps_last_error);
		return true;
	}
	if (alone && !getenv("PATCHSITE_OUTPUT") && env_store("nop", false))
		return true;
	/* PATCHSITE_PROBES: dynamic_events' definitions, each recorded at once. */
	if (probes && *probes && ps_probes_write(probes, false, true)) {
		env_bad("PATCHSITE_PROBES", ps_last_error);
		return true;
	}
	pthread_mutex_lock(&ps.lock);
	ps_events_env();
	ps_events_store();
	pthread_mutex_unlock(&ps.lock);
	if (alone && !getenv("PATCHSITE_LOG"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);
	return alone;
}

/*
 * PATCHSITE_BRANCHES: 1 records the branch profiler's counts into the
 * trace directory even with no tracer set (PATCHSITE_DATA, else
 * ./patchsite.data); 0 never writes them; unset: written wherever a trace
 * directory is recorded.  Nonzero: env_start has nothing more to do.
 */
static int env_branches(const char *tracer)
{
	const char *v = getenv("PATCHSITE_BRANCHES");
	int err;

	if (!v || !*v)
		return 0;
	if (strcmp(v, "0") && strcmp(v, "1")) {
		env_bad("PATCHSITE_BRANCHES", "expected 0 or 1");
		return -EINVAL;
	}
	ps_branches_off = !strcmp(v, "0");
	if (ps_branches_off || (tracer && *tracer) || ps_store_on())
		return 0;	/* nothing to open: off, a tracer's directory, or the events' */
	err = patchsite_init();
	if (err && err != -ENOTSUP)
		env_bad("PATCHSITE_BRANCHES", ps_last_error);
	if (err)
		return err;
	if (!getenv("PATCHSITE_LOG"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);	/* counts lost, say so */
	return env_store("nop", false) ? -EINVAL : 1;
}

static void env_start(void)
{
	const char *tracer = getenv("PATCHSITE_TRACER");
	const char *filter = getenv("PATCHSITE_FILTER");
	const char *notrace = getenv("PATCHSITE_NOTRACE");
	const char *output = getenv("PATCHSITE_OUTPUT");
	const char *kb = getenv("PATCHSITE_BUFFER_KB");
	const char *format = getenv("PATCHSITE_FORMAT");
	const char *trigger = getenv("PATCHSITE_GRAPH_FUNCTION");
	const char *depth = getenv("PATCHSITE_MAX_DEPTH");
	int fd, err;
	bool done;

	done = env_events(tracer);
	if (env_branches(tracer) || done)
		return;
	if (!tracer || !*tracer)
		return;
	if (!ps_tracer_find(tracer)) {
		struct ps_buf names = { 0 };
		char why[128];

		ps_tracer_names(&names, ", ");
		snprintf(why, sizeof(why), "unknown tracer '%s' (%s)", tracer,
			 names.p ? names.p : "");
		ps_buf_free(&names);
		env_bad("PATCHSITE_TRACER", why);
		return;
	}
	if (format && *format) {
		if (!strcmp(format, "ftrace"))
			ps_format = PS_FORMAT_FTRACE;
		else if (!strcmp(format, "chrome"))
			ps_format = PS_FORMAT_CHROME;
		else if (!strcmp(format, "folded"))
			ps_format = PS_FORMAT_FOLDED;
		else {
			env_bad("PATCHSITE_FORMAT", "expected ftrace, chrome or folded");
			return;
		}
		if (ps_format == PS_FORMAT_FOLDED && strcmp(tracer, "function_graph")) {
			env_bad("PATCHSITE_FORMAT", "folded stacks need PATCHSITE_TRACER=function_graph");
			return;
		}
	}
	if (depth && *depth) {
		char *end;
		unsigned long v = strtoul(depth, &end, 10);

		if (*end || patchsite_set_graph_max_depth((unsigned)v) || v != (unsigned)v) {
			env_bad("PATCHSITE_MAX_DEPTH", "expected a depth from 1 to 1024");
			return;
		}
	}
	if (kb && *kb) {
		char *end;
		unsigned long v = strtoul(kb, &end, 10);

		if (*end || patchsite_set_buffer_kb(v)) {
			env_bad("PATCHSITE_BUFFER_KB", "expected a size in KB from 4 to 4194304");
			return;
		}
	}
	err = patchsite_init();
	if (err == -ENOTSUP)
		return;		/* a copy in another namespace: it said so */
	if (err) {
		env_bad("PATCHSITE_TRACER", ps_last_error);
		return;
	}
	if (filter && *filter && patchsite_set_filter(NULL, filter, 1)) {
		env_bad("PATCHSITE_FILTER", ps_last_error);
		return;
	}
	if (notrace && *notrace && patchsite_set_notrace(NULL, notrace, 1)) {
		env_bad("PATCHSITE_NOTRACE", ps_last_error);
		return;
	}
	if (trigger && *trigger && patchsite_set_graph_function(trigger, 1)) {
		env_bad("PATCHSITE_GRAPH_FUNCTION", ps_last_error);
		return;
	}
	if (env_controls())
		return;
	if (!output && !strcmp(tracer, "nop")) {
		/*
		 * ftrace's nop: nothing patched, but the trace directory is
		 * ready for a tracer chosen later through the control channel
		 * (patchsite ctl PID current_tracer ...), so it is opened as
		 * the directory of a process whose tracers may change.
		 */
		if (!env_store("ctl", false) && !getenv("PATCHSITE_LOG"))
			ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);
		return;
	}
	if (!output) {
		if (env_store(tracer, false))
			return;
		if (patchsite_set_tracer(tracer))
			env_bad("PATCHSITE_TRACER", ps_last_error[0] ? ps_last_error : strerror(errno));
		else if (!getenv("PATCHSITE_LOG"))
			ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);
		return;
	}
	/*
	 * PATCHSITE_OUTPUT: recorded into a trace directory all the same (a
	 * private one unless PATCHSITE_DATA names one), rendered into the file
	 * at exit by the code `patchsite replay` and `dump` use.  The file is
	 * opened last: a setting that fails leaves no file behind.
	 */
	if (strcmp(tracer, "nop") && env_store(tracer, true))
		return;
	if (patchsite_set_tracer(tracer)) {
		env_bad("PATCHSITE_TRACER", ps_last_error[0] ? ps_last_error : strerror(errno));
		env_drop_data();
		return;
	}
	fd = output_fd(output);
	if (fd < 0) {
		char why[600];

		snprintf(why, sizeof(why), "cannot open '%s': %s", output ? output : "stderr",
			 strerror(errno));
		patchsite_set_tracer("nop");
		env_bad("PATCHSITE_OUTPUT", why);
		env_drop_data();
		return;
	}
	env_out_fd = fd;
	if (!getenv("PATCHSITE_LOG"))
		ps_log_stderr(PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR);	/* later errors too */
}

/*
 * Start-up's part of a fork (after api.c's): the parent writes the trace,
 * the child's copy of the file is not ours to write; the child has no
 * channel thread.
 */
static void start_forked(void)
{
	ps_own_enter();
	if (env_out_fd >= 0)
		close(env_out_fd);
	env_out_fd = -1;
	ps_channel_forked();
	ps_own_leave();
}

static void start_before_fork(void)
{
	ps_own_enter();
	ps_channel_before_fork();
	ps_own_leave();
}

/*
 * The process's entry points.  They live here, with the rest of start-up:
 * libpatchsite.a is one member (patchsite.o, build.mk), so a program that
 * links the archive and names any of the runtime gets this constructor too.
 */
__attribute__((constructor)) static void ps_start(void)
{
	ps_own_enter();
	patchsite_init();
	ps_gprof_started();	/* gprof's start-up, if an _init asked before us */
	if (!ps.init_err)
		pthread_atfork(start_before_fork, NULL, start_forked);
	/* A refused setting is said once, by env_bad, not by the log too (PATCHSITE_LOG=1). */
	ps_log_defer_errors = true;
	env_start();
	ps_log_defer_errors = false;
	ps_log_flush_deferred(env_said);
	env_names_say();
	ps_noflag_startup_done(ps_attach_started_late());	/* before the channel's thread */
	if (!ps.init_err)
		ps_channel_start();
	ps_own_leave();
}

/*
 * Event hits the in-memory buffer had no room for, with no trace directory
 * to say so (its threads' files count them): said here, once, whether or
 * not the program logs (never a silent loss).
 */
static void events_lost_say(void)
{
	unsigned long lost = 0;
	char line[300];
	int n;

	if (ps_store_on())
		return;
	pthread_mutex_lock(&ps.lock);
	for (struct ps_event *ev = ps_event_first(); ev; ev = ev->next)
		lost += atomic_load_explicit(&ev->lost, memory_order_relaxed);
	pthread_mutex_unlock(&ps.lock);
	if (!lost)
		return;
	n = snprintf(line, sizeof(line), "patchsite: warning: %lu static trace event hits not "
		     "recorded: the in-memory buffer was full (record into a trace directory: "
		     "PATCHSITE_DATA or patchsite record)\n", lost);
	if (n > 0)
		(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* The end of the process: the channel, then the trace written. */
static void stop(void)
{
	int err;

	ps_channel_stop();
	events_lost_say();
	ps_store_finish();
	if (env_out_fd < 0)
		return;
	patchsite_set_tracer("nop");
	err = patchsite_trace_write(env_out_fd);
	if (close(env_out_fd) && !err)
		err = -errno;
	env_out_fd = -1;
	if (ps_store_private() && ps_store_on()) {
		pthread_mutex_lock(&ps.lock);
		if (ps_branches_any())
			ps_log(PATCHSITE_LOG_WARNING, "branch counts (patchsite_likely/unlikely) are "
			       "not in PATCHSITE_OUTPUT's trace: set PATCHSITE_DATA to keep them");
		pthread_mutex_unlock(&ps.lock);
		ps_store_remove();
	}
	/* A trace cut short must not pass for a whole one. */
	if (err) {
		const char *out = getenv("PATCHSITE_OUTPUT");
		char line[600];
		int n = snprintf(line, sizeof(line), "patchsite: %s: writing the trace: %s: it is "
				 "incomplete\n", out && *out ? out : "stderr", strerror(-err));

		if (n > 0)
			(void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}

__attribute__((destructor)) static void ps_stop(void)
{
	ps_own_enter();
	stop();
	ps_own_leave();
}
