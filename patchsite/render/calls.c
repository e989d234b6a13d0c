// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calls of a recording one at a time, as `patchsite script` hands them
 * to a script: entries and exits (an exit with its duration, as report
 * times it), function-tracer hits, trace events and markers, each with its
 * thread, depth, time and name; threads merged by time, as replay shows them.
 * record -A/-a/-R's probes come with their call (the walk's attach): a script
 * gets them in ctx as uftrace's args and retval, as set_ftrace_args' are.
 */
#include <errno.h>
#include <string.h>

#include "../data/format.h"
#include "walk.h"

static int call_exits(struct stream *m, size_t k, struct render_call *c,
		      int (*fn)(const struct render_call *c, void *arg), void *arg)
{
	char buf[32];
	int err = 0;

	while (!err && m->depth >= k) {
		const struct frame *fr = &m->stack[--m->depth];
		uint64_t site = psr_site_addr(m->p, fr->id, fr->tsc), off, size;

		c->kind = RENDER_CALL_EXIT;
		c->depth = m->depth;
		c->dur_ns = walk_dur(m->p, fr->tsc, m->ev.tsc);
		c->name = psr_site_name(m->p, fr->id, fr->tsc, buf, sizeof(buf));
		c->addr = psr_addr_sym(m->p, site, fr->tsc, &off, &size) ? site - off : site;
		/* The return value is the one of the call the exit is for, not of those it closes. */
		c->has_ret = m->depth == k - 1 && m->ev_at.has_ret;
		c->ret = m->ev_at.ret;
		c->ret_probe = m->depth == k - 1 && m->ev_at.has_ret_probe ? &m->ev_at.ret_probe :
			       NULL;
		err = fn(c, arg);
	}
	return err;
}

/* One event of m (m->ev) to fn: 0, fn's non-zero, or -ENOMEM. */
static int call_event(struct stream *m, int (*fn)(const struct render_call *c, void *arg),
		      void *arg)
{
	const struct psr_event *e = &m->ev;
	struct render_call c = { .p = m->p, .t = m->t, .tid = m->t->tid, .depth = m->depth,
				 .ns = psr_ns(m->p, e->tsc) };
	char buf[32], text[4096];
	uint64_t off, size;
	size_t k;

	if (walk_is_marker(e)) {
		c.kind = RENDER_CALL_EVENT;
		c.name = "marker";
		c.text = walk_marker_text(e, text, sizeof(text));
		return fn(&c, arg);
	}
	if (e->type == PSR_EXT && e->ext_kind == PSD_EXT_EVENT) {
		size_t n = psr_event_text(m->p, e, text, sizeof(text));

		c.kind = RENDER_CALL_EVENT;
		c.name = psr_event_name(m->p, e);
		/* "subsys:name: fields": the fields, as uftrace's args of an event */
		c.text = strlen(c.name) + 2 <= n ? text + strlen(c.name) + 2 : "";
		return fn(&c, arg);
	}
	if (e->type == PSR_EXIT)
		return (k = walk_match(m, e->id)) ? call_exits(m, k, &c, fn, arg) : 0;
	if (e->type != PSR_ENTRY && e->type != PSR_FUNC)
		return 0;	/* stack traces, switches: no call */
	c.kind = e->type == PSR_ENTRY ? RENDER_CALL_ENTRY : RENDER_CALL_FUNC;
	c.name = psr_site_name(m->p, e->id, e->tsc, buf, sizeof(buf));
	c.addr = psr_site_addr(m->p, e->id, e->tsc);
	if (psr_addr_sym(m->p, c.addr, e->tsc, &off, &size))
		c.addr -= off;
	c.args = m->ev_at.args;
	c.nargs = m->ev_at.nargs;
	c.args_probe = m->ev_at.has_probe ? &m->ev_at.probe : NULL;	/* -A's, before the entry */
	if (e->type == PSR_ENTRY && walk_push_at(m, e->id, e->tsc, 0, &m->ev_at))
		return -ENOMEM;
	return fn(&c, arg);
}

int render_calls(const struct psr_session *s, const struct render_opts *o,
		 int (*fn)(const struct render_call *c, void *arg), void *arg)
{
	struct render_ctx ctx = { .with_events = true, .uprobes = true };
	int err = 0;

	for (size_t i = 0; i < s->nprocs && !err; i++) {
		const struct psr_proc *p = &s->procs[i];
		struct stream *st, *m;
		size_t ns;

		if (!render_proc_wanted(p, o))
			continue;
		st = walk_streams(&ctx, p, o, &ns);
		if (!st)
			return -ENOMEM;
		while (!err && (m = walk_earliest(st, ns))) {
			err = call_event(m, fn, arg);
			walk_advance(m);
		}
		walk_streams_free(st, ns);
	}
	return err;
}
