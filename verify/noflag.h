/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * patchverify --noflag (issue 37): prove, for each function entry of a
 * linked file built without any tracing flag, a place where a 5-byte jump
 * may be written, or name the check that refused it.  One struct nf_file
 * holds what is known about one file; the steps fill it in order:
 *
 *   nf_entries()   entries and fragments: function symbols (.symtab,
 *                  .dynsym) and .eh_frame FDE starts   (noflag_entries.c,
 *                  noflag_ehframe.c)
 *   nf_hazards()   the hazard set H: every address code may reach other
 *                  than by falling through               (noflag_hazards.c,
 *                  the decoding sweep in noflag_sweep.c, its table-like
 *                  jumps in noflag_tables.c, the x86-64 decoder
 *                  noflag_x86.c)
 *   nf_sites()     the site form of each entry, or its refusal
 *                                                        (noflag_sites.c)
 *   nf_report_*()  --list, --summary, --json, --proof   (noflag_report.c)
 *
 * The design, its measurements and the names of the checks are in the
 * issue's notes; x86-64 only for now (noflag_sweep.c and noflag_sites.c
 * decode x86-64; other machines are refused by name before any step).
 */
#ifndef PV_NOFLAG_H
#define PV_NOFLAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "elfobj.h"
#include "elfquery.h"
#include "noflag_proof.h"

/* Why an address is in H (a bit set: one address may have several sources). */
enum { HZ_BRANCH = 1, HZ_CODEADDR = 2, HZ_START = 4, HZ_LANDING = 8, HZ_TABLE = 16 };

struct nf_hazard {
	uint64_t addr;
	uint8_t why;
	uint32_t nbranch;	/* how many direct branches (jumps and calls) land here */
};

/*
 * jmp *R at jmp, R not written between from and it, and into from either
 * nothing falling through (an unconditional jump or a return before it) or
 * a 64-bit mov of R (fallthrough): a pointer jump when every branch into
 * [from, jmp] comes from where R holds a whole pointer (noflag_sweep.c,
 * checked when H is whole).
 */
struct nf_ptrjump {
	uint64_t jmp, from;
	int fam;
	bool fallthrough;	/* the mov before from falls through to it: no branch needed */
};

/* An executable section, the code the sweep reads (PLTs included, for their branches). */
/*
 * A PIC switch: jmp at jmp, its table of 32-bit offsets at table, set by
 * the lea at lea.  entries: how many a compare before the jump allows (0:
 * no bound found, read to the table's extent); from: the first instruction
 * the table's recovery relies on, so no other path may enter in (from, jmp].
 */
struct nf_pictable {
	uint64_t jmp, table, lea, from;
	uint64_t entries;
	size_t nread;		/* entries read (noflag_hazards.c) */
};

/*
 * A PIC switch whose base (register family fam) was set before its run and
 * is written otherwise too in its function: its tables are those of the
 * rip-relative leas whose value reaches the jump (noflag_reach.c), looked
 * for when H is whole.
 */
struct nf_walk;

struct nf_hoisted {
	struct nf_pictable pt;
	int fam;
	size_t first, n;	/* its tables in pictable, once found */
	struct nf_walk *walk;	/* its function decoded, kept for the second walk */
};

/* A direct branch from src into the fragment ents[frag]: src's function owns it. */
struct nf_fragref {
	size_t frag;
	uint64_t src;
};

struct nf_text {
	uint64_t addr, size;
	const uint8_t *bytes;
	bool plt;		/* .plt, .plt.got, .plt.sec: never entries */
};

struct nf_ent {
	uint64_t addr;
	uint64_t end;		/* FDE's, else the symbol's size, else the next start */
	const char *name;	/* NULL: known from .eh_frame only */
	const char *fragment;	/* NULL, or why it is a fragment (never a site) */
	bool fde, sym, has_end;
	bool table;		/* a table-like jump in it, or in a fragment it branches to */

	/* Filled by nf_sites(): a form, or the check that refused it. */
	char form;		/* 'a', 'b', 'c', 'p', or 0 */
	const char *check;
	uint64_t site;
	uint32_t depth;
	uint8_t nbytes, ninsns;
	struct nf_insn insns[NF_MAX_INSNS];
};

struct nf_file {
	const char *path;
	struct elfobj *o;
	struct elfquery *q;
	const struct eo_hdr *h;
	uint64_t size;
	char buildid[129];

	struct nf_text *text;
	size_t ntext;

	struct nf_ent *ents;	/* sorted by address, one per address */
	size_t nents;
	size_t nfdes;		/* every FDE of .eh_frame, as readelf lists them */

	struct nf_hazard *hz;	/* sorted by address, one per address */
	size_t nhz, hzcap;
	size_t hzsorted;	/* hz[0, hzsorted) is: those after, added since (noflag_hazards.c) */

