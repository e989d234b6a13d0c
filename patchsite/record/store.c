// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace directory (PATCHSITE_DATA, patchsite-data(5)): what a process
 * records goes to disk as it runs, so that a crash, a kill or _exit keeps
 * every event written up to that moment.
 *
 * Each thread writes its ring words straight into a file of its own,
 * mapped MAP_SHARED one chunk at a time: a word stored is in the page
 * cache at once.  Chunks are reserved on disk (fallocate) before they are
 * used, so a full file system or RLIMIT_FSIZE is seen as an error at a
 * chunk switch, never as SIGBUS or SIGXFSZ in the program: the thread then
 * stops recording, says so once on stderr and counts what it drops.  With
 * overwrite (flight recorder) the file is a fixed ring of chunks and the
 * oldest chunk is reused.
 *
 * Per process, a directory of its own (PID, or PID.N for a later image of
 * the same pid after exec): info, cmdline, one mod.N file per loaded object
 * (its sites and function symbols: enough to name every event offline),
 * the modules log of loads and unloads, thread.TID files, and end, written
 * only at a normal exit (its absence marks an abnormal end).  Every
 * process appends one line to the session list, even one with no sites.
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

#include "internal.h"
#include "event.h"
#include "psdata.h"

#define GROW_CHUNK	(1ul << 20)
#define AHEAD		4		/* chunks the helper keeps ready for a busy thread */

struct ps_tstore {
	void *_Atomic ready[AHEAD];	/* grow: chunks n to n + AHEAD - 1, mapped and filled by the
					   helper, chunk y in slot y % AHEAD (word 1: its number) */
	uint64_t prepared;		/* helper only: chunks below this were made ready */
	uint64_t want_seq;		/* under helper.lock: the chunk asked for */
	bool queued;			/* under helper.lock: waiting for the helper */
	struct ps_tstore *qnext;
	struct ps_tstore *all_next;	/* every one made, never freed (threads keep theirs) */
	int fd;
	pid_t pid;			/* the process whose file this is */
	struct psd_thread_hdr *hdr;	/* mapped shared, the whole time */
	uint64_t *map;			/* grow: the current chunk; overwrite: every chunk */
	size_t map_bytes;
	uint64_t seq;			/* chunks started */
	_Atomic uint64_t gen;		/* odd while chunk_start switches chunks (ps_store_bound) */
	char path[64];			/* relative to the process directory */
};

static _Atomic(struct ps_tstore *) all_stores;

static struct {
	bool on, overwrite;
	int procfd;			/* the process directory */
	pid_t pid;
	size_t chunk, ring;		/* chunk bytes; overwrite: bytes per thread */
	char dir[4096], proc[4400];	/* the session directory, the process directory */
	char tracer[32];
	char procname[64];		/* this process's directory in the session */
	_Atomic bool said_full;
} st = { .procfd = -1 };

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

static int reserve(int fd, off_t off, size_t len);

static off_t chunk_off(uint64_t seq)
{
	return PSD_HDR_BYTES + (off_t)(seq * st.chunk);
}

