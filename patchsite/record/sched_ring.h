/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the two halves of the scheduler switches share (sched_switch.c has
 * the design): a thread's stream and the process's state, kept by
 * sched_ring.c (the perf ring and the drain thread) and used by
 * sched_switch.c (each thread's stream opened, flushed, finished).
 */
#ifndef PS_RECORD_SCHED_RING_H
#define PS_RECORD_SCHED_RING_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "data/format.h"

struct perf_event_attr;

/*
 * No descriptor stays open for a stream: the event's is closed once its
 * ring is mapped and watched (the mapping keeps the event, and its place in
 * the epoll set, until it is unmapped), and the file is opened by name for
 * each drain.  A program with many threads near RLIMIT_NOFILE must not
 * fail an open(2) of its own because it is traced.
 */
struct sched_stream {
	pthread_mutex_t lock;		/* drains: the drain thread, the thread's end, exit */
	int perf_fd, fd;		/* during setup and a drain only, else -1 */
	int procfd;			/* the process directory (the session's) */
	char name[80];			/* sched.T[.K] there */
	pid_t pid;			/* the process that opened it */
	void *ring;			/* NULL once the thread ended (or in a forked child) */
	size_t ring_bytes, data_bytes;
	struct psd_sched_hdr hdr;	/* written again after each drain */
	struct sched_stream *next;	/* every one made, never freed */
};

struct ps_sched_state {
	pthread_mutex_t lock;		/* the list, the epoll set, the drain thread's start */
	struct sched_stream *list;
	int epfd;
	pid_t drainer;			/* the process the drain thread runs in, or 0 */
	bool off;
	atomic_bool said;
	atomic_uint big;		/* rings of ring_pages[0] mapped in this process */
};
extern struct ps_sched_state ps_sched;

/* sched_ring.c */
size_t ps_sched_page_bytes(void);
void ps_sched_write_hdr(struct sched_stream *s);
void ps_sched_drain(struct sched_stream *s, bool clean);
void ps_sched_ring_unmap(struct sched_stream *s);
bool ps_sched_drainer_start(void);
void ps_sched_switch_event(struct perf_event_attr *a);
int ps_sched_event_open(struct sched_stream *s);

#endif
