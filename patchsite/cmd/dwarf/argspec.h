/* SPDX-License-Identifier: GPL-2.0-only */
/* record -A in uftrace's spelling, as a probe definition (argspec.c). */
#ifndef PS_ARGSPEC_H
#define PS_ARGSPEC_H

#include <stdbool.h>
#include <stddef.h>

/*
 * spec "FUNC@arg1/s,fparg1" into out as a dynamic_events definition;
 * fpreg: the printf pattern of the Nth floating-point argument register
 * (from 0; probe_dwarf_fpreg), NULL where not known.  0, or -EINVAL with
 * the reason in err.
 */
int argspec_probe(const char *spec, const char *fpreg, char *out, size_t len, char *err,
		  size_t errlen);

/*
 * The event name of a probe on FUNC (its first n characters; a glob's * and . as _, a
 * leading digit after _) with suffix, into ev: ev.
 */
const char *argspec_event(const char *func, size_t n, const char *suffix, char *ev, size_t len);

/* The probe type of uftrace's FMT ("" its default) for an integer or fp (fparg, retval/f) value; NULL: none. */
const char *argspec_type(const char *fmt, bool fp);

/*
 * specs (one a line) with the lines of one FUNC made one ("f@arg1" and "f@arg2/x":
 * "f@arg1,arg2/x"), in their first line's place; malloc'd, NULL: no memory.
 */
char *argspec_merge(const char *specs);

#endif
