// SPDX-License-Identifier: GPL-2.0-only
/*
 * Public tracer settings (patchsite.h): the built-in tracer in use (by its
 * name in record/tracers.c), the graph tracer's depth, the buffer size.
 * Switching tracers unregisters one ops and registers the other through
 * api.c; the filters set through ops NULL are copied across.
 */
#include <errno.h>

#include "core/textbuf.h"
#include "internal.h"
#include "record/profile.h"

static int copy_filters(struct patchsite_ops *to, struct patchsite_ops *from)
{
	struct ps_ops_state *a, *b;
	int err = -ENOMEM;

	pthread_mutex_lock(&ps.lock);
	a = ps_ops_state(to);
	b = ps_ops_state(from);
	if (a && b) {
		err = ps_globs_copy(&a->filter, &b->filter);
		if (!err)
			err = ps_globs_copy(&a->notrace, &b->notrace);
	}
	pthread_mutex_unlock(&ps.lock);
	return err;
}

/*
 * The latency and function_profile tracers are function_graph in a mode
 * (record/graph.c, record/profile.c).
 */
static void set_modes(const struct ps_tracer *t)
{
	pthread_mutex_lock(&ps.lock);
	ps_graph_set_latency(t->latency);
	ps_graph_set_profile(t->profile);
	ps_tramp_select(false);
	pthread_mutex_unlock(&ps.lock);
}

/* "no tracer named 'x' (latency, function_graph, function, nop)" */
static int no_tracer(const char *name)
{
	struct ps_buf names = { 0 };

	ps_tracer_names(&names, ", ");
	ps_log(PATCHSITE_LOG_ERROR, "no tracer named '%s' (%s)", name, names.p ? names.p : "");
	ps_buf_free(&names);
	return ps_api_ret(-EINVAL);
}

static int set_tracer(const char *name);

/* The tracer, and a line in the trace directory's `tracers` when it changes (store.c). */
int patchsite_set_tracer(const char *name)
{
	int err = set_tracer(name);

	if (!err) {
		pthread_mutex_lock(&ps.lock);
		ps_store_tracer(name);
		pthread_mutex_unlock(&ps.lock);
	}
	return err;
}

static int set_tracer(const char *name)
{
	const struct ps_tracer *t = name ? ps_tracer_find(name) : NULL;
	struct patchsite_ops *cur = ps_tracer_now()->ops, *want;
	int err;

	if (!name)
		return ps_api_ret(-EINVAL);
	if (!t)
		return no_tracer(name);
	want = t->ops;
	set_modes(t);
	if (cur == want)
		return 0;
	if (cur) {
		err = patchsite_unregister_function(cur);
		if (err)
			return err;
	}
	if (!want)
		return 0;
	/* Filters set through ops NULL live on the function ops; the other tracers share them. */
	if (want != &ps_function_ops) {
		err = t->check ? t->check() : 0;
		if (!err)
			err = copy_filters(want, &ps_function_ops);
		if (err)
			return ps_api_ret(err);
	}
	return patchsite_register_function(want);
}

const char *patchsite_get_tracer(void)
{
	const struct ps_tracer *t;

	pthread_mutex_lock(&ps.lock);
	t = ps_tracer_now();
	pthread_mutex_unlock(&ps.lock);
	return t->name;
}

unsigned patchsite_get_graph_max_depth(void)
{
	return ps_graph_max_depth;
}

unsigned long patchsite_get_buffer_kb(void)
{
	return (unsigned long)(ps_ring_bytes / 1024);
}

int patchsite_set_graph_max_depth(unsigned depth)
{
	if (depth < 1 || depth > 1024)
		return ps_api_ret(-EINVAL);
	ps_graph_max_depth = depth;
	return 0;
}
