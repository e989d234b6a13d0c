/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The function_profile tracer's counters (profile.c): function_graph's
 * shadow frames and return hooks (graph.c) time each call, and instead of
 * writing its entry and exit to the ring, the exit counts it here, per
 * thread and per function: hits, total, self, min, max, the sum of
 * squares and a log-linear histogram (data/hist.h).  Nothing is written
 * while the program runs; the counts are merged when read.
 */
#ifndef PS_RECORD_PROFILE_H
#define PS_RECORD_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/textbuf.h"
#include "core/ctl_file.h"
#include "record/record.h"

/* The version of the `profile` file of a process directory (patchsite-data(5)). */
#define PS_PROFILE_VERSION	1

/* graph.c: function_graph's profile mode, the function_profile tracer; set with ps.lock held. */
void ps_graph_set_profile(bool on);
bool ps_graph_profile(void);

/* Before the first call counted: the clock's rate, measured now if it must be. */
void ps_profile_prepare(void);

/*
 * A call of site id begins in thread t, in frame fr (graph.c pushed it,
 * x is its slow info): the counters it will add to, kept in x.  Counting
 * happens at its end: ps_profile_exit, at tsc, whether it returned or was
 * closed by an unwind.
 */
void ps_profile_enter(struct ps_thread *t, struct ps_fslow *x, uint32_t id);
void ps_profile_exit(struct ps_thread *t, const struct ps_frame *fr, struct ps_fslow *x,
		     uint64_t tsc);

/* Forget every count (trace_stat/function written); each thread drops its own at its next call. */
void ps_profile_reset(void);
/* trace_stat/function and trace_stat/function_hist (ctl/groups.c lists them). */
extern const struct ps_ctl_file ps_ctl_profile[];
/* Writes the `profile` file at exit (api.c wire registers it). */
extern const struct ps_store_part ps_profile_part;

/* The `profile` file of the process directory, replaced whole (at exit and at a snapshot). */
int ps_profile_store(void);

#endif
