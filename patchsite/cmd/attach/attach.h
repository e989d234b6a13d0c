/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Attaching to a process started without the runtime (attach.c): load
 * libpatchsite.so into it, then talk to it over its control channel.
 */
#ifndef PS_CMD_ATTACH_H
#define PS_CMD_ATTACH_H

#include <signal.h>
#include <stdbool.h>

/*
 * Make sure process pid has the runtime and its control channel: nothing
 * to do if it answers already; else load libpatchsite.so into it (saying
 * so on stderr, prefixed by who) and wait for its channel.  0, or -1 with
 * one line in why: the refusal by name, with its reason and fix.
 */
int attach_runtime(int pid, const char *who, char *why, size_t len);

/*
 * `prog & patchsite ctl|record -p $!`: $! may still be the shell's fork,
 * not yet prog.  Wait (2 s at most) while pid runs its parent's executable
 * without the runtime (attach_target.c); attach_runtime and attach_record
 * call it, ctl before its first request.
 */
void attach_await_exec(int pid);

/*
 * record -p --live: what the follower (pipe_follow, wired by record_cmd.c:
 * attach.c does not call up to pipe.c, which calls attach_runtime) is given.
 * It prints the session's events from now on, calls on(arg) once following
 * has begun (the tracer goes on there), and returns when a held signal
 * comes, the time until_ms (CLOCK_MONOTONIC, 0: none) is reached or the
 * process is gone.
 */
struct attach_follow {
	const char *dir;
	int pid;
	int (*on)(void *arg);
	int (*off)(void *arg);	/* at a stop, before the last look: nothing after it is lost */
	void *arg;
	long long until_ms;
	const sigset_t *held;	/* blocked by the caller: caught as a stop */
};

/* `patchsite record -p PID`: what record's options asked for. */
struct attach_record {
	int pid;
	const char *dir;	/* the trace directory */
	bool dir_given;		/* -d on the command line */
	const char *tracer, *filter, *notrace, *graph, *depth, *kb;
	const char *noflag;	/* --noflag-proof: FILE[:FILE...], read by the runtime it loads */
	double duration;	/* seconds; 0: until SIGINT or SIGTERM */
	bool live;		/* --live: print what the session records from now on */
	int (*fresh_dir)(const char *dir);	/* record_run.c: an older session moves to DIR.old */
	int (*follow)(const struct attach_follow *f);	/* record_cmd.c: --live */
};

/* Attach, set the tracer up, record until a signal or the duration, set nop: the exit status. */
int attach_record(const struct attach_record *o);

#endif
