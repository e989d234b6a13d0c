/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Following a trace directory while its processes record (pipe.c):
 * `patchsite pipe -d DIR [--pid P]` and `patchsite record --live`.
 */
#ifndef PS_PIPE_H
#define PS_PIPE_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct pipe_opts {
	const char *dir;		/* the session directory */
	int pid;			/* only this process, or 0: every process of the session */
	bool consume;			/* keep each process's position at the end (pipe.pos) */
	unsigned opt_set, opt_clear;	/* --options: PSR_OPT_* over the recorded ones */
	bool no_sched;			/* --no-sched: the switches recorded not shown */
	bool from_start;		/* consume: but start from the beginning, not the position */
	bool from_now;			/* start after what the processes there recorded so far */
	const char *reader;		/* consume: positions in pipe.READER.pos; NULL: pipe.pos */
	pid_t child;			/* record --live: the command, reaped by pipe_follow; or 0 */
	bool child_done;		/* out: reaped; child_status is its wait status */
	int child_status;
	unsigned long long shown;	/* out: events printed (lines; a leaf call is one) */
	/*
	 * record -p --live: called once, when following has begun (after the
	 * --from-now skip of what the session holds, or before waiting for a
	 * session that is not there yet): it switches the tracer on; non-zero
	 * ends following.  With it, a missing session is waited for.
	 */
	int (*ready)(void *arg);
	int (*stopping)(void *arg);	/* called once at a stop, before the last look: tracer off */
	void *ready_arg;
	pid_t target;			/* record -p --live: followed while it lives, or 0 */
	long long until_ms;		/* stop at this CLOCK_MONOTONIC time (ms), or 0 */
	const sigset_t *held;		/* signals the caller blocked: caught as a stop, unblocked */
};

/* Print events as they are recorded until every process followed ended: 0, or 1 (said). */
int pipe_follow(FILE *out, struct pipe_opts *o);

#endif