/* Chunk seq of s's file, reserved, mapped and its pages in; NULL on failure. */
static void *prepare(struct ps_tstore *s, uint64_t seq)
{
	void *p;

	if (reserve(s->fd, chunk_off(seq), st.chunk))
		return NULL;
	p = mmap(NULL, st.chunk, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, chunk_off(seq));
	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, st.chunk, MADV_POPULATE_WRITE);	/* Linux 5.14; a hint */
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
			munmap(p, st.chunk);	/* an older one, never taken */
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
static void helper_request(struct ps_tstore *s)
{
	if (pthread_mutex_trylock(&helper.lock))
		return;
	if (helper.pid != st.pid && !helper.closing) {
		sigset_t all, old;
		pthread_t th;

		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);	/* the program's signals are not for it */
		if (!pthread_create(&th, NULL, helper_main, NULL)) {
			pthread_detach(th);
			helper.pid = st.pid;
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (helper.pid == st.pid && !s->queued) {
		s->queued = true;
		s->want_seq = s->seq;
		s->qnext = helper.queue;
		helper.queue = s;
		pthread_cond_signal(&helper.cond);
	}
	pthread_mutex_unlock(&helper.lock);
}

/*
 * Acquire: a trace directory opened while threads run (the control file
 * current_tracer) is seen whole by a thread that sees it on.
 */
bool ps_store_on(void)
{
	return __atomic_load_n(&st.on, __ATOMIC_ACQUIRE);
}

/* The session directory and this process's directory in it (ps_store_on()). */
const char *ps_store_dir(const char **procname)
{
	*procname = st.procname;
	return st.dir;
}

/*
 * The session is PATCHSITE_OUTPUT's own (a private directory, removed once
 * rendered): start-up sets it; snapshots (snapshot.c) are refused there,
 * as they would be removed with it.
 */
static bool private_dir;

void ps_store_set_private(bool on)
{
	private_dir = on;
}

bool ps_store_private(void)
{
	return private_dir;
}

/*
 * Where a trace directory goes when nothing names one: next to the control
 * socket while there is one (channel.c says so as it starts and stops).
 */
static _Atomic(const char *) default_dir;

void ps_store_set_default_dir(const char *dir)
{
	atomic_store_explicit(&default_dir, dir, memory_order_release);
}

const char *ps_store_default_dir(void)
{
	return atomic_load_explicit(&default_dir, memory_order_acquire);
}

/* A session made for PATCHSITE_OUTPUT alone: removed once rendered (its files, then it). */
void ps_store_remove(void)
{
	char path[4400];

	if (st.procfd >= 0) {
		DIR *d = fdopendir(dup(st.procfd));
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				unlinkat(st.procfd, e->d_name, 0);
		if (d)
			closedir(d);
	}
	rmdir(st.proc);
	snprintf(path, sizeof(path), "%s/session", st.dir);
	unlink(path);
	rmdir(st.dir);	/* fails, as it should, while a child's directory is there */
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A whole small text file in the process directory; -errno. */
static int write_file(const char *name, const char *text, size_t len)
{
	int fd = openat(st.procfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err = 0;

	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, text, len);

		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		text += n;
		len -= (size_t)n;
	}
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* A whole text file in this process's directory: -ENOENT when nothing is recorded. */
int ps_store_file(const char *name, const char *text, size_t len)
{
	if (!st.on || st.pid != getpid())
		return -ENOENT;
	return write_file(name, text, len);
}

static int mkdir_p(const char *dir)
{
	char buf[4096];

	if (!mkdir(dir, 0755) || errno == EEXIST)
		return 0;
	if (errno != ENOENT || snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -errno;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(dir, 0755) && errno != EEXIST ? -errno : 0;
}

/* The tsc rate over >= 200 us now: good to 1e-4, for runs too short to measure better. */
static double calibrate(uint64_t *tsc0, uint64_t *ns0)
{
	uint64_t t1, n1;

	*ns0 = clock_ns(CLOCK_MONOTONIC);
	*tsc0 = ps_clock();
	do {
		n1 = clock_ns(CLOCK_MONOTONIC);
		t1 = ps_clock();
	} while (n1 - *ns0 < 200000);
	return t1 > *tsc0 ? (double)(n1 - *ns0) / (double)(t1 - *tsc0) : 1.0;
}

static void copy_cmdline(void)
{
	char buf[65536];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;

	if (fd >= 0)
		close(fd);
	if (n > 0)
		write_file("cmdline", buf, (size_t)n);
}

static int write_info(void)
{
	char text[8192], exe[4096];
	uint64_t tsc0, ns0;
	double rate = calibrate(&tsc0, &ns0);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int len;

	exe[n > 0 ? n : 0] = 0;
	len = snprintf(text, sizeof(text),
		       "format patchsite-data %d\npid %d\nppid %d\nexe %s\ntracer %s\n"
		       "clock tsc\ntsc0 %llu\nns0 %llu\nrealtime0 %llu\nns_per_tsc %.12f\n"
		       "overwrite %d\nchunk_bytes %zu\nring_bytes %zu\n",
		       PSD_VERSION, (int)getpid(), (int)getppid(), exe, st.tracer,
		       (unsigned long long)tsc0, (unsigned long long)ns0,
		       (unsigned long long)clock_ns(CLOCK_REALTIME), rate, st.overwrite,
		       st.chunk, st.overwrite ? st.ring : 0);
	copy_cmdline();
	return write_file("info", text, (size_t)len < sizeof(text) ? (size_t)len : sizeof(text));
}

/* One line in the session list: pid ppid directory exe (O_APPEND: lines never mix). */
static void session_line(const char *procdir)
{
	char path[4200], exe[2048], line[4400];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd, len;

	exe[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "%s/session", st.dir);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%d %d %s %s\n", (int)getpid(), (int)getppid(),
		       procdir, exe);
	if (len > 0)
		(void)!write(fd, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	close(fd);
}

/* PID, or PID.1, PID.2... for a later image of the same pid (exec). */
static int make_procdir(char *name, size_t len)
{
	char path[sizeof(st.proc)];

	for (int k = 0; k < 10000; k++) {
		if (k)
			snprintf(name, len, "%d.%d", (int)getpid(), k);
		else
			snprintf(name, len, "%d", (int)getpid());
		snprintf(path, sizeof(path), "%s/%s", st.dir, name);
		if (!mkdir(path, 0755)) {
			snprintf(st.proc, sizeof(st.proc), "%s", path);
			st.procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			return st.procfd < 0 ? -errno : 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static const struct ps_store_part *parts[4];
static unsigned nparts;

/* Once, at init (api.c wire). */
void ps_store_add_part(const struct ps_store_part *p)
{
	if (nparts < sizeof(parts) / sizeof(parts[0]))
		parts[nparts++] = p;
}

/* Anything to record: sites, or a part's (events, branch counters: recorded with no function site). */
static bool any_sites(void)
{
	for (unsigned i = 0; i < ps.nmods; i++)
		if (ps.mods[i]->nsites)
			return true;
	for (unsigned i = 0; i < nparts; i++)
		if (parts[i]->any && parts[i]->any())
			return true;
	return false;
}

/*
 * A whole file of the process directory, replaced at once (a reader sees
 * the old one or the new one, never a part): 0 or -errno; -ENODEV when
 * this process records nothing.
 */
int ps_store_replace(const char *name, const char *text, size_t len)
{
	char tmp[64];
	int err;

	if (!st.on || st.pid != getpid())
		return -ENODEV;
	if (snprintf(tmp, sizeof(tmp), ".%s.new", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = write_file(tmp, text, len);
	if (!err && renameat(st.procfd, tmp, st.procfd, name))
		err = -errno;
	if (err)
		unlinkat(st.procfd, tmp, 0);
	return err;
}

/* Line of the modules log: what happened to object idx, and when (file: its mod.N file). */
static void modules_log(const char *what, const struct ps_module *m, uint64_t tsc,
			const char *file)
{
	char line[4400];
	int fd = openat(st.procfd, "modules", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int len;

	if (fd < 0)
		return;
	len = snprintf(line, sizeof(line), "%s %u %llu %#lx %s %s\n", what, m->index,
		       (unsigned long long)tsc, (unsigned long)m->bias, file,
		       m->path && *m->path ? m->path : "-");
	if (len > 0)
		(void)!write(fd, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line) - 1);
	close(fd);
}

static const char *kind_name(uint8_t kind)
{
	return kind == SITE_EXIT ? "exit" : kind == SITE_ENTRY_EXITS ? "entry-exits" : "entry";
}

/*
 * mod.N: the object (path, bias, file identity), its sites by index and
 * its function symbols, names as traces show them.
 */
static void write_module(struct ps_module *m, char *name, size_t len)
{
	struct stat sb;
	FILE *f;
	int fd = -1;

	/* A slot reused by a later object: mod.N.1, mod.N.2... */
	for (int k = 0; k < 100000 && fd < 0; k++) {
		if (k)
			snprintf(name, len, "mod.%u.%d", m->index, k);
		else
			snprintf(name, len, "mod.%u", m->index);
		fd = openat(st.procfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		snprintf(name, len, "-");
		return;
	}
	/* Symbols are read only where they name something: sites, or callers (function). */
	if (m->nsites || !strcmp(st.tracer, "function"))
		ps_module_syms(m);
	fprintf(f, "path %s\nbias %#lx\n", m->path ? m->path : "", (unsigned long)m->bias);
	if (m->path && !stat(m->path, &sb))
		fprintf(f, "file %llu %lld\n", (unsigned long long)sb.st_size,
			(long long)sb.st_mtime);
	fprintf(f, "text %#lx %#lx\n", (unsigned long)m->text_lo, (unsigned long)m->text_hi);
	for (size_t i = 0; i < m->nsites; i++) {
		const struct ps_site *s = &m->sites[i];

		fprintf(f, "site %zu %#lx %s %u ", i, (unsigned long)s->addr, kind_name(s->kind),
			s->kind == SITE_EXIT ? s->owner : (unsigned)i);
		if (s->sym)
			fputs(ps_sym_shown(s->sym), f);
		else
			fprintf(f, "0x%lx", (unsigned long)s->addr);
		fputc('\n', f);
	}
	/* Function symbols: callers (the function tracer's parents) of objects with sites. */
	for (size_t i = 0; i < m->nsyms && (m->nsites || !strcmp(st.tracer, "function")); i++)
		fprintf(f, "func %#lx %zu %s\n", (unsigned long)m->syms[i].addr, m->syms[i].size,
			ps_sym_shown(&m->syms[i]));
	fclose(f);
}

void ps_store_module(struct ps_module *m)
{
	char name[48];

	if (!st.on || st.pid != getpid())
		return;
	write_module(m, name, sizeof(name));
	modules_log("load", m, ps_clock(), name);
}

void ps_store_module_gone(struct ps_module *m)
{
	if (st.on && st.pid == getpid())
		modules_log("unload", m, m->gone_tsc, "-");
}

/* Process directory and its fixed files; the caller holds ps.lock. */
static int open_process(void)
{
	char name[64];
	int err;

	st.pid = getpid();
	if (!any_sites()) {
		session_line("-");
		return 0;
	}
	err = make_procdir(name, sizeof(name));
	if (!err)
		err = write_info();
	snprintf(st.procname, sizeof(st.procname), "%s", name);
	if (err)
		return err;
	session_line(name);
	__atomic_store_n(&st.on, true, __ATOMIC_RELEASE);	/* after everything above */
	for (unsigned i = 0; i < ps.nmods; i++)
		if (!ps.mods[i]->gone)
			ps_store_module(ps.mods[i]);
	for (unsigned i = 0; i < nparts; i++)
		if (parts[i]->opened)
			parts[i]->opened();
	return 0;
}

int ps_store_open(const char *dir, const char *tracer, bool overwrite, size_t ring_bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err;

	if (snprintf(st.dir, sizeof(st.dir), "%s", dir) >= (int)sizeof(st.dir))
		return -ENAMETOOLONG;
	snprintf(st.tracer, sizeof(st.tracer), "%s", tracer);
	st.overwrite = overwrite;
	st.chunk = GROW_CHUNK;
	if (overwrite) {
		/* A ring of at least 4 chunks, so that most of it is kept when one is reused. */
		st.ring = (ring_bytes + page - 1) & ~(page - 1);
		st.chunk = st.ring / 4 > GROW_CHUNK ? GROW_CHUNK : (st.ring / 4 + page - 1) & ~(page - 1);
		if (st.chunk < page)
			st.chunk = page;
		st.ring = (st.ring + st.chunk - 1) / st.chunk * st.chunk;
		if (st.ring < 2 * st.chunk)
			st.ring = 2 * st.chunk;
	}
	err = mkdir_p(dir);
	if (err)
		return err;
	pthread_mutex_lock(&ps.lock);
	err = open_process();
	pthread_mutex_unlock(&ps.lock);
	return err;
}

/* Room on disk for [off, off + len): -errno (EFBIG past RLIMIT_FSIZE, without its signal). */
static int reserve(int fd, off_t off, size_t len)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)off + len > rl.rlim_cur)
		return -EFBIG;
	if (!fallocate(fd, 0, off, (off_t)len))
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	/* No fallocate here (a file system without it): sized, not reserved. */
	return ftruncate(fd, off + (off_t)len) ? -errno : 0;
}

static void say_stopped(struct ps_tstore *s, int err)
{
	if (s->hdr) {
		snprintf(s->hdr->why, sizeof(s->hdr->why), "%s", strerror(-err));
		s->hdr->stopped = 1;
	}
	if (!atomic_exchange(&st.said_full, true)) {
		char line[4600];
		int n = snprintf(line, sizeof(line),
				 "patchsite: %s/%s: %s: recording stopped; events from now on are "
				 "counted as lost\n", st.proc, s->path, strerror(-err));

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
	t->end = base + st.chunk / 8;
	if (st.overwrite)
		memset(base, 0, st.chunk);
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

	if (!st.on || !s || !s->hdr || s->pid != st.pid || !f)
		return -ENOENT;
	for (int tries = 0;; tries++) {
		uint64_t g1 = atomic_load_explicit(&s->gen, memory_order_acquire), g2;
		uint64_t *base = __atomic_load_n(&t->base, __ATOMIC_RELAXED), *wp = ps_wp_get(f);

		b->seq = __atomic_load_n(&s->hdr->chunks, __ATOMIC_RELAXED);
		atomic_thread_fence(memory_order_acquire);
		g2 = atomic_load_explicit(&s->gen, memory_order_relaxed);
		if (!(g1 & 1) && g1 == g2 && b->seq && wp >= base && wp <= base + st.chunk / 8) {
			b->words = (uint64_t)(wp - base);
			break;
		}
		if (tries > 1000)
			return -EBUSY;
		sched_yield();
	}
	b->fd = s->fd;
	b->hdr = s->hdr;
	b->path = s->path;
	b->chunk = st.chunk;
	b->nchunks = st.overwrite ? st.ring / st.chunk : 0;
	b->gen = atomic_load_explicit(&s->gen, memory_order_acquire);
	return 0;
}

/* Chunks thread t started since bound b was read (overwrite: the ones reused meanwhile). */
uint64_t ps_store_started_since(struct ps_thread *t, const struct ps_store_bound *b)
{
	return __atomic_load_n(&t->store->hdr->chunks, __ATOMIC_ACQUIRE) - b->seq;
}

/* The process directory (snapshot.c copies its text files); -1 when not recording here. */
int ps_store_procfd(void)
{
	return st.on && st.pid == getpid() ? st.procfd : -1;
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
		munmap(p, st.chunk);
		p = NULL;
	}
	if (!p) {
		err = reserve(s->fd, chunk_off(s->seq), st.chunk);
		if (err)
			return err;
		p = mmap(NULL, st.chunk, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, chunk_off(s->seq));
		if (p == MAP_FAILED)
			return -errno;
		/*
		 * A thread's first chunk gets its pages as it uses them: a
		 * thread that makes a few calls costs a few pages, not a MiB.
		 */
		if (s->seq)
			(void)madvise(p, st.chunk, MADV_POPULATE_WRITE);	/* Linux 5.14; a hint */
	}
	if (s->map)
		munmap(s->map, s->map_bytes);
	s->map = p;
	s->map_bytes = st.chunk;
	chunk_start(t, f, p);
	if (s->seq > 1)
		helper_request(s);	/* chunks ahead only for a thread that filled one */
	return 0;
}

/* The calling thread's file and its first chunk: t->base..t->end. */
int ps_store_thread(struct ps_thread *t, struct ps_fast *f)
{
	struct ps_tstore *s = calloc(1, sizeof(*s));
	size_t total = st.overwrite ? st.ring : 0;
	int err;

	if (!s)
		return -ENOMEM;
	s->pid = st.pid;
	for (int k = 0; k < 1000; k++) {
		if (k)
			snprintf(s->path, sizeof(s->path), "thread.%d.%d", (int)t->tid, k);
		else
			snprintf(s->path, sizeof(s->path), "thread.%d", (int)t->tid);
		s->fd = openat(st.procfd, s->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (s->fd >= 0 || errno != EEXIST)
			break;
	}
	if (s->fd < 0) {
		err = -errno;
		free(s);
		return err;
	}
	err = reserve(s->fd, 0, PSD_HDR_BYTES + total);
	if (!err) {
		s->hdr = mmap(NULL, PSD_HDR_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
		if (s->hdr == MAP_FAILED)
			err = -errno;
	}
	if (!err && st.overwrite) {
		s->map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, PSD_HDR_BYTES);
		if (s->map == MAP_FAILED) {
			err = -errno;
			s->map = NULL;
		}
		s->map_bytes = total;
	}
	if (err) {
		if (s->hdr && s->hdr != MAP_FAILED)
			munmap(s->hdr, PSD_HDR_BYTES);
		close(s->fd);
		unlinkat(st.procfd, s->path, 0);
		free(s);
		return err;
	}
	s->all_next = atomic_load(&all_stores);
	while (!atomic_compare_exchange_weak(&all_stores, &s->all_next, s))
		;
	memcpy(s->hdr->magic, PSD_THREAD_MAGIC, 8);
	s->hdr->version = PSD_VERSION;
	s->hdr->hdr_bytes = PSD_HDR_BYTES;
	s->hdr->pid = (uint32_t)st.pid;
	s->hdr->tid = (uint32_t)t->tid;
	memcpy(s->hdr->comm, t->comm, sizeof(s->hdr->comm));
	s->hdr->chunk_bytes = st.chunk;
	s->hdr->overwrite = st.overwrite;
	s->hdr->nchunks = st.overwrite ? (uint32_t)(st.ring / st.chunk) : 0;
	__atomic_store_n(&t->store, s, __ATOMIC_RELEASE);	/* set up: ps_store_bound may read it */
	if (st.overwrite) {
		chunk_start(t, f, s->map);
		return 0;
	}
	err = map_next(t, f);
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
	return t->store && t->store->pid != st.pid;
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
int ps_store_next(struct ps_thread *t, struct ps_fast *f)
{
	struct ps_tstore *s = t->store;
	int err;

	if (ps_store_stale(t)) {
		__atomic_store_n(&t->store, NULL, __ATOMIC_RELAXED);	/* the parent's: start a file of our own */
		return ps_store_thread(t, f);
	}
	if (s->hdr->stopped)
		return -ENOSPC;
	if (st.overwrite) {
		uint64_t n = st.ring / st.chunk, *next = s->map + (s->seq % n) * (st.chunk / 8);

		for (uint64_t *p = ps_wp_get(f); p < t->end; p++)
			*p = PS_EV_PAD;
		if (s->seq >= n)
			__atomic_fetch_add(&s->hdr->overwritten, ps_chunk_events(next, st.chunk / 8),
					   __ATOMIC_RELAXED);
		chunk_start(t, f, next);
		return 0;
	}
	err = map_next(t, f);
	if (err) {
		say_stopped(s, err);
		return err;
	}
	return 0;
}

/* Counted in the file too, so that a crash keeps the count. */
void ps_store_lost(struct ps_thread *t)
{
	if (t->store && !ps_store_stale(t))
		__atomic_fetch_add(&t->store->hdr->lost, 1, __ATOMIC_RELAXED);
}

/* Chunks made ready and not used: not data (unmapped: the file is about to end before them). */
static void drop_ready(struct ps_tstore *s)
{
	for (int k = 0; k < AHEAD; k++) {
		void *p = atomic_exchange_explicit(&s->ready[k], NULL, memory_order_acq_rel);

		if (p)
			munmap(p, st.chunk);
	}
}

/*
 * Normal exit: each thread's file says where its data ends, and `end`
 * is written (its presence is the clean trailer).
 */
void ps_store_finish(void)
{
	char text[256];
	int len;

	if (!st.on || st.pid != getpid())
		return;
	for (unsigned i = 0; i < nparts; i++)
		if (parts[i]->finishing)
			parts[i]->finishing();
	/* The helper stops, and finishes what it was doing first. */
	pthread_mutex_lock(&helper.lock);
	helper.closing = true;
	pthread_cond_broadcast(&helper.cond);
	while (helper.working && helper.pid == st.pid)
		pthread_cond_wait(&helper.cond, &helper.lock);
	pthread_mutex_unlock(&helper.lock);
	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		struct ps_fast *f = atomic_load(&t->fast);
		struct ps_tstore *s = t->store;

		if (!s || ps_store_stale(t) || !f)
			continue;
		/*
		 * The file ends where the data does: chunks reserved ahead go,
		 * for this thread and threads that exited (one still running
		 * may be switching chunks: its file keeps its reserve).
		 */
		if (!st.overwrite && f == &t->fast_copy) {
			/* Exited: it writes no more, its file ends at its last word. */
			drop_ready(s);
			(void)!ftruncate(s->fd, chunk_off(s->seq - 1) +
					 (off_t)(ps_wp_get(f) - t->base) * 8);
		} else if (!st.overwrite && f == &ps_fast) {
			/* This thread may still record (later destructors): whole chunks. */
			drop_ready(s);
			(void)!ftruncate(s->fd, chunk_off(s->seq));
		}
		memcpy(s->hdr->comm, t->comm, sizeof(s->hdr->comm));
		s->hdr->end_word = (uint64_t)(ps_wp_get(f) - t->base);
		__atomic_store_n(&s->hdr->clean, 1, __ATOMIC_RELEASE);
	}
	len = snprintf(text, sizeof(text), "tsc %llu\nns %llu\nrealtime %llu\n",
		       (unsigned long long)ps_clock(),
		       (unsigned long long)clock_ns(CLOCK_MONOTONIC),
		       (unsigned long long)clock_ns(CLOCK_REALTIME));
	write_file("end", text, (size_t)len);
}

/*
 * In a forked child: a process directory of its own.  The calling
 * thread's mappings of the parent's file are replaced by private memory
 * (the exits of calls open at the fork land there), and its next event
 * starts a file of the child's.
 */
void ps_store_forked(struct ps_thread *self)
{
	struct ps_tstore *s = self ? self->store : NULL;

	if (!st.on)
		return;
	if (s && s->pid == st.pid) {
		void *h = mmap(s->hdr, PSD_HDR_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

		if (s->map)
			mmap(s->map, s->map_bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		(void)h;
		close(s->fd);
		s->fd = -1;
		s->map = NULL;	/* not to be unmapped by the next chunk switch */
	}
	/* The helper did not follow: its lock may have been held at the fork. */
	pthread_mutex_init(&helper.lock, NULL);
	pthread_cond_init(&helper.cond, NULL);
	helper.queue = NULL;
	helper.pid = 0;
	if (st.procfd >= 0)
		close(st.procfd);
	st.procfd = -1;
	st.on = false;
	if (open_process())
		st.pid = getpid();	/* no directory: nothing recorded, stale files never written */
}

/* mod.N and the modules log follow the objects (sites/sync.c). */
const struct ps_watch ps_store_watch = { ps_store_module, ps_store_module_gone };
