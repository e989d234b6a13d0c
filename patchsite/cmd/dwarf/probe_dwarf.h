/* SPDX-License-Identifier: GPL-2.0-only */
/* Names in probe definitions, from the program's DWARF (probe_dwarf.c). */
#ifndef PS_PROBE_DWARF_H
#define PS_PROBE_DWARF_H

#include <stddef.h>

#include "../../events/probe.h"

/*
 * Every name argument of d (PF_NAME) replaced by the fetch argument and
 * type DWARF gives at the entry of d->func in the executable exe: 0, or
 * -EINVAL with the reason (the argument named) in err.
 */
int probe_dwarf_resolve(const char *exe, struct ps_probe_def *d, char *err, size_t errlen);

/* The Nth floating-point argument register's name pattern for exe's arch ("xmm%u"), or NULL. */
const char *probe_dwarf_fpreg(const char *exe);

#endif
