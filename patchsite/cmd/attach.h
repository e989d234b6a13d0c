/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Attaching to a process started without the runtime (attach.c): load
 * libpatchsite.so into it, then talk to it over its control channel.
 */
#ifndef PS_CMD_ATTACH_H
#define PS_CMD_ATTACH_H

#include <stdbool.h>

/*
 * Make sure process pid has the runtime and its control channel: nothing
 * to do if it answers already; else load libpatchsite.so into it (saying
 * so on stderr, prefixed by who) and wait for its channel.  0, or -1 with
 * one line in why: the refusal by name, with its reason and fix.
 */
int attach_runtime(int pid, const char *who, char *why, size_t len);

/* `patchsite record -p PID`: what record's options asked for. */
struct attach_record {
	int pid;
	const char *dir;	/* the trace directory */
	bool dir_given;		/* -d on the command line */
	const char *tracer, *filter, *notrace, *graph, *depth, *kb;
	double duration;	/* seconds; 0: until SIGINT or SIGTERM */
	int (*fresh_dir)(const char *dir);	/* main.c: an older session moves to DIR.old */
};

/* Attach, set the tracer up, record until a signal or the duration, set nop: the exit status. */
int attach_record(const struct attach_record *o);

#endif
