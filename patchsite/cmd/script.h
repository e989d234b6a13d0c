/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `patchsite script`'s Python (script_py.c), behind the verb (script.c).
 * Each answers 0 to go on, 1 after saying on stderr why not, 2 + N when the
 * script called sys.exit(N).
 */
#ifndef PS_CMD_SCRIPT_H
#define PS_CMD_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

/* libpython opened and started, FILE run with sys.argv [FILE, argv...]. */
int script_py_load(const char *file, int argc, char **argv);
/* The script has callback cb ("begin", "entry", "exit", "event", "end"; after the load). */
bool script_py_wants(const char *cb);
/* Where the next callback's ctx is written (script_ctx.h), as a dict. */
struct ctx_out *script_py_ctx(void);
/* That callback, with the ctx just written. */
int script_py_call(void);
/* Python finalized (the script's output flushed): 0, or 1 when it could not be. */
int script_py_end(void);

#endif
