/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The x86-64 decoding that patchverify --noflag shares between its sweep
 * (noflag_sweep.c, its table-like jumps in noflag_tables.c) and its site
 * forms (noflag_sites.c): one Capstone handle with operand details, and the
 * few questions they ask of an instruction (noflag_x86.c).
 */
#ifndef PV_NOFLAG_X86_H
#define PV_NOFLAG_X86_H

#include <capstone/capstone.h>

#include "noflag.h"

/* The handle (details on), opened on first use; NULL when Capstone cannot open one. */
csh *nf_x86_handle(void);
/* Decode one instruction at addr from p (avail bytes there) into insn: true when it decoded. */
bool nf_x86_decode(const uint8_t *p, uint64_t avail, uint64_t addr, cs_insn *insn);
/* A direct (relative) jmp, jcc, call, loop or jrcxz: its target. */
bool nf_x86_branch_target(const cs_insn *insn, uint64_t *target);
/* An operand [rip+disp]: the address it names. */
bool nf_x86_rip_target(const cs_insn *insn, uint64_t *target);
/* A general register's family 0-15 (rax..r15, whatever part), or -1. */
int nf_x86_family(unsigned reg);

/*
 * noflag_tables.c: a table-like jump the sweep found (a switch's table,
 * a pointer jump, or listed unrecovered); 0 or -ENOMEM.  It reads the
 * instructions of the sweep's run before it (at most NF_X86_HIST), which
 * nf_x86_replay decodes again from their addresses (ring, the last of the
 * nrun so far): false when one does not decode.
 */
#define NF_X86_HIST 16
int nf_x86_table_jump(struct nf_file *f, const cs_insn *insn);
bool nf_x86_replay(const struct nf_file *f, const uint64_t *ring, unsigned nrun, cs_insn *in);


/*
 * The quick decoder (noflag_quick.c): the instructions compilers emit most,
 * decoded as Capstone decodes them, without Capstone; any other it declines.
 */
struct nf_field {
	uint64_t raw;		/* a displacement's or an immediate's bytes, as a number */
	uint8_t width;		/* how many bytes */
};

struct nf_quick {
	uint8_t len;
	bool branch;		/* a direct branch (jmp, jcc, call): target */
	bool rip;		/* a [rip+disp] operand: target is the address it names */
	uint64_t target;
	uint8_t nfield;		/* the other displacement and immediate fields */
	struct nf_field field[2];
};

/* Decode the instruction at addr from p (avail bytes there): false when declined. */
bool nf_x86_quick(const uint8_t *p, uint64_t avail, uint64_t addr, struct nf_quick *q);
/* The values (at most 4, into v) Capstone may give field fd as an operand's number. */
unsigned nf_x86_field_values(const struct nf_field *fd, uint64_t v[4]);

#endif
