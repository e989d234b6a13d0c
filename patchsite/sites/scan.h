/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What start-up found in an object without a site table (scan.c for -pg,
 * cyg.c for -finstrument-functions): how many functions got sites, and
 * each function that did not, with why.  record/store.c writes it into the
 * object's mod.N file, from which `patchsite info` says it.
 */
#ifndef PS_SCAN_H
#define PS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ps_module;
struct ps_sym;

enum ps_scan_why {
	PS_SCAN_NO_FP,		/* no frame-pointer prologue */
	PS_SCAN_NO_CALL,	/* no call to the hook right after it */
	PS_SCAN_NO_SIZE,	/* no size, or no code in the file */
	PS_SCAN_NO_ENTRY_CALL,	/* no call to the entry hook at its entry (-mfentry) */
};

struct ps_scan_miss {
	const struct ps_sym *fn;
	uint8_t why;		/* enum ps_scan_why */
};

struct ps_scan_report {
	const struct ps_module *m;
	const char *path;		/* with bias: that the module is still the one scanned */
	uintptr_t bias;
	const char *how;		/* "mcount" (scan.c), "fentry" (scan_entry.c) or "cyg" (cyg.c) */
	size_t found;
	struct ps_scan_miss *miss;
	size_t nmiss;
};

/* The report of m's scan, or NULL (it has a table, or was not scanned). */
const struct ps_scan_report *ps_scan_report_of(const struct ps_module *m);
/* A new report for m (the old one of its slot dropped), or NULL without memory. */
struct ps_scan_report *ps_scan_report_new(const struct ps_module *m, const char *how);
/* Adds fn, not found for why; false without memory (the report is then short). */
bool ps_scan_report_miss(struct ps_scan_report *r, const struct ps_sym *fn, unsigned why);
const char *ps_scan_why_name(unsigned why);

#endif
