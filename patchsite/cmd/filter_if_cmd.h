/* SPDX-License-Identifier: GPL-2.0-only */
/* record -F with a condition (filter_if_cmd.c). */
#ifndef PS_CMD_FILTER_IF_H
#define PS_CMD_FILTER_IF_H

/*
 * The -F lines (one a line) in the runtime's form: uftrace's FUNC@if:COND
 * as "FUNC if COND", and the names of a condition (len) resolved from exe's
 * DWARF into fetch arguments ("FUNC len=$arg2:u32 if len > 1000"); a line
 * without a condition as it is.  NULL, said, when one cannot be.
 */
char *filter_if_resolve(const char *lines, const char *exe);

#endif
