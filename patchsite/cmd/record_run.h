/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record's run of CMD (record_run.c), once record_cmd.c has checked the
 * options and resolved the names: the runtime preloaded, the settings in
 * CMD's environment, CMD started in a fresh trace directory, waited for,
 * its end written (the status file) and said.
 */
#ifndef PS_RECORD_RUN_H
#define PS_RECORD_RUN_H

#include <stdbool.h>

#include "pipe.h"

struct record_run {
	const char *dir, *tracer, *depth, *kb, *libcall;
	/* PATCHSITE_* lists, NULL: not set (the environment's) */
	const char *filter, *notrace, *graph, *probes, *retvals;
	const char *noflag;		/* proof files, FILE[:FILE...] (PATCHSITE_NOFLAG) */
	bool overwrite, no_sched;
	const char *emulator;		/* --emulator=PROG, or NULL */
	struct pipe_opts *live;		/* --live when live->dir is set: followed while CMD runs */
	char **cmd;			/* CMD's argv; cmd[-1] is free to overwrite (one of ours) */
};

/* CMD's exit status (128 + signal when killed), or 2 after saying why it did not run. */
int record_run(const struct record_run *r);
/* An older session in DIR goes to DIR.old: 0, or -1 after saying why (record -p too). */
int record_fresh_dir(const char *dir);

#endif
