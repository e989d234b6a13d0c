/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recordmcount --pie-table's table, which recordmcount writes and
 * patchverify and libpatchsite read: 32-bit entries, each the site's
 * address less the entry's own, linked by the arch's place-relative data
 * relocation (struct arch's pcrel32_reloc) against a local symbol, so a PIE
 * or shared library needs no dynamic relocation for it and links with
 * -z text.  The kernel does not read it.
 */
#ifndef PS_PCREL_TABLE_H
#define PS_PCREL_TABLE_H

#define PCREL_TABLE	"__mcount_loc_pcrel"

#endif
