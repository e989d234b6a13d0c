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
#include "sched_switch.h"
#include "data/format.h"

/*
 * Data pages of a ring, tried in turn (powers of two): the first that
 * perf's budget allows.  BIG_PAGES only for a process's first BIG_RINGS
 * threads, so that a program of hundreds of threads still gets a ring for
 * each (the budget is per user and process, not per thread).
 */
static const unsigned ring_pages[] = { 16, 4, 1 };
#define BIG_RINGS	32
#define BATCH		64	/* records written per pwrite */
#define PERIOD_MS	100	/* waiting switches drained at least this often */
#define STAMP_NS	1000000000ull	/* a stream without: drained_ns renewed this often */

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

static struct {
	pthread_mutex_t lock;		/* the list, the epoll set, the drain thread's start */
	struct sched_stream *list;
	int epfd;
	pid_t drainer;			/* the process the drain thread runs in, or 0 */
	bool off;
	atomic_bool said;
	atomic_uint big;		/* rings of ring_pages[0] mapped in this process */
} sched = { PTHREAD_MUTEX_INITIALIZER, NULL, -1, 0, false, false, 0 };

/* The calling thread's own stream (ps_sched_flush), or NULL. */
static __thread struct sched_stream *mine __attribute__((tls_model("initial-exec")));

void ps_sched_set(bool on)
{
	sched.off = !on;
}

bool ps_sched_on(void)
{
	return !sched.off;
}

