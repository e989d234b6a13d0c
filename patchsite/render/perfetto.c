// SPDX-License-Identifier: GPL-2.0-only
/*
 * Perfetto's native trace (dump --perfetto): a stream of TracePackets, the
 * format Perfetto loads at scale where its JSON import is "legacy, best
 * effort" (issue #28).
 *
 * Shape of the output, one sequence (trusted_packet_sequence_id) per
 * thread, so that each thread's interned names and time base are its own:
 *
 *   process P:  TrackDescriptor { uuid, process { pid, process_name } }   (a sequence of its own)
 *   thread T:   packet 1: sequence_flags = INCREMENTAL_STATE_CLEARED,
 *                         trace_packet_defaults { timestamp_clock_id 64,
 *                                                 track_event_defaults { track_uuid T } },
 *                         clock_snapshot { MONOTONIC = t0, 64 = t0 incremental,
 *                                          primary_trace_clock MONOTONIC }
 *               packet 2: TrackDescriptor { uuid T, parent P, thread { pid, tid, name } }
 *               then one packet per event: timestamp = ns since the sequence's previous
 *               packet (clock 64), TrackEvent { type, name_iid } and, the first time a
 *               name is used on the sequence, interned_data { event_names { iid, name } }.
 *
 * A call is a SLICE_BEGIN at its entry and a SLICE_END at its exit (calls
 * still open at the end stay open: Perfetto shows them unfinished); the
 * function tracer's events, markers and static trace events are INSTANTs,
 * markers named by their text, static events with their fields as typed
 * debug annotations; arguments and return values are debug annotations of
 * the begin and end.  What the recording lost is an instant at the head of
 * the thread ("LOST N EVENTS", the count also as an annotation), and on
 * stderr (cmd/view.c).  Memory: the open calls and each thread's names.
 * Time off the CPU (issue 25) is a slice of its own, "off-CPU" or
 * "off-CPU (preempted)", begun and ended at the switch in: it lies between
 * two events of the thread, so it nests in the call it happened in.  Where
 * an event of the thread falls inside it (the counter and CLOCK_MONOTONIC
 * meet to a microsecond or so) the two switches are instants instead,
 * "sched-out" (at that event) and "sched-in", so that the slices still nest.
 *
 * SEQ_NEEDS_INCREMENTAL_STATE is not set on event packets: trace processor
 * reads it only to skip packets after a ring buffer dropped the packet
 * that cleared the state (src/trace_processor/importers/proto/
 * proto_trace_reader.cc); a file written whole has no such gap, and the
 * flag would cost 2 of the ~22 bytes a call takes.
 *
 * Field numbers: google/perfetto protos/perfetto/trace/, as cited at each.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../data/format.h"
#include "pb.h"
#include "walk.h"

/* protos/perfetto/trace/trace.proto: Trace */
#define TRACE_PACKET			1	/* repeated TracePacket packet */
/* protos/perfetto/trace/trace_packet.proto: TracePacket */
#define PKT_TIMESTAMP			8
#define PKT_TIMESTAMP_CLOCK_ID		58
#define PKT_CLOCK_SNAPSHOT		6
#define PKT_TRACK_EVENT			11
#define PKT_TRACK_DESCRIPTOR		60
#define PKT_SEQUENCE_ID			10	/* trusted_packet_sequence_id */
#define PKT_INTERNED_DATA		12
#define PKT_SEQUENCE_FLAGS		13
#define PKT_DEFAULTS			59	/* trace_packet_defaults */
#define SEQ_INCREMENTAL_STATE_CLEARED	1
/* protos/perfetto/trace/trace_packet_defaults.proto: TracePacketDefaults */
#define DEF_TIMESTAMP_CLOCK_ID		58
#define DEF_TRACK_EVENT_DEFAULTS	11
/* protos/perfetto/trace/track_event/track_event.proto: TrackEventDefaults, TrackEvent, EventName */
#define TED_TRACK_UUID			11
#define TE_TYPE				9
#define TE_NAME_IID			10
#define TE_NAME				23
#define TE_DEBUG_ANNOTATIONS		4
#define TYPE_SLICE_BEGIN		1
#define TYPE_SLICE_END			2
#define TYPE_INSTANT			3
#define EVENT_NAME_IID			1
#define EVENT_NAME_NAME			2
/* protos/perfetto/trace/interned_data/interned_data.proto: InternedData */
#define INTERNED_EVENT_NAMES		2
/* protos/perfetto/trace/clock_snapshot.proto: ClockSnapshot, ClockSnapshot.Clock */
#define CS_CLOCKS			1
#define CS_PRIMARY_TRACE_CLOCK		2
#define CLOCK_ID			1
#define CLOCK_TIMESTAMP			2
#define CLOCK_IS_INCREMENTAL		3
/* protos/perfetto/common/builtin_clock.proto; 64..127 are sequence-scoped (clock_snapshot.proto) */
#define BUILTIN_CLOCK_MONOTONIC		3
#define CLOCK_SEQ_INCREMENTAL		64
/* protos/perfetto/trace/track_event/track_descriptor.proto: TrackDescriptor */
#define TD_UUID				1
#define TD_PARENT_UUID			5
#define TD_PROCESS			3
#define TD_THREAD			4
/* protos/perfetto/trace/track_event/process_descriptor.proto: ProcessDescriptor */
#define PD_PID				1
#define PD_PROCESS_NAME			6
/* protos/perfetto/trace/track_event/thread_descriptor.proto: ThreadDescriptor */
#define THD_PID				1
#define THD_TID				2
#define THD_THREAD_NAME			5
/* protos/perfetto/trace/track_event/debug_annotation.proto: DebugAnnotation */
#define DA_NAME				10
#define DA_BOOL				2
#define DA_UINT				3
#define DA_INT				4
#define DA_DOUBLE			5
#define DA_STRING			6
#define DA_POINTER			7

