// SPDX-License-Identifier: GPL-2.0-only
/*
 * Time off the CPU (issue 25): each traced thread, as its thread file is
 * made, opens a perf event of its own (pid 0, cpu -1, no inherit) that
 * records nothing but its context switches (a dummy software event with
 * context_switch), stamped CLOCK_MONOTONIC (use_clockid) with the CPU.
 * Nothing runs per traced call: the kernel writes the switches into a
 * small ring, and a drain thread copies them into the thread's sched
 * file (data/format.h) when the ring is half full (the event's watermark
 * wakes it), when the thread ends (its event hangs up) and at exit; the
 * thread itself drains its own at each chunk switch of its thread file
 * (ps_sched_flush), so that a busy thread on a loaded machine, preempted
 * hundreds of times a second while the drain thread waits for a CPU, does
 * not overflow it.  And every PERIOD_MS a stream with switches waiting is
 * drained (one without: its header restamped every STAMP_MS), so that a
 * streaming reader (patchsite pipe), which holds back a thread's events
 * newer than the header's drained_ns, shows them soon: a thread that
 * sleeps ten times a second otherwise filled the watermark once in three
 * seconds, and its events waited as long.
 *
 * Why per thread and not uftrace's per-CPU events: a per-thread event
 * needs no inherit (which perf refuses with a ring per CPU) and follows a
 * thread made before tracing started, as it opens at its first event.
 * Sixteen data pages (1024 switches out and in) for a process's first 32
 * threads, four (256) for the next, one where perf's mlock budget is
 * nearly spent: unprivileged, perf_event_mlock_kb per CPU and then
 * RLIMIT_MEMLOCK (8 MiB here) held about 460 threads of four pages (as
 * nobody on this 2-CPU machine: 8 pages a thread gave out at 257 of 300);
 * the 32 larger rings take about 100 of those.  Why sixteen: switches come
 * in storms faster than a drain thread on a loaded machine is woken and
 * run: a thread blocked in mmap(2) on the mmap lock while another thread
 * of the process populates a chunk (MADV_POPULATE_WRITE) switches every
 * 7 us, a thousand records in 20 ms (perf sched_switch stacks), and four
 * pages overflowed in 3 of 10 runs of bench/patchsite/sched_loss.sh.
 * A thread refused its ring says so in its file.  What the kernel could
 * not write is counted (PERF_RECORD_LOST) in the file.
 * Where perf events are refused (perf_event_paranoid, seccomp, no
 * CONFIG_PERF_EVENTS) the file says off-CPU time is unknown, and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "record/record.h"
#include "sched_ring.h"
#include "sched_switch.h"
#include "data/format.h"

/* The calling thread's own stream (ps_sched_flush), or NULL. */
static __thread struct sched_stream *mine __attribute__((tls_model("initial-exec")));

void ps_sched_set(bool on)
{
	ps_sched.off = !on;
}

bool ps_sched_on(void)
{
	return !ps_sched.off;
}

/*
 * The kernel turns its context-switch hooks on for the first such event in
 * the system and waits for an RCU grace period to do so (kernel/events/
 * core.c, account_event: synchronize_rcu when perf_sched_count leaves 0);
 * it turns them off a second after the last one closes.  A thread opening
 * its event at its first traced call paid that wait, 8-20 ms here and
 * hundreds under load: a stall of the program's (bench/patchsite/attach.sh
 * saw callers blocked 10-17 ms in perf_event_open as an attach's tracer
 * went on).  The session's opener pays it instead (ps_store_open), or, in
 * a process attached to, a thread of its own while the runtime starts: one
 * event of its own, kept mapped (no descriptor) for the process's life, as
 * the threads' are for theirs.
 */
static _Atomic(void *) warm_ring;

