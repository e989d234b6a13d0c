/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one reader of a trace directory (patchsite-data(5)).  It trusts
 * nothing in it: a missing, truncated or damaged part is said in one line
 * (on the FILE given to psr_open) and the rest is read; nothing in the data
 * can make it read out of bounds.
 *
 * Its files (data/reader.h has what they share): read.c opens a session
 * and its processes, read_syms.c their objects and names, read_thread.c
 * their thread files and the cursor, read_follow.c follows a directory
 * being written; read_events.c decodes static trace events,
 * read_branches.c the branch profiler's file.
 * Beside it: read_text.c (damage said, bounded text files),
 * read_sched_follow.c (a followed thread's switch file), read_profile.c
 * (the `profile` file, read_profile.h), options.c (trace_options), hist.c
 * (the log-linear histogram, hist.h), env.c (the PATCHSITE_* variables,
 * env.h); read_sched.c the scheduler switches; read_filter.c the filters
 * on a recording (which events of a thread to show; read_filter.h what its
 * files share), read_filter_parse.c their options, read_filter_match.c
 * their patterns against function names.
 */
#ifndef PS_PSREAD_H
#define PS_PSREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* trace_options that change the text (the process directory's options file; options.c). */
enum psr_option_bit {
	PSR_OPT_PRINT_PARENT = 1,
	PSR_OPT_SYM_OFFSET = 2,
	PSR_OPT_FUNCGRAPH_PROC = 4,
	PSR_OPT_FUNCGRAPH_ABSTIME = 8,
	PSR_OPT_SLEEP_TIME = 16,	/* cleared: durations without the time off the CPU */
	PSR_OPT_FUNCGRAPH_CPU = 32,
	PSR_OPT_FUNCGRAPH_DURATION = 64,
	PSR_OPT_FUNCGRAPH_OVERHEAD = 128,	/* the duration's mark: + ! # * @ $ */
	PSR_OPT_FUNCGRAPH_TAIL = 256,		/* every closing brace names its function */
};
/* ftrace's defaults (trace_functions_graph.c tracer_flags) but funcgraph-proc, on here. */
#define PSR_OPT_DEFAULT	(PSR_OPT_PRINT_PARENT | PSR_OPT_FUNCGRAPH_PROC | PSR_OPT_SLEEP_TIME | \
			 PSR_OPT_FUNCGRAPH_CPU | PSR_OPT_FUNCGRAPH_DURATION | PSR_OPT_FUNCGRAPH_OVERHEAD)
/* ftrace's name of each, { NULL, 0 } last. */
struct psr_option {
	const char *name;
	unsigned bit;
};
extern const struct psr_option psr_options[];
/* The bit of the option named by name[0..len), 0 if none is. */
unsigned psr_option_bit(const char *name, size_t len);
/* "print-parent, sym-offset, ...": every name, for messages. */
const char *psr_option_names(void);
/* "print-parent,nosym-offset": the options to set and clear; -1 (the word in *bad) if unknown. */
int psr_options_parse(const char *list, unsigned *set, unsigned *clear, const char **bad);
/* A process's options shown: the ones recorded, then those set and cleared over them. */
unsigned psr_options_apply(unsigned recorded, unsigned set, unsigned clear);

/*
 * Names still mangled in the data (a process without libstdc++ could not
 * demangle them): each name beginning _Z read from now on goes through f,
 * which answers it malloc'd as shown, or NULL to keep it.  The command sets
 * it; the runtime, whose reader prints what it wrote, leaves it unset.
 */
void psr_set_demangler(char *(*f)(const char *mangled));