/* One thread's sequence: its id, time base and interned names. */
struct slot {
	char *name;
	uint64_t iid;
	uint64_t hash;
};

struct seq {
	uint32_t id;
	uint64_t last_ns;	/* the incremental clock: the previous packet's time */
	struct slot *names;
	size_t cap, n;
};

struct pf {
	FILE *out;
	struct pb pk;
	uint32_t next_seq;
	int err;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

/* The iid of name on q; *added when it is new (to be sent with this packet). */
static uint64_t seq_intern(struct seq *q, const char *name, bool *added, int *err)
{
	uint64_t h = name_hash(name);
	size_t i;

	*added = false;
	if (2 * (q->n + 1) > q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		struct slot *t = calloc(cap, sizeof(*t));

		if (!t) {
			*err = -ENOMEM;
			return 0;
		}
		for (size_t k = 0; k < q->cap; k++) {
			if (!q->names[k].name)
				continue;
			for (i = q->names[k].hash & (cap - 1); t[i].name; i = (i + 1) & (cap - 1))
				;
			t[i] = q->names[k];
		}
		free(q->names);
		q->names = t;
		q->cap = cap;
	}
	for (i = h & (q->cap - 1); q->names[i].name; i = (i + 1) & (q->cap - 1))
		if (q->names[i].hash == h && !strcmp(q->names[i].name, name))
			return q->names[i].iid;
	q->names[i].name = strdup(name);
	if (!q->names[i].name) {
		*err = -ENOMEM;
		return 0;
	}
	q->names[i].hash = h;
	q->names[i].iid = ++q->n;	/* iids start at 1: 0 means none */
	*added = true;
	return q->n;
}

static void seq_free(struct seq *q)
{
	for (size_t k = 0; k < q->cap; k++)
		free(q->names[k].name);
	free(q->names);
}

static size_t packet_open(struct pf *f, uint32_t seq_id)
{
	size_t m;

	pb_reset(&f->pk);
	m = pb_open(&f->pk, TRACE_PACKET);
	pb_uint(&f->pk, PKT_SEQUENCE_ID, seq_id);
	return m;
}

static void packet_close(struct pf *f, size_t m)
{
	pb_close(&f->pk, m);
	if (f->pk.failed)
		f->err = -ENOMEM;
	else if (fwrite(f->pk.b, 1, f->pk.len, f->out) != f->pk.len)
		f->err = -EIO;
}

/* An event's packet: its time on q's incremental clock (never backwards). */
static size_t event_open(struct pf *f, struct seq *q, uint64_t ns)
{
	size_t m = packet_open(f, q->id);

	if (ns < q->last_ns)
		ns = q->last_ns;
	pb_uint(&f->pk, PKT_TIMESTAMP, ns - q->last_ns);
	q->last_ns = ns;
	return m;
}

static void annotation_uint(struct pb *pk, const char *name, unsigned field, uint64_t v)
{
	size_t m = pb_open(pk, TE_DEBUG_ANNOTATIONS);

	pb_str(pk, DA_NAME, name);
	pb_uint(pk, field, v);
	pb_close(pk, m);
}

static void annotation_str(struct pb *pk, const char *name, const void *s, size_t n)
{
	size_t m = pb_open(pk, TE_DEBUG_ANNOTATIONS);

	pb_str(pk, DA_NAME, name);
	pb_bytes(pk, DA_STRING, s, n);
	pb_close(pk, m);
}

/* A value as replay shows it: an integer, or a pointer when it looks like an address. */
static void annotation_value(struct pb *pk, const char *name, uint64_t v)
{
	char b[32];

	walk_value_text(b, sizeof(b), v);
	annotation_uint(pk, name, b[0] == '0' && b[1] == 'x' ? DA_POINTER : DA_INT, v);
}

static void attach_annotations(struct pb *pk, const struct attach *at)
{
	char name[16];

	for (unsigned i = 0; at && at->args && i < at->nargs; i++) {
		snprintf(name, sizeof(name), "arg%u", i + 1);
		annotation_value(pk, name, at->args[i]);
	}
	if (at && at->has_ret)
		annotation_value(pk, "retval", at->ret);
}

/* A static trace event's fields, typed (patchsite_event.h PATCHSITE_FIELD_*). */
static void event_annotations(struct pb *pk, const struct psr_proc *p, const struct psr_event *e)
{
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, e, &rec, &bytes);

