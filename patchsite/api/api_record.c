// SPDX-License-Identifier: GPL-2.0-only
/*
 * Public recording settings (patchsite.h): set_ftrace_pid, tracing_thresh,
 * set_graph_notrace, tracing_max_latency, set_ftrace_args, filter commands
 * (triggers).  Each starts the
 * runtime if need be (patchsite_init) and hands over to its owner in
 * record/, which assumes a started runtime; errors also go to errno.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "internal.h"

int patchsite_set_ftrace_pid(const char *ids, int append)
{
	int err = patchsite_init();

	if (!err)
		err = ps_gate_set_pids(ids ? ids : "", append != 0);
	if (err)
		errno = -err;
	return err;
}

int patchsite_get_ftrace_pid(int *ids, unsigned max)
{
	return ps_gate_get_pids(ids, max);
}

int patchsite_set_tracing_thresh(unsigned long us)
{
	int err = patchsite_init();

	if (!err)
		err = ps_graph_set_thresh(us);
	if (err)
		errno = -err;
	return err;
}

unsigned long patchsite_get_tracing_thresh(void)
{
	return ps_graph_thresh();
}

int patchsite_set_graph_notrace(const char *globs, int append)
{
	int err = patchsite_init();

	if (!err)
		err = ps_graph_set_notrace(globs ? globs : "", append != 0);
	if (err)
		errno = -err;
	return err;
}

unsigned long patchsite_get_max_latency(void)
{
	return (unsigned long)(ps_graph_max_latency_ns() / 1000);
}

int patchsite_set_max_latency(unsigned long us)
{
	ps_graph_set_max_latency_ns((uint64_t)us * 1000);
	return 0;
}

int patchsite_set_ftrace_args(const char *specs, int append)
{
	int err = patchsite_init();

	if (!err)
		err = ps_args_set(specs ? specs : "", append != 0);
	if (err)
		errno = -err;
	return err;
}

/*
 * set_ftrace_filter's commands: "glob:cmd[:arg]" (record/trigger.c); the
 * command and its count are checked before the runtime starts.
 */
int ps_filter_command(const char *glob, const char *cmd, const char *arg, bool remove)
{
	unsigned c;
	long count;
	int err = ps_trigger_parse(glob, cmd, arg, &c, &count);

	if (err)
		return err;
	err = patchsite_init();
	if (err)
		return err;
	return ps_trigger_set(glob, c, count, remove);
}

/* "FUNC:cmd[:N]", or "!FUNC:cmd" (remove nonzero: removed either way). */
int patchsite_set_trigger(const char *spec, int remove)
{
	char *s, *c1, *c2;
	int err;

	if (!spec || !(s = strdup(spec + (spec[0] == '!'))))
		return -EINVAL;
	remove |= spec[0] == '!';
	/* The command is after the last ':' but one that is not part of ":mod:". */
	c2 = strrchr(s, ':');
	c1 = NULL;
	if (c2) {
		*c2 = '\0';
		c1 = strrchr(s, ':');
		if (c1 && (c1 - s < 4 || strncmp(c1 - 4, ":mod", 4)) &&
		    strcmp(c2 + 1, "traceon") && strcmp(c2 + 1, "traceoff") &&
		    strcmp(c2 + 1, "snapshot") && strcmp(c2 + 1, "stacktrace")) {
			*c1 = '\0';	/* FUNC:cmd:N */
			err = ps_filter_command(s, c1 + 1, c2 + 1, remove);
			free(s);
			return err;
		}
		err = ps_filter_command(s, c2 + 1, NULL, remove);
		free(s);
		return err;
	}
	ps_log(PATCHSITE_LOG_ERROR, "'%s': expected FUNC:command[:count]", spec);
	free(s);
	return -EINVAL;
}

/* The listing into buf (cut to size, NUL-terminated); its whole length. */
long patchsite_get_triggers(char *buf, unsigned long size)
{
	struct ps_buf b = { 0 };
	long n;

	ps_filter_command_list(&b);
	if (b.oom) {
		ps_buf_free(&b);
		return -ENOMEM;
	}
	if (size)
		snprintf(buf, size, "%s", b.p ? b.p : "");
	n = (long)b.len;
	ps_buf_free(&b);
	return n;
}