/* PSR_EXT: an extended record (format.h PSD_EXT_*): renderers skip kinds they do not show. */
enum psr_type { PSR_ENTRY = 0, PSR_EXIT = 1, PSR_FUNC = 2, PSR_EXT = 3,
	PSR_SCHED = 4,		/* a scheduler switch: only from a cursor psr_cursor_sched asked */
};
/* A PSR_SCHED event's id: format.h psd_sched_what. */
enum psr_switch { PSR_SW_OUT = 1, PSR_SW_OUT_PREEMPT = 2, PSR_SW_IN = 3 };
/* A thread's scheduler switches (its sched file, read_sched.c). */
enum psr_sched { PSR_SCHED_NONE = 0, PSR_SCHED_ON = 1, PSR_SCHED_UNKNOWN = 2 };
struct psr_switch_rec {
	uint64_t ns;		/* CLOCK_MONOTONIC */
	uint32_t what;		/* enum psr_switch */
	int32_t cpu;
};

struct psr_event {
	uint64_t tsc;
	uint64_t parent;	/* PSR_FUNC: the caller's address */
	uint32_t id;		/* site id; for PSR_EXIT already its function's entry site */
	uint8_t type;
	int32_t cpu;
	/* PSR_EXT only: */
	uint8_t ext_kind;	/* PSD_EXT_* */
	bool truncated;		/* fewer words than the record said (the file ends) */
	bool packed;		/* PSD_EXT_EVENT read from a PSD_EXT_EVENT_PACKED record */
	uint32_t nwords;
	const uint64_t *payload;	/* nwords words in the mapped file (valid until psr_close) */
};

struct psr_site {
	uint64_t addr;
	uint32_t owner;		/* an exit site: index of its function's entry site */
	bool exit;
	char *name;
};

struct psr_func {
	uint64_t addr, size;
	char *name;
};

struct psr_module {
	unsigned index;
	uint64_t load_tsc;	/* names events from here on (until the slot is reused) */
	uint64_t unload_tsc;	/* 0: never unloaded */
	uint64_t bias;
	char *path;
	struct psr_site *sites;
	size_t nsites;
	struct psr_func *funcs;	/* by address */
	size_t nfuncs;
	/* No table: its sites were found at start-up ("scan" and "notfound" lines of mod.N). */
	char scan_how[8];	/* "mcount", "cyg"; "" if not scanned */
	size_t scan_found, scan_nmiss;
	char *scan_miss;	/* "WHY NAME\n" per function not found, as read */
	size_t scan_miss_len;
	/* Library calls: "NAME\tWHY\n" per slot never switched ("refused" lines of mod.N). */
	char *refused;
	size_t refused_len;
};

struct psr_chunk {
	uint64_t seq;
	size_t first, end;	/* words of the file: [first, end) after the chunk header */
	size_t limit;		/* the chunk's last word + 1 in the file */
	size_t seen;		/* followed: the end found at the last look (end lags it by a look) */
};

struct psr_thread {
	char *file;
	int tid;
	char comm[17];
	uint64_t lost;
	uint64_t overwritten;	/* overwrite: events in chunks reused since */
	bool clean, stopped;
	char why[129];
	const uint64_t *words;	/* the whole file, mapped */
	size_t nwords, map_bytes;
	struct psr_chunk *chunks;	/* in time order */
	size_t nchunks;
	uint64_t events;	/* entries + exits + function events + extended records (psr_open counts them) */
	uint64_t entries, funcs, ext, markers, trace_events;	/* trace_events: static and probe events */
	bool live;		/* followed (psr_follow) and may still write: the end of its
				   last chunk is not final, a record cut there is waited for */
	bool in_memory;		/* words are a copy in memory (the runtime's rings,
				   record/output.c), not a mapped file: never dropped */
	/* Scheduler switches (sched.T beside its file): none asked, recorded, or unknown (why). */
	enum psr_sched sched;
	char sched_why[129];
	uint64_t sched_lost;	/* switches the kernel could not record */
	bool sched_clean;	/* drained at the thread's end or a normal exit */
	/* Followed: every switch before this ns is in sw (UINT64_MAX: all; 0: none known) */
	uint64_t sched_upto;
	struct psr_switch_rec *sw;	/* in time order */
	size_t nsw;
	uint64_t *off;		/* off-CPU spans: [2k] start, [2k + 1] end ns */
	uint64_t *off_sum;	/* off_sum[k]: ns of the spans before span k */
	size_t noff;
};

