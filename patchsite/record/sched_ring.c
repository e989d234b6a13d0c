// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf side of the scheduler switches (sched_switch.c has the design):
 * a thread's switch event and its ring, sized by perf's budget, and the
 * drain thread that copies each ring's records into the thread's sched
 * file when the kernel wakes it, when the thread ends and every PERIOD_MS.
 * Apart from sched_switch.c, which opens, flushes and finishes each
 * thread's stream: this is what reads perf's ring and its records.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "record/record.h"
#include "sched_ring.h"

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

struct ps_sched_state ps_sched = { PTHREAD_MUTEX_INITIALIZER, NULL, -1, 0, false, false, 0 };

/* The system's page size. */
size_t ps_sched_page_bytes(void)
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

/* The stream's header into its file (s->fd), the whole header page. */
void ps_sched_write_hdr(struct sched_stream *s)
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
 * The ring's records from tail to head (s->lock held): its switches
 * written to the file, BATCH at a time, its PERF_RECORD_LOST counted.
 * Returns the new tail.
 */
static uint64_t copy_records(struct sched_stream *s, const uint8_t *data, uint64_t size,
			     uint64_t head, uint64_t tail)
{
	struct psd_sched_rec out[BATCH];
	size_t n = 0;

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
	return tail;
}

/*
 * What the kernel wrote since the last drain, into the file (s->lock held);
 * clean: all of the thread's, it ended (or the process does).  Records
 * that cannot be written (the file gone) are counted lost.
 */
void ps_sched_drain(struct sched_stream *s, bool clean)
{
	struct perf_event_mmap_page *mp = s->ring;
	const uint8_t *data;
	uint64_t size, head, tail;
	uint64_t now, tsc;

	if (!s->ring)
		return;
	s->fd = openat(s->procfd, s->name, O_WRONLY | O_CLOEXEC);
	data = (const uint8_t *)s->ring + (mp->data_offset ? mp->data_offset : ps_sched_page_bytes());
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
	tail = copy_records(s, data, size, head, mp->data_tail);
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	s->hdr.clean |= clean;
	s->hdr.drained_ns = now;
	s->hdr.drained_tsc = tsc;
	ps_sched_write_hdr(s);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

/* The ring let go; a large one's place goes to a thread to come. */
void ps_sched_ring_unmap(struct sched_stream *s)
{
	munmap(s->ring, s->ring_bytes);
	s->ring = NULL;
	if (s->data_bytes == ring_pages[0] * ps_sched_page_bytes())
		atomic_fetch_sub(&ps_sched.big, 1);
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
	ps_sched_drain(s, true);
	ps_sched_ring_unmap(s);	/* the event's last reference: it leaves the epoll set */
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

	pthread_mutex_lock(&ps_sched.lock);
	s = ps_sched.list;
	pthread_mutex_unlock(&ps_sched.lock);
	for (; s; s = s->next) {
		if (s->pid != me)
			continue;
		pthread_mutex_lock(&s->lock);
		if (due(s, now))
			ps_sched_drain(s, false);
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
				ps_sched_drain(s, false);
			pthread_mutex_unlock(&s->lock);
		}
	}
}

/* The epoll set and its drain thread in this process (ps_sched.lock held); false without. */
bool ps_sched_drainer_start(void)
{
	pthread_t th;

	if (ps_sched.drainer == getpid())
		return true;
	if (ps_sched.epfd < 0)
		ps_sched.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ps_sched.epfd < 0)
		return false;
	if (ps_spawn(drain_main, (void *)(intptr_t)ps_sched.epfd, 0, &th))
		return false;
	pthread_setname_np(th, "patchsite-sched");	/* its CPU is told apart (bench/patchsite/sched_loss.sh) */
	ps_sched.drainer = getpid();
	return true;
}

/* The event's ring: the largest of ring_pages perf allows; 0 or -errno. */
static int ring_map(struct sched_stream *s)
{
	size_t page = ps_sched_page_bytes();
	unsigned k = atomic_fetch_add(&ps_sched.big, 1) < BIG_RINGS ? 0 : 1;

	if (k)
		atomic_fetch_sub(&ps_sched.big, 1);
	for (; k < sizeof(ring_pages) / sizeof(ring_pages[0]); k++) {
		s->data_bytes = ring_pages[k] * page;
		s->ring_bytes = s->data_bytes + page;
		s->ring = mmap(NULL, s->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			       s->perf_fd, 0);
		if (s->ring != MAP_FAILED)
			return 0;
		if (k == 0)
			atomic_fetch_sub(&ps_sched.big, 1);	/* refused: the slot goes to another */
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	s->ring = NULL;
	return -errno;
}

/* A dummy software event of the calling thread that records its context switches. */
void ps_sched_switch_event(struct perf_event_attr *a)
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
int ps_sched_event_open(struct sched_stream *s)
{
	struct perf_event_attr a;
	int err;

	ps_sched_switch_event(&a);
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	/* Half a page: soon, for a ring of any size. */
	a.wakeup_watermark = (uint32_t)(ps_sched_page_bytes() / 2);
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
