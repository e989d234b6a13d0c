// SPDX-License-Identifier: GPL-2.0-only
/*
 * The found and not-found functions of each object scanned at start-up
 * (scan.h), one report per module slot, replaced when the slot's object
 * is scanned again.  Written under ps.lock at start-up or when an object
 * is loaded, read by record/store.c right after.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "sites/site.h"
#include "scan.h"

static struct ps_scan_report reports[PS_MAX_MODULES];

const struct ps_scan_report *ps_scan_report_of(const struct ps_module *m)
{
	const struct ps_scan_report *r;

	if (m->index >= PS_MAX_MODULES)
		return NULL;
	r = &reports[m->index];
	return r->m == m && r->path == m->path && r->bias == m->bias ? r : NULL;
}

struct ps_scan_report *ps_scan_report_new(const struct ps_module *m, const char *how)
{
	struct ps_scan_report *r;

	if (m->index >= PS_MAX_MODULES)
		return NULL;
	r = &reports[m->index];
	free(r->miss);
	*r = (struct ps_scan_report){ .m = m, .path = m->path, .bias = m->bias, .how = how };
	return r;
}

bool ps_scan_report_miss(struct ps_scan_report *r, const struct ps_sym *fn, unsigned why)
{
	struct ps_scan_miss *n;

	if (!r)
		return false;
	if (!(r->nmiss & (r->nmiss + 1)) || !r->miss) {	/* 0, 1, 3, 7...: grow to twice */
		n = realloc(r->miss, (2 * r->nmiss + 2) * sizeof(*n));
		if (!n)
			return false;
		r->miss = n;
	}
	r->miss[r->nmiss++] = (struct ps_scan_miss){ .fn = fn, .why = (uint8_t)why };
	return true;
}

const char *ps_scan_why_name(unsigned why)
{
	switch (why) {
	case PS_SCAN_NO_FP: return "no-frame-pointer-prologue";
	case PS_SCAN_NO_CALL: return "no-call-after-prologue";
	case PS_SCAN_NO_ENTRY_CALL: return "no-call-at-entry";
	default: return "no-size-or-code";
	}
}
