// SPDX-License-Identifier: GPL-2.0-only
/*
 * Public recording settings (patchsite.h): set_ftrace_pid, tracing_thresh,
 * set_graph_notrace, tracing_max_latency, set_ftrace_args.  Each starts the
 * runtime if need be (patchsite_init) and hands over to its owner in
 * record/, which assumes a started runtime; errors also go to errno.
 */
#include <errno.h>

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
