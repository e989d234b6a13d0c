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

#endif
