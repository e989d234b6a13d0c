/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The trace directory's binary parts, shared by the runtime that writes
 * them (store.c) and the one reader (data/psread.h).  The whole format,
 * text files included, is described in patchsite-data(5); change both
 * together and bump PSD_VERSION.
 *
 * A thread's file: one header page, then chunks of chunk_bytes.  Each
 * chunk starts with PSD_CHUNK_WORDS words (magic, sequence number, TSC,
 * CLOCK_MONOTONIC ns) and a time mark, then ring words (PSD_EV_* below);
 * PSD_EV_PAD fills a chunk's unused end.  Words never written are
 * zero: a chunk's data ends at its last non-zero word.
 */
#ifndef PS_PSDATA_H
#define PS_PSDATA_H

#include <stdint.h>

#define PSD_VERSION		2	/* 2: extended records; version 1 files read the same */
#define PSD_VERSION_MIN		1
#define PSD_THREAD_MAGIC	"PSTHRD1"	/* 8 bytes with the NUL */
#define PSD_CHUNK_MAGIC		0x4b4e484353500000ull	/* "..PSCHNK" low 16 bits: version */
#define PSD_CHUNK_WORDS		4
#define PSD_HDR_BYTES		4096

/*
 * Ring words (8 bytes), the same in a thread's ring and in its file's chunks:
 *	time stamp low 32 bits << 32 | site id << 2 | type
 * A function event is followed by its parent address; a mark sets the
 * upper 32 bits of the time for the words after it and is followed by the
 * CPU the thread ran on.  PSD_EV_PAD fills the end of the ring before it
 * wraps, and a chunk's unused end.
 */
enum psd_ev_type { PSD_EV_ENTRY = 0, PSD_EV_EXIT = 1, PSD_EV_FUNC = 2, PSD_EV_MARK = 3 };
#define PSD_EV_PAD	(~(uint64_t)0)
#define PSD_ID_SHIFT	21		/* site id = module index << 21 | index in module */
#define PSD_ID_MASK	((1u << PSD_ID_SHIFT) - 1)

struct psd_thread_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_bytes;		/* PSD_HDR_BYTES: chunk 0 starts here */
	uint32_t pid, tid;
	char comm[16];
	uint64_t chunk_bytes;
	uint32_t overwrite;		/* 1: the chunks are a ring of nchunks, oldest overwritten */
	uint32_t nchunks;		/* overwrite: chunks in the ring */
	uint64_t lost;			/* events not recorded (full, limit, shadow stack) */
	uint64_t chunks;		/* chunks started so far (the next sequence number) */
	uint32_t clean;			/* 1: closed at a normal exit; end_word is exact */
	uint32_t stopped;		/* 1: recording stopped (no room); the reason below */
	uint64_t end_word;		/* clean: words used in the last chunk */
	char why[128];			/* stopped: strerror text */
	uint64_t overwritten;		/* overwrite: events in chunks reused since */
};


/*
 * Extended records (format version 2): a mark word (type 3) whose kind
 * field, bits 2..9, is not zero.  The word is
 *	time stamp low half << 32 | words << 10 | kind << 2 | 3
 * and `words` payload words follow (at most PSD_EXT_MAX_WORDS; a record
 * never crosses a chunk).  A plain mark has kind 0.  Payload words may be
 * zero: a record's end is its count, not the last non-zero word.  Readers
 * skip kinds they do not know, by the count, and count them.  The payload
 * of each kind is described in patchsite-data(5).
 */
