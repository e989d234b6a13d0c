// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite: record a program with libpatchsite into a trace directory,
 * then replay, report and convert what it recorded (patchsite(1)).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "ctlclient.h"

int main(int argc, char **argv)
{
	const char *verb = argc > 1 ? argv[1] : "";

	cmd_demangle_init();

	if (!strcmp(verb, "--help") || !strcmp(verb, "-h")) {
		fputs(usage, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (!strcmp(verb, "help"))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(verb, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(verb, "pipe"))
		return cmd_pipe(argc - 1, argv + 1);
	if (!strcmp(verb, "replay"))
		return cmd_read(REPLAY, argc - 1, argv + 1);
	if (!strcmp(verb, "report"))
		return cmd_read(REPORT, argc - 1, argv + 1);
	if (!strcmp(verb, "dump"))
		return cmd_read(DUMP, argc - 1, argv + 1);
	if (!strcmp(verb, "graph"))
		return cmd_graph(argc - 1, argv + 1);
	if (!strcmp(verb, "info"))
		return cmd_read(INFO, argc - 1, argv + 1);
	if (!strcmp(verb, "script"))
		return cmd_script(argc - 1, argv + 1);
	if (!strcmp(verb, "ctl"))
		return cmd_ctl(argc - 1, argv + 1);
	fprintf(stderr, "patchsite: %s%s\n", *verb ? "unknown command " : "no command given",
		verb);
	fputs(usage, stderr);
	return 2;
}