	for (unsigned i = 0; d && i < d->nfields; i++) {
		const struct psr_evfield *fl = &d->f[i];
		struct psr_value v;

		if (!psr_event_field(fl, rec, bytes, &v)) {
			annotation_str(pk, fl->name, "(outside the record)", 20);
			continue;
		}
		switch (fl->kind) {
		case 1: annotation_uint(pk, fl->name, DA_INT, v.u); break;	/* SIGNED */
		case 3: annotation_uint(pk, fl->name, DA_POINTER, v.u); break;	/* POINTER */
		case 4: {							/* FLOAT */
			size_t m = pb_open(pk, TE_DEBUG_ANNOTATIONS);

			pb_str(pk, DA_NAME, fl->name);
			pb_double(pk, DA_DOUBLE, v.d);
			pb_close(pk, m);
			break;
		}
		case 5: {							/* STRING */
			char *t = v.cut ? malloc(v.slen + 6) : NULL;

			if (v.null) {	/* a NULL char *: the pointer, not a string */
				annotation_uint(pk, fl->name, DA_POINTER, 0);
			} else if (t) {	/* cut when recorded: said as the text does */
				memcpy(t, v.s, v.slen);
				memcpy(t + v.slen, "[cut]", 5);
				annotation_str(pk, fl->name, t, v.slen + 5);
			} else if (v.cut) {
				pk->failed = true;
			} else {
				annotation_str(pk, fl->name, v.s, v.slen);
			}
			free(t);
			break;
		}
		case 6: {							/* BYTES: aa:bb:... */
			char *hex = malloc(v.slen * 3 + 1);

			for (size_t k = 0; hex && k < v.slen; k++)
				snprintf(hex + 3 * k, 4, "%02x%s", v.s[k], k + 1 < v.slen ? ":" : "");
			if (hex)
				annotation_str(pk, fl->name, hex, v.slen ? v.slen * 3 - 1 : 0);
			else
				pk->failed = true;
			free(hex);
			break;
		}
		default: annotation_uint(pk, fl->name, DA_UINT, v.u); break;	/* UNSIGNED */
		}
	}
}

