/* SPDX-License-Identifier: GPL-2.0-only */
/* A string -> counts table for report.c and folded.c (table.c). */
#ifndef PS_RENDER_TABLE_H
#define PS_RENDER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hist;
struct psr_proc;

/* A string -> value table (open addressing), for distinct stacks and functions. */
struct entry {
	char *key;
	int pid;
	uint64_t calls, total, self, min, max;
	uint64_t self_min, self_max;	/* of the calls' self times (function_profile's rows: none) */
	uint64_t sum;			/* every call's time, nested recursion included (average) */
	struct hist *hist;		/* table.keep: its call times' histogram, for dist.c */
	uint64_t untimed;		/* of calls: the function tracer's, which have no time */
	uint64_t off;			/* of total: time off the CPU (scheduler switches) */
	uint64_t off_unknown;		/* timed calls in threads whose off-CPU time is unknown */
	const struct psr_proc *src_p;	/* report --srcline: a call's process, site id, time */
	uint32_t src_id;
	uint64_t src_tsc;
};

/*
 * Names come from the reader as stable pointers, one per site: a small
 * direct-mapped cache from that pointer to its entry spares the string
 * hash and compare per call.  It is valid while the table does not grow
 * (gen counts growths).
 */
#define NCACHE 1024
struct table {
	struct entry *e;
	size_t n, cap;
	unsigned gen;
	bool keep;			/* a histogram of call times per entry (--percentiles) */
	const char *keep_only;		/* only for this function (--hist), or NULL: all */
	struct { const char *name; int pid; unsigned gen; struct entry *e; } cache[NCACHE];
};

struct entry *table_lookup(struct table *t, const char *key, int pid);
void table_free(struct table *t);
/* The table's entries, packed (the table's memory, reused). */
size_t table_pack(struct table *t);
/*
 * A completed call: its stats (self = its time less its callees').  A call
 * made while the same function is still running further out (recursion)
 * adds nothing to total, which the outer call's time already holds, as
 * uftrace report counts: total never exceeds the time the thread ran.
 */
int table_account(struct table *t, const char *name, bool stable, int pid, uint64_t d,
		  uint64_t self, bool nested);
/*
 * A completed call's time off the CPU (after table_account; nested: as
 * there, inside a call of the same function already counted), or, known
 * false, that its thread's is unknown.
 */
int table_account_off(struct table *t, const char *name, bool stable, int pid, uint64_t off,
		      bool nested, bool known);
/* A call without a time (the function tracer's): counted, kept out of the time columns. */
int table_account_untimed(struct table *t, const char *name, bool stable, int pid);
/*
 * The calls function_profile counted for a function (h: their histogram; total: outermost
 * calls only, sum: every call), added to its row as table_account would have one by one.
 */
int table_account_counted(struct table *t, const char *name, int pid, const struct hist *h,
			  uint64_t total, uint64_t sum, uint64_t self);

#endif
