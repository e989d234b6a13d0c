// SPDX-License-Identifier: GPL-2.0-only
/* Chrome's trace-event JSON (dump --chrome, PATCHSITE_OUTPUT=chrome). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "json.h"
#include "../data/format.h"
#include "walk.h"

/* Chrome trace-event JSON: per thread, complete "X" events as their calls end. */
/* ,"args":{"arg1":1,...,"retval":3} when there are any. */
static void chrome_args(FILE *f, const struct attach *args, const struct attach *ret)
{
	const char *sep = "";
	char v[32];

	if (!(args && args->args) && !(ret && ret->has_ret))
		return;
	fprintf(f, ",\"args\":{");
	for (unsigned i = 0; args && args->args && i < args->nargs; i++) {
		walk_value_text(v, sizeof(v), args->args[i]);
		fprintf(f, "%s\"arg%u\":%s%s%s", sep, i + 1, v[0] == '0' && v[1] == 'x' ? "\"" : "",
			v, v[0] == '0' && v[1] == 'x' ? "\"" : "");
		sep = ",";
	}
	if (ret && ret->has_ret) {
		walk_value_text(v, sizeof(v), ret->ret);
		fprintf(f, "%s\"retval\":%s%s%s", sep, v[0] == '0' && v[1] == 'x' ? "\"" : "", v,
			v[0] == '0' && v[1] == 'x' ? "\"" : "");
	}
	fprintf(f, "}");
}

static void chrome_event_at(FILE *f, const char **sep, const struct psr_proc *p, int tid,
			    const char *name, const char *ph, uint64_t tsc, const uint64_t *d,
			    const struct attach *args, const struct attach *ret)
{
	fprintf(f, "%s{\"name\":", *sep);
	json_str(f, name);
	fprintf(f, ",\"ph\":\"%s\"", ph);
	if (!strcmp(ph, "i"))
		fprintf(f, ",\"s\":\"t\"");
	if (d)
		fprintf(f, ",\"dur\":%.3f", (double)*d / 1000.0);
	chrome_args(f, args, ret);
	fprintf(f, ",\"ts\":%.3f,\"pid\":%d,\"tid\":%d,\"cat\":\"patchsite\"}",
		(double)psr_ns(p, tsc) / 1000.0, p->pid, tid);
	*sep = ",\n";
}

static void chrome_event(FILE *f, const char **sep, const struct psr_proc *p, int tid,
			 const char *name, const char *ph, uint64_t tsc, const uint64_t *d)
{
	chrome_event_at(f, sep, p, tid, name, ph, tsc, d, NULL, NULL);
}

/* A static trace event: an instant event with its fields, typed, in args. */
static void chrome_static_event(FILE *f, const char **sep, const struct psr_proc *p, int tid,
				const struct psr_event *e)
{
	fprintf(f, "%s{\"name\":", *sep);
	json_str(f, psr_event_name(p, e));
	fprintf(f, ",\"ph\":\"i\",\"s\":\"t\",\"ts\":%.3f,\"pid\":%d,\"tid\":%d,"
		"\"cat\":\"event\",\"args\":", (double)psr_ns(p, e->tsc) / 1000.0, p->pid, tid);
	psr_event_json_args(f, p, e);
	fputc('}', f);
	*sep = ",\n";
}

/*
 * Time off the CPU as a slice of its own on the thread ("off-CPU", or
 * "off-CPU (preempted)"), from a switch out to the next switch in, so that
 * it nests inside the call it happened in.  The switches are stamped by
 * the kernel (CLOCK_MONOTONIC), the calls by the counter; the two meet to
 * a microsecond or so, so a call just before a blocking system call can
 * map after the switch out, and a return just after the wake-up before the
 * switch in.  The thread ran those events, so it was on the CPU then: the
 * slice is the longest stretch between the switches and such events, short
 * of the pair by the microsecond or so, and still nests.
 */
struct offcpu {
	bool out;
	uint64_t tsc, from, to;		/* the latest switch or event; the longest stretch */
	int32_t cpu;
	uint32_t what;
};

static void offcpu_stretch(struct offcpu *o, uint64_t tsc)
{
	if (tsc < o->tsc)
		return;
	if (tsc - o->tsc > o->to - o->from) {
		o->from = o->tsc;
		o->to = tsc;
	}
	o->tsc = tsc;
}

