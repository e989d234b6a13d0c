// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trace directory (PATCHSITE_DATA, patchsite-data(5)): what a process
 * records goes to disk as it runs, so that a crash, a kill or _exit keeps
 * every event written up to that moment.
 *
 * Each thread writes its ring words straight into a file of its own,
 * mapped one chunk at a time (store_thread.c); the objects' mod.N files and
 * the modules log are written by store_mods.c.  This file has the rest.
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

#include "store.h"
#include "sched_switch.h"
#include "data/format.h"

/*
 * Acquire: a trace directory opened while threads run (the control file
 * current_tracer) is seen whole by a thread that sees it on.
 */
bool ps_store_on(void)
{
	return __atomic_load_n(&ps_session.on, __ATOMIC_ACQUIRE);
}

/* The session directory and this process's directory in it (ps_store_on()). */
const char *ps_store_dir(const char **procname)
{
	*procname = ps_session.procname;
	return ps_session.dir;
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

	if (ps_session.procfd >= 0) {
		DIR *d = fdopendir(dup(ps_session.procfd));
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.')
				unlinkat(ps_session.procfd, e->d_name, 0);
		if (d)
			closedir(d);
	}
	rmdir(ps_session.proc);
	snprintf(path, sizeof(path), "%s/session", ps_session.dir);
	unlink(path);
	rmdir(ps_session.dir);	/* fails, as it should, while a child's directory is there */
}

