/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The proof file of sites in code built without any flag (issue 37): what
 * `patchverify --noflag --proof OUT FILE` proved of one object, read by the
 * runtime, which arms only what is written here and only where the bytes in
 * memory are the recorded ones.  The prover needs a disassembler; the runtime
 * must not, so everything the runtime needs to relocate the displaced
 * instructions is in the file.
 *
 * Text, one record a line, fields separated by one space, numbers in hex
 * without 0x (addresses are the object's ELF virtual addresses: for PIE and
 * shared objects the offset from the load base):
 *
 *   patchsite-noflag-proof 1
 *   object BUILDID SIZE PATH            BUILDID: hex, or - when the file has none
 *   site ENTRY FORM SITE DEPTH BYTES INSNS NAME
 *   refused ENTRY CHECK NAME
 *   fragment ENTRY NAME
 *
 * One object per file (the first two lines), then one record per entry.
 * FORM is 'a' (the entry instruction, after endbr64, is 5 bytes or more: it
 * alone is displaced), 'b' (the first instruction of 5 bytes or more in the
 * entry block, DEPTH bytes below the entry's stack pointer), later 'c'
 * (a proven window of whole instructions from the entry) and 'p' (a window
 * into dead padding).  SITE is where the jump is written; BYTES the
 * displaced bytes as built (2 hex digits each, 5 to NF_MAX_BYTES bytes);
 * INSNS the displaced instructions in order, comma-separated, each
 * LEN or LEN:KIND@OFF, KIND one of
 *   rip   a disp32 at OFF relative to the end of the instruction
 *   call  rel32 call at OFF (e8)            jmp  rel32 jump at OFF (e9)
 *   jcc   rel32 conditional jump at OFF (0f 8x)
 *   jmp8  rel8 jump at OFF (eb)             jcc8 rel8 conditional jump (7x)
 * whose target the runtime's stub re-encodes.  DEPTH is 0 for 'a'.  NAME
 * is the symbol's name, or - for an entry known only from .eh_frame (shown
 * as OBJECT+0xENTRY).  CHECK is the first check that refused the entry
 * (names in docs: "undecodable", "direct-target-in-window", "fragment", ...).
 * Lines starting with '#' are comments.  Anything else is an error that
 * names the file and line: a damaged proof is never half-used.
 */
#ifndef PS_NOFLAG_PROOF_H
#define PS_NOFLAG_PROOF_H

#include <stdint.h>
#include <stdio.h>

#define NF_PROOF_MAGIC "patchsite-noflag-proof 1"
#define NF_MAX_BYTES 32		/* longest window written */
#define NF_MAX_INSNS 8
#define NF_NAME_MAX 1024

enum nf_kind { NF_PLAIN, NF_RIP, NF_CALL, NF_JMP, NF_JCC, NF_JMP8, NF_JCC8 };

struct nf_insn {
	uint8_t len;
	uint8_t kind;		/* enum nf_kind */
	uint8_t off;		/* of the displacement in the instruction (kind != NF_PLAIN) */
};

enum nf_rec { NF_SITE, NF_REFUSED, NF_FRAGMENT };

struct nf_record {
	uint8_t rec;		/* enum nf_rec */
	char form;		/* NF_SITE: 'a', 'b', 'c' or 'p' */
	uint64_t entry, site;
	uint32_t depth;
	uint8_t nbytes, ninsns;
	uint8_t bytes[NF_MAX_BYTES];
	struct nf_insn insns[NF_MAX_INSNS];
	char check[64];		/* NF_REFUSED */
	char name[NF_NAME_MAX];	/* "" for - */
};

struct nf_object {
	char buildid[129];	/* hex; "" for - */
	uint64_t size;
	char path[4096];
};

/*
 * Reading: nf_read_object() reads the first two lines, then nf_read_record()
 * one record at a time: 1 for a record, 0 at the end, -1 on a damaged line,
 * with err (ERRLEN bytes) saying "line N: why".  No allocation.
 */
int nf_read_object(FILE *f, struct nf_object *o, unsigned *line, char *err, size_t errlen);
int nf_read_record(FILE *f, struct nf_record *r, unsigned *line, char *err, size_t errlen);

/* Writing: 0, or -1 with errno (a short write is an error). */
int nf_write_object(FILE *f, const struct nf_object *o);
int nf_write_record(FILE *f, const struct nf_record *r);

/* The displaced instructions' lengths add up to nbytes, each displacement fits: 0, else -1. */
int nf_record_check(const struct nf_record *r, char *err, size_t errlen);

#endif
