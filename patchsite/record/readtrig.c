// SPDX-License-Identifier: GPL-2.0-only
/*
 * read= triggers (uftrace's -T FUNC@read=KIND): values read at a
 * function's entry and again at its exit, recorded as PSD_EXT_READ
 * (data/format.h; the reader shows the entry's and the difference over the
 * call).  Asked per function through set_ftrace_args (args.c), which puts
 * the entry's read after the entry and flags the frame, whose exit
 * (graph.c frame_exit) puts the second.
 *
 *   proc/statm   /proc/self/statm (size, resident, shared), in KB: read
 *                with raw system calls into a buffer on the stack (no
 *                malloc, no stdio, no interposed libc: async-signal-safe)
 *   page-fault   the thread's major and minor faults: perf's software
 *                counters PERF_COUNT_SW_PAGE_FAULTS_MAJ/_MIN, chosen over
 *                uftrace's getrusage(RUSAGE_SELF) so that a fault of another
 *                thread does not count, and so that the hardware counters'
 *                path (open, mmap, read) is the one this exercises
 *   pmu-cycle, pmu-cache, pmu-branch   hardware counter pairs
 *
 * Counters are opened on the calling thread at its first read (pid 0,
 * cpu -1: they follow the thread), each with its perf_event_mmap_page,
 * and closed when the thread ends (ps_graph_thread_end) or, in a forked
 * child, found to be the parent's (their tid).  A counter is read with the
 * arch's user read (x86-64 rdpmc) where the page says the kernel allows it
 * (ps_read_pmc_usable), else with read(2).  A counter that cannot be opened
 * is said once and its reads are not recorded: never a zero.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/record.h"
#include "data/format.h"
#include "data/psread.h"

#define RD_VALS		3
#define RD_COUNTERS	2		/* a perf kind's counters */

/* The perf kinds' counters, in the order of their values (names: data/read_reads.c). */
static const struct {
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config[RD_COUNTERS];
} perf_kinds[PSD_READ_N] = {
	[PSD_READ_PAGE_FAULT] = { PERF_TYPE_SOFTWARE,
				  { PERF_COUNT_SW_PAGE_FAULTS_MAJ, PERF_COUNT_SW_PAGE_FAULTS_MIN } },
	[PSD_READ_PMU_CYCLE] = { PERF_TYPE_HARDWARE,
				 { PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS } },
	[PSD_READ_PMU_CACHE] = { PERF_TYPE_HARDWARE,
				 { PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES } },
	[PSD_READ_PMU_BRANCH] = { PERF_TYPE_HARDWARE,
				  { PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES } },
};

/* One thread's counters, by kind: opened at its first read. */
struct rd_counter {
	int fd;
	struct perf_event_mmap_page *pg;	/* NULL: read(2) only */
};
struct rd_thread {
	pid_t tid;			/* opened by this thread (a forked child's are not its) */
	uint8_t state[PSD_READ_N];	/* 0 not tried, 1 open, 2 refused */
	struct rd_counter c[PSD_READ_N][RD_COUNTERS];
};
/*
 * A pointer, mapped at the thread's first read of a counter: the runtime's
 * static TLS stays small (an attach loads it into the surplus glibc keeps,
 * tests/patchsite/attach.sh bounds it at 128 bytes), and mmap is safe in a
 * handler where malloc is not.
 */
static __thread struct rd_thread *rd __attribute__((tls_model("initial-exec")));
static atomic_bool said[PSD_READ_N];

/*
 * The user read a perf_event_mmap_page allows: the kernel sets
 * cap_user_rdpmc when this thread may read the counter itself, and index
 * (the hardware counter + 1) while it is scheduled on one; a software
 * counter has neither.  The arch must have a user read (ps_arch.read_pmc).
 */
bool ps_read_pmc_usable(const struct perf_event_mmap_page *pg, bool arch_has)
{
	return pg && arch_has && pg->cap_user_rdpmc && pg->index;
}

/* One counter's value: the mapped page's seqlock and the arch's read, else read(2). */
static bool counter_value(const struct rd_counter *c, uint64_t *v)
{
	const struct perf_event_mmap_page *pg = c->pg;

	for (int tries = 0; pg && ps.arch->read_pmc && tries < 8; tries++) {
		uint32_t seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE), width;
		uint64_t n, raw;

		if (!ps_read_pmc_usable(pg, true))
			break;
		n = (uint64_t)pg->offset;
		width = pg->pmc_width;
		raw = ps.arch->read_pmc(pg->index - 1);
		if (width && width < 64)
			raw = (uint64_t)((int64_t)(raw << (64 - width)) >> (64 - width));
		/* The kernel's barrier(): the page changes on this CPU only, around a switch. */
		__asm__ volatile("" ::: "memory");
		if (__atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE) == seq) {
			*v = n + raw;
			return true;
		}
	}
	return syscall(SYS_read, c->fd, v, sizeof(*v)) == (long)sizeof(*v);
}