/* A static trace event's format (the process's events file, patchsite-data(5)). */
struct psr_evfield {
	char *name, *type;
	unsigned kind, size, off;	/* kind: enum patchsite_field_kind */
};

struct psr_evdesc {
	unsigned id;
	char *name;		/* subsys:name */
	char *fmt;
	unsigned fixed, nfields;
	struct psr_evfield *f;
};

struct psr_session;

/* A proof's sites in one process (the `noflag` file, read_noflag.c). */
struct psr_noflag_refusal {
	uint64_t site;
	char *name, *why;
};
struct psr_noflag {
	unsigned index;		/* the object's slot (modules) */
	size_t sites, armed;
	char *file;		/* the proof file */
	char *unused;		/* why none of its sites was taken ("unused" line), or NULL */
	struct psr_noflag_refusal *r;
	size_t nr;
};

struct psr_proc {
	struct psr_session *session;	/* the one it was read in: where damage is said */
	char *dir, *name;	/* the process directory, and its name in the session */
	int pid, ppid;
	char *exe, *cmdline;	/* cmdline: arguments joined by spaces */
	char tracer[32];
	uint64_t tsc0, ns0, realtime0;
	double ns_per_tsc;
	bool overwrite;
	bool has_end, exec_followed;	/* end: a normal exit; exec_followed: a later image of the pid */
	uint64_t end_ns, end_realtime;
	char status[64];	/* from `patchsite record`: "exit N" or "signal N (NAME)", or "" */
	struct psr_text_lost {	/* end's "lost FILE LINES": lines a text file did not get */
		char file[16];
		uint64_t lines;
	} text_lost[4];
	unsigned ntext_lost;
	char *tracers;		/* the `tracers` file: "TSC NAME" lines, one per change; or NULL */
	struct psr_noflag *noflag;	/* the `noflag` file: one per proof, in its order */
	size_t nnoflag;
	struct psr_module *mods;
	size_t nmods;
	struct psr_thread *threads;
	size_t nthreads;
	uint64_t last_ns;	/* the latest time any event or chunk header shows */
	unsigned options;	/* PSR_OPT_*: its options file, or PSR_OPT_DEFAULT */
	bool gone;		/* followed: the caller saw it end; psr_follow makes its threads final */
	size_t modules_size;	/* followed: the modules log's size when last read */
	struct psr_evdesc *events;
	size_t nevents;
	uint64_t rate_ns;	/* followed: ns_per_tsc from the clock pair at this ns (0: info's) */
	int sched_asked;	/* info's `sched`: 1 on, 0 off (--no-sched), -1 not said (older) */
};

struct psr_session {
	char *dir;
	struct psr_proc *procs;
	size_t nprocs;
	size_t nosites;		/* processes listed without a directory (no sites) */
	unsigned problems;	/* damaged or missing parts said on err */
	FILE *err;		/* where they are said (psr_open's err); NULL: nowhere */
	size_t nlines;		/* session lines read (psr_follow reads the ones after) */
	bool follow;		/* opened with psr_open_live: parts being written are read
				   again at the next psr_follow, not said damaged */
};

/* Read the directory: 0, or -errno when it is not a trace directory at all (said on err). */
int psr_open(const char *dir, FILE *err, struct psr_session **out);
void psr_close(struct psr_session *s);

/*
 * Following a directory while its processes write it (patchsite pipe):
 * psr_open_live reads what is there without walking the events, and each
 * psr_follow reads what was added since (new processes, threads, chunks,
 * objects, the end), with the thread files' lengths and chunk ends read
 * by pread, never through the mapping (a file cut at exit could not fault
 * the reader).  The threads of a process keep their order: new ones are
 * added after the others.  A cursor on a live thread stops at the visible
 * end of its last chunk and goes on from there after the next psr_follow.
 */
int psr_open_live(const char *dir, FILE *err, struct psr_session **out);
void psr_follow(struct psr_session *s);

