/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PS_GOT_FAMILIES_H
#define PS_GOT_FAMILIES_H

/* Why calls to the library function name are never traced, or NULL (got_families.c). */
const char *ps_got_family(const char *name);

#endif
