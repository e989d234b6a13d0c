/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Between the files of render/: the walk (walk.c) and the state of one
 * render call.  render.h is the folder's interface to its users.
 */
#ifndef PS_RENDER_WALK_H
#define PS_RENDER_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "render.h"

/*
 * What one call of a renderer shows: made by the call from its render_opts (and, per process,
 * from the process's options), handed to its streams.  Kept here, not in file-scope variables,
 * so that calls one after the other (the fuzzer, the runtime at exit) do not see each other's.
 */
struct render_ctx {
	bool with_events;	/* static trace events are shown (replay, Chrome) */
	bool window;		/* replay --latency: only events in [win_lo, win_hi] */
	uint64_t win_lo, win_hi;
	bool bare;		/* render_opts.bare of the call */
	unsigned opts;		/* PSR_OPT_* of the process being shown */
	uint64_t line_ns;	/* function_graph: the time of the event being shown */
	bool with_sched;	/* scheduler switches are shown (replay --sched) */
	bool depths;		/* the graph: -T trace_on/trace_off keep the program's depths */
	bool uprobes;		/* record -A/-a/-R's probes given with their call (psr_uprobe) */
	const char *(*srcline)(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
			       size_t len);	/* render_opts.srcline */
};

/*
 * What extended records following an event add to it (set_ftrace_args):
 * the arguments after an entry, the return value after an exit, and
 * whether the entry is a call open at a fork (PSD_EXT_INHERITED); with
 * ctx->uprobes, the probe of record -A/-a right before the entry and of -R
 * right after the exit (psr_uprobe), as uftrace shows them: in the call.
 */
struct attach {
	const uint64_t *args;	/* nargs values in the mapped file */
	unsigned nargs;
	bool has_ret;
	uint64_t ret;
	bool has_probe, has_ret_probe;
	struct psr_event probe, ret_probe;
	bool inherited;		/* a forked child's: entered in the parent */
	bool nest_only;		/* nested, not drawn (psr_filter_nest_only) */
};

struct frame {
	uint32_t id;
	uint64_t tsc;
	struct attach at;	/* the entry's arguments */
	uint64_t child_ns;	/* time in completed callees */
	size_t path_len;	/* folded: length of the path before this frame */
};

/* A read= trigger's values at an entry, until its exit's (walk_read_text). */
struct read_open {
	uint32_t id;
	unsigned kind;
	uint64_t v[3];
};

/* One thread's events, with one event of lookahead and its open calls. */
struct stream {
	struct render_ctx *ctx;	/* the call's, shared by its streams */
	const struct psr_proc *p;
	const struct psr_thread *t;
	struct psr_cursor cur;
	struct psr_event ev, next;
	struct attach ev_at, next_at;
	bool has_ev, has_next;
	bool blocked;		/* live: its next event waits for more data this round */
	struct psr_cursor at_ev, at_next;	/* live: where ev and next were read (positions) */
	struct frame *stack;
	size_t depth, cap;
	struct read_open *reads;	/* entries' read= values not yet paired with an exit's */
	size_t nreads, capreads;
	char task[64];
	struct psr_fthread *filter;	/* which events to show (render_opts.filter), or NULL */
};

/* A stack trace record (PSD_EXT_STACK: the site id, then return addresses), whole. */
bool walk_is_stack(const struct psr_event *ev);
/*
 * A read= trigger's record (PSD_EXT_READ), whole; its text: the values at
 * an entry, the difference over the call at the exit (paired with the
 * latest entry of the same function and kind in m; shown once each).
 */
bool walk_is_read(const struct psr_event *ev);
const char *walk_read_text(struct stream *m, const struct psr_event *e, char *b, size_t n);
/* A trace_marker line (PSD_EXT_MARKER). */
bool walk_is_marker(const struct psr_event *e);
/* The stream's next shown event into s->ev: false at its end (or, live, its visible end). */
bool walk_advance(struct stream *s);
/* The event after s->ev, read ahead once (NULL at the end). */
const struct psr_event *walk_peek(struct stream *s);
/* A register as uftrace's default form shows it (psr_uprobe_auto_text). */
int walk_value_text(char *b, size_t n, uint64_t v);
/* "(1, 2)" for an entry's arguments, "()" without; then tail. */
const char *walk_args_text(const struct psr_proc *p, char *b, size_t n, const struct attach *at,
			   const char *tail);
/* " = 3" for a return value, "" without; then tail. */
const char *walk_ret_text(const struct psr_proc *p, char *b, size_t n, const struct attach *at,
			  const char *tail);
/*
 * A marker's text (patchsite-data(5): word 0 holds the stored and the
 * written length, the text follows), with what was cut said after it.
 */
const char *walk_marker_text(const struct psr_event *e, char *buf, size_t len);
/* An open call on the stream's stack (at: its arguments); 0 or -ENOMEM. */
int walk_push_at(struct stream *s, uint32_t id, uint64_t tsc, size_t path_len,
		 const struct attach *at);
int walk_push(struct stream *s, uint32_t id, uint64_t tsc, size_t path_len);
/* Depth of the open call an exit of id closes + 1, or 0 when none is open. */
size_t walk_match(const struct stream *s, uint32_t id);
/* ns from time stamp a to b, 0 when b is not later. */
uint64_t walk_dur(const struct psr_proc *p, uint64_t a, uint64_t b);
/* A call's duration from a to b in m's thread: walk_dur, less its time off the CPU
 * unless the sleep-time option is set. */
uint64_t walk_call_ns(const struct stream *m, uint64_t a, uint64_t b);
/* A switch's comment: "sched-out (preempted)", "sched-out" or "sched-in". */
const char *walk_switch_text(const struct psr_event *e);
/* --tid. */
bool walk_thread_wanted(const struct psr_thread *t, const struct render_opts *o);
/* The streams of a process's wanted threads; NULL with *n 0 when none. */
struct stream *walk_streams(struct render_ctx *ctx, const struct psr_proc *p,
			    const struct render_opts *o, size_t *n);
void walk_streams_free(struct stream *s, size_t n);
/* The stream whose next event is the earliest (merge by time); NULL when all are done. */
struct stream *walk_earliest(struct stream *s, size_t n);
/* The options a process is shown with: its recorded ones, then --options. */
void walk_use_options(struct render_ctx *ctx, const struct psr_proc *p, unsigned set,
		      unsigned clear);
/* NAME, or with sym-offset NAME+0xOFF/0xSIZE (ftrace's form) when the function is known. */
void walk_put_sym(FILE *f, const struct render_ctx *ctx, const struct psr_proc *p,
		  const char *name, uint64_t addr, uint64_t tsc);
/* render_losses; bare: the runtime's own trace at exit, whose end is not written yet. */
void walk_losses(FILE *out, const struct psr_proc *p, const char *prefix, bool bare);
/* report's and folded's walk: each wanted thread of each wanted process, one process's streams at a time. */
/*
 * The function tracer's hits have no return, so no place in a tree of calls
 * (dump --graphviz, --mermaid, --folded, --flamegraph, report --graph): a
 * walker counts them per process (walk_hits_count) and their number is said
 * on stderr, not left out silently.  what: the output they are not in.
 */
struct walk_hits {
	const char *what;
	const struct psr_proc *p;	/* the process being counted */
	uint64_t n;
};
void walk_hits_count(struct walk_hits *h, const struct psr_proc *p, const struct psr_event *e);
void walk_hits_say(struct walk_hits *h);	/* at the end of the walk */
int walk_each_thread(const struct psr_session *s, const struct render_opts *o,
		     int (*fn)(struct stream *m, const struct psr_proc *p, void *arg), void *arg);

#endif
