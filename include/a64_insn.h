/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * AArch64 instruction encodings the runtime writes (libpatchsite's
 * patch sites, stubs), defined in lib/arch/aarch64.c beside the tables
 * the tools use, so that the project holds one copy of each encoding.
 * Values are instruction words (little-endian in memory on aarch64 Linux).
 */
#ifndef A64_INSN_H
#define A64_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* BL and B reach: imm26 words, so [-128 MiB, +128 MiB - 4] from the branch. */
#define A64_BRANCH_REACH	(128ul << 20)

uint32_t a64_nop(void);				/* nop */
uint32_t a64_mov_x9_lr(void);			/* mov x9, x30 (orr x9, xzr, x30) */
uint32_t a64_bti_c(void);			/* bti c */
uint32_t a64_brk(uint16_t imm);			/* brk #imm */
uint32_t a64_br(unsigned rn);			/* br xN */
/* bl from `from` to `to`; false (nothing written) when out of reach or misaligned. */
bool a64_bl(uint64_t from, uint64_t to, uint32_t *insn);
bool a64_is_bl(uint32_t insn);
/* The target of a bl at `from` (a64_is_bl(insn) must hold). */
uint64_t a64_bl_target(uint64_t from, uint32_t insn);
/* movz wd, #imm16, lsl #(16 * hw) and movk (hw 0 or 1). */
uint32_t a64_movz_w(unsigned rd, uint16_t imm, unsigned hw);
uint32_t a64_movk_w(unsigned rd, uint16_t imm, unsigned hw);
/* movk xd, #imm16, lsl #(16 * hw) (hw 0..3). */
uint32_t a64_movk_x(unsigned rd, uint16_t imm, unsigned hw);
/* adrp xd, the 4 KB page of `to` from `from`; false beyond +-4 GB. */
bool a64_adrp(unsigned rd, uint64_t from, uint64_t to, uint32_t *insn);
/* ldr xt, [xn, #off]: off a multiple of 8 below 32 KB; false otherwise. */
bool a64_ldr_x_imm(unsigned rt, unsigned rn, uint64_t off, uint32_t *insn);
/*
 * A PLT entry at addr, its words w[0..3]: adrp x16, page; ldr x17, [x16, #lo];
 * add x16, x16, #lo; br x17.  Its GOT slot (page + lo) into *slot; false if
 * the words are not that.  Read by patchverify and by the runtime alike.
 */
bool a64_plt_entry(const uint32_t w[4], uint64_t addr, uint64_t *slot);


/*
 * gcc -pg's site in a function's first len bytes (lib/arch/aarch64.c has
 * the forms): the offset of the word before its first bl (the word
 * before the bl at site + 4, where site is not 0), else 0 with why.
 * frame: bytes from the frame record (x29) up to the sp at entry; sign:
 * 1 paciasp signed the return address (key A, modifier that sp), 2 pacibsp.
 */
struct a64_pg {
	uint32_t frame;
	unsigned sign;
	const char *why;
};
size_t a64_pg_site(const uint8_t *fn, size_t len, size_t site, struct a64_pg *pg);

#endif
