/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/: what runs while the program records, as the rest of the runtime
 * sees it.
 *   ring.c, ring.h  per-thread rings; the C path of every event
 *   tracers.c       the tracer table: where a tracer is added
 *   function.c      the function tracer; graph.c function_graph (shadow
 *                   frames, graph.h; the calls it records, graph_filter.h),
 *                   graph_ops.c its dispatcher call and its path (fast or C),
 *                   graph_lost.c returns no frame of the thread holds,
 *                   graph_late.c its checks after attach;
 *                   unwind.c the unwinder and longjmp hooks
 *   args.c          set_ftrace_args (readtrig.c its read= triggers); gate.c tracing_on and set_ftrace_pid;
 *                   trigger.c filter commands; marker.c trace_marker;
 *                   snapshot.c snapshots; options.c trace_options
 *   store.c, store_thread.c (store.h)  the trace directory writer: the
 *                   session, each thread's file and its chunks;
 *                   store_mods.c the objects' mod.N files and modules log;
 *                   store_helper.c the thread that maps chunks ahead
 *   branch_counts.c the branch profiler's counts; output.c PATCHSITE_OUTPUT
 *   graph_fork.c    a forked child's calls open at the fork
 *   graph_settings.c function_graph's settings (set_graph_notrace,
 *                   tracing_thresh, latency, profile mode)
 *   profile.c       function_profile's counters (profile.h); profile_fast.c
 *                   the layout its x86-64 assembly reads
 *   store_reserve.c room on disk before a part is mapped; store_populate.c a
 *                   new chunk's pages put in; store_mods_later.c the mod.N
 *                   files; linebuf.c many short lines to a file
 *   sched_switch.c  time off the CPU: each thread's context switches
 *                   (sched_switch.h); sched_ring.c their perf rings and
 *                   the drain thread
 */
#ifndef PS_RECORD_H
#define PS_RECORD_H

#include "core/ctl_file.h"
#include "sites/site.h"

struct ps_buf;
struct psd_thread_hdr;

/* record/branch_counts.c */
extern bool ps_branches_off;
bool ps_branches_any(void);
/* Also called by testdata/patchsite/branches_{snap,tsan}.c, linked with patchsite.o. */
int ps_branches_write(void);
void ps_branches_capture(void);
void ps_branches_settle(void);
extern const struct ps_watch ps_branches_watch;
extern const struct ps_store_part ps_branches_part;
/* trace_stat/branch_annotated, the counts as a control file (ctl/groups.c lists it). */
extern const struct ps_ctl_file ps_ctl_branches[];

/* record/ring.c, function.c, graph.c, graph_ops.c, unwind.c */
extern struct patchsite_ops ps_function_ops, ps_graph_ops;
extern const struct ps_ops_props ps_function_props, ps_graph_props;
extern size_t ps_ring_bytes;
extern unsigned ps_graph_max_depth;
extern struct ps_globs ps_graph_trigger;	/* PATCHSITE_GRAPH_FUNCTION; set read in the dispatcher */
void ps_unwind_init(void);
void ps_graph_thread_end(void);
void ps_graph_forked(void);
extern void (*ps_graph_thread_exit)(void *ret) __attribute__((noreturn));	/* api.c wire */
int ps_graph_unwinder_check(void);
/*
 * function_graph in a runtime loaded into a running process, without our
 * longjmp and unwinder wrappers (record/graph_late.c): 0 if nothing in the
 * process can longjmp or unwind through a hooked return, else -ENOTSUP, said.
 */
int ps_attach_graph_check(void);
bool ps_ring_ext(unsigned kind, const uint64_t *payload, unsigned words);
/*
 * The same written in place: open gives the payload (NULL: lost, counted);
 * close, once it is written, publishes it (ps_wp_set's release).
 */
uint64_t *ps_ring_ext_open(unsigned kind, unsigned words);
static inline void ps_ring_ext_close(uint64_t *end)
{
	ps_wp_set(&ps_fast, end);
}
bool ps_record_slow(void);
int ps_graph_set_thresh(unsigned long us);
int ps_graph_set_notrace(const char *globs, bool append);
void ps_graph_list_notrace(struct ps_buf *out);
void ps_graph_set_latency(bool on);
bool ps_graph_latency(void);
uint64_t ps_graph_max_latency_ns(void);
void ps_graph_set_max_latency_ns(uint64_t ns);
unsigned long ps_graph_thresh(void);