/* A whole small text file in the process directory; -errno. */
static int write_file(const char *name, const char *text, size_t len)
{
	int fd = openat(ps_session.procfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), err = 0;

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
	if (!ps_session.on || ps_session.pid != getpid())
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
		       "overwrite %d\nchunk_bytes %zu\nring_bytes %zu\nsched %s\n",
		       PSD_VERSION, (int)getpid(), (int)getppid(), exe, ps_session.tracer,
		       (unsigned long long)tsc0, (unsigned long long)ns0,
		       (unsigned long long)clock_ns(CLOCK_REALTIME), rate, ps_session.overwrite,
		       ps_session.chunk, ps_session.overwrite ? ps_session.ring : 0,
		       ps_sched_on() ? "on" : "off");
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
	snprintf(path, sizeof(path), "%s/session", ps_session.dir);
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
	char path[sizeof(ps_session.proc)];

	for (int k = 0; k < 10000; k++) {
		if (k)
			snprintf(name, len, "%d.%d", (int)getpid(), k);
		else
			snprintf(name, len, "%d", (int)getpid());
		snprintf(path, sizeof(path), "%s/%s", ps_session.dir, name);
		if (!mkdir(path, 0755)) {
			snprintf(ps_session.proc, sizeof(ps_session.proc), "%s", path);
			ps_session.procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			return ps_session.procfd < 0 ? -errno : 0;
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

	if (!ps_session.on || ps_session.pid != getpid())
		return -ENODEV;
	if (snprintf(tmp, sizeof(tmp), ".%s.new", name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = write_file(tmp, text, len);
	if (!err && renameat(ps_session.procfd, tmp, ps_session.procfd, name))
		err = -errno;
	if (err)
		unlinkat(ps_session.procfd, tmp, 0);
	return err;
}

/*
 * The tracers this process ran: one line "TSC NAME" in the process
 * directory's `tracers` file each time the tracer changes (nop: none on),
 * so that info can say which ran when and report knows why some calls
 * have no time.  A forked child's file starts with the tracer it inherits.
 */
static char tracer_last[32];

static void tracer_line(const char *name)
{
	char line[64];
	int fd = openat(ps_session.procfd, "tracers", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int n = snprintf(line, sizeof(line), "%llu %s\n", (unsigned long long)ps_clock(), name);

	if (fd < 0)
		return;
	if (n > 0 && (size_t)n < sizeof(line))
		(void)!write(fd, line, (size_t)n);
	close(fd);
}

/* The tracer is now NAME (api.c patchsite_set_tracer); the caller holds ps.lock. */
void ps_store_tracer(const char *name)
{
	if (!strcmp(tracer_last, name))
		return;
	snprintf(tracer_last, sizeof(tracer_last), "%s", name);
	if (ps_session.on && ps_session.pid == getpid())
		tracer_line(name);
}

/*
 * Process directory and its fixed files; the caller holds ps.lock.
 * mods_later: the mod.N files wait for ps_store_mods_write.
 */
static int open_process(bool mods_later)
{
	char name[64];
	int err;

	ps_session.pid = getpid();
	if (!any_sites()) {
		session_line("-");
		return 0;
	}
	err = make_procdir(name, sizeof(name));
	if (!err)
		err = write_info();
	snprintf(ps_session.procname, sizeof(ps_session.procname), "%s", name);
	if (err)
		return err;
	session_line(name);
	if (tracer_last[0])
		tracer_line(tracer_last);	/* a forked child's, or one set before the directory */
	__atomic_store_n(&ps_session.on, true, __ATOMIC_RELEASE);	/* after everything above */
	if (mods_later)
		ps_store_mods_defer();
	for (unsigned i = 0; i < ps.nmods && !mods_later; i++)
		if (!ps.mods[i]->gone)
			ps_store_module(ps.mods[i]);
	for (unsigned i = 0; i < nparts; i++)
		if (parts[i]->opened)
			parts[i]->opened();
	return 0;
}

int ps_store_open(const char *dir, const char *tracer, bool overwrite, size_t ring_bytes,
		  bool mods_later)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int err;

	if (snprintf(ps_session.dir, sizeof(ps_session.dir), "%s", dir) >= (int)sizeof(ps_session.dir))
		return -ENAMETOOLONG;
	snprintf(ps_session.tracer, sizeof(ps_session.tracer), "%s", tracer);
	ps_session.overwrite = overwrite;
	ps_session.chunk = GROW_CHUNK;
	if (overwrite) {
		/* A ring of at least 4 chunks, so that most of it is kept when one is reused. */
		ps_session.ring = (ring_bytes + page - 1) & ~(page - 1);
		ps_session.chunk = ps_session.ring / 4 > GROW_CHUNK ? GROW_CHUNK : (ps_session.ring / 4 + page - 1) & ~(page - 1);
		if (ps_session.chunk < page)
			ps_session.chunk = page;
		ps_session.ring = (ps_session.ring + ps_session.chunk - 1) / ps_session.chunk * ps_session.chunk;
		if (ps_session.ring < 2 * ps_session.chunk)
			ps_session.ring = 2 * ps_session.chunk;
	}
	err = mkdir_p(dir);
	if (err)
		return err;
	ps_sched_warm();	/* not the program's threads at their first event */
	pthread_mutex_lock(&ps.lock);
	err = open_process(mods_later);
	pthread_mutex_unlock(&ps.lock);
	return err;
}

/* The process directory (snapshot.c copies its text files); -1 when not recording here. */
int ps_store_procfd(void)
{
	return ps_session.on && ps_session.pid == getpid() ? ps_session.procfd : -1;
}

/*
 * Normal exit: each thread's file says where its data ends, and `end`
 * is written (its presence is the clean trailer).
 */
void ps_store_finish(void)
{
	if (ps_session.on && ps_session.pid == getpid())
		ps_store_mods_write();	/* exit before the channel wrote them */
	ps_store_finish_exit(-1);
}

/*
 * The same from _exit(STATUS) (exit.c), which may be called from a signal
 * handler or a forked child: `end` gets an `exit STATUS` line; the parts
 * (events, branch counts), which take locks and allocate, are left out,
 * and the helper thread is not waited for when its lock is taken.
 */
void ps_store_finish_exit(int status)
{
	char text[256];
	int len;

	if (!ps_session.on || ps_session.pid != getpid())
		return;
	for (unsigned i = 0; i < nparts && status < 0; i++)
		if (parts[i]->finishing)
			parts[i]->finishing();
	ps_store_threads_finish(status < 0);
	ps_sched_finish(status < 0);
	len = snprintf(text, sizeof(text), "tsc %llu\nns %llu\nrealtime %llu\n",
		       (unsigned long long)ps_clock(),
		       (unsigned long long)clock_ns(CLOCK_MONOTONIC),
		       (unsigned long long)clock_ns(CLOCK_REALTIME));
	if (status >= 0 && len > 0 && (size_t)len < sizeof(text))
		len += snprintf(text + len, sizeof(text) - (size_t)len, "exit %d\n", status & 0xff);
	if (len > 0 && (size_t)len < sizeof(text))
		len += (int)ps_store_text_lost(text + len, sizeof(text) - (size_t)len);
	write_file("end", text, (size_t)len < sizeof(text) ? (size_t)len : sizeof(text) - 1);
}

/*
 * In a forked child: a process directory of its own.  The calling
 * thread's mappings of the parent's file are replaced by private memory
 * (the exits of calls open at the fork land there), and its next event
 * starts a file of the child's.
 */
void ps_store_forked(struct ps_thread *self)
{
	if (!ps_session.on)
		return;
	ps_store_thread_forked(self);
	ps_sched_forked();
	if (ps_session.procfd >= 0)
		close(ps_session.procfd);
	ps_session.procfd = -1;
	ps_session.on = false;
	ps_store_mods_none();	/* the parent's list */
	ps_store_mods_forked();
	if (open_process(false))
		ps_session.pid = getpid();	/* no directory: nothing recorded, stale files never written */
}
