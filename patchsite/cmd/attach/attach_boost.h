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

/* A thread's scheduling before attach_boost_stop, which attach_unboost_stop puts back. */
struct attach_prio {
	int nice;		/* 1000: not changed */
	int policy;		/* -1: not changed (SCHED_FIFO not taken) */
};

/*
 * This command SCHED_FIFO (on) or back to SCHED_OTHER (off) while it drives
 * a stopped thread: each of the thread's stops wakes it, and a woken
 * SCHED_OTHER task waits up to a tick behind the program's threads (below).
 * Only once attach_boost_self boosted it; it only waits and makes system
 * calls meanwhile.
 */
void attach_boost_self_fifo(bool on);

/*
 * A thread of the program at ATTACH_BOOST_NICE and, if it was SCHED_OTHER
 * or SCHED_BATCH, SCHED_FIFO from just before its PTRACE_INTERRUPT until
 * just before its release, when attach_unboost_stop puts back what
 * attach_boost_stop saved in *old.  Its way into the stop and each call
 * run on it wait for a CPU: a woken SCHED_OTHER thread, even at nice -20,
 * waits up to a scheduler tick (4 ms, EEVDF) behind the program's spinning
 * threads; a FIFO one takes a CPU at once.  It never runs its own code
 * boosted but for the instant between the boost and the interrupt.  The
 * loader thread it makes inherits both; its first act is to go back to
 * SCHED_OTHER (attach_inject.c), keeping the nice.
 */
void attach_boost_stop(int tid, struct attach_prio *old);
void attach_unboost_stop(int tid, const struct attach_prio *old);

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
