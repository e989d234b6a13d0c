/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One table of facts per architecture, shared by recordmcount, patchverify
 * and libpatchsite.  Everything that depends on an instruction set or an
 * ABI (relocation types, opcodes, NOPs, alignment) lives behind this
 * interface, in lib/arch/<arch>.c; generic code never names an EM_* value,
 * a relocation type or an opcode byte.
 */
#ifndef PS_ARCH_H
#define PS_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pcrel_table.h"

/* What a relocation against a hook symbol means in executable code. */
enum reloc_role {
	RELOC_CALL,	/* starts a call to the hook: a site to record */
	RELOC_PART,	/* belongs to the call sequence started just before it */
	RELOC_BAD,	/* refers to the hook but is not a call: an error */
};

/* A relocation against a hook, seen together with the code it patches. */
struct reloc_view {
	const uint8_t *code;	/* bytes of the section the relocation applies to */
	uint64_t code_size;
	uint64_t offset;	/* r_offset */
	uint32_t type;		/* r_type */
	bool big_endian;
	/* Per-section state for arches whose calls take several relocations. */
	bool have_prev;
	uint64_t prev_offset;	/* r_offset of the previous hook relocation */
};

/* A call site found through its relocation. */
struct call_site {
	uint64_t site;		/* offset of the call instruction (sequence) */
	unsigned len;		/* bytes of the call instruction (sequence) */
	unsigned align;		/* instruction alignment the site must keep */
	const char *why;	/* for RELOC_BAD: what was found instead */
};

/* One instruction position in built code, for the decoding hooks below. */
struct insn_view {
	const uint8_t *code;	/* bytes of the section */
	uint64_t size;
	uint64_t off;		/* position of the instruction in code */
	uint64_t addr;		/* its address: sh_addr + off, or off in an object */
	bool big_endian;
	bool thumb;		/* ARM: the code is in Thumb state */
	/*
	 * Linked PIC code: the address of the GOT (_GLOBAL_OFFSET_TABLE_,
	 * the start of .got.plt), which i386 PIC code keeps in %ebx; 0 unknown.
	 */
	uint64_t got;
};

/* A call or jump decoded from built code. */
enum branch_kind { BRANCH_CALL, BRANCH_JUMP };

struct branch {
	enum branch_kind kind;
	bool indirect;		/* through a memory word (GOT): target is the word's address */
	uint64_t target;
	unsigned len;		/* bytes of the instruction (sequence) */
};

struct arch {
	const char *name;
	uint16_t machine;
	uint8_t elfclass;		/* 1 = ELFCLASS32, 2 = ELFCLASS64 */
	const char *const *hooks;	/* profiling hook names, NULL-terminated */
	bool strip_dot;			/* ELFv1 ppc64: "._mcount" names "_mcount" */
	uint32_t abs_reloc;		/* absolute word relocation for table entries */
	uint32_t none_reloc;		/* relocation type meaning "nothing" */
	/*
	 * 32-bit place-relative data relocation (S + A - P), for the entries
	 * of a --pie-table; 0: the arch has no such table.
	 */
	uint32_t pcrel32_reloc;
	bool ref_skips_func;		/* never use a function symbol as reference (Thumb bit) */
	/*
	 * The linker may shrink code at relocations of this type (RISC-V
	 * relaxation), moving what follows them; only symbols move with the
	 * code, so table entries must not reach across such a relocation from
	 * their reference symbol.  0: the arch does not relax.
	 */
	uint32_t relax_reloc;

	/* Classify a relocation against a hook and locate its call site. */
	enum reloc_role (*call_site)(const struct arch *a, const struct reloc_view *rv,
				     struct call_site *cs);
	/*
	 * Replace the call at cs (in a writable copy of its section) with the
	 * arch's NOP.  Returns 0, or -EINVAL when the bytes around the call
	 * are not what the NOP expects (then nothing is written).  NULL: the
	 * arch has no build-time NOP.
	 */
	int (*make_nop)(const struct arch *a, uint8_t *code, uint64_t size,
			const struct call_site *cs, bool big_endian);
	/*
	 * NOP a recorded site (--nop-all) so that ftrace can patch the call
	 * back later: unlike make_nop it keeps what the call relies on around
	 * it (ARM's push {lr}).  NULL: make_nop does both jobs.
	 */
	int (*make_site_nop)(const struct arch *a, uint8_t *code, uint64_t size,
			     const struct call_site *cs, bool big_endian);
	/* r_info layout differs from the generic one (MIPS64 little-endian). */
	uint64_t (*rinfo_make)(uint32_t sym, uint32_t type, bool big_endian);
	void (*rinfo_split)(uint64_t info, bool big_endian, uint32_t *sym, uint32_t *type);
	/* Name of a relocation type, for messages; NULL if unknown. */
	const char *(*reloc_name)(uint32_t type);