/*
 * One TrackEvent packet on q: type at ns, named by name (interned) or by
 * text (inline, for markers, whose texts differ each time); with the
 * annotations of at, or of the static event ev.
 */
static void track_event(struct pf *f, struct seq *q, const struct psr_proc *p, uint64_t ns,
			unsigned type, const char *name, const char *text, const struct attach *at,
			const struct psr_event *ev)
{
	uint64_t iid = 0;
	bool added = false;
	size_t m, te;

	if (name) {
		iid = seq_intern(q, name, &added, &f->err);
		if (f->err)
			return;
	}
	m = event_open(f, q, ns);
	te = pb_open(&f->pk, PKT_TRACK_EVENT);
	pb_uint(&f->pk, TE_TYPE, type);
	if (name)
		pb_uint(&f->pk, TE_NAME_IID, iid);
	else if (text)
		pb_str(&f->pk, TE_NAME, text);
	attach_annotations(&f->pk, at);
	if (ev)
		event_annotations(&f->pk, p, ev);
	pb_close(&f->pk, te);
	if (added) {
		size_t in = pb_open(&f->pk, PKT_INTERNED_DATA);
		size_t en = pb_open(&f->pk, INTERNED_EVENT_NAMES);

		pb_uint(&f->pk, EVENT_NAME_IID, iid);
		pb_str(&f->pk, EVENT_NAME_NAME, name);
		pb_close(&f->pk, en);
		pb_close(&f->pk, in);
	}
	packet_close(f, m);
}

/* What the thread's record lost, as instants at its head, the counts also as annotations. */
static void thread_losses(struct pf *f, struct seq *q, const struct psr_thread *t, uint64_t ns)
{
	char text[200];
	size_t m, te;

	if (t->lost) {
		snprintf(text, sizeof(text), "LOST %" PRIu64 " EVENTS", t->lost);
		m = event_open(f, q, ns);
		te = pb_open(&f->pk, PKT_TRACK_EVENT);
		pb_uint(&f->pk, TE_TYPE, TYPE_INSTANT);
		pb_str(&f->pk, TE_NAME, text);
		annotation_uint(&f->pk, "lost_events", DA_UINT, t->lost);
		pb_close(&f->pk, te);
		packet_close(f, m);
	}
	if (t->overwritten) {
		snprintf(text, sizeof(text), "OVERWRITTEN %" PRIu64 " EVENTS", t->overwritten);
		m = event_open(f, q, ns);
		te = pb_open(&f->pk, PKT_TRACK_EVENT);
		pb_uint(&f->pk, TE_TYPE, TYPE_INSTANT);
		pb_str(&f->pk, TE_NAME, text);
		annotation_uint(&f->pk, "overwritten_events", DA_UINT, t->overwritten);
		pb_close(&f->pk, te);
		packet_close(f, m);
	}
	if (t->stopped) {
		snprintf(text, sizeof(text), "RECORDING STOPPED: %s", t->why);
		track_event(f, q, NULL, ns, TYPE_INSTANT, NULL, text, NULL, NULL);
	}
}