/* Events of one thread, in order. */
struct psr_cursor {
	const struct psr_proc *p;
	const struct psr_thread *t;
	size_t chunk, at;
	uint32_t hi;
	int32_t cpu;
	/* psr_cursor_sched: the thread's switches merged in by time (read_sched.c) */
	bool sched;
	uint8_t pend_state;	/* 0 none read ahead, 1 pend holds the file's next, 2 its end */
	size_t sw_at;
	struct psr_event pend;
	/* where pend was read from: a position to go on from (patchsite pipe's) */
	size_t pend_chunk, pend_at;
	uint32_t pend_hi;
	int32_t pend_cpu;
};
void psr_cursor_init(struct psr_cursor *c, const struct psr_proc *p, const struct psr_thread *t);
/*
 * The thread's scheduler switches as PSR_SCHED events (id: enum psr_switch),
 * merged by time among its events; arguments and return values stay with
 * the event they follow.  A followed (live) thread's events newer than
 * what its switch file is known complete up to (sched_upto), and its
 * switches after its last event there, wait for a later psr_follow.
 */
void psr_cursor_sched(struct psr_cursor *c);
/* The next event: 1, or 0 at the end. */
int psr_next(struct psr_cursor *c, struct psr_event *ev);

/* Names: a site's function ("site#N" when unknown); a caller address ("0x..." unknown). */
const char *psr_site_name(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
			  size_t len);
const char *psr_addr_name(const struct psr_proc *p, uint64_t addr, uint64_t tsc, char *buf,
			  size_t len);
/* The function holding addr: its name, with *off and *size; NULL when unknown. */
const char *psr_addr_sym(const struct psr_proc *p, uint64_t addr, uint64_t tsc, uint64_t *off,
			 uint64_t *size);
/* A site's address, or 0 when unknown. */
uint64_t psr_site_addr(const struct psr_proc *p, uint32_t id, uint64_t tsc);
/* The object a site's id named at tsc (its path and load bias), or NULL. */
const struct psr_module *psr_site_module(const struct psr_proc *p, uint32_t id, uint64_t tsc);
/*
 * read= triggers' records (read_reads.c): the kinds by name, a record's
 * shape checked, and its text: "read:KIND (...)", or with entry (the same
 * kind's values at the call's entry) "diff:KIND (...)".
 */
int psr_read_kind(const char *name);
const char *psr_read_name(unsigned kind);
unsigned psr_read_nvals(unsigned kind);
bool psr_read_valid(const struct psr_event *e);
size_t psr_read_text(unsigned kind, const uint64_t *v, const uint64_t *entry, char *b, size_t n);
/*
 * Static trace events (read_events.c).  psr_evdesc: the format of a
 * PSD_EXT_EVENT record, with its payload, or NULL.  psr_event_text:
 * "subsys:name: " and the fields through the event's print format (always
 * NUL-terminated, cut to len).  psr_event_json_args: {"field":value,...}.
 */
int psr_events_parse(struct psr_proc *p, const char *text);
void psr_events_free(struct psr_proc *p);
const struct psr_evdesc *psr_evdesc(const struct psr_proc *p, const struct psr_event *ev,
				    const uint8_t **rec, size_t *bytes);
size_t psr_event_text(const struct psr_proc *p, const struct psr_event *ev, char *buf, size_t len);
void psr_event_json_args(FILE *f, const struct psr_proc *p, const struct psr_event *ev);
const char *psr_event_name(const struct psr_proc *p, const struct psr_event *ev);
/*
 * One field of a record psr_evdesc found (rec, bytes: its payload), typed:
 * u for integers and pointers (sign-extended for PATCHSITE_FIELD_SIGNED),
 * d for floats, s and slen for strings and byte arrays (cut: the string was
 * cut when recorded; null: a NULL string, no bytes).  false when the field
 * is not inside the record.
 */
struct psr_value {
	uint64_t u;
	double d;
	const uint8_t *s;
	size_t slen;
	bool cut;
	bool null;
};
bool psr_event_field(const struct psr_evfield *f, const uint8_t *rec, size_t bytes,
		     struct psr_value *v);

