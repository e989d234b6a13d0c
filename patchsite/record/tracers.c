// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracer table: every name current_tracer, available_tracers,
 * patchsite_set_tracer and PATCHSITE_TRACER take, spelled once (the
 * kernel's struct tracer).  A tracer is an ops the runtime registers, and
 * the mode it runs in; nop registers nothing.
 *
 * To add a tracer, add a row: its name, the ops it registers (with the
 * properties the dispatcher reads, api.c wire), the graph tracer's latency
 * mode if it is that ops in another mode, a check run before it starts,
 * and the graph tracer's profile mode (function_profile: counts, no events).
 * The order is available_tracers', and the order in which the tracer now
 * running is recognised (ps_tracer_now): a mode comes before its plain row.
 */
#include <string.h>

#include "core/textbuf.h"
#include "record/record.h"
#include "profile.h"

/* Returns are hooked: every unwinder and longjmp in the process must reach our wrappers. */
static int graph_check(void)
{
	int err = ps_graph_unwinder_check();

	return err ? err : ps_attach_graph_check();
}

static const struct ps_tracer ps_tracers[] = {
	{ "latency", &ps_graph_ops, true, graph_check, false },
	{ "function_profile", &ps_graph_ops, false, graph_check, true },
	{ "function_graph", &ps_graph_ops, false, graph_check, false },
	{ "function", &ps_function_ops, false, NULL, false },
	{ "nop", NULL, false, NULL, false },
	{ NULL, NULL, false, NULL, false }
};

const struct ps_tracer *ps_tracer_find(const char *name)
{
	for (const struct ps_tracer *t = ps_tracers; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* The names, in the table's order, separated by sep: "latency function_profile function_graph ...". */
void ps_tracer_names(struct ps_buf *out, const char *sep)
{
	for (const struct ps_tracer *t = ps_tracers; t->name; t++)
		ps_buf_printf(out, "%s%s", t == ps_tracers ? "" : sep, t->name);
}

static bool registered(const struct patchsite_ops *ops)
{
	return ops && ops->state && ops->state->s.registered;
}

/*
 * The tracer running now: the first row whose ops is registered and whose
 * mode is on (a plain row: whatever the mode), else the row without ops
 * (nop).  ps.lock held.
 */
const struct ps_tracer *ps_tracer_now(void)
{
	const struct ps_tracer *idle = NULL;

	for (const struct ps_tracer *t = ps_tracers; t->name; t++) {
		if (registered(t->ops) && (!t->latency || ps_graph_latency()) &&
		    (!t->profile || ps_graph_profile()))
			return t;
		if (!t->ops && !idle)
			idle = t;
	}
	return idle;
}

/* The plain row of a registered ops (enabled_functions names who wants a site), or NULL. */
const struct ps_tracer *ps_tracer_of(const struct patchsite_ops *ops)
{
	for (const struct ps_tracer *t = ps_tracers; t->name; t++)
		if (t->ops == ops && !t->latency && !t->profile)
			return t;
	return NULL;
}
