/* SPDX-License-Identifier: GPL-2.0-only */
/* record -a (auto_args.c): every function's arguments and return value, from DWARF. */
#ifndef PS_CMD_AUTO_ARGS_H
#define PS_CMD_AUTO_ARGS_H

#include <stdbool.h>

/*
 * For each function exe's DWARF defines (with code and a symbol of its
 * name) that one of args_of's globs matches: a probe line "f:auto/FUNC FUNC
 * NAME=FETCH:TYPE..." appended to *probes with the parameters DWARF lets us
 * read at its entry; for each rets_of matches, "FUNC@retval" (space-separated)
 * to *retvals when it returns a value.  Globs blank-separated, "*" for -a,
 * NULL: none (record -A FUNC, -R FUNC without a spec).  0, 1 when none of
 * exe's functions can have a site (built without -pg or the like: nothing
 * added), or -1 said (-a: exe without DWARF; globs matching none add nothing).
 */
int auto_args(const char *exe, const char *args_of, const char *rets_of, char **probes,
	      char **retvals);
/* func (or name, its DWARF name, when not NULL) matches one of globs, blank-separated; NULL: none. */
bool auto_wanted(const char *globs, const char *func, const char *name);

#endif