#define PSD_EXT_KIND(w)		((unsigned)((w) >> 2) & 0xffu)
#define PSD_EXT_WORDS(w)	((unsigned)((uint32_t)(w) >> 10))
#define PSD_EXT_MAX_WORDS	1024u
enum psd_ext_kind {
	PSD_EXT_MARKER = 1,	/* trace_marker text */
	PSD_EXT_ARGS = 2,	/* a call's argument values */
	PSD_EXT_RETVAL = 3,	/* a call's return value */
	PSD_EXT_STACK = 4,	/* a stack trace (stacktrace trigger) */
	PSD_EXT_EVENT = 5,	/* a static trace event and its fields */
	PSD_EXT_LATENCY = 6,	/* the latency tracer: a new longest call */
	PSD_EXT_EVENT_PACKED = 16,	/* an event without flags: fields from byte 4 */
	PSD_EXT_INHERITED = 32,	/* the entry before it: a call open when the process forked */
	PSD_EXT_READ = 40,	/* a read= trigger's values at an entry or exit */
	/* 7..15: control plane; 16..31: trace events and branches; 33..39, 41..63 free */
};

/*
 * PSD_EXT_READ's payload: the site id, the kind (| PSD_READ_EXIT at the
 * function's exit), then the kind's values: statm size, resident and
 * shared in KB; page-fault major, minor; pmu-cycle cycles, instructions;
 * pmu-cache references, misses; pmu-branch branches, misses.
 */
enum psd_read_kind {
	PSD_READ_STATM, PSD_READ_PAGE_FAULT, PSD_READ_PMU_CYCLE, PSD_READ_PMU_CACHE,
	PSD_READ_PMU_BRANCH, PSD_READ_N
};
#define PSD_READ_EXIT		0x100u

/*
 * Scheduler switches (issue 25): beside a thread file thread.T[.K], the file
 * sched.T[.K] holds the switches of the same thread, drained from a perf
 * context-switch event the thread opened with its file.  Its own format
 * and version (the thread files are unchanged): a header of
 * PSD_SCHED_HDR_BYTES, then PSD_SCHED_REC_BYTES records in time order,
 * stamped CLOCK_MONOTONIC (perf's use_clockid), not the event counter.
 * state UNKNOWN: no switch could be recorded (why says why); the thread's
 * off-CPU time is unknown.  Readers refuse a file that breaks any of this.
 */
#define PSD_SCHED_MAGIC		"PSSCHD1"	/* 8 bytes with the NUL */
#define PSD_SCHED_VERSION	1
#define PSD_SCHED_HDR_BYTES	256
#define PSD_SCHED_REC_BYTES	16
enum psd_sched_state { PSD_SCHED_ON = 1, PSD_SCHED_UNKNOWN = 2 };
enum psd_sched_what {
	PSD_SCHED_OUT = 1,		/* switched out: blocked (a voluntary switch) */
	PSD_SCHED_OUT_PREEMPT = 2,	/* switched out while runnable: preempted */
	PSD_SCHED_IN = 3,		/* switched in */
};

struct psd_sched_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_bytes;		/* PSD_SCHED_HDR_BYTES: records start here */
	uint32_t pid, tid;
	uint32_t state;			/* enum psd_sched_state */
	uint32_t clean;			/* 1: drained at a normal exit: every switch until then is here */
	uint64_t lost;			/* switches the kernel could not record (PERF_RECORD_LOST) */
	uint64_t records;		/* records written */
	uint32_t clockid;		/* the records' clock: CLOCK_MONOTONIC (1) */
	uint32_t pad;
	char why[128];			/* UNKNOWN: why ("perf_event_open: Permission denied") */
	/*
	 * Every switch stamped before this (CLOCK_MONOTONIC) is among the
	 * first `records`: taken before the drain read the ring, written after
	 * the records (0: not said, an older writer).  Streaming readers hold
	 * back a thread's events from here on.  drained_tsc: the event clock
	 * then (a pair with drained_ns: the rate while the process runs).
	 */
	uint64_t drained_ns, drained_tsc;
};

struct psd_sched_rec {
	uint64_t ns;			/* CLOCK_MONOTONIC */
	uint32_t what;			/* enum psd_sched_what */
	int32_t cpu;			/* the CPU switched from (out) or to (in) */
};

#endif