	/*
	 * What patchverify needs to recognise a site in built code.  Each
	 * hook reads only inside iv->code[0, size) and returns 0 / false when
	 * the bytes at iv->off are not what it looks for.
	 */
	/* Length of a NOP form a patch site may hold (what ftrace or the tools write). */
	unsigned (*site_nop)(const struct arch *a, const struct insn_view *iv);
	/* Decode a direct call or jump, or one through a memory word (PLT, GOT). */
	bool (*decode_branch)(const struct arch *a, const struct insn_view *iv, struct branch *b);
	/*
	 * Encode a call from iv->addr to *target in buf (at least 8 bytes), as
	 * the linker leaves it; target NULL: as the assembler leaves it for a
	 * relocation.  Returns the length.
	 */
	unsigned (*make_call)(const struct arch *a, const struct insn_view *iv,
			      const uint64_t *target, uint8_t *buf);
	/* Length of a landing pad allowed before an entry site (endbr64, bti c, paciasp). */
	unsigned (*entry_pad)(const struct arch *a, const struct insn_view *iv);
	/* Length of one NOP of a -fpatchable-function-entry sled. */
	unsigned (*sled_nop)(const struct arch *a, const struct insn_view *iv);
	/* Length of one NOP of any form the assembler pads code with (NULL: sled_nop's). */
	unsigned (*align_nop)(const struct arch *a, const struct insn_view *iv);
	/*
	 * gcc -pg without -mfentry calls the hook once the frame is set up.
	 * Walk the code from a function's entry (iv->off, after any landing
	 * pad) to the call at site: true when all of it is set-up this arch
	 * understands; else false with *stop at the first instruction that is
	 * not.  NULL: only mcount_window is checked.
	 */
	bool (*mcount_setup)(const struct arch *a, const struct insn_view *iv, uint64_t site,
			     uint64_t *stop);
	uint32_t relative_reloc;	/* dynamic relocation: base + addend */
	unsigned mcount_window;		/* furthest an mcount call may sit after entry */
	bool thumb_bit;			/* bit 0 of a function's address selects Thumb */
	/*
	 * decode_branch knows every form ld leaves a hook call in (direct,
	 * PLT entry, GOT word): patchverify audits linked files of this arch.
	 */
	bool decodes_linked;
	unsigned insn_align;		/* smallest instruction alignment (Thumb: 2) */
	/*
	 * Length of the instruction at iv->off when its first bytes say it
	 * (RISC-V: 2 or 4); 0 when they do not.  patchverify then walks linked
	 * code instruction by instruction from each section and function start
	 * instead of trying every insn_align step.  NULL: not known.
	 */
	unsigned (*insn_len)(const struct arch *a, const struct insn_view *iv);
	/*
	 * patchverify misaligned: the alignment a -fpatchable-function-entry
	 * site needs for libpatchsite to switch it with one aligned store
	 * (riscv64: 4), checked in files whose e_flags have site_align_flags
	 * (EF_RISCV_RVC: compressed code leaves functions 2-aligned).  In a
	 * relocatable object only an align_reloc ending at the site (R_RISCV_ALIGN:
	 * the linker pads to an alignment, the addend is the padding's size)
	 * makes it aligned once linked.  0: not checked.
	 */
	unsigned site_align;
	uint32_t site_align_flags;
	uint32_t align_reloc;
};

/* The table for a machine and class, or NULL when we do not support it. */
const struct arch *arch_find(uint16_t machine, uint8_t elfclass, uint32_t e_flags);
/* A human name for any machine and class, for "unsupported architecture" messages. */
const char *arch_machine_name(uint16_t machine, uint8_t elfclass);
/* True when name (after the arch's own rules) is one of the arch's hooks. */
bool arch_is_hook(const struct arch *a, const char *name);
/* "R_X86_64_PLT32", or "type 42" in buf when the arch has no name for it. */
const char *arch_reloc_str(const struct arch *a, uint32_t type, char *buf, size_t len);
/* Every table we have, NULL-terminated (for --version and tests). */
extern const struct arch *const arch_all[];

/* Encode or decode a 64-bit object's r_info (32-bit ones have one layout). */
uint64_t arch_rinfo_make(const struct arch *a, uint32_t sym, uint32_t type, bool big_endian);
void arch_rinfo_split(const struct arch *a, uint64_t info, bool big_endian,
		      uint32_t *sym, uint32_t *type);

#endif