static size_t page_bytes(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (size_t)n : 4096;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Bytes at ring offset `at` (wrapping), into out. */
static void ring_copy(const uint8_t *data, uint64_t size, uint64_t at, void *out, size_t len)
{
	size_t off = (size_t)(at & (size - 1)), first = size - off < len ? size - off : len;

	memcpy(out, data + off, first);
	memcpy((uint8_t *)out + first, data, len - first);
}

static void write_hdr(struct sched_stream *s)
{
	union {
		struct psd_sched_hdr h;
		char page[PSD_SCHED_HDR_BYTES];	/* the whole header, records after */
	} u;

	_Static_assert(sizeof(struct psd_sched_hdr) <= PSD_SCHED_HDR_BYTES, "header size");
	memset(&u, 0, sizeof(u));
	u.h = s->hdr;
	if (pwrite(s->fd, &u, sizeof(u), 0) != (ssize_t)sizeof(u))
		return;		/* the file keeps its last header */
}

/* Records out[0..n) at the file's end; a failed write is counted lost, never hidden. */
static void put_records(struct sched_stream *s, const struct psd_sched_rec *out, size_t n)
{
	off_t at = PSD_SCHED_HDR_BYTES + (off_t)(s->hdr.records * PSD_SCHED_REC_BYTES);
	size_t len = n * PSD_SCHED_REC_BYTES;

	if (!n)
		return;
	if (pwrite(s->fd, out, len, at) == (ssize_t)len)
		s->hdr.records += n;
	else
		s->hdr.lost += n;
}

/*
 * A PERF_RECORD_SWITCH (sample_id_all: pid, tid, time, cpu after the
 * header) as a record; false for another thread's (not expected).
 */
static bool switch_record(const struct sched_stream *s, const struct perf_event_header *h,
			  const uint8_t *rec, struct psd_sched_rec *out)
{
	uint32_t tid, cpu;

	memcpy(&tid, rec + 12, 4);
	memcpy(&out->ns, rec + 16, 8);
	memcpy(&cpu, rec + 24, 4);
	out->cpu = (int32_t)cpu;
	if (!(h->misc & PERF_RECORD_MISC_SWITCH_OUT))
		out->what = PSD_SCHED_IN;
	else if (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)
		out->what = PSD_SCHED_OUT_PREEMPT;
	else
		out->what = PSD_SCHED_OUT;
	return tid == s->hdr.tid;
}

/*
 * What the kernel wrote since the last drain, into the file (s->lock held);
 * clean: all of the thread's, it ended (or the process does).  Records
 * that cannot be written (the file gone) are counted lost.
 */
static void drain(struct sched_stream *s, bool clean)
{
	struct perf_event_mmap_page *mp = s->ring;
	const uint8_t *data;
	uint64_t size, head, tail;
	struct psd_sched_rec out[BATCH];
	size_t n = 0;
	uint64_t now, tsc;

	if (!s->ring)
		return;
	s->fd = openat(s->procfd, s->name, O_WRONLY | O_CLOEXEC);
	data = (const uint8_t *)s->ring + (mp->data_offset ? mp->data_offset : page_bytes());
	size = mp->data_size ? mp->data_size : s->data_bytes;
	/*
	 * Taken before the head is read: the kernel writes a switch into the
	 * ring as it stamps it (prepare_task_switch, finish_task_switch, the
	 * thread not running in between), so a switch stamped before this
	 * and still missing is one after which the thread wrote no event yet.
	 */
	tsc = ps_clock();
	now = mono_ns();
	tsc += (ps_clock() - tsc) / 2;		/* the event clock when now was read */
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (head - tail >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		uint8_t rec[64];

		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;	/* cannot be: the kernel writes whole records */
		if (h.size <= sizeof(rec)) {
			ring_copy(data, size, tail, rec, h.size);
			if (h.type == PERF_RECORD_SWITCH && h.size >= 32 &&
			    switch_record(s, &h, rec, &out[n]))
				n++;
			else if (h.type == PERF_RECORD_LOST && h.size >= 24) {
				uint64_t lost;

				memcpy(&lost, rec + 16, 8);
				s->hdr.lost += lost;
			}
		}
		tail += h.size;
		if (n == BATCH) {
			put_records(s, out, n);
			n = 0;
		}
	}
	put_records(s, out, n);
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	s->hdr.clean |= clean;
	s->hdr.drained_ns = now;
	s->hdr.drained_tsc = tsc;
	write_hdr(s);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* The ring let go; a large one's place goes to a thread to come. */
static void ring_unmap(struct sched_stream *s)
{
	munmap(s->ring, s->ring_bytes);
	s->ring = NULL;
	if (s->data_bytes == ring_pages[0] * page_bytes())
		atomic_fetch_sub(&sched.big, 1);
}

/*
 * The thread ended (its event hung up): drained for the last time and
 * complete; the event and the file let go (a program of many short
 * threads must not run out of descriptors because it is traced).
 */
static void stream_close(struct sched_stream *s)
{
	if (!s->ring)
		return;
	drain(s, true);
	ring_unmap(s);	/* the event's last reference: it leaves the epoll set */
}

/* Due for a drain by time (s->lock held): switches waiting, or an old drained_ns. */
static bool due(const struct sched_stream *s, uint64_t now)
{
	const struct perf_event_mmap_page *mp = s->ring;

	if (!mp)
		return false;
	return __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE) != mp->data_tail ||
	       now - s->hdr.drained_ns >= STAMP_NS;
}

/*
 * Every stream of this process due (the drain thread).  The list only
 * grows at its head, and a stream's next is set before it is listed.
 */
static void drain_due(void)
{
	struct sched_stream *s;
	pid_t me = getpid();
	uint64_t now = mono_ns();

	pthread_mutex_lock(&sched.lock);
	s = sched.list;
	pthread_mutex_unlock(&sched.lock);
	for (; s; s = s->next) {
		if (s->pid != me)
			continue;
		pthread_mutex_lock(&s->lock);
		if (due(s, now))
			drain(s, false);
		pthread_mutex_unlock(&s->lock);
	}
}

static void *drain_main(void *arg)
{
	int epfd = (int)(intptr_t)arg;
	uint64_t last = mono_ns();

	for (;;) {
		struct epoll_event ev[16];
		int n = epoll_wait(epfd, ev, 16, PERIOD_MS);

		if (mono_ns() - last >= PERIOD_MS * 1000000ull) {
			drain_due();
			last = mono_ns();
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return NULL;
		for (int k = 0; k < n; k++) {
			struct sched_stream *s = ev[k].data.ptr;

			pthread_mutex_lock(&s->lock);
			if (ev[k].events & (EPOLLHUP | EPOLLERR))
				stream_close(s);
			else
				drain(s, false);
			pthread_mutex_unlock(&s->lock);
		}
	}
}

/* The epoll set and its drain thread in this process (sched.lock held); false without. */
static bool drainer_start(void)
{
	pthread_t th;

	if (sched.drainer == getpid())
		return true;
	if (sched.epfd < 0)
		sched.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sched.epfd < 0)
		return false;
	if (ps_spawn(drain_main, (void *)(intptr_t)sched.epfd, 0, &th))
		return false;
	pthread_setname_np(th, "patchsite-sched");	/* its CPU is told apart (bench/patchsite/sched_loss.sh) */
	sched.drainer = getpid();
	return true;
}

/* The event's ring: the largest of ring_pages perf allows; 0 or -errno. */
static int ring_map(struct sched_stream *s)
{
	size_t page = page_bytes();
	unsigned k = atomic_fetch_add(&sched.big, 1) < BIG_RINGS ? 0 : 1;

	if (k)
		atomic_fetch_sub(&sched.big, 1);
	for (; k < sizeof(ring_pages) / sizeof(ring_pages[0]); k++) {
		s->data_bytes = ring_pages[k] * page;
		s->ring_bytes = s->data_bytes + page;
		s->ring = mmap(NULL, s->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			       s->perf_fd, 0);
		if (s->ring != MAP_FAILED)
			return 0;
		if (k == 0)
			atomic_fetch_sub(&sched.big, 1);	/* refused: the slot goes to another */
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	s->ring = NULL;
	return -errno;
}

/* A dummy software event of the calling thread that records its context switches. */
static void switch_event(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->context_switch = 1;
	a->exclude_kernel = 1;	/* perf_event_paranoid 2 allows user-only events */
	a->exclude_hv = 1;
}

/* The calling thread's switch event and its ring: 0, or -errno with s->hdr.why said. */
static int event_open(struct sched_stream *s)
{
	struct perf_event_attr a;
	int err;

	switch_event(&a);
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	/* Half a page: soon, for a ring of any size. */
	a.wakeup_watermark = (uint32_t)(page_bytes() / 2);
	s->perf_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (s->perf_fd < 0) {
		err = -errno;
		snprintf(s->hdr.why, sizeof(s->hdr.why), "perf_event_open: %s", strerror(errno));
		return err;
	}
	err = ring_map(s);
	if (err) {
		snprintf(s->hdr.why, sizeof(s->hdr.why), "perf ring mmap: %s", strerror(-err));
		close(s->perf_fd);
		s->perf_fd = -1;
	}
	return err;
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

	if (sched.off)
		return;
	/*
	 * The drain thread now, by the session's opener: started at a
	 * program thread's first event, its pthread_create (which mallocs
	 * the new thread's TLS) would run in whatever that thread was
	 * interrupted in, a signal handler in malloc when attached to.
	 */
	pthread_mutex_lock(&sched.lock);
	(void)drainer_start();
	pthread_mutex_unlock(&sched.lock);
	if (atomic_load(&warm_ring))
		return;
	switch_event(&a);
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return;		/* refused: each thread's own open says why */
	p = mmap(NULL, 2 * page_bytes(), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED && !atomic_compare_exchange_strong(&warm_ring, &none, p))
		munmap(p, 2 * page_bytes());	/* another thread's came first */
}

static void *warm_main(void *arg)
{
	(void)arg;
	ps_sched_warm();
	return NULL;
}

void ps_sched_warm_async(void)
{
	if (!sched.off && !atomic_load(&warm_ring))
		(void)ps_spawn(warm_main, NULL, 64 * 1024, NULL);	/* else the opener pays it */
}

/* Once a process, on stderr: the switches are not recorded, and what that means. */
static void say_unknown(const char *why)
{
	char line[512];
	int n;

	if (atomic_exchange(&sched.said, true))
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

	pthread_mutex_lock(&sched.lock);
	ok = drainer_start() && !epoll_ctl(sched.epfd, EPOLL_CTL_ADD, s->perf_fd, &ev);
	if (ok) {
		s->next = sched.list;
		sched.list = s;
	}
	pthread_mutex_unlock(&sched.lock);
	if (!ok) {
		snprintf(s->hdr.why, sizeof(s->hdr.why), "cannot start its drain thread: %s",
			 strerror(errno));
		ring_unmap(s);
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
	write_hdr(s);
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
 * it.  Never held while sched.lock is taken (ps_sched_finish takes them
 * the other way round).
 */
void ps_sched_thread_open(int procfd, const char *thread_path, pid_t pid, pid_t tid)
{
	struct sched_stream *s;
	char name[80];
	bool unnamed;

	if (sched.off || strncmp(thread_path, "thread", 6))
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
	s->hdr.state = event_open(s) ? PSD_SCHED_UNKNOWN : PSD_SCHED_ON;
	if (s->hdr.state == PSD_SCHED_ON)
		s->hdr.why[0] = 0;	/* file_open's "not yet" */
	write_hdr(s);
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
		write_hdr(s);
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
	drain(s, false);
	pthread_mutex_unlock(&s->lock);
}

void ps_sched_finish(bool may_wait)
{
	pid_t me = getpid();

	if (may_wait ? pthread_mutex_lock(&sched.lock) : pthread_mutex_trylock(&sched.lock))
		return;
	for (struct sched_stream *s = sched.list; s; s = s->next) {
		if (s->pid != me || (may_wait ? pthread_mutex_lock(&s->lock) :
					       pthread_mutex_trylock(&s->lock)))
			continue;
		drain(s, true);
		pthread_mutex_unlock(&s->lock);
	}
	pthread_mutex_unlock(&sched.lock);
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

	pthread_mutex_init(&sched.lock, NULL);
	for (struct sched_stream *s = sched.list; s; s = s->next) {
		if (s->pid == me)
			continue;
		s->ring = NULL;	/* not mapped here */
		s->pid = 0;	/* never matches a process again */
	}
	if (sched.epfd >= 0)
		close(sched.epfd);	/* shared with the parent: never changed from here */
	sched.epfd = -1;
	sched.drainer = 0;
	atomic_store(&sched.big, 0);	/* the parent's rings are not mapped here */
	atomic_store(&warm_ring, NULL);	/* nor its warm event */
	mine = NULL;
	atomic_store(&sched.said, false);
}
