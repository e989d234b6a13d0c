// SPDX-License-Identifier: GPL-2.0-only
/*
 * The PATCHSITE_* variables patchsite reads, in one list: the runtime's (start.c, ctl/channel.c),
 * the command's and the compiler wrapper's (scripts/patchsite-cc).  Any other PATCHSITE_* name
 * is probably misspelt; psd_env_check says which, and the nearest known name.  It prints
 * nothing itself: the runtime says it only in a process that traces (never on the stderr of a
 * program that traces nothing), `patchsite record` on its own stderr.
 */
#include <stdio.h>
#include <string.h>

#include "env.h"

static const char *const psd_env_names[] = {
	/* the runtime at start-up (start.c) */
	"PATCHSITE_TRACER", "PATCHSITE_FILTER", "PATCHSITE_NOTRACE", "PATCHSITE_OUTPUT",
	"PATCHSITE_BUFFER_KB", "PATCHSITE_FORMAT", "PATCHSITE_GRAPH_FUNCTION",
	"PATCHSITE_MAX_DEPTH", "PATCHSITE_LOG", "PATCHSITE_DATA", "PATCHSITE_OVERWRITE",
	"PATCHSITE_TRACING_ON", "PATCHSITE_PID", "PATCHSITE_THRESH", "PATCHSITE_ARGS",
	"PATCHSITE_GRAPH_NOTRACE", "PATCHSITE_TRIGGER", "PATCHSITE_OPTIONS",
	"PATCHSITE_EVENTS", "PATCHSITE_BRANCHES", "PATCHSITE_PROBES", "PATCHSITE_LIBCALL",
	"PATCHSITE_SCHED", "PATCHSITE_NOFLAG",
	"PATCHSITE_CTL",		/* ctl/channel.c */
	"PATCHSITE_LIB",		/* `patchsite record` */
	"PATCHSITE_LIBPYTHON",	/* `patchsite script` */
	/* the compiler wrapper, scripts/patchsite-cc */
	"PATCHSITE_CC", "PATCHSITE_CXX", "PATCHSITE_TABLE", "PATCHSITE_RECORDMCOUNT",
	NULL
};

/* Letters to change, add or drop to turn a into b (small strings only). */
static unsigned edit_distance(const char *a, const char *b)
{
	unsigned d[64], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (la >= 63 || lb >= 63)
		return 99;
	for (unsigned j = 0; j <= lb; j++)
		d[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned diag = d[0], tmp;

		d[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			tmp = d[j];
			d[j] = diag + (a[i - 1] != b[j - 1]);
			if (d[j - 1] + 1 < d[j])
				d[j] = d[j - 1] + 1;
			if (tmp + 1 < d[j])
				d[j] = tmp + 1;
			diag = tmp;
		}
	}
	return d[lb];
}

size_t psd_env_check(char *const *env, char *out, size_t len)
{
	size_t used = 0;

	if (len)
		out[0] = 0;
	for (char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '='), *best = NULL;
		char name[64];
		unsigned bd = 99;
		int n;

		if (strncmp(*e, "PATCHSITE_", 10) || !eq || (size_t)(eq - *e) >= sizeof(name))
			continue;
		memcpy(name, *e, (size_t)(eq - *e));
		name[eq - *e] = 0;
		for (unsigned k = 0; psd_env_names[k]; k++) {
			unsigned d = edit_distance(name, psd_env_names[k]);

			if (d < bd)
				bd = d, best = psd_env_names[k];
		}
		if (!bd || used >= len)
			continue;
		if (bd <= 3)
			n = snprintf(out + used, len - used, "patchsite: warning: %s: not a variable "
				     "patchsite reads (did you mean %s?)\n", name, best);
		else
			n = snprintf(out + used, len - used, "patchsite: warning: %s: not a variable "
				     "patchsite reads\n", name);
		if (n > 0)
			used = used + (size_t)n < len ? used + (size_t)n : len - 1;
	}
	return used;
}