static void close_kind(unsigned k)
{
	for (int i = 0; i < RD_COUNTERS; i++) {
		struct rd_counter *c = &rd->c[k][i];

		if (c->pg)
			munmap(c->pg, (size_t)sysconf(_SC_PAGESIZE));
		if (rd->state[k] == 1 && c->fd >= 0)
			syscall(SYS_close, c->fd);
		*c = (struct rd_counter){ .fd = -1 };
	}
	rd->state[k] = 0;
}

/* The thread's counters of kind k, open; false (said once) when they cannot be. */
static bool open_kind(unsigned k)
{
	struct perf_event_attr a;
	int err = 0;

	for (int i = 0; i < RD_COUNTERS; i++)
		rd->c[k][i] = (struct rd_counter){ .fd = -1 };
	for (int i = 0; i < RD_COUNTERS && !err; i++) {
		struct rd_counter *c = &rd->c[k][i];
		void *pg;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = perf_kinds[k].type;
		a.config = perf_kinds[k].config[i];
		a.exclude_kernel = 1;	/* the program's own work (and paranoid 2 allows it) */
		a.exclude_hv = 1;
		c->fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (c->fd < 0) {
			err = errno;
			break;
		}
		pg = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, c->fd, 0);
		c->pg = pg == MAP_FAILED ? NULL : pg;
	}
	rd->state[k] = 1;
	if (!err)
		return true;
	close_kind(k);
	rd->state[k] = 2;
	if (!atomic_exchange(&said[k], true))
		ps_log(PATCHSITE_LOG_ERROR, "read=%s: perf_event_open: %s: not recorded",
		       psr_read_name(k), strerror(err));
	return false;
}

/* "size resident shared ..." in pages, into v in KB; false when unread. */
static bool statm_values(uint64_t v[RD_VALS])
{
	char b[128], *p = b;
	long n, fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/statm", O_RDONLY | O_CLOEXEC);
	uint64_t kb = (uint64_t)sysconf(_SC_PAGESIZE) / 1024;

	if (fd < 0)
		return false;
	n = syscall(SYS_read, fd, b, sizeof(b) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return false;
	b[n] = '\0';
	for (int i = 0; i < RD_VALS; i++) {
		uint64_t x = 0;

		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			x = x * 10 + (uint64_t)(*p++ - '0');
		v[i] = x * kb;
	}
	return true;
}

/* The calling thread's values of kind k now (also timed by tests/patchsite/readtrig.sh). */
bool ps_read_values(unsigned k, uint64_t v[RD_VALS])
{
	struct ps_thread *t = ps_thread_self();

	if (k == PSD_READ_STATM)
		return statm_values(v);
	if (!rd) {
		void *m = mmap(NULL, sizeof(*rd), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (m == MAP_FAILED)
			return false;
		rd = m;
		rd->tid = t ? t->tid : 0;
	}
	if (t && rd->tid != t->tid) {	/* a forked child: its parent's counters */
		for (unsigned i = 0; i < PSD_READ_N; i++)
			if (rd->state[i] == 1)
				close_kind(i);
		memset(rd->state, 0, sizeof(rd->state));
		rd->tid = t->tid;
	}
	if (rd->state[k] == 2 || (rd->state[k] == 0 && !open_kind(k)))
		return false;
	for (int i = 0; i < RD_COUNTERS; i++)
		if (!counter_value(&rd->c[k][i], &v[i]))
			return false;
	return true;
}

/*
 * PSD_EXT_READ for each kind in mask: the site id, kind | exit flag, the
 * values.  Returns the budget units taken (entry: counted with the entry's).
 */
unsigned ps_read_put(uint32_t site_id, unsigned mask, bool exit)
{
	unsigned units = 0;

	for (unsigned k = 0; k < PSD_READ_N; k++) {
		uint64_t w[2 + RD_VALS];

		if (!(mask & 1u << k) || !ps_read_values(k, w + 2))
			continue;
		w[0] = site_id;
		w[1] = k | (exit ? PSD_READ_EXIT : 0);
		if (ps_ring_ext(PSD_EXT_READ, w, 2 + psr_read_nvals(k)))
			units += (2 + psr_read_nvals(k) + 2) / 2;
	}
	return units;
}

/* The thread ends: its counters with it. */
void ps_read_thread_end(void)
{
	struct ps_thread *t = ps_thread_self();

	if (!rd || (t && rd->tid != t->tid))
		return;		/* none of its own (a child's inherited descriptors stay the parent's) */
	for (unsigned k = 0; k < PSD_READ_N; k++)
		if (rd->state[k] == 1)
			close_kind(k);
	munmap(rd, sizeof(*rd));
	rd = NULL;
}
