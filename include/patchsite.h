/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libpatchsite: dynamic ftrace for user-space programs.
 *
 * Programs built with gcc -pg -mfentry [-mnop-mcount] -mrecord-mcount or
 * -fpatchable-function-entry=5 have a 5- or 6-byte site at the start of
 * every function.  At start-up the library checks each site and turns it
 * into a NOP; a site becomes a call to the library's trampoline only while
 * some registered ops wants that function, and goes back to a NOP when
 * none does.  The names mirror the kernel's ftrace (register_ftrace_function,
 * ftrace_set_filter, ...).
 *
 * Every function returns 0 or a negative errno (and sets errno); nothing
 * here exits or aborts the program.  Types are opaque except struct
 * patchsite_ops, which the caller owns.
 */
#ifndef PATCHSITE_H
#define PATCHSITE_H

#ifdef __cplusplus
extern "C" {
#endif

#define PATCHSITE_API __attribute__((visibility("default")))

struct patchsite_ops;
struct patchsite_regs;			/* saved registers at a traced function's entry */
struct patchsite_ops_state;		/* the library's per-ops state */

/*
 * Called at the entry of every traced function the ops wants: ip is the
 * site (the function's first instruction, or the one after endbr64),
 * parent_ip the return address into the caller.  Runs on the traced
 * thread, possibly in many threads at once; calls from inside it (and from
 * anything it calls) to traced functions are not traced.
 */
typedef void (*patchsite_func_t)(unsigned long ip, unsigned long parent_ip,
				 struct patchsite_ops *op, struct patchsite_regs *regs);

struct patchsite_ops {
	patchsite_func_t func;
#ifdef __cplusplus
	void *private_;			/* C++: `private` is a keyword (same member, same place) */
#else
	void *private;			/* the caller's, as in the kernel's ftrace_ops */
#endif
	unsigned long flags;		/* none defined yet: keep 0 */
	struct patchsite_ops_state *state;	/* library-owned; NULL before first use */
};

/* Start the runtime: find and NOP all sites.  Done by a constructor; idempotent. */
PATCHSITE_API int patchsite_init(void);

PATCHSITE_API int patchsite_register_function(struct patchsite_ops *ops);
/* Returns once no thread can still be running ops->func. */
PATCHSITE_API int patchsite_unregister_function(struct patchsite_ops *ops);
/* Release the library's state of an unregistered ops (its filters). */
PATCHSITE_API int patchsite_ops_release(struct patchsite_ops *ops);

/*
 * Filters, ftrace's syntax: a space- or comma-separated list of
 *   name  prefix*  *suffix  *middle*  (any fnmatch(3) glob)
 *   !glob              remove from the set
 *   glob:mod:libfoo.so restrict to one module (basename, a glob too)
 * reset != 0 clears the set first.  An empty filter set means "every
 * function"; notrace wins over filter.  A glob that matches nothing makes
 * the call fail with -EINVAL and change nothing, except a :mod: token for
 * an object not loaded yet, which waits for it (objects loaded later with
 * dlopen get every filter applied).  ops == NULL names the
 * built-in tracer's ops.
 */
PATCHSITE_API int patchsite_set_filter(struct patchsite_ops *ops, const char *globs, int reset);
PATCHSITE_API int patchsite_set_notrace(struct patchsite_ops *ops, const char *globs, int reset);

/*
 * Built-in tracers: "function" (entry events), "function_graph" (entry and
 * exit with durations; the return address is hooked through a per-thread
 * shadow stack), "nop".  Their filters are the ones ops NULL names.
 */
PATCHSITE_API int patchsite_set_tracer(const char *name);
/*
 * function_graph only records calls made, directly or not, from functions
 * matching these globs (ftrace's set_graph_function); an empty set means
 * every call.  Same syntax and errors as patchsite_set_filter.
 */
PATCHSITE_API int patchsite_set_graph_function(const char *globs, int reset);
/* function_graph records calls up to this depth (1..1024, default 1024; ftrace's max_graph_depth). */
PATCHSITE_API int patchsite_set_graph_max_depth(unsigned depth);
/*
 * Getters of the settings above: "function", "function_graph", "latency" or "nop";
 * the graph depth; the per-thread buffer in KB.  patchsite_ctl_read reads
 * every setting by its control file's name (patchsite(7)).
 */
PATCHSITE_API const char *patchsite_get_tracer(void);
PATCHSITE_API unsigned patchsite_get_graph_max_depth(void);
PATCHSITE_API unsigned long patchsite_get_buffer_kb(void);
/*
 * ftrace's tracing_on: off stops the built-in tracers' recording and every
 * ops callback from the next call on, without changing any site (the
 * sites stay calls; set_tracer("nop") or unregistering makes them NOPs
 * again).  function_graph still closes the calls it had opened.
 */
PATCHSITE_API int patchsite_tracing_on(void);
PATCHSITE_API int patchsite_tracing_off(void);
PATCHSITE_API int patchsite_tracing_is_on(void);
/*
 * ftrace's set_ftrace_pid for the built-in tracers: only threads whose id
 * is listed, or every thread of a listed process id, record.  ids: decimal
 * ids separated by blanks, commas or newlines; append adds to the list;
 * "" with append 0 clears it (every thread records).
 * patchsite_get_ftrace_pid fills ids (up to max) and returns how many
 * are listed, 0 when none (every thread).
 */
PATCHSITE_API int patchsite_set_ftrace_pid(const char *ids, int append);
PATCHSITE_API int patchsite_get_ftrace_pid(int *ids, unsigned max);
/*
 * ftrace's tracing_thresh: function_graph keeps only calls that took at
 * least us microseconds, and the calls they were made from (0: every call).
 */
PATCHSITE_API int patchsite_set_tracing_thresh(unsigned long us);
PATCHSITE_API unsigned long patchsite_get_tracing_thresh(void);
/*
 * Integer arguments and return values for the built-in tracers:
 * "FUNC@arg1,arg2,retval" specs separated by ';' or blanks (patchsite(7));
 * append adds to those set; "" with append 0 clears.  x86_64 and
 * aarch64 (elsewhere -ENOTSUP).  Read back with patchsite_ctl_read("set_ftrace_args").
 */
PATCHSITE_API int patchsite_set_ftrace_args(const char *specs, int append);
/*
 * ftrace's set_graph_notrace: function_graph records neither these
 * functions nor anything they call (globs as patchsite_set_filter; append
 * adds; "" with append 0 clears).  Read with patchsite_ctl_read.
 */
PATCHSITE_API int patchsite_set_graph_notrace(const char *globs, int append);
/*
 * The latency tracer (patchsite_set_tracer("latency")): function_graph
 * keeping only the longest top-level call (of set_graph_function's
 * functions, or any) seen so far; tracing_max_latency in µs, which the
 * next call must exceed to be kept (0: any).
 */
PATCHSITE_API unsigned long patchsite_get_max_latency(void);
PATCHSITE_API int patchsite_set_max_latency(unsigned long us);
/*
 * ftrace's filter commands: "FUNC:traceon[:N]", "FUNC:traceoff[:N]",
 * "FUNC:snapshot[:N]", "FUNC:stacktrace[:N]" (N: how many more times it
 * fires; none: always); "!FUNC:cmd" or remove nonzero takes it away.  The
 * control file set_ftrace_filter takes and lists them too.
 */
PATCHSITE_API int patchsite_set_trigger(const char *spec, int remove);
/* The commands set, one function a line as ftrace lists them (leaf:traceoff:count=2); as ctl_read. */
PATCHSITE_API long patchsite_get_triggers(char *buf, unsigned long size);

/*
 * Write and empty the built-in tracers' buffers: ftrace's text format, or
 * what PATCHSITE_FORMAT chose (chrome JSON, folded stacks).
 */
PATCHSITE_API int patchsite_trace_write(int fd);
/* Per-thread buffer size of the built-in tracer, from the next thread buffer on. */
PATCHSITE_API int patchsite_set_buffer_kb(unsigned long kb);

/*
 * available_filter_functions: one call per site, in address order, under
 * the name traces show; then one call per other name of the same function
 * (aliases: several symbols at one address, e.g. functions gcc's -fipa-icf
 * folded), flagged PATCHSITE_FUNC_ALIAS.  Filters match every name.
 */
enum patchsite_func_flags {
	PATCHSITE_FUNC_ENABLED = 1,	/* currently a call to the trampoline */
	PATCHSITE_FUNC_REFUSED = 2,	/* bytes were not what we expect: never written */
	PATCHSITE_FUNC_ALIAS = 4,	/* another name of the site just listed */
};
typedef int (*patchsite_func_cb)(const char *name, const char *module, unsigned long ip,
				 unsigned flags, void *arg);
/* Stops at and returns the first nonzero value cb returns. */
PATCHSITE_API int patchsite_for_each_function(patchsite_func_cb cb, void *arg);

/*
 * Counters: "sites", "enabled", "refused", "batches" (live patch batches),
 * "pokes" (sites changed live), "traps_emulated" (a thread hit a site while
 * it changed and the breakpoint handler emulated it), "traps_retried" (the
 * handler ran after the change completed), "missed" (entries skipped by
 * the recursion guard), "init_ns" (start-up: find, check and NOP every
 * site, map the stubs; wall time), "init_cpu_ns" (the same in CPU time).
 * Unknown name: 0 with errno EINVAL.
 */
PATCHSITE_API unsigned long patchsite_stat(const char *name);

/* Argument registers at entry: n = 0..5 for rdi, rsi, rdx, rcx, r8, r9. */
PATCHSITE_API unsigned long patchsite_regs_arg(const struct patchsite_regs *regs, unsigned n);
/* Where the return address into the caller is stored. */
PATCHSITE_API unsigned long *patchsite_regs_parent_loc(struct patchsite_regs *regs);

/*
 * Control files, named and behaving as ftrace's tracefs files
 * (patchsite(7) lists them): what `patchsite ctl PID FILE [VALUE]` reads and
 * writes from outside the process, and the environment at start.
 * patchsite_ctl_read puts the file's text into buf (cut to size, always
 * NUL-terminated when size > 0) and returns its whole length, or -errno.
 * patchsite_ctl_write replaces the setting with value, or adds to it when
 * append is nonzero (as `>>` does); 0 or -errno.  On an error,
 * patchsite_last_error() says why (the calling thread's last error).
 */
PATCHSITE_API long patchsite_ctl_read(const char *file, char *buf, unsigned long size);
PATCHSITE_API int patchsite_ctl_write(const char *file, const char *value, int append);
PATCHSITE_API const char *patchsite_last_error(void);

/*
 * trace_marker: text (one line; a trailing newline is dropped) recorded in
 * the calling thread's ring now, in its order with the thread's calls.
 * Returns the bytes kept (text past 1024 bytes is cut, and the record says
 * so), or -errno (no built-in tracer records this thread, ring full).
 */
PATCHSITE_API long patchsite_trace_marker(const char *text);

/*
 * snapshot: the recording so far of every thread (overwrite mode: what each
 * ring holds) copied into the trace directory as snapshot N
 * (patchsite-data(5)), read with `patchsite replay --snapshot=N`.  Returns
 * N (1, 2, ...), or -errno.
 */
PATCHSITE_API int patchsite_snapshot(void);

/*
 * Messages go to fn.  On stderr only when the environment asks: PATCHSITE_LOG=1
 * (everything), or PATCHSITE_TRACER set (warnings and errors).
 */
enum patchsite_log_level { PATCHSITE_LOG_NOTE, PATCHSITE_LOG_WARNING, PATCHSITE_LOG_ERROR };
typedef void (*patchsite_log_func_t)(enum patchsite_log_level level, const char *msg, void *arg);
PATCHSITE_API void patchsite_set_log(patchsite_log_func_t fn, void *arg);

/*
 * Static trace events (include/patchsite_event.h, patchsite_event(3)).
 * event is "subsys:name"; enable and disable also take fnmatch(3) globs
 * ("netsim:*", "*:send"), remembered in order and applied to events of
 * objects loaded later (the last rule that matches an event decides).
 * Enabling records the event into the built-in tracer's rings (the trace
 * directory); it is the default-priority probe of the event.  A glob that
 * matches no event loaded yet is kept, and the call returns 0.
 */
PATCHSITE_API int patchsite_enable_event(const char *event);
PATCHSITE_API int patchsite_disable_event(const char *event);
/* 1 recorded, 0 not, -ENOENT no such event loaded. */
PATCHSITE_API int patchsite_event_is_enabled(const char *event);

/* What a probe is told about the event (valid while the event's object is loaded). */
struct patchsite_event_info {
	const char *subsys, *name, *fmt;
	unsigned id;			/* as in the trace directory's events file */
	unsigned nfields;
	const char *const *field_names;
	const unsigned char *field_kinds;	/* enum patchsite_field_kind */
};
/*
 * A probe: args holds one word per field, in order: integers sign- or
 * zero-extended to 64 bits, pointers (C strings and byte arrays too: the
 * caller's, valid only during the call), float and double as the bits of
 * a double.  Runs on the emitting thread.
 */
typedef void (*patchsite_event_probe)(void *data, const struct patchsite_event_info *ev,
				      const unsigned long long *args);
#define PATCHSITE_EVENT_PRIO_DEFAULT 10	/* the recorder's; higher runs first */
/*
 * Several probes per event (the kernel's register_trace_prio): higher
 * priority first, equal ones in registration order.  -ENOENT: no such
 * event loaded; -EEXIST: fn and data already registered on it.
 * Unregistering returns once no thread can still be running the probe.
 */
PATCHSITE_API int patchsite_event_probe_register(const char *event, patchsite_event_probe fn,
						 void *data, int prio);
PATCHSITE_API int patchsite_event_probe_unregister(const char *event, patchsite_event_probe fn,
						   void *data);

#ifdef __cplusplus
}
#endif

#endif