/* record/tracers.c: the tracer table */
struct ps_tracer {
	const char *name;
	struct patchsite_ops *ops;	/* what it registers; NULL: nothing (nop) */
	bool latency;			/* the graph tracer's latency mode (record/graph.c) */
	int (*check)(void);		/* can it start? 0, or -errno said */
	bool profile;			/* the graph tracer's function_profile mode (record/profile.c) */
};
const struct ps_tracer *ps_tracer_find(const char *name);
void ps_tracer_names(struct ps_buf *out, const char *sep);
const struct ps_tracer *ps_tracer_now(void);
const struct ps_tracer *ps_tracer_of(const struct patchsite_ops *ops);

/* trigger.c: filter commands; snapshot (issue 14 part C) */
extern struct patchsite_ops ps_trigger_ops;
extern const struct ps_ops_props ps_trigger_props;
int ps_trigger_parse(const char *glob, const char *cmd, const char *arg, unsigned *cmd_out,
		     long *count);
int ps_trigger_set(const char *glob, unsigned cmd, long count, bool remove);
void ps_filter_command_list(struct ps_buf *out);	/* as set_ftrace_filter lists them */
/*
 * api_record.c: filter commands in set_ftrace_filter, "glob:cmd[:arg]" for
 * any cmd but "mod" ("!glob:cmd" removes).  0 or -errno with ps_log's
 * error.  The list (above) adds the commands in force to what reading
 * set_ftrace_filter shows, one a line as ftrace prints them.
 */
int ps_filter_command(const char *glob, const char *cmd, const char *arg, bool remove);
int ps_snapshot_take(void);

/* args.c: set_ftrace_args */
unsigned ps_args_want(const struct ps_site *s, unsigned *fs);
/* record/readtrig.c: read= triggers (set_ftrace_args' read=KIND) */
struct perf_event_mmap_page;
unsigned ps_read_put(uint32_t site_id, unsigned mask, bool exit);
bool ps_read_values(unsigned kind, uint64_t v[3]);
bool ps_read_pmc_usable(const struct perf_event_mmap_page *pg, bool arch_has);
void ps_read_thread_end(void);
bool ps_args_on(void);
int ps_args_set(const char *specs, bool append);
void ps_args_list(struct ps_buf *out);

/*
 * retprobe.c: return probes (events/probe.c FUNC%return).  From an ops
 * callback at a function's entry, hook the return of the call whose return
 * slot is loc (patchsite_regs_parent_loc) on the graph tracer's shadow
 * stack: ps_retprobe_fire(data, x, fp, edata, caller) runs when it returns,
 * x and fp the integer and floating-point return registers, edata the n (at
 * most PS_FS_EDATA) entry values the hook was given, kept in the frame,
 * caller the address it returns to.  A call
 * left by longjmp or an exception ends without it.  False: not hooked (a
 * stack not the thread's own, the shadow stack full), counted by the caller.
 */
bool ps_retprobe_hook(unsigned long *loc, void *data, const uint64_t *edata, unsigned n);
extern void (*ps_retprobe_fire)(void *data, uint64_t x, uint64_t fp, const uint64_t *edata,
				uint64_t caller);
/*
 * The caller's address in the return slot loc, seen through our hooks: an
 * ops called after one that hooked the return (a return probe's, the
 * graph's) reads the return trampoline there; the shadow frame has it.
 */
unsigned long ps_retprobe_parent(unsigned long *loc);

/* gate.c: tracing_on and set_ftrace_pid */
bool ps_gate_open(struct ps_thread *t);
bool ps_gate_filtering(void);
void ps_gate_forked(struct ps_thread *t);
int ps_gate_set_pids(const char *ids, bool append);
int ps_gate_get_pids(int *ids, unsigned max);
int ps_gate_set_tracing(bool on);
void ps_gate_list_pids(struct ps_buf *out);