	uint64_t *tablejmp;	/* table-like indirect jumps, sorted */
	size_t ntablejmp, tjcap;
	struct nf_pictable *pictable;	/* PIC switch tables found by the sweep */
	size_t npictable, ptcap;
	struct nf_ptrjump *ptrjump;	/* pointer jumps entered by branches, to check */
	size_t nptrjump, pjcap;
	struct nf_hoisted *hoisted;	/* switches with a base set before their run, to trace */
	size_t nhoisted, hocap;
	size_t tables_read, table_targets;	/* recovered: tables and their entries */
	struct nf_fragref *fragref;	/* direct branches into fragments */
	size_t nfragref, frcap;
	bool orphan_table;	/* a fragment with a table-like jump that no function reaches */
	uint64_t undecodable;	/* bytes the sweep could not decode (stepped over one by one) */
	uint64_t insns;		/* instructions the sweep decoded */
};

/* noflag_file.c: the arrays and lookups every step uses */
/* The executable section holding addr, or NULL. */
const struct nf_text *nf_text_of(const struct nf_file *f, uint64_t addr);
/* The code bytes at addr in an executable section, with *avail bytes after it; NULL if none. */
const uint8_t *nf_code_at(const struct nf_file *f, uint64_t addr, uint64_t *avail);
bool nf_in_text(const struct nf_file *f, uint64_t addr);
/* Room for one more element in the array *v (cap of them, n used): 0 or -ENOMEM. */
int nf_grow(void *v, size_t *cap, size_t n, size_t size);
int nf_hazard_add(struct nf_file *f, uint64_t addr, uint8_t why);
int nf_tablejmp_add(struct nf_file *f, uint64_t addr);
int nf_fragref_add(struct nf_file *f, size_t frag, uint64_t src);
int nf_pictable_add(struct nf_file *f, const struct nf_pictable *pt);
int nf_ptrjump_add(struct nf_file *f, const struct nf_ptrjump *pj);
int nf_hoisted_add(struct nf_file *f, const struct nf_hoisted *ho);
/* The entry (or fragment) whose range holds addr, or NULL. */
struct nf_ent *nf_ent_holding(const struct nf_file *f, uint64_t addr);
/* The first element of H in (lo, hi), or NULL (H sorted). */
const struct nf_hazard *nf_hazard_in(const struct nf_file *f, uint64_t lo, uint64_t hi);
bool nf_tablejmp_in(const struct nf_file *f, uint64_t lo, uint64_t hi);

/* noflag_entries.c */
int nf_entries(struct nf_file *f);

/*
 * noflag_ehframe.c: calls fde(arg, start, size, fragment-why or NULL) for
 * each FDE, and adds the landing pads of its LSDA to H.
 */
typedef int (*nf_fde_fn)(void *arg, uint64_t start, uint64_t size, const char *fragment);
int nf_ehframe(struct nf_file *f, nf_fde_fn fde, void *arg, size_t *nfdes);

/* noflag_hazards.c: H whole and sorted, table-like jumps marked per entry */
int nf_hazards(struct nf_file *f);

/* noflag_sweep.c (x86-64): the linear sweep's branch targets, code addresses, table-like jumps. */
int nf_sweep(struct nf_file *f);
/*
 * noflag_tables.c: the sweep's pointer jumps entered by branches, when H
 * is whole: those not proven are table-like.
 */
int nf_ptrjumps(struct nf_file *f);
/*
 * noflag_reach.c (x86-64), when H is whole but for the hoisted switches'
 * own targets: the tables of each hoisted switch, added to pictable and
 * read (those not traced are unrecovered table-like jumps); then, once H is
 * whole, nf_hoisted_recheck() refuses any whose trace H now breaks.
 */
int nf_hoisted(struct nf_file *f, size_t (*read)(struct nf_file *, struct nf_pictable *, int *));
int nf_hoisted_recheck(struct nf_file *f);
void nf_hoisted_free(struct nf_file *f);
/* noflag_sites.c (x86-64) */
int nf_sites(struct nf_file *f);
/* noflag_x86.c: the decoder's handle closed (at exit) */
void nf_decoder_close(void);

/* noflag_report.c */
struct nf_opts {
	bool list, summary, json;
	const char *proof;
};
void nf_report_begin(const struct nf_opts *opt);
void nf_report_file(const struct nf_opts *opt, const struct nf_file *f);
void nf_report_end(const struct nf_opts *opt);
int nf_write_proof(const struct nf_file *f, const char *out);
/* "OBJECT+0xOFF" for an entry with no name. */
const char *nf_name(const struct nf_file *f, const struct nf_ent *e, char *buf, size_t len);

/* noflag_main.c: patchverify --noflag ... */
int noflag_main(int argc, char **argv);
/* One file: its report (between nf_report_begin and _end) and proof; 0, or -1 said. */
int nf_prove_path(const struct nf_opts *opt, const char *path);

#endif