void ps_sched_warm(void)
{
	struct perf_event_attr a;
	void *p, *none = NULL;
	int fd;

	if (ps_sched.off)
		return;
	/*
	 * The drain thread now, by the session's opener: started at a
	 * program thread's first event, its pthread_create (which mallocs
	 * the new thread's TLS) would run in whatever that thread was
	 * interrupted in, a signal handler in malloc when attached to.
	 */
	pthread_mutex_lock(&ps_sched.lock);
	(void)ps_sched_drainer_start();
	pthread_mutex_unlock(&ps_sched.lock);
	if (atomic_load(&warm_ring))
		return;
	ps_sched_switch_event(&a);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;		/* refused: each thread's own open says why */
	p = mmap(NULL, 2 * ps_sched_page_bytes(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED && !atomic_compare_exchange_strong(&warm_ring, &none, p))
		munmap(p, 2 * ps_sched_page_bytes());	/* another thread's came first */
}

static void *warm_main(void *arg)
{
	(void)arg;
	ps_sched_warm();
	return NULL;
}

void ps_sched_warm_async(void)
{
	if (!ps_sched.off && !atomic_load(&warm_ring))
		(void)ps_spawn(warm_main, NULL, 64 * 1024, NULL);	/* else the opener pays it */
}

/* Once a process, on stderr: the switches are not recorded, and what that means. */
static void say_unknown(const char *why)
{
	char line[512];
	int n;

	if (atomic_exchange(&ps_sched.said, true))
		return;
	n = snprintf(line, sizeof(line), "patchsite: scheduler switches not recorded (%s): "
		     "off-CPU time is unknown in this trace\n", why);
	if (n > 0)
		(void)!write(STDERR_FILENO, line,
			     (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Listed and watched by the drain thread; false when it cannot be (then closed here). */
static bool stream_watch(struct sched_stream *s)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = s };
	bool ok;

	pthread_mutex_lock(&ps_sched.lock);
	ok = ps_sched_drainer_start() && !epoll_ctl(ps_sched.epfd, EPOLL_CTL_ADD, s->perf_fd, &ev);
	if (ok) {
		s->next = ps_sched.list;
		ps_sched.list = s;
	}
	pthread_mutex_unlock(&ps_sched.lock);
	if (!ok) {
		snprintf(s->hdr.why, sizeof(s->hdr.why), "cannot start its drain thread: %s",
			 strerror(errno));
		ps_sched_ring_unmap(s);
	}
	close(s->perf_fd);	/* watched or not: the mapping keeps the event */
	s->perf_fd = -1;
	return ok;
}

/*
 * The file, unnamed (O_TMPFILE) until its header is written, as the thread
 * files are (store_thread.c): a process killed on the way leaves no file
 * rather than one without a header.  Where there is no O_TMPFILE it is
 * named at once, with a header saying nothing is known yet.
 */
static int file_open(struct sched_stream *s, int procfd, const char *name, bool *unnamed)
{
	s->fd = openat(procfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	*unnamed = s->fd >= 0;
	if (*unnamed)
		return 0;
	s->fd = openat(procfd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->fd < 0)
		return -errno;
	s->hdr.state = PSD_SCHED_UNKNOWN;
	snprintf(s->hdr.why, sizeof(s->hdr.why), "the process ended before they were recorded");
	ps_sched_write_hdr(s);
	return 0;
}

static void file_link(struct sched_stream *s, int procfd, const char *name)
{
	char fdpath[64];

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", s->fd);
	if (linkat(AT_FDCWD, fdpath, procfd, name, AT_SYMLINK_FOLLOW))
		say_unknown("cannot name its file in the trace directory");
}

/* A stream that could not be set up (unlocked): its file (if any) says why, and it goes. */
static void stream_drop(struct sched_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	pthread_mutex_destroy(&s->lock);
	munmap(s, sizeof(*s));
}

/*
 * The setup runs under the stream's lock, released before the stream is
 * watched: the drain thread, which learns of it through epoll (a path
 * thread sanitizers do not see), takes that lock before it reads any of
 * it.  Never held while ps_sched.lock is taken (ps_sched_finish takes them
 * the other way round).
 */
void ps_sched_thread_open(int procfd, const char *thread_path, pid_t pid, pid_t tid)
{
	struct sched_stream *s;
	char name[80];
	bool unnamed;

	if (ps_sched.off || strncmp(thread_path, "thread", 6))
		return;
	/* mmap, not calloc: a thread's first event may be in a handler that interrupted malloc */
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_lock(&s->lock);
	s->pid = pid;
	s->fd = -1;
	snprintf(name, sizeof(name), "sched%s", thread_path + 6);
	memcpy(s->hdr.magic, PSD_SCHED_MAGIC, 8);
	s->hdr.version = PSD_SCHED_VERSION;
	s->hdr.hdr_bytes = PSD_SCHED_HDR_BYTES;
	s->hdr.pid = (uint32_t)pid;
	s->hdr.tid = (uint32_t)tid;
	s->hdr.clockid = CLOCK_MONOTONIC;
	if (file_open(s, procfd, name, &unnamed)) {
		say_unknown("cannot make its file in the trace directory");
		pthread_mutex_unlock(&s->lock);
		stream_drop(s);
		return;
	}
	s->hdr.state = ps_sched_event_open(s) ? PSD_SCHED_UNKNOWN : PSD_SCHED_ON;
	if (s->hdr.state == PSD_SCHED_ON)
		s->hdr.why[0] = 0;	/* file_open's "not yet" */
	ps_sched_write_hdr(s);
	if (unnamed)
		file_link(s, procfd, name);
	close(s->fd);
	s->fd = -1;
	s->procfd = procfd;
	snprintf(s->name, sizeof(s->name), "%s", name);
	pthread_mutex_unlock(&s->lock);
	/* Watched last: the drain thread writes only into a named file with its header. */
	if (s->hdr.state == PSD_SCHED_ON && !stream_watch(s)) {
		s->hdr.state = PSD_SCHED_UNKNOWN;
		s->fd = openat(procfd, name, O_WRONLY | O_CLOEXEC);
		ps_sched_write_hdr(s);
	}
	if (s->hdr.state != PSD_SCHED_ON) {
		say_unknown(s->hdr.why);
		stream_drop(s);
		return;
	}
	mine = s;
}

void ps_sched_flush(void)
{
	struct sched_stream *s = mine;

	if (!s || s->pid != getpid() || pthread_mutex_trylock(&s->lock))
		return;		/* none, or the drain thread is at it */
	ps_sched_drain(s, false);
	pthread_mutex_unlock(&s->lock);
}

void ps_sched_finish(bool may_wait)
{
	pid_t me = getpid();

	if (may_wait ? pthread_mutex_lock(&ps_sched.lock) : pthread_mutex_trylock(&ps_sched.lock))
		return;
	for (struct sched_stream *s = ps_sched.list; s; s = s->next) {
		if (s->pid != me || (may_wait ? pthread_mutex_lock(&s->lock) :
					       pthread_mutex_trylock(&s->lock)))
			continue;
		ps_sched_drain(s, true);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&ps_sched.lock);
}

/*
 * Only the forking thread lives on, and the locks may have been held by
 * the parent's drain thread: nothing of the parent's is drained here (its
 * rings are the parent's to drain, and perf does not copy them into a
 * child: VM_DONTCOPY); the locks start afresh.  The child's threads open
 * their own with their files.
 */
void ps_sched_forked(void)
{
	pid_t me = getpid();

	pthread_mutex_init(&ps_sched.lock, NULL);
	for (struct sched_stream *s = ps_sched.list; s; s = s->next) {
		if (s->pid == me)
			continue;
		s->ring = NULL;	/* not mapped here */
		s->pid = 0;	/* never matches a process again */
	}
	if (ps_sched.epfd >= 0)
		close(ps_sched.epfd);	/* shared with the parent: never changed from here */
	ps_sched.epfd = -1;
	ps_sched.drainer = 0;
	atomic_store(&ps_sched.big, 0);	/* the parent's rings are not mapped here */
	atomic_store(&warm_ring, NULL);	/* nor its warm event */
	mine = NULL;
	atomic_store(&ps_sched.said, false);
}

