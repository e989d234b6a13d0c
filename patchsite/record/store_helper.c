// SPDX-License-Identifier: GPL-2.0-only
/*
 * The store's helper thread (store_thread.c has the thread files): it
 * makes the next chunks of a busy thread's file ready ahead, reserved on
 * disk, mapped and their pages in, and is stopped at exit and forgotten in
 * a forked child.  Apart from store_thread.c because it is a thread of its
 * own with its own lock, and the lowest of the store's files: the session
 * every chunk reads is defined here.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "store.h"

/* The session (store.c opens it), here with the lowest part that reads it on every chunk. */
struct ps_store_session ps_session = { .procfd = -1 };

/*
 * The helper thread: it reserves, maps and fills in the next chunk of each
 * thread's file while the thread writes the current one, so that the
 * recording thread does not pay for fresh page-cache pages (most of what a
 * chunk costs).  Started at the first chunk switch; a forked child starts
 * its own.  Without it (it could not start), threads map their chunks
 * themselves.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct ps_tstore *queue;
	pid_t pid;			/* the process it runs in */
	bool closing;
	struct ps_tstore *working;	/* whose chunks it is preparing now */
} helper = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, false, NULL };

/* Chunk seq of s's file, reserved, mapped and its pages in; NULL on failure. */
static void *prepare(struct ps_tstore *s, uint64_t seq)
{
	void *p;

	if (ps_store_reserve(s->fd, ps_chunk_off(seq), ps_session.chunk))
		return NULL;
	p = mmap(NULL, ps_session.chunk, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, ps_chunk_off(seq));
	if (p == MAP_FAILED)
		return NULL;
	ps_store_populate(p, ps_session.chunk);
	return p;
}

/* Chunks want to want + AHEAD - 1 of s ready (slack for a helper scheduled late). */
static void prepare_ahead(struct ps_tstore *s, uint64_t want)
{
	for (uint64_t y = want > s->prepared ? want : s->prepared; y < want + AHEAD; y++) {
		void *p = prepare(s, y);

		if (!p)
			return;
		((uint64_t *)p)[1] = y;	/* rewritten by chunk_start when used */
		p = atomic_exchange_explicit(&s->ready[y % AHEAD], p, memory_order_acq_rel);
		if (p)
			munmap(p, ps_session.chunk);	/* an older one, never taken */
		s->prepared = y + 1;
	}
}

static void *helper_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&helper.lock);
	for (;;) {
		struct ps_tstore *s;
		uint64_t want;

		while (!helper.queue && !helper.closing)
			pthread_cond_wait(&helper.cond, &helper.lock);
		if (helper.closing)
			break;
		s = helper.queue;
		helper.queue = s->qnext;
		s->queued = false;
		want = s->want_seq;
		helper.working = s;
		pthread_mutex_unlock(&helper.lock);
		prepare_ahead(s, want);
		pthread_mutex_lock(&helper.lock);
		helper.working = NULL;
		pthread_cond_broadcast(&helper.cond);
	}
	pthread_mutex_unlock(&helper.lock);
	return NULL;
}

/*
 * Ask the helper for s's next chunk (s->seq); start it if it is not running
 * here.  Never waits: with the lock taken (the helper descheduled while
 * holding it, on a busy machine), the thread maps its next chunk itself.
 */
void ps_store_helper_request(struct ps_tstore *s)
{
	if (pthread_mutex_trylock(&helper.lock))
		return;
	if (helper.pid != ps_session.pid && !helper.closing &&
	    !ps_spawn(helper_main, NULL, 0, NULL))
		helper.pid = ps_session.pid;
	if (helper.pid == ps_session.pid && !s->queued) {
		s->queued = true;
		s->want_seq = s->seq;
		s->qnext = helper.queue;
		helper.queue = s;
		pthread_cond_signal(&helper.cond);
	}
	pthread_mutex_unlock(&helper.lock);
}

/* Chunks made ready and not used: not data (unmapped: the file is about to end before them). */
void ps_store_drop_ready(struct ps_tstore *s)
{
	for (int k = 0; k < AHEAD; k++) {
		void *p = atomic_exchange_explicit(&s->ready[k], NULL, memory_order_acq_rel);

		if (p)
			munmap(p, ps_session.chunk);
	}
}

/* At a normal exit: the helper stops, and finishes what it was doing first (wait: the lock). */
void ps_store_helper_stop(bool wait)
{
	if (wait ? !pthread_mutex_lock(&helper.lock) : !pthread_mutex_trylock(&helper.lock)) {
		helper.closing = true;
		pthread_cond_broadcast(&helper.cond);
		while (helper.working && helper.pid == ps_session.pid)
			pthread_cond_wait(&helper.cond, &helper.lock);
		pthread_mutex_unlock(&helper.lock);
	}
}

/* In a forked child: the helper did not follow, and its lock may have been held at the fork. */
void ps_store_helper_forked(void)
{
	pthread_mutex_init(&helper.lock, NULL);
	pthread_cond_init(&helper.cond, NULL);
	helper.queue = NULL;
	helper.pid = 0;
}

void ps_store_helper_forget(struct ps_tstore *s)
{
	pthread_mutex_lock(&helper.lock);
	for (struct ps_tstore **q = &helper.queue; *q; q = &(*q)->qnext)
		if (*q == s) {
			*q = s->qnext;
			s->queued = false;
			break;
		}
	while (helper.working == s)
		pthread_cond_wait(&helper.cond, &helper.lock);
	pthread_mutex_unlock(&helper.lock);
}
