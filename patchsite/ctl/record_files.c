// SPDX-License-Identifier: GPL-2.0-only
/*
 * The recording settings' control files (control.h): tracing_on,
 * set_ftrace_pid, tracing_thresh, set_ftrace_args, set_graph_notrace,
 * tracing_max_latency.  Each is a thin layer over the C API, which the
 * environment at start goes through too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/control.h"
#include "internal.h"

static int tracing_on_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_buf_printf(out, "%d\n", patchsite_tracing_is_on());
	return 0;
}

static int tracing_on_write(const char *sub, const char *v, bool append)
{
	unsigned long on;
	int err = ps_ctl_number("tracing_on", v, 0, 1, &on);

	(void)sub, (void)append;
	if (err)
		return err;
	return on ? patchsite_tracing_on() : patchsite_tracing_off();
}

static int pid_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_gate_list_pids(out);
	return 0;
}

static int pid_write(const char *sub, const char *v, bool append)
{
	(void)sub;
	return patchsite_set_ftrace_pid(v, append);
}

static int thresh_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_buf_printf(out, "%lu\n", patchsite_get_tracing_thresh());
	return 0;
}

static int thresh_write(const char *sub, const char *v, bool append)
{
	unsigned long us;
	int err = ps_ctl_number("tracing_thresh", v, 0, 60000000, &us);

	(void)sub, (void)append;
	return err ? err : patchsite_set_tracing_thresh(us);
}

static int args_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_args_list(out);
	return 0;
}

static int args_write(const char *sub, const char *v, bool append)
{
	(void)sub;
	return patchsite_set_ftrace_args(v, append);
}

static int notrace_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_graph_list_notrace(out);
	return 0;
}

static int notrace_write(const char *sub, const char *v, bool append)
{
	(void)sub;
	return patchsite_set_graph_notrace(v, append);
}

static int latency_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	ps_buf_printf(out, "%lu\n", patchsite_get_max_latency());
	return 0;
}

static int latency_write(const char *sub, const char *v, bool append)
{
	unsigned long us;
	int err = ps_ctl_number("tracing_max_latency", v, 0, 1ul << 40, &us);

	(void)sub, (void)append;
	return err ? err : patchsite_set_max_latency(us);
}

const struct ps_ctl_file ps_ctl_record[] = {
	{ "tracing_on", "1 records, 0 stops recording without changing any site (ftrace's "
	  "tracing_on)", tracing_on_read, tracing_on_write, NULL },
	{ "set_ftrace_pid", "only these thread or process ids record; empty: every thread "
	  "(ftrace's set_ftrace_pid)", pid_read, pid_write, NULL },
	{ "tracing_thresh", "function_graph keeps only calls of at least this many µs, with "
	  "their callers (ftrace's tracing_thresh); 0: off", thresh_read, thresh_write, NULL },
	{ "set_ftrace_args", "FUNC@arg1,...,retval: record these integer arguments and return "
	  "values (uftrace's -A/-R; no ftrace file)", args_read, args_write, NULL },
	{ "set_graph_notrace", "function_graph records neither these functions nor what they "
	  "call (ftrace's set_graph_notrace)", notrace_read, notrace_write, NULL },
	{ "tracing_max_latency", "the latency tracer's longest call in µs; 0 starts over "
	  "(ftrace's tracing_max_latency)", latency_read, latency_write, NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};
