/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `patchsite` prints from a trace directory, and libpatchsite at exit
 * (PATCHSITE_OUTPUT): the ftrace text (text.c), Chrome JSON (chrome.c),
 * folded stacks (folded.c), the per-function report (report.c), the
 * session's summary (info.c) and live rounds (live.c), over one walk
 * (walk.c, walk.h).  Every one reads each thread's events in one pass and
 * keeps only the open calls (and, for the report and folded stacks, one
 * entry per function or distinct stack), never the list of all calls.
 * Beside them: table.c (the string -> counts table, table.h), tree.c (the
 * call tree of report --graph and dump --flamegraph, tree.h), graph.c (report
 * --graph), flame.c (dump --flamegraph), diff.c (report --diff; diff_row.c its values, diff_policy.c its
 * layout by uftrace's --diff-policy, diff.h), report_cols.c
 * (report's keys and columns by uftrace's names), report_task.c (report --task), dist.c
 * (percentiles and histograms, dist.h), profile_stat.c (trace_stat/function),
 * branch_report.c (the branch profiler's report), callgraph.c (dump --graphviz
 * and --mermaid), perfetto.c and pb.c (dump
 * --perfetto and its protobuf writer, pb.h), calls.c (the calls one at a time, for
 * patchsite script).
 */
#ifndef PS_RENDER_H
#define PS_RENDER_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../data/psread.h"

/*
 * report's sort keys and columns (report_cols.c has their names, uftrace's): total, self,
 * calls, the average, minimum and maximum of the total and of the self time, the name.
 */
enum render_sort { SORT_TOTAL, SORT_SELF, SORT_CALLS, SORT_AVG, SORT_MAX, SORT_MIN,
		   SORT_SELF_AVG, SORT_SELF_MIN, SORT_SELF_MAX, SORT_FUNC, SORT_TID };
#define RENDER_MAX_KEYS	12
/* report --diff-policy (uftrace's): its layout asked, sort by signed change, in %, 3 columns. */
enum { RENDER_DIFF_SET = 1, RENDER_DIFF_NOABS = 2, RENDER_DIFF_PERCENT = 4, RENDER_DIFF_FULL = 8 };

struct render_opts {
	int pid, tid;		/* 0: every one */
	const char *proc;	/* only the process directory of this name, or NULL */
	enum render_sort sort[RENDER_MAX_KEYS];	/* report -s: keys in order; nsort 0: total */
	unsigned nsort;
	bool fields;		/* report -f: the columns field[0..nfield) (uftrace's), not its own */
	enum render_sort field[RENDER_MAX_KEYS];
	unsigned nfield;
	bool task;		/* report --task: one row per thread (report_task.c) */
	unsigned diff_policy;	/* report --diff --diff-policy: RENDER_DIFF_* (diff_policy.c) */
	int sort_column;	/* --sort-column: 0 A's, 1 B's, 2 the change (full policy) */
	bool json;
	bool bare;		/* the runtime's own trace at exit (PATCHSITE_OUTPUT): no
				   process header, a return without its call not shown */
	bool latency;		/* replay: only the longest call the latency tracer kept */
	unsigned opt_set, opt_clear;	/* --options: PSR_OPT_* over the recorded ones */
	double pct[8];		/* report --percentiles: ascending (render/dist.h) */
	unsigned npct;
	const char *hist;	/* report --hist=FUNC: that function's histogram instead */
	bool flame_reverse;	/* dump --flamegraph --reverse: an icicle graph */
	bool graph;		/* report --graph[=FUNC]: the call tree (graph.c) instead */
	const char *graph_func;
	bool sched;		/* replay --sched: the threads' scheduler switches shown */
	/* replay --srcline: a site's function's "file:line" (the command's DWARF), or NULL */
	const char *(*srcline)(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
			       size_t len);
	const struct psr_filter *filter;	/* -F -N ... (data/read_filter.c), or NULL */
};

/* The process is one o asks for (inline: every renderer and branch_report.c use it). */
static inline bool render_proc_wanted(const struct psr_proc *p, const struct render_opts *o)
{
	return (!o->pid || p->pid == o->pid) && (!o->proc || !strcmp(p->name, o->proc));
}

int render_replay(FILE *out, const struct psr_session *s, const struct render_opts *o);
int render_report(FILE *out, const struct psr_session *s, const struct render_opts *o);
/* report --task: per thread, its time in calls and its completed calls (report_task.c). */
int render_report_task(FILE *out, const struct psr_session *s, const struct render_opts *o);
/*
 * report -s KEY[,KEY...] and -f FIELD[,FIELD...] by uftrace's names (report_cols.c), into o;
 * avg_self: avg, min and max name the self time's (--avg-self), else the total's.  -EINVAL
 * with *bad the name refused.
 */
int render_parse_keys(struct render_opts *o, const char *list, bool avg_self, const char **bad);
int render_parse_fields(struct render_opts *o, const char *list, const char **bad);
/* --diff-policy=abs|no-abs,percent|no-percent,compact|full into o; -EINVAL, *bad the word. */
int render_parse_diff_policy(struct render_opts *o, const char *list, const char **bad);
/* report --diff=DIR2: per function, s (A) against b (B) and the change (diff.c). */
int render_report_diff(FILE *out, const struct psr_session *s, const struct psr_session *b,
		       const struct render_opts *o);
/* report --graph: the aggregated call tree (graph.c); -ENOENT: no completed call of graph_func. */
int render_graph(FILE *out, const struct psr_session *s, const struct render_opts *o);
int render_chrome(FILE *out, const struct psr_session *s, const struct render_opts *o);
int render_folded(FILE *out, const struct psr_session *s, const struct render_opts *o);
/* An SVG flame graph of the folded stacks (flame.c); icicle with flame_reverse. */
int render_flamegraph(FILE *out, const struct psr_session *s, const struct render_opts *o);
/* Perfetto's protobuf trace (perfetto.c): binary, one sequence per thread. */
/* The call tree as a graph (callgraph.c): DOT for graphviz, a mermaid flowchart. */
int render_graphviz(FILE *out, const struct psr_session *s, const struct render_opts *o);
int render_mermaid(FILE *out, const struct psr_session *s, const struct render_opts *o);
int render_perfetto(FILE *out, const struct psr_session *s, const struct render_opts *o);
/* The summary (info.c): -EBADMSG when a part was damaged or missing (said on stderr). */
int render_info(FILE *out, const struct psr_session *s, const struct render_opts *o);

/*
 * Following a process while it records (patchsite pipe), after each
 * psr_follow: a round prints what is complete (0 or -ENOMEM); positions
 * save and load where each thread's reading stands.
 */
struct render_live;
struct render_live *render_live_new(unsigned opt_set, unsigned opt_clear, bool sched);
void render_live_free(struct render_live *l);
int render_live_round(FILE *out, struct render_live *l, const struct psr_proc *p);
unsigned long long render_live_shown(const struct render_live *l);
void render_live_save(FILE *f, const struct render_live *l);
void render_live_load(FILE *f, struct render_live *l, const struct psr_proc *p);
void render_live_skip(struct render_live *l, const struct psr_proc *p);

/*
 * The calls of a recording one at a time (calls.c), for `patchsite script`:
 * fn gets each; its non-zero return stops the walk and is returned.
 * Pointers in c are valid during the call only.
 */
enum render_call_kind {
	RENDER_CALL_ENTRY, RENDER_CALL_EXIT,
	RENDER_CALL_FUNC,	/* the function tracer's hit: no exit follows */
	RENDER_CALL_EVENT,	/* a trace event or marker: name, text */
};
struct render_call {
	enum render_call_kind kind;
	const struct psr_proc *p;
	const struct psr_thread *t;
	int tid;
	size_t depth;		/* open calls of the thread below this one */
	uint64_t ns;		/* CLOCK_MONOTONIC of the event */
	uint64_t dur_ns;	/* an exit: since its entry, as report's total counts it */
	uint64_t addr;		/* the function's start, or its site when the function is unknown */
	const char *name;
	const uint64_t *args;	/* an entry's recorded arguments (nargs), or NULL */
	unsigned nargs;
	bool has_ret;		/* an exit's recorded return value */
	uint64_t ret;
	const char *text;	/* an event's fields */
	/* record -A's probe before an entry (its fields are the arguments), the return
	 * probe after an exit (its value field is the return value); or NULL */
	const struct psr_event *args_probe, *ret_probe;
};
int render_calls(const struct psr_session *s, const struct render_opts *o,
		 int (*fn)(const struct render_call *c, void *arg), void *arg);

/* Lines saying what is missing from a process's record ("# ..." comments), for every format. */
void render_losses(FILE *out, const struct psr_proc *p, const char *prefix);

#endif
