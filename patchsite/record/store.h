/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the parts of the trace-directory writer share: store.c (the
 * session and process directory, its text files, end, fork), store_mods.c
 * (mod.N, the modules log) and store_thread.c (each thread's file, its
 * chunks, the helper thread).
 */
#ifndef PS_STORE_H
#define PS_STORE_H

#include <sys/types.h>
#include <time.h>

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
/* store_mods.c: mod.N of object m and its load line (store.c, as a directory opens). */
void ps_store_module(struct ps_module *m);

#endif
