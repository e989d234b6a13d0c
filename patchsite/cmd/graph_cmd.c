// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite graph [FUNC]: uftrace's spelling of report --graph[=FUNC]
 * (issue #28).  The arguments become report's: FUNC, the one argument
 * that is neither an option nor an option's value, becomes --graph=FUNC.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

/* report's options whose value may be the next argument (getopt_long's "--pid 3"). */
static bool takes_value(const char *a)
{
	static const char *const with_value[] = { "-d", "--dir", "--pid", "--tid", "--sort",
						  "--options", "--hist", "--diff",
						  /* the filters (patchsite-replay(1), FILTERS) */
						  "-F", "-N", "-H", "-C", "-T", "-D", "-t", "-Z",
						  "-L", "-r", "-G", "--filter", "--notrace", "--hide",
						  "--caller-filter", "--trigger", "--depth",
						  "--time-filter", "--size-filter", "--loc-filter",
						  "--time-range", "--max-stack", "--match", "--trace",
						  NULL };

	for (size_t i = 0; with_value[i]; i++)
		if (!strcmp(a, with_value[i]))
			return true;
	return false;
}

int cmd_graph(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 2, sizeof(*args)), *func = NULL, *opt = NULL;
	int n = 0, rc;

	if (!args)
		return bad_usage("graph: out of memory%s", "");
	args[n++] = "graph";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			continue;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			args[n++] = argv[i];
			if (takes_value(argv[i]) && i + 1 < argc)
				args[n++] = argv[++i];
		} else if (!func) {
			func = argv[i];
		} else {
			free(args);
			return bad_usage("graph: one function at most ('%s' is a second)", argv[i]);
		}
	}
	if (func && !(opt = malloc(strlen(func) + sizeof("--graph=")))) {
		free(args);
		return bad_usage("graph: out of memory%s", "");
	}
	if (func)
		strcat(strcpy(opt, "--graph="), func);
	args[n++] = func ? opt : "--graph";
	rc = cmd_read(REPORT, n, args);
	free(opt);
	free(args);
	return rc;
}