/* The first packets of a thread's sequence: its clock, defaults and track. */
static void thread_head(struct pf *f, struct seq *q, const struct psr_proc *p,
			const struct psr_thread *t, uint64_t uuid, uint64_t parent, uint64_t t0)
{
	size_t m, d, ted, cs, c, td, th;

	m = packet_open(f, q->id);
	pb_uint(&f->pk, PKT_TIMESTAMP, t0);
	pb_uint(&f->pk, PKT_TIMESTAMP_CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
	pb_uint(&f->pk, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	d = pb_open(&f->pk, PKT_DEFAULTS);
	pb_uint(&f->pk, DEF_TIMESTAMP_CLOCK_ID, CLOCK_SEQ_INCREMENTAL);
	ted = pb_open(&f->pk, DEF_TRACK_EVENT_DEFAULTS);
	pb_uint(&f->pk, TED_TRACK_UUID, uuid);
	pb_close(&f->pk, ted);
	pb_close(&f->pk, d);
	cs = pb_open(&f->pk, PKT_CLOCK_SNAPSHOT);
	c = pb_open(&f->pk, CS_CLOCKS);
	pb_uint(&f->pk, CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
	pb_uint(&f->pk, CLOCK_TIMESTAMP, t0);
	pb_close(&f->pk, c);
	c = pb_open(&f->pk, CS_CLOCKS);
	pb_uint(&f->pk, CLOCK_ID, CLOCK_SEQ_INCREMENTAL);
	pb_uint(&f->pk, CLOCK_TIMESTAMP, t0);
	pb_uint(&f->pk, CLOCK_IS_INCREMENTAL, 1);
	pb_close(&f->pk, c);
	pb_uint(&f->pk, CS_PRIMARY_TRACE_CLOCK, BUILTIN_CLOCK_MONOTONIC);
	pb_close(&f->pk, cs);
	packet_close(f, m);
	q->last_ns = t0;

	m = packet_open(f, q->id);
	pb_uint(&f->pk, PKT_TIMESTAMP, t0);
	pb_uint(&f->pk, PKT_TIMESTAMP_CLOCK_ID, BUILTIN_CLOCK_MONOTONIC);
	td = pb_open(&f->pk, PKT_TRACK_DESCRIPTOR);
	pb_uint(&f->pk, TD_UUID, uuid);
	pb_uint(&f->pk, TD_PARENT_UUID, parent);
	th = pb_open(&f->pk, TD_THREAD);
	pb_sint(&f->pk, THD_PID, p->pid);
	pb_sint(&f->pk, THD_TID, t->tid);
	pb_str(&f->pk, THD_THREAD_NAME, t->comm);
	pb_close(&f->pk, th);
	pb_close(&f->pk, td);
	packet_close(f, m);
}

struct offcpu {
	bool out, said;		/* switched out; its instant already written (crossed) */
	uint64_t ns;
	uint32_t what;
};

static const char *out_name(const struct offcpu *o, bool slice)
{
	if (o->what == PSR_SW_OUT_PREEMPT)
		return slice ? "off-CPU (preempted)" : "sched-out (preempted)";
	return slice ? "off-CPU" : "sched-out";
}

static void perfetto_switch(struct pf *f, struct seq *q, struct offcpu *o, const struct psr_proc *p,
			    const struct psr_event *e)
{
	uint64_t ns = psr_ns(p, e->tsc);

	if (e->id != PSR_SW_IN) {
		*o = (struct offcpu){ .out = true, .ns = ns, .what = e->id };
		return;
	}
	if (!o->out)
		return;
	o->out = false;
	if (o->said) {
		track_event(f, q, p, ns, TYPE_INSTANT, "sched-in", NULL, NULL, NULL);
		return;
	}
	track_event(f, q, p, o->ns, TYPE_SLICE_BEGIN, out_name(o, true), NULL, NULL, NULL);
	track_event(f, q, p, ns, TYPE_SLICE_END, NULL, NULL, NULL, NULL);
}

static void perfetto_thread(struct pf *f, struct stream *m, uint64_t uuid, uint64_t parent)
{
	struct offcpu off = { 0 };
	const struct psr_proc *p = m->p;
	struct seq q = { .id = f->next_seq++ };
	char buf[48];
	static char text[PSD_EXT_MAX_WORDS * 8 + 64];
	size_t k;

	thread_head(f, &q, p, m->t, uuid, parent, m->has_ev ? psr_ns(p, m->ev.tsc) : p->ns0);
	thread_losses(f, &q, m->t, q.last_ns);
	for (; m->has_ev && !f->err; walk_advance(m)) {
		struct psr_event *e = &m->ev;

		if (e->type == PSR_SCHED) {
			perfetto_switch(f, &q, &off, p, e);
			continue;
		}
		if (off.out && !off.said) {	/* an event while off the CPU: see above */
			track_event(f, &q, p, off.ns, TYPE_INSTANT, out_name(&off, false), NULL, NULL,
				    NULL);
			off.said = true;
		}
		if (walk_is_marker(e)) {
			track_event(f, &q, p, psr_ns(p, e->tsc), TYPE_INSTANT, NULL,
				    walk_marker_text(e, text, sizeof(text)), NULL, NULL);
		} else if (walk_is_read(e)) {
			track_event(f, &q, p, psr_ns(p, e->tsc), TYPE_INSTANT, NULL,
				    walk_read_text(m, e, text, sizeof(text)), NULL, NULL);
		} else if (e->type == PSR_EXT && e->ext_kind == PSD_EXT_EVENT) {
			track_event(f, &q, p, psr_ns(p, e->tsc), TYPE_INSTANT,
				    psr_event_name(p, e), NULL, NULL, e);
		} else if (e->type == PSR_FUNC) {
			track_event(f, &q, p, psr_ns(p, e->tsc), TYPE_INSTANT,
				    psr_site_name(p, e->id, e->tsc, buf, sizeof(buf)), NULL,
				    &m->ev_at, NULL);
		} else if (e->type == PSR_ENTRY) {
			if (walk_push_at(m, e->id, e->tsc, 0, NULL)) {
				f->err = -ENOMEM;
				break;
			}
			track_event(f, &q, p, psr_ns(p, e->tsc), TYPE_SLICE_BEGIN,
				    psr_site_name(p, e->id, e->tsc, buf, sizeof(buf)), NULL,
				    &m->ev_at, NULL);
		} else if (e->type == PSR_EXIT && (k = walk_match(m, e->id))) {
			/* An exit closes its call and any call above it whose exit is missing. */
			while (m->depth >= k && !f->err) {
				m->depth--;
				track_event(f, &q, p, psr_ns(p, e->tsc), TYPE_SLICE_END, NULL,
					    NULL, m->depth == k - 1 ? &m->ev_at : NULL, NULL);
			}
		}
	}
	seq_free(&q);
}

int render_perfetto(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct render_ctx ctx = { .with_events = true, .bare = o->bare, .with_sched = true };
	struct pf f = { .out = out, .next_seq = 1 };

	for (size_t i = 0; i < s->nprocs && !f.err; i++) {
		const struct psr_proc *p = &s->procs[i];
		uint64_t puuid = (uint64_t)(i + 1) << 32;	/* threads: puuid + k + 1 */
		struct stream *st;
		size_t n, m, td, pd;

		if (!render_proc_wanted(p, o))
			continue;
		m = packet_open(&f, f.next_seq++);
		td = pb_open(&f.pk, PKT_TRACK_DESCRIPTOR);
		pb_uint(&f.pk, TD_UUID, puuid);
		pd = pb_open(&f.pk, TD_PROCESS);
		pb_sint(&f.pk, PD_PID, p->pid);
		pb_str(&f.pk, PD_PROCESS_NAME, p->exe ? p->exe : "?");
		pb_close(&f.pk, pd);
		pb_close(&f.pk, td);
		packet_close(&f, m);
		st = walk_streams(&ctx, p, o, &n);
		if (!st) {
			f.err = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < n && !f.err; k++)
			perfetto_thread(&f, &st[k], puuid + (uint64_t)(st[k].t - p->threads) + 1,
					puuid);
		walk_streams_free(st, n);
	}
	pb_free(&f.pk);
	return f.err;
}
