// SPDX-License-Identifier: GPL-2.0-only
/*
 * Room on disk for a part of a thread's file before it is mapped and
 * written: a store into a shared mapping that needs a block the file
 * system no longer has is SIGBUS in the program, so the blocks are taken
 * first, where a failure is an error code (store_thread.c stops recording
 * and counts what it drops).
 *
 * fallocate does it where the file system has it.  Where it has not
 * (ext2, ext3 without extents, some FUSE file systems: EOPNOTSUPP), zeros
 * are written from the file's end to the end of the range, which takes
 * the blocks now; sizing the file alone (ftruncate) left holes that a
 * full disk turned into SIGBUS.  Only past the end, and under a lock: the
 * store helper and a thread that found its chunk not ready may reserve
 * the same chunk, and zeros written late over it would erase events
 * already stored there.  Below the end there are then no holes.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "store.h"

static pthread_mutex_t zero_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic pid_t zero_owner;	/* the thread in fill_zeros, 0 if none */

/*
 * Zeros from the file's end to end (nothing if it already reaches it):
 * -errno.  A failure gives back what it wrote, as fallocate takes all or
 * nothing: the trace directory's other files still need room at exit.
 */
static int fill_zeros(int fd, off_t end)
{
	static const char zeros[65536];
	struct stat st;
	int err = 0;

	if (fstat(fd, &st))
		return -errno;
	for (off_t at = st.st_size; at < end && !err;) {
		size_t n = end - at < (off_t)sizeof(zeros) ? (size_t)(end - at) : sizeof(zeros);
		ssize_t w = pwrite(fd, zeros, n, at);

		if (w > 0)
			at += w;
		else if (w == 0)
			err = -ENOSPC;
		else if (errno != EINTR)
			err = -errno;
	}
	if (err)
		(void)!ftruncate(fd, st.st_size);
	return err;
}

/*
 * A signal handler's traced calls that switch chunks while this thread
 * is already filling (it holds the lock): refused, not waited for.
 */
static int reserve_by_writing(int fd, off_t end)
{
	pid_t me = (pid_t)syscall(SYS_gettid);
	int err;

	if (atomic_load_explicit(&zero_owner, memory_order_relaxed) == me)
		return -EDEADLK;
	pthread_mutex_lock(&zero_lock);
	atomic_store_explicit(&zero_owner, me, memory_order_relaxed);
	err = fill_zeros(fd, end);
	atomic_store_explicit(&zero_owner, 0, memory_order_relaxed);
	pthread_mutex_unlock(&zero_lock);
	return err;
}

int ps_store_reserve(int fd, off_t off, size_t len)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    (rlim_t)off + len > rl.rlim_cur)
		return -EFBIG;	/* without its SIGXFSZ */
	if (!fallocate(fd, 0, off, (off_t)len))
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	return reserve_by_writing(fd, off + (off_t)len);
}

/* In a forked child: the lock may have been held by a thread that did not follow. */
void ps_store_reserve_forked(void)
{
	pthread_mutex_init(&zero_lock, NULL);
	atomic_store(&zero_owner, 0);
}
