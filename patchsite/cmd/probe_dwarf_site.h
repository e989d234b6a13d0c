/* SPDX-License-Identifier: GPL-2.0-only */
/* The call to __fentry__ (or patchable NOPs) a function starts with (probe_dwarf_site.c). */
#ifndef PS_PROBE_DWARF_SITE_H
#define PS_PROBE_DWARF_SITE_H

#include <elfutils/libdwfl.h>

/*
 * The length of the call instruction at addr (a module address: the
 * function's entry), on x86-64: 5 (call rel32) or 6 (call *rel32(%rip));
 * on aarch64 the two NOPs of -fpatchable-function-entry=2: 8; else 0.
 */
unsigned probe_dwarf_entry_call_len(Dwfl_Module *mod, Dwarf_Addr addr);

#endif
