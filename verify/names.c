// SPDX-License-Identifier: GPL-2.0-only
/*
 * The names a finding gives, used by every step that reports (calls.c,
 * checks.c, sleds.c, deadcopy.c, events.c, report.c): its place in the file
 * (an address, a function+offset) and its check.  The lowest file of
 * verify/, so that the steps and report.c below audit.c and checks.c call
 * down to it, never back up.
 */
#include <string.h>

#include "verify.h"

uint64_t audit_addr(const struct audit *au, size_t sec, uint64_t off)
{
	const struct eo_sec *s = elfobj_sec(au->o, sec);

	return au->linked && s ? s->addr + off : off;
}

void audit_where(const struct audit *au, size_t sec, uint64_t off, char *buf, size_t len)
{
	symindex_func_where(au->si, au->o, sec, off, buf, len);
}

static const char *const check_names[CHK_COUNT] = {
	[CHK_SITE_NOT_EXEC] = "site-not-exec",
	[CHK_SITE_NOT_CALL] = "site-not-call",
	[CHK_MISALIGNED] = "misaligned",
	[CHK_NOT_AT_ENTRY] = "not-at-entry",
	[CHK_MISSING_SITE] = "missing-site",
	[CHK_UNTRACED_CALL] = "untraced-call",
	[CHK_DUPLICATE] = "duplicate",
	[CHK_UNSORTED] = "unsorted",
	[CHK_ZERO_ENTRY] = "zero-entry",
	[CHK_ORPHAN_SITE] = "orphan-site",
	[CHK_STALE_WEAK] = "stale-weak",
	[CHK_BAD_RELOC] = "bad-reloc",
	[CHK_PATCHABLE_SLED] = "patchable-sled",
	[CHK_NO_TABLE] = "no-table",
	[CHK_EVENT_SITE] = "event-site",
	[CHK_EVENT_DESC] = "event-desc",
	[CHK_TABLE_ALIGN] = "table-align",
};

const char *check_name(enum check c)
{
	return check_names[c];
}

int check_by_name(const char *name)
{
	int i;

	for (i = 0; i < CHK_COUNT; i++)
		if (!strcmp(check_names[i], name))
			return i;
	return -1;
}
