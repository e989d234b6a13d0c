/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Scheduler switches beside each thread file (sched_switch.c), for the trace
 * directory's writer (store.c, store_thread.c) and start-up (start.c).
 */
#ifndef PS_RECORD_SCHED_SWITCH_H
#define PS_RECORD_SCHED_SWITCH_H

#include <stdbool.h>
#include <sys/types.h>

/* PATCHSITE_SCHED=0 (record --no-sched): no switches asked for. */
void ps_sched_set(bool on);
bool ps_sched_on(void);
/*
 * The calling thread's switch recording, beside its thread file
 * thread_path (thread.T[.K]) in the process directory procfd: sched.T[.K].
 * Where perf events are refused the file says so (off-CPU time unknown),
 * and stderr once.
 */
void ps_sched_thread_open(int procfd, const char *thread_path, pid_t pid, pid_t tid);
/*
 * The kernel's context-switch hooks on before the threads open their
 * events, paid by the caller (a grace period, once) or, async, by a
 * thread of its own (sched_switch.c says why).
 */
void ps_sched_warm(void);
void ps_sched_warm_async(void);
/* A chunk switch of the calling thread's file: its own switches drained now, if free. */
void ps_sched_flush(void);
/* At exit: every thread's switches drained into its file (may_wait false: locks only tried). */
void ps_sched_finish(bool may_wait);
/* In a forked child: the parent's events and files let go, untouched. */
void ps_sched_forked(void);

#endif
