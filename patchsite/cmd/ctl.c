// SPDX-License-Identifier: GPL-2.0-only
/* `patchsite ctl PID FILE [VALUE...]`: a control file of a running process (patchsite(1)). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach/attach.h"
#include "ctl_probes.h"
#include "ctlclient.h"

static const char ctl_usage[] =
	"usage: patchsite ctl [--append] PID FILE [VALUE...]\n"
	"       patchsite ctl --list PID\n"
	"Reads FILE of process PID's control channel, or writes VALUE (the words\n"
	"joined by spaces) to it; --append adds as ftrace's '>>' does.  --list shows\n"
	"every file with what it is.  See patchsite(1) and patchsite(7).\n";

static int usage_error(const char *what)
{
	fprintf(stderr, "patchsite: ctl: %s\n(patchsite ctl --help for usage)\n", what);
	return 2;
}

/* argv[from..argc) joined by single spaces; NULL when there are none. */
static char *joined(int argc, char **argv, int from)
{
	size_t n = 1;
	char *s;

	if (from >= argc)
		return NULL;
	for (int i = from; i < argc; i++)
		n += strlen(argv[i]) + 1;
	s = calloc(1, n);
	for (int i = from; s && i < argc; i++)
		strcat(strcat(s, i > from ? " " : ""), argv[i]);
	return s;
}

int cmd_ctl(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "append", no_argument, NULL, 'a' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool append = false, list = false;
	char *value, *reply, *end;
	enum psctl_op op;
	long pid;
	int c, err;

	while ((c = getopt_long(argc, argv, "+alh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': append = true; break;
		case 'l': list = true; break;
		case 'h': fputs(ctl_usage, stdout); return 0;
		default: return usage_error("bad option");
		}
	}
	if (optind >= argc)
		return usage_error("which PID?");
	pid = strtol(argv[optind], &end, 10);
	if (*end || end == argv[optind] || pid <= 0 || pid > INT_MAX)
		return usage_error("PID: expected a process id");
	if (list ? optind + 1 != argc : optind + 1 >= argc)
		return usage_error(list ? "--list takes only a PID" : "which FILE? (--list shows them)");
	value = list ? NULL : joined(argc, argv, optind + 2);
	if (append && !value)
		return usage_error("--append needs a VALUE");
	op = list ? PSCTL_LIST : !value ? PSCTL_READ : append ? PSCTL_APPEND : PSCTL_WRITE;
	attach_await_exec((int)pid);
	if (value && !strcmp(argv[optind + 1], "dynamic_events")) {
		/* Names are the command's to resolve (ctl_probes.c): the runtime reads no DWARF. */
		char why[600], *resolved = ctl_probes_resolve((int)pid, value, why, sizeof(why));

		free(value);
		if (!resolved) {
			fprintf(stderr, "patchsite: ctl: dynamic_events: %s\n", why);
			return 1;
		}
		value = resolved;
	}
	err = psctl_request((int)pid, op, list ? NULL : argv[optind + 1], value, &reply);
	if (err == -ENOENT || err == -ECONNREFUSED) {
		/* No channel (or an exec'd image's stale one): attach (attach.c). */
		char why[1024];

		free(reply);
		reply = NULL;
		if (attach_runtime((int)pid, "ctl", why, sizeof(why))) {
			fprintf(stderr, "patchsite: ctl: %s\n", why);	/* the one line */
			free(value);
			return 1;
		}
		err = psctl_request((int)pid, op, list ? NULL : argv[optind + 1], value, &reply);
	}
	free(value);
	if (err) {
		if (reply && !strncmp(reply, "pid ", 4))
			fprintf(stderr, "patchsite: ctl: %s\n", reply);
		else
			fprintf(stderr, "patchsite: ctl: pid %ld: %s\n", pid,
				reply ? reply : strerror(-err));
		free(reply);
		return 1;
	}
	/* a write's reply: what its work refused ("warning: ..." lines), said on stderr */
	if (op == PSCTL_WRITE || op == PSCTL_APPEND)
		for (char *l = reply, *nl; *l; l = nl ? nl + 1 : l + strlen(l)) {
			nl = strchr(l, '\n');
			fprintf(stderr, "patchsite: ctl: pid %ld: %.*s\n", pid,
				(int)(nl ? nl - l : (long)strlen(l)), l);
		}
	else
		fputs(reply, stdout);
	free(reply);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "patchsite: ctl: writing the output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
