/* SPDX-License-Identifier: GPL-2.0-only */
/* The arch tables defined in lib/arch/, for the registry in lib/arch.c. */
#ifndef PS_ARCH_LIST_H
#define PS_ARCH_LIST_H

#include "arch.h"

extern const struct arch arch_x86_64, arch_i386, arch_arm, arch_aarch64, arch_mips,
	arch_mips64, arch_ppc, arch_ppc64, arch_sparc64, arch_s390x, arch_sh, arch_riscv64;

/* Names of machines we know of but do not support, for error messages. */
const char *arch_unsupported_name(uint16_t machine);

/* A name from a table of {type, name} pairs, for reloc_name hooks. */
struct reloc_name {
	uint32_t type;
	const char *name;
};
const char *reloc_name_lookup(const struct reloc_name *t, uint32_t type);

#define RELOC_NAME(r) { r, #r }

/*
 * The common case of a call: one 4-byte instruction at the relocation's
 * offset, (insn & mask) == match, for relocation types the arch accepts.
 */
enum reloc_role word_call_site(const struct reloc_view *rv, struct call_site *cs,
			       bool call_type, uint32_t mask, uint32_t match);

#endif
