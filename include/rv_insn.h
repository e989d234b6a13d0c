/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RISC-V (RV64) instruction encodings the runtime writes (libpatchsite's
 * patch sites and stubs), defined in lib/arch/riscv.c beside the tables the
 * tools use, so that the project holds one copy of each encoding.  Values
 * are instruction words (parcels little-endian in memory, as on every
 * RISC-V Linux).  Bit patterns: the RISC-V unprivileged ISA manual, RV32I
 * base (U, I, J formats) and RV64I (LD), C extension (C.NOP).
 */
#ifndef RV_INSN_H
#define RV_INSN_H

#include <stdbool.h>
#include <stdint.h>

/* Integer registers by ABI name. */
#define RV_ZERO	0
#define RV_RA	1
#define RV_T0	5
#define RV_T1	6
#define RV_T2	7

/*
 * auipc + jalr (or + ld, addi) reach: hi20 << 12 sign-extended from 32 bits,
 * plus a signed 12-bit low part: [-2 GiB - 2 KiB, +2 GiB - 2 KiB - 1] from the auipc.
 */
#define RV_PCREL_MIN	(-(int64_t)0x80000000 - 0x800)
#define RV_PCREL_MAX	((int64_t)0x80000000 - 0x800 - 1)
/* JAL's reach: imm21, even: [-1 MiB, +1 MiB - 2] from the jal. */
#define RV_JAL_REACH	(1l << 20)

uint32_t rv_nop(void);				/* addi x0, x0, 0 */
uint16_t rv_c_nop(void);			/* c.nop (C extension) */
uint32_t rv_ebreak(void);			/* ebreak */
/*
 * Split a pc-relative displacement for auipc (hi20) and a 12-bit signed
 * immediate (lo12): hi20 is rounded by bit 11 of d, so that
 * (hi20 << 12) + sext(lo12) == d.  False beyond RV_PCREL_MIN..MAX.
 */
bool rv_pcrel_split(int64_t d, uint32_t *hi20, int32_t *lo12);
uint32_t rv_auipc(unsigned rd, uint32_t hi20);	/* auipc rd, hi20 */
uint32_t rv_jalr(unsigned rd, unsigned rs1, int32_t lo12);	/* jalr rd, lo12(rs1) */
uint32_t rv_ld(unsigned rd, unsigned rs1, int32_t lo12);	/* ld rd, lo12(rs1) */
uint32_t rv_addi(unsigned rd, unsigned rs1, int32_t lo12);	/* addi rd, rs1, lo12 */
/* The pair `auipc rd, hi; jalr link, lo(rd)` at `from` calling `to`; false when out of reach. */
bool rv_auipc_jalr(uint64_t from, uint64_t to, unsigned rd, unsigned link, uint32_t *auipc,
		   uint32_t *jalr);
/* jal rd from `from` to `to`; false (nothing written) beyond RV_JAL_REACH or if odd. */
bool rv_jal(uint64_t from, uint64_t to, unsigned rd, uint32_t *insn);
/* Decoders: is insn an auipc (any rd when rd < 0, else that one), and its signed displacement. */
bool rv_is_auipc(uint32_t insn, int rd);
int64_t rv_auipc_disp(uint32_t insn);
bool rv_is_jalr(uint32_t insn, int rd, int rs1);
int32_t rv_i_imm(uint32_t insn);		/* the I-type immediate, sign-extended */
uint64_t rv_jal_target(uint64_t from, uint32_t insn);

#endif