/*
 * Probes of record's uftrace spellings (read_uprobe.c): psr_uprobe says
 * whether ev is one for func (NULL: any function), at its entry (record -A,
 * -a: group args or auto) or return (-R: group retval); psr_uprobe_values
 * its values as uftrace shows them ("1, \"str\", 0.500000"), always
 * NUL-terminated; psr_uprobe_auto_text a register as uftrace's default form.
 */
enum { PSR_UPROBE_NONE, PSR_UPROBE_ARGS, PSR_UPROBE_RET };
int psr_uprobe(const struct psr_proc *p, const struct psr_event *ev, const char *func);
size_t psr_uprobe_values(const struct psr_proc *p, const struct psr_event *ev, char *b, size_t n);
int psr_uprobe_auto_text(char *b, size_t n, uint64_t reg);

/* CLOCK_MONOTONIC ns of a time stamp. */
uint64_t psr_ns(const struct psr_proc *p, uint64_t tsc);
/* The proof of object index in p's `noflag` file, or NULL (read_noflag.c). */
struct psr_noflag *psr_noflag_of(const struct psr_proc *p, unsigned index);
/*
 * ns thread t spent off the CPU between time stamps a and b (its recorded
 * switches; 0 where none were recorded: see t->sched).
 */
uint64_t psr_offcpu_ns(const struct psr_proc *p, const struct psr_thread *t, uint64_t a,
		       uint64_t b);

/*
 * Filters on a recording (read_filter*.c): uftrace's -F -N -H -C -T -D -t
 * -Z -L -r, --max-stack and --trace, read by replay, report, graph, dump and
 * script.  psr_filter_add takes one option (its short letter; 'G' is -F, 'M'
 * --max-stack, 'o' --trace=on|off (off: nothing shown until a trace_on
 * call), 'l' --no-libcall (arg unused: library calls hidden, what they call
 * moved up), 'a' --no-args (arg unused: arguments and return values not
 * shown, psr_filter_no_args says so to the renderers), 'm'
 * --match=glob|regex: the patterns after it are ftrace's globs, the default, or POSIX extended regexes as uftrace's --match=regex,
 * each argument one) into *f (made on first use): 0, or -EINVAL with why said
 * in why.  psr_filter_check, over the n processes shown (dir: the session's,
 * for messages): each function named was recorded by one of them, each
 * kept the data a filter needs (one line on err).
 * Then, per thread, psr_filter_keep says which of its events to show, in
 * order (every event the reader gives, arguments and return values left
 * with their event): the calls shown stay nested, depths re-based.
 */
struct psr_filter;
struct psr_fthread;
typedef const char *(*psr_srcline_fn)(const struct psr_proc *p, uint32_t id, uint64_t tsc,
				      char *buf, size_t len);
int psr_filter_add(struct psr_filter **f, int opt, const char *arg, char *why, size_t len);
/* -L reads the functions' source lines through fn (the command's DWARF reader). */
void psr_filter_srcline(struct psr_filter *f, psr_srcline_fn fn);
bool psr_filter_any(const struct psr_filter *f);

int psr_filter_check(const struct psr_filter *f, const struct psr_proc *const *procs, size_t n,
		     const char *dir, FILE *err);
void psr_filter_free(struct psr_filter *f);
/* *out NULL when f filters nothing; 0 or -ENOMEM. */
int psr_filter_thread(const struct psr_filter *f, const struct psr_proc *p,
		      const struct psr_thread *t, struct psr_fthread **out);
bool psr_filter_no_args(const struct psr_fthread *ft);
/*
 * A tree at the program's depths under -T trace_on/trace_off, as uftrace's replay draws it
 * (the text graph asks): a call not shown only because tracing was off is kept too, and
 * psr_filter_nest_only says so (nest it, draw nothing); its return is drawn when tracing is
 * on by then, a shown call's is nest-only when tracing is off by then.
 */
void psr_filter_keep_depths(struct psr_fthread *ft);
bool psr_filter_nest_only(const struct psr_fthread *ft);
bool psr_filter_keep(struct psr_fthread *ft, const struct psr_event *ev);
void psr_filter_thread_free(struct psr_fthread *ft);

#endif
