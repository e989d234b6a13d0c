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

/* This command at ATTACH_BOOST_NICE while it attaches (CAP_SYS_NICE: root); else nothing. */
void attach_boost_self(void);

/*
 * Around the borrowed thread's pthread_create: the thread tid of pid at
 * ATTACH_BOOST_NICE, so that the loader thread it makes inherits it, and
 * its own nice back right after (the thread itself never runs boosted).
 */
void attach_boost_thread(int pid, int tid);
void attach_boost_thread_done(int tid);

/*
 * Every thread of pid made since attach_boost_thread (the loader's, the
 * runtime's) that still has ATTACH_BOOST_NICE back to the borrowed
 * thread's nice, and this command back to its own.  Idempotent.
 */
void attach_boost_end(int pid);

/* What PATCHSITE_ATTACH_TIME says: "boosted" or why not. */
const char *attach_boost_said(void);

#endif
