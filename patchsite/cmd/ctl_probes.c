// SPDX-License-Identifier: GPL-2.0-only
/*
 * `patchsite ctl PID dynamic_events 'f:l/w write fd buf count'`: the
 * runtime never reads DWARF or prototypes (events/probe_fetch.c refuses a
 * name), so the command resolves the names first, as record --probe does
 * (record_cmd.c): a library call's from the prototype list
 * (libcall_args.c), a function of the program's from its DWARF
 * (probe_dwarf.c).  The executable is the process's own, by the path
 * /proc/PID/exe links to, so that its separate debug file is found beside
 * it as gdb finds it.  A line that does not parse, or names nothing, goes
 * as written: the runtime says what is wrong with it, as before.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../events/probe.h"
#include "cmd.h"
#include "ctl_probes.h"
#include "dwarf/libcall_args.h"
#include "dwarf/probe_dwarf.h"

/* The process's executable: the file /proc/PID/exe links to, else that link. */
static void exe_of(int pid, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, out, len - 1);
	if (n > 0 && (size_t)n < len - 1) {
		out[n] = '\0';
		if (!access(out, R_OK))
			return;		/* not " (deleted)", not in another mount namespace */
	}
	snprintf(out, len, "%s", link);
}

static bool names_any(const struct ps_probe_def *d)
{
	for (unsigned i = 0; i < d->nargs; i++)
		if (d->a[i].base == PF_NAME)
			return true;
	return false;
}

/* One line into text: 0 (resolved, or kept), or -1 with why. */
static int one(const char *exe, const char *line, char *text, size_t tlen, char *why, size_t len)
{
	struct ps_probe_def d;
	char err[300];
	int rc;

	if (ps_probe_parse(line, &d, err, sizeof(err)) || !names_any(&d)) {
		snprintf(text, tlen, "%s", line);
		return 0;
	}
	rc = libcall_proto_resolve(exe, &d, err, sizeof(err));
	if (rc < 0 || (rc > 0 && probe_dwarf_resolve(exe, &d, err, sizeof(err)))) {
		snprintf(why, len, "'%s': %s", line, err);
		return -1;
	}
	ps_probe_text(&d, text, tlen);
	return 0;
}

char *ctl_probes_resolve(int pid, const char *value, char *why, size_t len)
{
	char exe[PATH_MAX], text[4096], *copy = strdup(value), *out = NULL, *save = NULL;
	bool oom = !copy, bad = false;

	exe_of(pid, exe, sizeof(exe));
	/* Lines end at a newline or ';', as the runtime splits them (events/probe.c). */
	for (char *l = copy ? strtok_r(copy, "\n;", &save) : NULL; l && !oom && !bad;
	     l = strtok_r(NULL, "\n;", &save)) {
		l += strspn(l, " \t");
		bad = one(exe, l, text, sizeof(text), why, len) != 0;
		oom = !bad && !(out = list_add(out, text, '\n'));
	}
	if (!oom && !bad && !out)
		oom = !(out = strdup(""));	/* only separators: an empty setting */
	free(copy);
	if (oom)
		snprintf(why, len, "out of memory");
	if (oom || bad) {
		free(out);
		return NULL;
	}
	return out;
}
