// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite help VERB: the verb's man page, as git help and perf help open
 * theirs.  The page is looked for beside this program first, so that the
 * pages of the same tree are shown: man/ above the build directory (build/,
 * build/san/), then share/man/man1 of an installed tree (PREFIX/bin); else
 * man finds patchsite-VERB on its own path.  Without man, the usage text,
 * after one line saying so.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static const char *const verbs[] = {
	"record", "pipe", "replay", "report", "graph", "dump", "info", "script", "ctl", NULL,
};

static bool is_verb(const char *s)
{
	for (const char *const *v = verbs; *v; v++)
		if (!strcmp(*v, s))
			return true;
	return false;
}

/* The page's path beside this program in page, or false. */
static bool page_near(const char *verb, char *page, size_t len)
{
	static const char *const rel[] = { "../man", "../../man", "../share/man/man1" };
	char exe[PATH_MAX - 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return false;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(page, len, "%s/%s/patchsite-%s.1", exe, rel[i], verb);
		if (!access(page, R_OK))
			return true;
	}
	return false;
}

int cmd_help(int argc, char **argv)
{
	char page[PATH_MAX], name[64];

	if (argc < 2) {
		fputs(usage, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (argc > 2 || !is_verb(argv[1]))
		return bad_usage("help: '%s': expected one of record, pipe, replay, report, "
				 "graph, dump, info, script, ctl", argv[1]);
	fflush(stdout);
	if (page_near(argv[1], page, sizeof(page)))
		execlp("man", "man", "-l", page, (char *)NULL);
	else {
		snprintf(name, sizeof(name), "patchsite-%s", argv[1]);
		execlp("man", "man", name, (char *)NULL);
	}
	fprintf(stderr, "patchsite: help: cannot run man (%s): the usage instead\n", strerror(errno));
	fputs(usage, stdout);
	return fflush(stdout) ? 1 : 0;
}
