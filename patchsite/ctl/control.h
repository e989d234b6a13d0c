/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Control files: ftrace's tracefs files for one process.  Each part of the
 * runtime that owns settings declares its files in a table of struct
 * ps_ctl_file (ending with a zero entry) and lists the table once in
 * ctl/groups.c; ctl/control.c finds a file by name for patchsite_ctl_read and
 * patchsite_ctl_write, which the control channel (`patchsite ctl`), the
 * environment and programs all go through.
 *
 * The folder's files: control.c (a file by name), value.c (the values a
 * file takes), groups.c (every table), the tables tracer_files.c,
 * record_files.c, trace_files.c, event_files.c, probe_files.c;
 * after_reply.c (work left until the reply), channel.c (the control
 * channel's socket and thread, channel.h), proto.c (its wire format,
 * proto.h, shared with the patchsite command).
 *
 * A handler returns 0 or -errno and, on an error, says why with ps_log
 * (PATCHSITE_LOG_ERROR): that message is the one the caller is shown.
 */
#ifndef PS_CONTROL_H
#define PS_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/ctl_file.h"

/* Filter commands in set_ftrace_filter: ps_filter_command (api_record.c, internal.h). */

extern const struct ps_ctl_file ps_ctl_events[];	/* ctl/event_files.c */
extern const struct ps_ctl_file ps_ctl_probes[];	/* ctl/probe_files.c: dynamic_events */

/* groups.c: every table, NULL-terminated. */
extern const struct ps_ctl_file *const ps_ctl_groups[];

/* The tables (one line each in groups.c). */
extern const struct ps_ctl_file ps_ctl_core[];	/* tracer_files.c: tracers, filters, depth, buffer, functions, trace_dir */
extern const struct ps_ctl_file ps_ctl_record[];	/* record_files.c */
extern const struct ps_ctl_file ps_ctl_trace[];	/* trace_files.c: trace_marker, snapshot, trace_options */

/* Values of control files (control.c): 0, or -EINVAL with the error said, naming file. */
int ps_ctl_word(const char *file, const char *value, char *out, size_t len);
int ps_ctl_number(const char *file, const char *value, unsigned long lo, unsigned long hi,
		  unsigned long *out);

/*
 * Work a write handler leaves until its caller has the answer (control.c):
 * the control channel runs it once the client's reply is sent and the
 * connection closed, patchsite_ctl_write before it returns.  One slot: a
 * handler asks for one function, idempotent, as the first tracer does for
 * the objects' mod.N (record/store_mods_later.c).
 */
void ps_ctl_after_reply(void (*fn)(void));
void ps_ctl_run_after_reply(void);
/* patchsite_ctl_write without running that work: the channel's */
int ps_ctl_write_before_reply(const char *file, const char *value, bool append);


#endif