static void chrome_switch(FILE *f, const char **sep, const struct psr_proc *p, int tid,
			  struct offcpu *o, const struct psr_event *e)
{
	if (e->id != PSR_SW_IN) {
		*o = (struct offcpu){ .out = true, .tsc = e->tsc, .from = e->tsc, .to = e->tsc,
				      .cpu = e->cpu, .what = e->id };
		return;
	}
	if (!o->out)
		return;		/* switched in without a switch out seen: nothing to show */
	o->out = false;
	offcpu_stretch(o, e->tsc);
	fprintf(f, "%s{\"name\":\"%s\",\"ph\":\"X\",\"dur\":%.3f,\"ts\":%.3f,\"pid\":%d,"
		"\"tid\":%d,\"cat\":\"sched\",\"args\":{\"cpu_out\":%d,\"cpu_in\":%d}}", *sep,
		o->what == PSR_SW_OUT_PREEMPT ? "off-CPU (preempted)" : "off-CPU",
		(double)walk_dur(p, o->from, o->to) / 1000.0, (double)psr_ns(p, o->from) / 1000.0,
		p->pid, tid, o->cpu, e->cpu);
	*sep = ",\n";
}

static int chrome_thread(FILE *f, const char **sep, struct stream *m)
{
	struct offcpu off = { 0 };
	const struct psr_proc *p = m->p;
	char buf[48];
	uint64_t d;

	fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
		*sep, p->pid, m->t->tid);
	json_str(f, m->t->comm);
	fprintf(f, "}}");
	*sep = ",\n";
	if (m->t->lost && m->has_ev) {
		snprintf(buf, sizeof(buf), "LOST %llu EVENTS", (unsigned long long)m->t->lost);
		chrome_event(f, sep, p, m->t->tid, buf, "i", m->ev.tsc, NULL);
	}
	for (; m->has_ev; walk_advance(m)) {
		static char text[PSD_EXT_MAX_WORDS * 8 + 64];
		struct psr_event *e = &m->ev;
		size_t k;

		if (e->type == PSR_SCHED) {
			chrome_switch(f, sep, p, m->t->tid, &off, e);
			continue;
		}
		if (off.out)
			offcpu_stretch(&off, e->tsc);	/* an event while off the CPU: see above */
		if (walk_is_marker(e)) {
			chrome_event(f, sep, p, m->t->tid, walk_marker_text(e, text, sizeof(text)), "i",
				     e->tsc, NULL);
		} else if (walk_is_read(e)) {
			chrome_event(f, sep, p, m->t->tid, walk_read_text(m, e, text, sizeof(text)), "i",
				     e->tsc, NULL);
		} else if (e->type == PSR_EXT && e->ext_kind == PSD_EXT_EVENT) {
			chrome_static_event(f, sep, p, m->t->tid, e);
		} else if (e->type == PSR_FUNC) {
			chrome_event_at(f, sep, p, m->t->tid,
					psr_site_name(p, e->id, e->tsc, buf, sizeof(buf)), "i", e->tsc,
					NULL, &m->ev_at, NULL);
		} else if (e->type == PSR_ENTRY) {
			if (walk_push_at(m, e->id, e->tsc, 0, &m->ev_at))
				return -ENOMEM;
		} else if (e->type == PSR_EXIT && (k = walk_match(m, e->id))) {
			while (m->depth >= k) {
				struct frame *fr = &m->stack[--m->depth];

				d = walk_dur(p, fr->tsc, e->tsc);
				chrome_event_at(f, sep, p, m->t->tid,
						psr_site_name(p, fr->id, fr->tsc, buf, sizeof(buf)), "X",
						fr->tsc, &d, &fr->at,
						m->depth == k - 1 ? &m->ev_at : NULL);
			}
		}
	}
	/* Still open at the end of the record. */
	for (size_t k = 0; k < m->depth; k++)
		chrome_event(f, sep, p, m->t->tid,
			     psr_site_name(p, m->stack[k].id, m->stack[k].tsc, buf, sizeof(buf)), "B",
			     m->stack[k].tsc, NULL);
	return 0;
}

int render_chrome(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct render_ctx ctx = { .with_events = true, .bare = o->bare, .with_sched = true };
	const char *sep = "\n";
	int err = 0;

	fprintf(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	for (size_t i = 0; i < s->nprocs && !err; i++) {
		const struct psr_proc *p = &s->procs[i];
		struct stream *st;
		size_t n;

		if (!render_proc_wanted(p, o))
			continue;
		fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":",
			sep, p->pid);
		json_str(out, p->exe ? p->exe : "?");
		fprintf(out, "}}");
		sep = ",\n";
		st = walk_streams(&ctx, p, o, &n);
		if (!st)
			return -ENOMEM;
		for (size_t k = 0; k < n && !err; k++)
			err = chrome_thread(out, &sep, &st[k]);
		walk_streams_free(st, n);
	}
	fprintf(out, "\n]}\n");
	return err;
}
