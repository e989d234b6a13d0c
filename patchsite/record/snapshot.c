// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot: a copy of what this process recorded so far, taken while its
 * threads go on recording (ftrace's snapshot file; patchsite-data(5)).
 *
 * Snapshot N is a session directory of its own, SESSION/snapshot.N, with
 * this process's directory in it: the text files copied (info, cmdline,
 * modules, mod.*), an end file with the time of the snapshot, and each
 * thread's file up to where its data ended at that moment.  Every reader
 * (replay, report, dump, info: --snapshot=N) reads it as any session.
 *
 * Consistency: a thread's end is its write pointer, read together with the
 * chunk it is in (ps_store_bound); every word below it was complete, and
 * the copy is read from the file, never from the thread's mapping (which
 * a chunk switch may unmap).  In overwrite mode a thread that reuses ring
 * chunks while they are copied would leave them torn: those chunks are
 * dropped from the copy and counted as overwritten.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "host.h"

#include "core/textbuf.h"
#include "record/record.h"
#include "data/format.h"
#include "profile.h"

#define COPY_BYTES	(1u << 20)

static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static int taken;			/* snapshots this process took */
static char last_dir[4200];		/* the last one's directory */
static unsigned long long last_dropped;	/* overwrite: chunks dropped from the last one (torn) */

