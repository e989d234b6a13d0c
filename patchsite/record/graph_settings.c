// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_graph's settings, as ftrace names them: set_graph_notrace,
 * tracing_thresh, the latency tracer's mode and its longest call so far,
 * function_profile's mode.  They are set here, under ps.lock, and read by
 * graph.c's C path (graph.h has the state they share); setting one that the
 * fast paths ignore sends the tracer to its C path (ps_tramp_select).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/textbuf.h"
#include "graph.h"
#include "profile.h"

_Atomic uint64_t ps_graph_thresh_tsc;
static _Atomic unsigned long thresh_us;
_Atomic(struct ps_sitemask *) ps_graph_notrace;
_Atomic bool ps_graph_latency_on;
_Atomic uint64_t ps_graph_max_latency_tsc;
_Atomic bool ps_graph_profile_on;

static double ticks_per_ns(void);

/* set_graph_notrace: globs as set_graph_function's; append adds to them. */
int ps_graph_set_notrace(const char *globs, bool append)
{
	struct ps_globs g = { .set = NULL };
	struct ps_sitemask *old, *m = NULL;
	char *text = NULL;
	int err;

	pthread_mutex_lock(&ps.lock);
	old = atomic_load(&ps_graph_notrace);
	if (append && old && old->text && (text = malloc(strlen(old->text) + strlen(globs) + 2)))
		snprintf(text, strlen(old->text) + strlen(globs) + 2, "%s %s", old->text, globs);
	else
		text = strdup(globs);
	err = text ? ps_filter_apply(&g, text, 1, "set_graph_notrace") : -ENOMEM;
	if (!err && g.set) {
		m = malloc(sizeof(*m) + ps.nsites);
		if (!m)
			err = -ENOMEM;
	}
	if (!err) {
		if (m) {
			m->n = ps.nsites;
			m->text = text;
			text = NULL;
			memcpy(m->set, g.set, ps.nsites);
		}
		atomic_store(&ps_graph_notrace, m);
		ps_tramp_select(false);
		ps_sync_dispatchers();
		if (old)
			free(old->text);
		free(old);
	}
	ps_globs_free(&g);
	free(text);
	pthread_mutex_unlock(&ps.lock);
	return err;
}

void ps_graph_list_notrace(struct ps_buf *out)
{
	struct ps_sitemask *m;
	char buf[256];

	pthread_mutex_lock(&ps.lock);
	m = atomic_load(&ps_graph_notrace);
	for (size_t i = 0; m && i < m->n; i++)
		if (m->set[i] && ps.site_index[i])
			ps_buf_printf(out, "%s\n", ps_site_name(ps.site_index[i], buf, sizeof(buf)));
	pthread_mutex_unlock(&ps.lock);
}

/* The latency tracer's mode (patchsite_set_tracer("latency")); ps.lock held. */
void ps_graph_set_latency(bool on)
{
	if (on)
		ps_tsc_to_ns(ps_clock());	/* the rate, measured now if it must be */
	atomic_store(&ps_graph_latency_on, on);
}

/* Ticks of ns and back, at the rate ps_tsc_to_ns uses. */
static double ticks_per_ns(void)
{
	uint64_t t0 = ps_clock();

	return 1e6 / (double)(ps_tsc_to_ns(t0 + 1000000) - ps_tsc_to_ns(t0));
}

bool ps_graph_latency(void)
{
	return atomic_load(&ps_graph_latency_on);
}

/* function_profile's mode (patchsite_set_tracer("function_profile")); ps.lock held. */
void ps_graph_set_profile(bool on)
{
	if (on)
		ps_profile_prepare();	/* the rate, measured now if it must be */
	atomic_store(&ps_graph_profile_on, on);
}

bool ps_graph_profile(void)
{
	return atomic_load(&ps_graph_profile_on);
}

uint64_t ps_graph_max_latency_ns(void)
{
	uint64_t d = atomic_load(&ps_graph_max_latency_tsc);

	return d ? (uint64_t)((double)d / ticks_per_ns()) : 0;
}

void ps_graph_set_max_latency_ns(uint64_t ns)
{
	atomic_store(&ps_graph_max_latency_tsc, ns ? (uint64_t)((double)ns * ticks_per_ns()) : 0);
}

/* tracing_thresh, in µs (0: off); the C path while it is set. */
int ps_graph_set_thresh(unsigned long us)
{
	uint64_t ticks = 0;

	if (us) {
		ticks = (uint64_t)((double)us * 1000.0 * ticks_per_ns());
		if (!ticks)
			ticks = 1;
	}
	pthread_mutex_lock(&ps.lock);
	atomic_store(&thresh_us, us);
	atomic_store(&ps_graph_thresh_tsc, ticks);
	ps_tramp_select(false);
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

unsigned long ps_graph_thresh(void)
{
	return atomic_load(&thresh_us);
}

