// SPDX-License-Identifier: GPL-2.0-only
/*
 * Each thread's file in the trace directory (store.c has the directory):
 * its ring words go straight into the file, mapped MAP_SHARED one chunk
 * at a time, so a word stored is in the page cache at once.  Chunks are
 * reserved on disk (store_reserve.c) before they are used, so a full file
 * system or RLIMIT_FSIZE is seen as an error at a chunk switch, never as
 * SIGBUS or SIGXFSZ in the program: the thread then stops recording, says
 * so once on stderr and counts what it drops.  With overwrite (flight
 * recorder) the file is a ring of chunks, mapped whole but reserved a
 * chunk at a time as it first fills them; once all are used the oldest is
 * reused.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "host.h"

#include "store.h"
#include "sched_switch.h"
#include "data/format.h"


static _Atomic(struct ps_tstore *) all_stores;


static void say_stopped(struct ps_tstore *s, int err)
{
	if (s->hdr) {
		snprintf(s->hdr->why, sizeof(s->hdr->why), "%s", strerror(-err));
		s->hdr->stopped = 1;
	}
	if (!atomic_exchange(&ps_session.said_full, true)) {
		char line[4600];
		int n = snprintf(line, sizeof(line),
				 "patchsite: %s/%s: %s: recording stopped; events from now on are "
				 "counted as lost\n", ps_session.proc, s->path, strerror(-err));

		if (n > 0)
			(void)!write(STDERR_FILENO, line,
				     (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	}
}

/* Start chunk s->seq: header words and a time mark at its start. */
static void chunk_start(struct ps_thread *t, struct ps_fast *f, uint64_t *base)
{
	struct ps_tstore *s = t->store;

	/* A snapshot reading base, wp and seq together sees them all old or all new. */
	atomic_fetch_add_explicit(&s->gen, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	__atomic_store_n(&t->base, base, __ATOMIC_RELAXED);	/* ps_store_bound reads it */
	t->end = base + ps_session.chunk / 8;
	if (ps_session.overwrite)
		memset(base, 0, ps_session.chunk);
	base[0] = PSD_CHUNK_MAGIC | PSD_VERSION;
	base[1] = s->seq;
	base[2] = ps_clock();
	base[3] = clock_ns(CLOCK_MONOTONIC);
	base[4] = (uint64_t)f->hi << 32 | PS_EV_MARK;
	base[5] = (uint64_t)sched_getcpu();
	ps_wp_set(f, base + 6);
	s->seq++;
	__atomic_store_n(&s->hdr->chunks, s->seq, __ATOMIC_RELEASE);
	atomic_fetch_add_explicit(&s->gen, 1, memory_order_release);
}

/*
 * Where thread t's data ends now (snapshot.c), without stopping it: the
 * chunk it writes and the words written in it, read together (a chunk
 * switch in between is seen and the reading done again).  Every word below
 * that end is complete.  -ENOENT: t has no file of this process.
 */
int ps_store_bound(struct ps_thread *t, struct ps_store_bound *b)
{
	struct ps_tstore *s = __atomic_load_n(&t->store, __ATOMIC_ACQUIRE);
	struct ps_fast *f = atomic_load(&t->fast);

	if (!ps_session.on || !s || !s->hdr || s->pid != ps_session.pid || !f)
		return -ENOENT;
	for (int tries = 0;; tries++) {
		uint64_t g1 = atomic_load_explicit(&s->gen, memory_order_acquire), g2;
		uint64_t *base = __atomic_load_n(&t->base, __ATOMIC_RELAXED), *wp = ps_wp_get(f);

		b->seq = __atomic_load_n(&s->hdr->chunks, __ATOMIC_RELAXED);
		atomic_thread_fence(memory_order_acquire);
		g2 = atomic_load_explicit(&s->gen, memory_order_relaxed);
		if (!(g1 & 1) && g1 == g2 && b->seq && wp >= base && wp <= base + ps_session.chunk / 8) {
			b->words = (uint64_t)(wp - base);
			break;
		}
		if (tries > 1000)
			return -EBUSY;
		sched_yield();
	}
	b->fd = -1;	/* the reader opens the file by its name: s->fd closes when the thread ends */
	b->hdr = s->hdr;
	b->path = s->path;
	b->chunk = ps_session.chunk;
	b->nchunks = ps_session.overwrite ? ps_session.ring / ps_session.chunk : 0;
	b->gen = atomic_load_explicit(&s->gen, memory_order_acquire);
	return 0;
}

/* Chunks thread t started since bound b was read (overwrite: the ones reused meanwhile). */
uint64_t ps_store_started_since(struct ps_thread *t, const struct ps_store_bound *b)
{
	return __atomic_load_n(&t->store->hdr->chunks, __ATOMIC_ACQUIRE) - b->seq;
}

/*
 * Map chunk s->seq (grow): the one the helper made ready, else reserved on
 * disk and mapped here; then the helper is asked for the one after.
 */
static int map_next(struct ps_thread *t, struct ps_fast *f)
{
	struct ps_tstore *s = t->store;
	void *p = atomic_exchange_explicit(&s->ready[s->seq % AHEAD], NULL, memory_order_acquire);
	int err;

	if (p && ((uint64_t *)p)[1] != s->seq) {
		munmap(p, ps_session.chunk);
		p = NULL;
	}
	if (!p) {
		err = ps_store_reserve(s->fd, ps_chunk_off(s->seq), ps_session.chunk);
		if (err)
			return err;
		p = mmap(NULL, ps_session.chunk, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, ps_chunk_off(s->seq));
		if (p == MAP_FAILED)
			return -errno;
		/*
		 * A thread's first chunk gets its pages as it uses them: a
		 * thread that makes a few calls costs a few pages, not a MiB.
		 */
		if (s->seq)
			ps_store_populate(p, ps_session.chunk);
	}
	if (s->map) {
		uint64_t **slot = &s->retired[s->seq % RETIRED];

		if (*slot)
			munmap(*slot, ps_session.chunk);
		*slot = s->map;
	}
	s->map = p;
	s->map_bytes = ps_session.chunk;
	chunk_start(t, f, p);
	if (s->seq > 1)
		ps_store_helper_request(s);	/* chunks ahead only for a thread that filled one */
	return 0;
}

/*
 * The file is made unnamed (O_TMPFILE) and linked under its name once its
 * header is written: a thread stopped on the way leaves no file rather
 * than one with no header.  That happens to every thread whose first event
 * comes as the process ends (exit_group after `end`, or a kill): a file of
 * zeros reserved for its ring (32 MiB in flight-recorder mode), or of no
 * bytes (issue 23; tests/patchsite/record.sh, "threads started at exit").
 * Where the file system has no O_TMPFILE (or /proc is not mounted), the
 * file is named from the start and its header page written before the
 * ring is reserved, which leaves only the openat..header window.
 */
static int thread_file_open(struct ps_tstore *s, pid_t tid, bool *unnamed)
{
	s->fd = openat(ps_session.procfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	*unnamed = s->fd >= 0;
	if (*unnamed)
		return 0;
	for (int k = 0; k < 1000; k++) {
		if (k)
			snprintf(s->path, sizeof(s->path), "thread.%d.%d", (int)tid, k);
		else
			snprintf(s->path, sizeof(s->path), "thread.%d", (int)tid);
		s->fd = openat(ps_session.procfd, s->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (s->fd >= 0 || errno != EEXIST)
			break;
	}
	return s->fd < 0 ? -errno : 0;
}

/* An unnamed file, its header written, under its name: thread.TID (thread.TID.K when taken). */
static int thread_file_link(struct ps_tstore *s, pid_t tid)
{
	char fdpath[64];

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", s->fd);
	for (int k = 0; k < 1000; k++) {
		if (k)
			snprintf(s->path, sizeof(s->path), "thread.%d.%d", (int)tid, k);
		else
			snprintf(s->path, sizeof(s->path), "thread.%d", (int)tid);
		if (!linkat(AT_FDCWD, fdpath, ps_session.procfd, s->path, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* The file's header page reserved, mapped (s->hdr) and filled in for thread t: 0 or -errno. */
static int header_map(struct ps_tstore *s, const struct ps_thread *t)
{
	int err = ps_store_reserve(s->fd, 0, PSD_HDR_BYTES);

	if (!err) {
		s->hdr = mmap(NULL, PSD_HDR_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
		if (s->hdr == MAP_FAILED)
			err = -errno;
	}
	if (!err) {
		memcpy(s->hdr->magic, PSD_THREAD_MAGIC, 8);
		s->hdr->version = PSD_VERSION;
		s->hdr->hdr_bytes = PSD_HDR_BYTES;
		s->hdr->pid = (uint32_t)ps_session.pid;
		s->hdr->tid = (uint32_t)t->tid;
		memcpy(s->hdr->comm, t->comm, sizeof(s->hdr->comm));
		s->hdr->chunk_bytes = ps_session.chunk;
		s->hdr->overwrite = ps_session.overwrite;
		s->hdr->nchunks = ps_session.overwrite ?
				  (uint32_t)(ps_session.ring / ps_session.chunk) : 0;
	}
	return err;
}

/* A file that could not be set up: unmapped, closed, unlinked (named), and s let go. */
static void tstore_drop(struct ps_tstore *s, bool unnamed)
{
	if (s->hdr && s->hdr != MAP_FAILED)
		munmap(s->hdr, PSD_HDR_BYTES);
	if (s->map)
		munmap(s->map, s->map_bytes);
	close(s->fd);
	if (!unnamed)
		unlinkat(ps_session.procfd, s->path, 0);
	munmap(s, sizeof(*s));
}

/* The calling thread's file and its first chunk: t->base..t->end. */
int ps_store_thread(struct ps_thread *t, struct ps_fast *f)
{
	struct ps_tstore *s;
	size_t total = ps_session.overwrite ? ps_session.ring : 0;
	bool unnamed;
	int err;

	/*
	 * A child made by clone(2) without the fork handlers (no
	 * after_fork_child: the session is still the parent's) has no
	 * directory: it must not make files in its parent's.
	 */
	if (getpid() != ps_session.pid)
		return -ESRCH;
	/* mmap, not calloc: the first event may be in a handler that interrupted malloc */
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return -ENOMEM;
	s->pid = ps_session.pid;
	err = thread_file_open(s, t->tid, &unnamed);
	if (err) {
		munmap(s, sizeof(*s));
		return err;
	}
	err = header_map(s, t);
	/* Flight recorder: the ring's first chunk now, the others as they are first used. */
	if (!err && total)
		err = ps_store_reserve(s->fd, PSD_HDR_BYTES, ps_session.chunk);
	if (!err && ps_session.overwrite) {
		s->map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, PSD_HDR_BYTES);
		if (s->map == MAP_FAILED) {
			err = -errno;
			s->map = NULL;
		}
		s->map_bytes = total;
	}
	if (!err && unnamed)
		err = thread_file_link(s, t->tid);
	if (err) {
		tstore_drop(s, unnamed);
		return err;
	}
	s->all_next = atomic_load(&all_stores);
	while (!atomic_compare_exchange_weak(&all_stores, &s->all_next, s))
		;
	__atomic_store_n(&t->store, s, __ATOMIC_RELEASE);	/* set up: ps_store_bound may read it */
	if (ps_session.overwrite) {
		chunk_start(t, f, s->map);
		ps_sched_thread_open(ps_session.procfd, s->path, ps_session.pid, t->tid);
		return 0;
	}
	err = map_next(t, f);
	if (!err)
		ps_sched_thread_open(ps_session.procfd, s->path, ps_session.pid, t->tid);
	if (err) {
		say_stopped(s, err);
		/* s stays listed, unused: its file says why it stopped */
		__atomic_store_n(&t->store, NULL, __ATOMIC_RELAXED);
		munmap(s->hdr, PSD_HDR_BYTES);
		s->hdr = NULL;
		close(s->fd);
		s->fd = -1;
	}
	return err;
}

/* A file of another process (the parent's, after fork): never written here. */
bool ps_store_stale(const struct ps_thread *t)
{
	return t->store && t->store->pid != ps_session.pid;
}

/* Events in a used chunk of `words` words (overwrite: what reusing it loses, counted). */
uint64_t ps_chunk_events(const uint64_t *c, size_t words)
{
	const uint64_t *end = c + words;
	uint64_t n = 0;

	for (c += PSD_CHUNK_WORDS; c < end && *c; c++) {
		if (*c == PS_EV_PAD)
			continue;
		if ((*c & 3) == PS_EV_MARK && PSD_EXT_KIND(*c)) {
			n++;
			c += PSD_EXT_WORDS(*c);	/* an extended record and its payload */
			continue;
		}
		if ((*c & 3) == PS_EV_MARK) {
			c++;	/* and its CPU word */
			continue;
		}
		if ((*c & 3) == PS_EV_FUNC)
			c++;	/* and its parent word */
		n++;
	}
	return n;
}

/*
 * The current chunk is full: pad it and go on in the next one.  -errno
 * when there is no room (recording stopped, said once): the thread keeps
 * its current chunk, whose reserved end still takes the open calls' exits.
 */
static int store_next(struct ps_thread *t, struct ps_fast *f)
{
	struct ps_tstore *s = t->store;
	int err;

	if (ps_store_stale(t)) {
		__atomic_store_n(&t->store, NULL, __ATOMIC_RELAXED);	/* the parent's: start a file of our own */
		return ps_store_thread(t, f);
	}
	/* A clone(2) child without the fork handlers: not one more chunk of its parent's file. */
	if (getpid() != ps_session.pid)
		return -ESRCH;
	if (s->hdr->stopped)
		return -ENOSPC;
	if (atomic_load(&s->done) != TSTORE_OPEN)
		return -ENOSPC;	/* its thread ended (ps_store_thread_ended): nothing more is kept */
	if (ps_session.overwrite) {
		uint64_t n = ps_session.ring / ps_session.chunk, *next = s->map + (s->seq % n) * (ps_session.chunk / 8);

		/*
		 * The ring grows a chunk at a time up to its size: a thread of a
		 * few events costs one chunk on disk, not the ring.  Reserved
		 * before the current chunk is padded: without room it keeps it.
		 */
		if (s->seq < n) {
			err = ps_store_reserve(s->fd, ps_chunk_off(s->seq), ps_session.chunk);
			if (err) {
				say_stopped(s, err);
				return err;
			}
		}
		for (uint64_t *p = ps_wp_get(f); p < t->end; p++)
			*p = PS_EV_PAD;
		if (s->seq >= n)
			__atomic_fetch_add(&s->hdr->overwritten, ps_chunk_events(next, ps_session.chunk / 8),
					   __ATOMIC_RELAXED);
		chunk_start(t, f, next);
		ps_sched_flush();
		return 0;
	}
	err = map_next(t, f);
	if (err) {
		say_stopped(s, err);
		return err;
	}
	ps_sched_flush();
	return 0;
}

/* From an event's slow path: what it allocates (a forked child's new file) is the runtime's. */
int ps_store_next(struct ps_thread *t, struct ps_fast *f)
{
	int err;

	ps_own_enter();
	err = store_next(t, f);
	ps_own_leave();
	return err;
}

/* Counted in the file too, so that a crash keeps the count. */
void ps_store_lost(struct ps_thread *t)
{
	if (t->store && !ps_store_stale(t))
		__atomic_fetch_add(&t->store->hdr->lost, 1, __ATOMIC_RELAXED);
}

/*
 * One thread's file closed right: it ends where its data does (chunks
 * reserved ahead go, for a thread that ended; one still running may be
 * switching chunks and keeps whole chunks), its header says where and that
 * it ended cleanly.  Whoever wins s->done does it, once: the thread's end
 * or the exit.
 */
static bool file_finish(struct ps_thread *t, struct ps_tstore *s, struct ps_fast *f)
{
	int open = TSTORE_OPEN;

	if (!atomic_compare_exchange_strong(&s->done, &open, TSTORE_FINISHING))
		return false;
	if (!ps_session.overwrite && f == &t->fast_copy) {
		/* Exited: it writes no more, its file ends at its last word. */
		ps_store_drop_ready(s);
		(void)!ftruncate(s->fd, ps_chunk_off(s->seq - 1) +
				 (off_t)(ps_wp_get(f) - t->base) * 8);
	} else if (!ps_session.overwrite && f == &ps_fast) {
		/* This thread may still record (later destructors): whole chunks. */
		ps_store_drop_ready(s);
		(void)!ftruncate(s->fd, ps_chunk_off(s->seq));
	}
	memcpy(s->hdr->comm, t->comm, sizeof(s->hdr->comm));
	s->hdr->end_word = (uint64_t)(ps_wp_get(f) - t->base);
	__atomic_store_n(&s->hdr->clean, 1, __ATOMIC_RELEASE);
	return true;
}

/* At a normal exit (ps_store_finish): the helper stopped, each thread's file closed right. */
void ps_store_threads_finish(bool wait_helper)
{
	ps_store_helper_stop(wait_helper);
	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		struct ps_fast *f = atomic_load(&t->fast);
		struct ps_tstore *s = t->store;

		if (s && !ps_store_stale(t) && f && file_finish(t, s, f))
			atomic_store(&s->done, TSTORE_DONE);
	}
}

/*
 * A thread's end (its last destructor round, core/thread.c): its file is
 * finished now, as the exit would, and its descriptor closed, so that a
 * program that starts and ends thousands of threads does not run out of
 * descriptors for being traced (one was kept per ended thread).  The
 * mappings stay; what the thread records later (nothing past the copy of
 * its state is kept) finds no descriptor for a new chunk and is counted lost.
 */
void ps_store_thread_ended(struct ps_thread *t)
{
	struct ps_tstore *s = t->store;
	struct ps_fast *f = atomic_load(&t->fast);
	int fd;

	if (!s || ps_store_stale(t) || f != &t->fast_copy || s->fd < 0)
		return;
	ps_store_helper_forget(s);
	if (!file_finish(t, s, f))
		return;		/* the exit has it */
	fd = s->fd;
	s->fd = -1;
	close(fd);
	atomic_store(&s->done, TSTORE_DONE);
}

/* In a forked child (ps_store_forked), before the child's directory is made. */
void ps_store_thread_forked(struct ps_thread *self)
{
	struct ps_tstore *s = self ? self->store : NULL;

	if (s && s->pid == ps_session.pid) {
		void *h = mmap(s->hdr, PSD_HDR_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		if (s->map)
			mmap(s->map, s->map_bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		(void)h;
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		s->map = NULL;	/* not to be unmapped by the next chunk switch */
		for (int k = 0; k < RETIRED; k++) {
			if (s->retired[k])
				munmap(s->retired[k], ps_session.chunk);	/* the parent's */
			s->retired[k] = NULL;
		}
	}
	ps_store_reserve_forked();
	ps_store_helper_forked();
}
