/* SPDX-License-Identifier: GPL-2.0-only */
/* Arguments of library calls by name and type (libcall_args.c), from libc_protos.c. */
#ifndef PS_CMD_LIBCALL_ARGS_H
#define PS_CMD_LIBCALL_ARGS_H

#include <stdbool.h>
#include <stddef.h>

struct ps_probe_def;

/*
 * record -a for library calls: for each function exe calls through a
 * JUMP_SLOT (and a GLOB_DAT with got) that the prototype list knows, the
 * probe line "f:auto/FUNC FUNC NAME=$argN:TYPE..." appended to *probes
 * ('\n' between) and "FUNC@retval" to *retvals (' ' between) when it
 * returns a value; only those args_of's globs (for the probe) and rets_of's
 * (for the return value) match (auto_args.h).  0, or -1 said (exe unreadable).
 */
int libcall_args_auto(const char *exe, bool got, const char *args_of, const char *rets_of,
		      char **probes, char **retvals);
/*
 * d's names and untyped $retval, when d->func is a function exe imports
 * and the prototype list knows: 1 when it does not apply (names stay for
 * DWARF), 0 resolved, -1 with the reason in why (a name the prototype
 * does not have, a member of an argument).
 */
int libcall_proto_resolve(const char *exe, struct ps_probe_def *d, char *why, size_t len);

#endif
