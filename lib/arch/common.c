// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers the arch files share: names for machines we do not support (so an
 * error can say which architecture it refuses), relocation name lookup, and
 * the one-instruction call check most RISC arches need.
 */
#include <elf.h>
#include <stddef.h>

#include "arch_list.h"
#include "bytes.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

static const struct reloc_name machines[] = {
	{ EM_386, "i386" }, { EM_68K, "m68k" }, { EM_PARISC, "parisc" },
	{ EM_SPARC, "sparc (32-bit)" }, { EM_SPARC32PLUS, "sparc32plus" },
	{ EM_IA_64, "ia64" }, { EM_ALPHA, "alpha" }, { EM_XTENSA, "xtensa" },
	{ EM_MICROBLAZE, "microblaze" }, { EM_ARC, "arc" }, { EM_ARCV2, "arcv2" },
	{ EM_CSKY, "csky" }, { EM_OPENRISC, "openrisc" }, { EM_ALTERA_NIOS2, "nios2" },
	{ EM_LOONGARCH, "loongarch" }, { EM_RISCV, "riscv (32-bit)" },
	{ EM_BPF, "bpf" }, { EM_QDSP6, "hexagon" }, { EM_X86_64, "x32" },
	{ EM_AARCH64, "aarch64 (ILP32)" }, { EM_S390, "s390 (31-bit)" },
	{ EM_SPARCV9, "sparcv9 (32-bit)" }, { EM_SH, "sh64" },
	{ 0, NULL },
};

const char *arch_unsupported_name(uint16_t machine)
{
	const char *n = reloc_name_lookup(machines, machine);

	return n ? n : "an unknown machine";
}

const char *reloc_name_lookup(const struct reloc_name *t, uint32_t type)
{
	for (; t->name; t++)
		if (t->type == type)
			return t->name;
	return NULL;
}

enum reloc_role word_call_site(const struct reloc_view *rv, struct call_site *cs,
			       bool call_type, uint32_t mask, uint32_t match)
{
	cs->site = rv->offset;
	cs->len = 4;
	cs->align = 4;
	cs->why = "a relocation type that no call uses";
	if (!call_type)
		return RELOC_BAD;
	cs->why = "a call that runs past the end of its section";
	if (!in_bounds(rv->offset, 4, rv->code_size))
		return RELOC_BAD;
	cs->why = "not a call instruction";
	return (get32(rv->code + rv->offset, rv->big_endian) & mask) == match ? RELOC_CALL
									      : RELOC_BAD;
}
