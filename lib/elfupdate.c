// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writing an object's edits into the file it was read from.  Replacing it
 * (elfobj_write) frees the old file's blocks, which on ext4 mounted with
 * `discard` costs more than everything else recordmcount does per object.
 * The append layout changes nothing before the old end but the 64-byte ELF
 * header, so it can go into the file itself: the tail first, the header
 * last.  A kill before the header leaves the old object whole (with bytes
 * after its end that nothing names); a failed write is cut back off.
 *
 * Only where that is safe: a regular file with one link (a hard link, as
 * ccache makes, would change the other names too), still the file we read
 * (same device and inode, same size), not reached through a symlink.
 * Anything else is replaced as before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfobj_priv.h"

/* The object's own file opened for writing, or -1 where writing into it is not safe. */
static int open_same_file(const struct elfobj *o)
{
	int fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_dev != o->dev || st.st_ino != o->ino || (uint64_t)st.st_size != o->fsize) {
		close(fd);
		return -1;
	}
	return fd;
}

int elfobj_update(struct elfobj *o, bool *in_place)
{
	int fd = eo_layout_choose(o) == EO_LAYOUT_APPEND ? open_same_file(o) : -1;
	int err;

	if (in_place)
		*in_place = fd >= 0;
	if (fd < 0)
		return elfobj_write(o, o->path);
	err = eo_write_append(o, fd, false);
	/* Cut off what was appended; the header was not written (it is last). */
	if (err && ftruncate(fd, (off_t)o->fsize))
		eo_fail(o, -errno, "cannot cut back what was appended: %s", strerror(errno));
	if (close(fd) && !err)
		err = eo_fail(o, -errno, "cannot write: %s", strerror(errno));
	return err;
}
