/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recordmcount's view of one object: the hook call sites it holds and what
 * the user asked to do with them.  scan.c fills it, emit.c edits and writes
 * the object, list.c prints it.
 */
#ifndef RMC_RECORD_H
#define RMC_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arch;
struct elfobj;
struct symindex;

struct options {
	bool warn;		/* -w: say which untraced sections call the hook */
	bool nop_all;		/* also NOP the recorded sites */
	bool dry_run;		/* find and check, write nothing */
	bool list;		/* print every site */
	bool json;		/* ... as JSON */
	bool pie_table;		/* --pie-table: 32-bit place-relative entries */
	bool replace;		/* --replace: never write into the object itself */
	const char *out;	/* -o: write here instead of in place */
};

struct site {
	size_t sec;		/* section holding the call */
	uint64_t off;		/* offset of the call's first byte */
	unsigned len;
	unsigned align;
	size_t relsec;		/* the hook relocation: its section ... */
	size_t rel;		/* ... and index there */
	const char *hook;
	bool traced;		/* in a section ftrace traces: recorded */
	bool nopped;		/* turned into a NOP in this run */
};

struct record {
	const char *path;
	struct elfobj *o;
	const struct arch *a;
	struct symindex *si;
	struct site *sites;
	size_t nsites, cap, ntraced;
	struct site *cyg;	/* --list: -finstrument-functions calls (cyg.c), never recorded */
	size_t ncyg;
	bool rela;		/* the table's relocations: RELA, or REL */
	bool pcrel;		/* --pie-table: entries relative to local symbols only */
};

/* Exit-status classes, worst wins. */
enum rmc_status { RMC_OK = 0, RMC_REJECTED = 1, RMC_SYSERR = 2 };

/* The object already has a table (ours, gcc's -mrecord-mcount, objtool's). */
bool scan_has_table(const struct record *r);
/* The symbol index, built on first use (only messages and listings need it). */
struct symindex *record_symindex(struct record *r);
/* Forget the index: symbols were added, its pointers are stale. */
void record_symindex_reset(struct record *r);
/*
 * For each site, the index of the symbol its entry is relative to (0 for
 * untraced sites), adding symbols where needed; NULL after an error.
 */
long *refs_choose(struct record *r);
/* gcc -flto bytecode and no code: refused by name (lto.c). */
bool lto_bytecode_only(const struct record *r);
/* --list, --json: the calls to __cyg_profile_func_enter/exit (cyg.c). */
enum rmc_status cyg_scan(struct record *r);
/* Find and check every hook call.  Reports its own errors. */
enum rmc_status scan_object(struct record *r);
/* NOP what must be NOPed, add the table, write the object. */
enum rmc_status emit_object(struct record *r, const struct options *opt);
/* --list / --json output. */
void list_begin(FILE *f, const struct options *opt);
void list_object(FILE *f, struct record *r, const struct options *opt, bool first);
void list_end(FILE *f, const struct options *opt);

#endif