/* store.c */
struct ps_tstore;
bool ps_store_on(void);
int ps_store_file(const char *name, const char *text, size_t len);
const char *ps_store_dir(const char **procname);
void ps_store_remove(void);
void ps_store_set_private(bool on);
bool ps_store_private(void);		/* the directory is PATCHSITE_OUTPUT's own */
void ps_store_set_default_dir(const char *dir);
const char *ps_store_default_dir(void);	/* the channel's directory, or NULL */
int ps_store_open(const char *dir, const char *tracer, bool overwrite, size_t ring_bytes,
		  bool mods_later);
/* mod.N written after the first tracer (ctl's directories): store_mods_later.c's list */
void ps_store_mods_defer(void);
bool ps_store_mods_take(struct ps_module *m);
void ps_store_mods_none(void);
void ps_store_mods_write(void);		/* store_mods.c: the waiting ones written */
int ps_store_thread(struct ps_thread *t, struct ps_fast *f);
/* t's last destructor round: its file finished and its descriptor closed (store_thread.c). */
void ps_store_thread_ended(struct ps_thread *t);
int ps_store_next(struct ps_thread *t, struct ps_fast *f);
bool ps_store_stale(const struct ps_thread *t);
void ps_store_lost(struct ps_thread *t);
void ps_record_lost(void);	/* ring.c: one event lost by the calling thread, said in its file */
void ps_store_finish(void);
void ps_store_finish_exit(int status);
void ps_store_tracer(const char *name);
int ps_store_replace(const char *name, const char *text, size_t len);
void ps_store_forked(struct ps_thread *self);
extern const struct ps_watch ps_store_watch;	/* store_mods.c */
void ps_store_noflag(struct ps_module *m, size_t i);	/* store_mods.c: ps_noflag_watch's */
/*
 * What else writes into the process directory (events, branch counts),
 * registered once at init (api.c wire): any says it has something to
 * record with no function site, opened runs once the directory is made,
 * finishing before it is closed at exit.
 */
struct ps_store_part {
	bool (*any)(void);
	void (*opened)(void);
	void (*finishing)(void);
};
void ps_store_add_part(const struct ps_store_part *p);
struct ps_store_bound {			/* a thread's data now (ps_store_bound) */
	int fd;				/* -1: the reader opens path (the thread's own may close) */
	const struct psd_thread_hdr *hdr;	/* its header, mapped */
	const char *path;		/* its name in the process directory */
	uint64_t seq;			/* chunks started: it writes chunk seq - 1 */
	uint64_t words;			/* words complete in that chunk, from its start */
	size_t chunk;			/* bytes per chunk */
	uint64_t nchunks;		/* overwrite: chunks in the ring, else 0 */
	uint64_t gen;
};
int ps_store_bound(struct ps_thread *t, struct ps_store_bound *b);
uint64_t ps_store_started_since(struct ps_thread *t, const struct ps_store_bound *b);
int ps_store_procfd(void);
uint64_t ps_chunk_events(const uint64_t *chunk, size_t words);

/* marker.c: trace_marker (PSD_EXT_MARKER records) */
#define PS_MARKER_MAX	1024		/* bytes of text kept per marker (ftrace cuts too) */
int ps_marker_write(const char *sub, const char *value, bool append);

/* snapshot.c: copies of the recording so far (patchsite-data(5): snapshot.N) */
int ps_snapshot_take(void);		/* the snapshot's number, or -errno */
int ps_snapshot_read(const char *sub, struct ps_buf *out);
int ps_snapshot_write(const char *sub, const char *value, bool append);

/* options.c: trace_options, PATCHSITE_OPTIONS */
int ps_options_env(bool *overwrite);
void ps_options_started(bool overwrite);
int ps_options_read(const char *sub, struct ps_buf *out);
int ps_options_write(const char *sub, const char *value, bool append);

/* record/output.c */
enum ps_format { PS_FORMAT_FTRACE, PS_FORMAT_CHROME, PS_FORMAT_FOLDED };
extern enum ps_format ps_format;


#endif
