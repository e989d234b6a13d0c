/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Control files: ftrace's tracefs files for one process.  Each part of the
 * runtime that owns settings declares its files in a table of struct
 * ps_ctl_file (ending with a zero entry) and lists the table once in
 * ctl_groups.c; control.c finds a file by name for patchsite_ctl_read and
 * patchsite_ctl_write, which the control channel (`patchsite ctl`), the
 * environment and programs all go through.
 *
 * A handler returns 0 or -errno and, on an error, says why with ps_log
 * (PATCHSITE_LOG_ERROR): that message is the one the caller is shown.
 */
#ifndef PS_CONTROL_H
#define PS_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

/* Text being built: never fails mid-way, oom says it ran out. */
struct ps_buf {
	char *p;		/* NUL-terminated once anything was added */
	size_t len, cap;
	bool oom;
};
void ps_buf_add(struct ps_buf *b, const char *s, size_t n);
void ps_buf_puts(struct ps_buf *b, const char *s);
__attribute__((format(printf, 2, 3)))
void ps_buf_printf(struct ps_buf *b, const char *fmt, ...);
void ps_buf_free(struct ps_buf *b);

struct ps_ctl_file {
	/*
	 * The file's path as in tracefs ("current_tracer"), or a directory
	 * ending in '/' ("events/") whose handlers get the rest of the path
	 * in sub ("netsim/send/enable"); sub is "" for a plain file.
	 */
	const char *name;
	const char *what;	/* one line: what it is, and its ftrace counterpart if any */
	int (*read)(const char *sub, struct ps_buf *out);		/* NULL: write-only */
	int (*write)(const char *sub, const char *value, bool append);	/* NULL: read-only */
	int (*list)(struct ps_buf *out);	/* a directory: its files, one path per line */
};

extern const struct ps_ctl_file ps_ctl_branches[];	/* branches.c */

/* ctl_groups.c: every table, NULL-terminated. */
extern const struct ps_ctl_file *const ps_ctl_groups[];

/* control.c: the file named path, and the rest of the path for a directory; NULL when none. */
const struct ps_ctl_file *ps_ctl_find(const char *path, const char **sub);

#endif
