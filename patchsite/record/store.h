/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the parts of the trace-directory writer share: store.c (the
 * session and process directory, its text files, end, fork), store_mods.c
 * (mod.N, the modules log), store_thread.c (each thread's file, its
 * chunks) and store_helper.c (the helper thread, the session).
 */
#ifndef PS_STORE_H
#define PS_STORE_H

#include <sys/types.h>
#include <time.h>

#include "data/format.h"
#include "record/record.h"

#define GROW_CHUNK	(1ul << 20)
#define AHEAD		4		/* chunks the helper keeps ready for a busy thread */

struct ps_store_session {
	bool on, overwrite;
	int procfd;			/* the process directory */
	pid_t pid;
	size_t chunk, ring;		/* chunk bytes; overwrite: bytes per thread */
	char dir[4096], proc[4400];	/* the session directory, the process directory */
	char tracer[32];
	char procname[64];		/* this process's directory in the session */
	_Atomic bool said_full;
};
extern struct ps_store_session ps_session;

/*
 * A chunk the thread has left stays mapped for RETIRED more switches: an
 * event's slot is taken (the write pointer moved) before its words are
 * stored, and a signal handler that runs in between can fill the chunk and
 * switch (attachstress's SIGALRM handler did, within 60 attaches: the
 * interrupted store then hit an unmapped chunk, SIGSEGV).  Its late words
 * land in the file where its slot is.  Only a handler that fills RETIRED
 * chunks (4 MiB of events) inside that window of three instructions
 * would still find its chunk gone.
 */
#define RETIRED	4

struct ps_tstore {
	void *_Atomic ready[AHEAD];	/* grow: chunks n to n + AHEAD - 1, mapped and filled by the
					   helper, chunk y in slot y % AHEAD (word 1: its number) */
	uint64_t prepared;		/* helper only: chunks below this were made ready */
	uint64_t want_seq;		/* under helper.lock: the chunk asked for */
	bool queued;			/* under helper.lock: waiting for the helper */
	struct ps_tstore *qnext;
	struct ps_tstore *all_next;	/* every one made, never freed (threads keep theirs) */
	int fd;
	_Atomic int done;		/* TSTORE_*: finished by its thread's end or by the exit */
	pid_t pid;			/* the process whose file this is */
	struct psd_thread_hdr *hdr;	/* mapped shared, the whole time */
	uint64_t *map;			/* grow: the current chunk; overwrite: every chunk */
	size_t map_bytes;
	uint64_t *retired[RETIRED];	/* grow: the chunks before it, still mapped (retire) */
	uint64_t seq;			/* chunks started */
	_Atomic uint64_t gen;		/* odd while chunk_start switches chunks (ps_store_bound) */
	char path[64];			/* relative to the process directory */
};

/* struct ps_tstore's done: who finishes the file, once (store_thread.c). */
enum { TSTORE_OPEN, TSTORE_FINISHING, TSTORE_DONE };

/* Where chunk seq of a thread's file starts. */
static inline off_t ps_chunk_off(uint64_t seq)
{
	return PSD_HDR_BYTES + (off_t)(seq * ps_session.chunk);
}

/* A clock's time in ns (the chunk headers and `end` carry CLOCK_MONOTONIC). */
static inline uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A chunk's pages in, its words unchanged, without holding the mmap lock (store_populate.c). */
void ps_store_populate(void *p, size_t len);
/* store_reserve.c: blocks on disk for [off, off + len) of a thread's file, or -errno */
int ps_store_reserve(int fd, off_t off, size_t len);
void ps_store_reserve_forked(void);
void ps_store_threads_finish(bool wait_helper);
void ps_store_thread_forked(struct ps_thread *self);
/* store_helper.c: the helper thread that makes chunks ready ahead */
void ps_store_helper_request(struct ps_tstore *s);
void ps_store_drop_ready(struct ps_tstore *s);
void ps_store_helper_stop(bool wait);
/* s's thread has ended: off the helper's queue, and not being prepared when this returns. */
void ps_store_helper_forget(struct ps_tstore *s);
void ps_store_helper_forked(void);
/* store_mods.c: mod.N of object m and its load line (store.c, as a directory opens). */
void ps_store_module(struct ps_module *m);
/* store_mods.c: "lost FILE LINES" for `end`, per text file that lost lines; its length. */
size_t ps_store_text_lost(char *text, size_t len);
void ps_store_mods_forked(void);

#endif
