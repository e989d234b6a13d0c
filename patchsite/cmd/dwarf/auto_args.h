/* SPDX-License-Identifier: GPL-2.0-only */
/* record -a (auto_args.c): every function's arguments and return value, from DWARF. */
#ifndef PS_CMD_AUTO_ARGS_H
#define PS_CMD_AUTO_ARGS_H

/*
 * For each function exe's DWARF defines (with code and a symbol of its
 * name): a probe line "f:auto/FUNC FUNC NAME=FETCH:TYPE..." appended to
 * *probes with the parameters DWARF lets us read at its entry, and
 * "FUNC@retval" (space-separated) to *retvals when it returns a value.
 * 0, 1 when none of exe's functions can have a site (built without -pg or
 * the like: nothing added), or -1 said (exe without DWARF).
 */
int auto_args(const char *exe, char **probes, char **retvals);

#endif
