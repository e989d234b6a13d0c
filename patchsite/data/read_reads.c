// SPDX-License-Identifier: GPL-2.0-only
/*
 * read= triggers' records (PSD_EXT_READ, data/format.h): the kinds' names,
 * which the command checks, the runtime parses and the readers show, and
 * their text as uftrace 0.13's replay prints it:
 *	read:proc/statm (vmsize=6808KB vmrss=776KB shared=712KB)
 *	diff:proc/statm (vmsize=+4KB vmrss=+0KB shared=+0KB)
 * with IPC, hit and predict percentages in the counters' differences.
 */
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "psread.h"

static const struct {
	const char *name;
	unsigned nvals;
	const char *field[3];
	const char *unit;
} kinds[PSD_READ_N] = {
	[PSD_READ_STATM] = { "proc/statm", 3, { "vmsize", "vmrss", "shared" }, "KB" },
	[PSD_READ_PAGE_FAULT] = { "page-fault", 2, { "major", "minor" }, "" },
	[PSD_READ_PMU_CYCLE] = { "pmu-cycle", 2, { "cycle", "instructions" }, "" },
	[PSD_READ_PMU_CACHE] = { "pmu-cache", 2, { "refers", "misses" }, "" },
	[PSD_READ_PMU_BRANCH] = { "pmu-branch", 2, { "branch", "misses" }, "" },
};

int psr_read_kind(const char *name)
{
	for (int k = 0; k < PSD_READ_N; k++)
		if (!strcmp(name, kinds[k].name))
			return k;
	return -1;
}

const char *psr_read_name(unsigned kind)
{
	return kind < PSD_READ_N ? kinds[kind].name : NULL;
}

unsigned psr_read_nvals(unsigned kind)
{
	return kind < PSD_READ_N ? kinds[kind].nvals : 0;
}

/* A whole record: site id, kind, the kind's values. */
bool psr_read_valid(const struct psr_event *e)
{
	return e->type == PSR_EXT && e->ext_kind == PSD_EXT_READ && !e->truncated &&
	       e->nwords >= 2 && (e->payload[1] & ~(uint64_t)PSD_READ_EXIT) < PSD_READ_N &&
	       e->nwords == 2 + kinds[e->payload[1] & 0xff].nvals;
}

/* The ratio uftrace adds to a counters' difference, or "". */
static void ratio(char *b, size_t n, unsigned kind, const int64_t *d)
{
	*b = '\0';
	if (kind == PSD_READ_PMU_CYCLE && d[0])
		snprintf(b, n, " IPC=%.2f", (double)d[1] / (double)d[0]);
	else if (kind == PSD_READ_PMU_CACHE && d[0])
		snprintf(b, n, " hit=%d%%", (int)((d[0] - d[1]) * 100 / d[0]));
	else if (kind == PSD_READ_PMU_BRANCH && d[0])
		snprintf(b, n, " predict=%d%%", (int)((d[0] - d[1]) * 100 / d[0]));
}

/*
 * "read:KIND (f=v ...)" for values v, or with entry (the same kind's
 * values at the call's entry) "diff:KIND (f=+d ...)".
 */
size_t psr_read_text(unsigned kind, const uint64_t *v, const uint64_t *entry, char *b, size_t n)
{
	int64_t d[3] = { 0 };
	size_t at;
	char r[32];

	if (kind >= PSD_READ_N || !n)
		return 0;
	at = (size_t)snprintf(b, n, "%s:%s (", entry ? "diff" : "read", kinds[kind].name);
	for (unsigned i = 0; i < kinds[kind].nvals && at < n; i++) {
		d[i] = entry ? (int64_t)(v[i] - entry[i]) : 0;
		at += entry ? (size_t)snprintf(b + at, n - at, "%s%s=%+lld%s", i ? " " : "",
					       kinds[kind].field[i], (long long)d[i], kinds[kind].unit)
			    : (size_t)snprintf(b + at, n - at, "%s%s=%llu%s", i ? " " : "",
					       kinds[kind].field[i], (unsigned long long)v[i],
					       kinds[kind].unit);
	}
	ratio(r, sizeof(r), entry ? kind : PSD_READ_N, d);
	if (at < n)
		at += (size_t)snprintf(b + at, n - at, "%s)", r);
	return at < n ? at : n - 1;
}