/* len bytes of in from off to out's end; -errno. */
static int copy_range(int out, int in, off_t off, size_t len, char *buf)
{
	while (len) {
		ssize_t n = pread(in, buf, len < COPY_BYTES ? len : COPY_BYTES, off);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		for (ssize_t done = 0, w; done < n; done += w) {
			w = write(out, buf + done, (size_t)(n - done));
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
		}
		off += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A whole small file of the process directory into the snapshot's. */
static int copy_file(int from_dir, int to_dir, const char *name, char *buf)
{
	int in = openat(from_dir, name, O_RDONLY | O_CLOEXEC), out, err;
	struct stat sb;

	if (in < 0)
		return -errno;
	out = openat(to_dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	err = out < 0 ? -errno : fstat(in, &sb) ? -errno : copy_range(out, in, 0, (size_t)sb.st_size, buf);
	if (out >= 0 && close(out) && !err)
		err = -errno;
	close(in);
	return err;
}

static bool is_text_file(const char *name)
{
	return !strcmp(name, "info") || !strcmp(name, "cmdline") || !strcmp(name, "modules") ||
	       !strncmp(name, "mod.", 4) || !strcmp(name, "profile");
}

/*
 * Overwrite mode: the ring as it is, the chunk being written cut at its
 * end, chunks reused during the copy dropped (zeroed, counted).
 */
static int copy_ring(int out, struct ps_thread *t, const struct ps_store_bound *b,
		     struct psd_thread_hdr *h)
{
	size_t cw = b->chunk / 8;
	uint64_t *ring = calloc(b->nchunks, b->chunk), cur = (b->seq - 1) % b->nchunks, since;
	int err = 0;

	if (!ring)
		return -ENOMEM;
	for (uint64_t k = 0; k < b->nchunks && !err; k++) {
		ssize_t n = pread(b->fd, ring + k * cw, b->chunk, PSD_HDR_BYTES + (off_t)(k * b->chunk));

		if (n < 0)
			err = -errno;
	}
	memset(ring + cur * cw + b->words, 0, (cw - b->words) * 8);
	since = ps_store_started_since(t, b);
	for (uint64_t d = 0; d < since && d < b->nchunks; d++) {
		uint64_t k = (b->seq + d) % b->nchunks;	/* reused meanwhile: torn */

		h->overwritten += ps_chunk_events(ring + k * cw, cw);
		memset(ring + k * cw, 0, b->chunk);
		last_dropped++;
	}
	if (since >= b->nchunks)
		h->end_word = 0;	/* even the current one was reused */
	if (!err && (pwrite(out, h, PSD_HDR_BYTES, 0) != PSD_HDR_BYTES ||
		     pwrite(out, ring, b->nchunks * b->chunk, PSD_HDR_BYTES) !=
		     (ssize_t)(b->nchunks * b->chunk)))
		err = -EIO;
	free(ring);
	return err;
}

/* copy_thread's work, from the thread's bound b through its own descriptor b->fd. */
static int copy_bound(int dir, struct ps_thread *t, struct ps_store_bound *b,
		      struct psd_thread_hdr *h, char *buf)
{
	int out, err = 0;

	memcpy(buf, b->hdr, PSD_HDR_BYTES);
	h->chunks = b->seq;
	h->end_word = b->words;
	h->clean = 1;		/* end_word is exact: the end of the data copied */
	out = openat(dir, b->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0)
		return -errno;
	if (b->nchunks) {
		err = copy_ring(out, t, b, h);
	} else if (write(out, buf, PSD_HDR_BYTES) != PSD_HDR_BYTES) {
		err = -EIO;
	} else {
		/* Chunks before the current one are complete; the current one up to its end. */
		err = copy_range(out, b->fd, PSD_HDR_BYTES,
				 (size_t)((b->seq - 1) * b->chunk + b->words * 8), buf + PSD_HDR_BYTES);
	}
	if (close(out) && !err)
		err = -errno;
	return err;
}

/* One thread's file, up to its end now. */
static int copy_thread(int dir, struct ps_thread *t, char *buf)
{
	struct ps_store_bound b;
	struct psd_thread_hdr *h = (struct psd_thread_hdr *)buf;
	int err = ps_store_bound(t, &b);

	if (err)
		return err == -ENOENT ? 0 : err;
	/*
	 * Read through a descriptor of our own, opened by the file's name: the
	 * thread's may be closed meanwhile (its thread ended: store_thread.c
	 * ps_store_thread_ended) and its number given to another file.  A file
	 * not named yet (its header not written) has nothing to copy.
	 */
	b.fd = openat(ps_store_procfd(), b.path, O_RDONLY | O_CLOEXEC);
	if (b.fd < 0)
		return errno == ENOENT ? 0 : -errno;
	err = copy_bound(dir, t, &b, h, buf);
	close(b.fd);
	return err;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SESSION/snapshot.N, N the first free number after the last; its fd, the name in *n. */
static int make_dir(char *path, size_t len, int *n)
{
	const char *proc, *session = ps_store_dir(&proc);

	for (int k = taken + 1; k < taken + 100000; k++) {
		snprintf(path, len, "%s/snapshot.%d", session, k);
		if (!mkdir(path, 0755)) {
			*n = k;
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* The snapshot's session list and its process directory; the latter's fd. */
static int make_session(const char *path, char *buf)
{
	const char *proc;
	char name[4400], exe[2048];
	ssize_t x = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd, len;

	ps_store_dir(&proc);
	exe[x > 0 ? x : 0] = 0;
	snprintf(name, sizeof(name), "%s/session", path);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, 8192, "%d %d %s %s\n", (int)getpid(), (int)getppid(), proc, exe);
	if (write(fd, buf, (size_t)len) != len) {
		close(fd);
		return -EIO;
	}
	close(fd);
	snprintf(name, sizeof(name), "%s/%s", path, proc);
	if (mkdir(name, 0755))
		return -errno;
	fd = open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The text files, then every thread's data, then end (the snapshot's time). */
static int fill(int dir, char *buf)
{
	int procfd = ps_store_procfd(), err = 0, fd, len;
	DIR *d = procfd >= 0 ? fdopendir(dup(procfd)) : NULL;
	struct dirent *e;

	if (!d)
		return -errno ? -errno : -ENOENT;
	ps_profile_store();	/* function_profile's counts now, copied with the text files */
	while (!err && (e = readdir(d)))
		if (is_text_file(e->d_name))
			err = copy_file(procfd, dir, e->d_name, buf);
	closedir(d);
	for (struct ps_thread *t = atomic_load(&ps.threads); t && !err; t = t->next)
		err = copy_thread(dir, t, buf);
	if (err)
		return err;
	len = snprintf(buf, 256, "tsc %llu\nns %llu\nrealtime %llu\n", (unsigned long long)ps_clock(),
		       (unsigned long long)clock_ns(CLOCK_MONOTONIC),
		       (unsigned long long)clock_ns(CLOCK_REALTIME));
	fd = openat(dir, "end", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	err = write(fd, buf, (size_t)len) == len ? 0 : -EIO;
	close(fd);
	return err;
}

int ps_snapshot_take(void)
{
	char path[4200], *buf;
	int err, n = 0, dir;

	if (ps_store_procfd() < 0) {
		ps_log(PATCHSITE_LOG_ERROR, "snapshot: this process records into no trace "
		       "directory (PATCHSITE_DATA, or patchsite record)");
		return -ENODEV;
	}
	if (ps_store_private()) {
		ps_log(PATCHSITE_LOG_ERROR, "snapshot: this process records for PATCHSITE_OUTPUT "
		       "only, into a directory removed at exit: set PATCHSITE_DATA to keep snapshots");
		return -ENODEV;
	}
	buf = malloc(PSD_HDR_BYTES + COPY_BYTES);
	if (!buf)
		return -ENOMEM;
	pthread_mutex_lock(&snap_lock);
	last_dropped = 0;
	err = make_dir(path, sizeof(path), &n);
	dir = err ? err : make_session(path, buf);
	err = dir < 0 ? dir : fill(dir, buf);
	if (dir >= 0)
		close(dir);
	if (!err) {
		taken++;
		snprintf(last_dir, sizeof(last_dir), "%s", path);
		if (last_dropped)
			ps_log(PATCHSITE_LOG_WARNING, "snapshot %d: %llu ring chunks reused while "
			       "they were copied: left out, counted as overwritten", n, last_dropped);
	} else {
		ps_log(PATCHSITE_LOG_ERROR, "snapshot: %s: %s", path, strerror(-err));
	}
	pthread_mutex_unlock(&snap_lock);
	free(buf);
	return err ? err : n;
}

int patchsite_snapshot(void)
{
	return ps_snapshot_take();
}

/* How many were taken here and where the last one is (ftrace's file shows the buffer). */
int ps_snapshot_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	pthread_mutex_lock(&snap_lock);
	ps_buf_printf(out, "# snapshots taken: %d\n", taken);
	if (taken)
		ps_buf_printf(out, "# last: %s (patchsite replay -d SESSION --snapshot=%s)\n",
			      last_dir, strrchr(last_dir, '.') + 1);
	ps_buf_puts(out, "# echo 1 > snapshot : take one: every thread's data so far, copied\n");
	pthread_mutex_unlock(&snap_lock);
	return 0;
}

int ps_snapshot_write(const char *sub, const char *value, bool append)
{
	int n;

	(void)sub;
	(void)append;
	if (strcmp(value, "1") && strcmp(value, "1\n")) {
		ps_log(PATCHSITE_LOG_ERROR, "snapshot: '%s': only 1 (take a snapshot) is known; "
		       "ftrace's 0 and 2 free and clear a spare buffer, which there is not here", value);
		return -EINVAL;
	}
	n = ps_snapshot_take();
	return n < 0 ? n : 0;
}
