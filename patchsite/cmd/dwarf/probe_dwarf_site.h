/* SPDX-License-Identifier: GPL-2.0-only */
/* What a function starts with for tracing, before its locations begin (probe_dwarf_site.c). */
#ifndef PS_PROBE_DWARF_SITE_H
#define PS_PROBE_DWARF_SITE_H

#include <elfutils/libdwfl.h>

/*
 * The bytes at addr (a module address: the function's entry) that change
 * no argument: on x86-64 the call to __fentry__ (5, or 6 through the GOT)
 * or a run of NOPs after an optional endbr64; on aarch64 NOPs after an
 * optional `bti c`.  0: none.
 */
unsigned probe_dwarf_entry_skip(Dwfl_Module *mod, Dwarf_Addr addr);

#endif
