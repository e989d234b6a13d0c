/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The attach's threads ahead of the program's for the few ms the attach
 * takes (attach_boost.c): the command itself, and in the target the loader
 * thread and the runtime threads it starts, until the tracer is on.
 */
#ifndef PS_CMD_ATTACH_BOOST_H
#define PS_CMD_ATTACH_BOOST_H

#include <stdbool.h>

#define ATTACH_BOOST_NICE	(-20)
/* The injector's threads' name (attach_inject.c; sites/late.h PS_ATTACH_THREAD: the runtime's test) */
#define ATTACH_THREAD_NAME	"ps-attach"

/* This command at ATTACH_BOOST_NICE while it attaches (CAP_SYS_NICE: root); else nothing. */
void attach_boost_self(void);

/*
 * A thread of the program at ATTACH_BOOST_NICE from just before its
 * PTRACE_INTERRUPT (its way into the stop and the calls run on it wait for
 * a CPU too) until just before its release, when attach_unboost_stop puts
 * back the nice attach_boost_stop returned (1000: not boosted, nothing to
 * put back).  It never runs its own code boosted but for the instant
 * between the boost and the interrupt.
 */
int attach_boost_stop(int tid);
void attach_unboost_stop(int tid, int nice);

/*
 * Before the borrowed thread (boosted, its own nice is nice) makes the
 * attach's threads, which inherit the boost: they are the ones
 * attach_boost_end puts back to nice.
 */
void attach_boost_made(int pid, int nice);

/*
 * Every thread of pid made since attach_boost_thread (the loader's, the
 * runtime's) that still has ATTACH_BOOST_NICE back to the borrowed
 * thread's nice, and this command back to its own.  Idempotent.
 */
void attach_boost_end(int pid);

/* What PATCHSITE_ATTACH_TIME says: "boosted" or why not. */
const char *attach_boost_said(void);

#endif
