/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Diagnostics: one format for every tool,
 *   prog: file: error: [func+0xoff (section+0xoff): ]what
 * Library code reports through diag_*(); the sink is replaceable so that a
 * library user (libpatchsite) stays silent unless asked.
 */
#ifndef PS_DIAG_H
#define PS_DIAG_H

#include <stdarg.h>

enum diag_level { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR };

typedef void (*diag_sink_t)(enum diag_level level, const char *file, const char *msg);

void diag_set_prog(const char *prog);
void diag_set_sink(diag_sink_t sink);	/* NULL restores stderr */
const char *diag_level_name(enum diag_level level);

__attribute__((format(printf, 3, 4)))
void diag(enum diag_level level, const char *file, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void diag_err(const char *file, const char *fmt, ...);
__attribute__((format(printf, 2, 3)))
void diag_warn(const char *file, const char *fmt, ...);

#endif
