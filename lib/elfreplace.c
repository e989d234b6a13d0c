// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replacing a file all at once.  The new contents go to a file nobody else
 * can have opened or planted, in dest's directory, which is then renamed
 * over dest: dest is always the old file or the whole new one.
 *
 * Where the file system has O_TMPFILE the new file has no name while it is
 * written, so a kill or a full disk leaves nothing behind; it gets a fresh
 * unique name (linkat, which never follows a planted link) just before the
 * rename, so only a kill between those two system calls can leave the
 * temporary ".NAME.XXXXXX".  Elsewhere mkstemp() names it from the start.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "elfobj_priv.h"

/* ".NAME.XXXXXX" next to dest, with the X's still to fill. */
static char *temp_name(const char *dest, char **dir)
{
	const char *slash = strrchr(dest, '/');
	int dirlen = slash ? (int)(slash - dest + 1) : 0;
	size_t n = strlen(dest) + sizeof(".XXXXXX") + 3;
	char *tmp = malloc(n);

	*dir = malloc((size_t)dirlen + 2);
	if (!tmp || !*dir) {
		free(tmp);
		free(*dir);
		return NULL;
	}
	snprintf(tmp, n, "%.*s.%s.XXXXXX", dirlen, dest, dest + dirlen);
	snprintf(*dir, (size_t)dirlen + 2, "%.*s", dirlen ? dirlen : 1, dirlen ? dest : ".");
	return tmp;
}

int eo_out_open(const struct elfobj *o, const char *dest, struct eo_out *out)
{
	char *dir = NULL;

	*out = (struct eo_out){ .fd = -1, .tmp = temp_name(dest, &dir) };
	if (!out->tmp)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	out->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	free(dir);
	if (out->fd >= 0) {
		out->unnamed = true;
		return 0;
	}
	out->fd = mkstemp(out->tmp);	/* O_EXCL: never follows a planted link */
	if (out->fd >= 0)
		return 0;
	eo_fail(o, -errno, "cannot create a temporary file: %s", strerror(errno));
	eo_out_abort(out);
	return -EIO;
}

/* Give the unnamed file a fresh name of the form mkstemp() would pick. */
static int name_it(struct eo_out *out)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	char *x = out->tmp + strlen(out->tmp) - 6, proc[40];
	unsigned char r[6];
	int i, tries;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", out->fd);
	for (tries = 0; tries < 100; tries++) {
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return -errno;
		for (i = 0; i < 6; i++)
			x[i] = set[r[i] % (sizeof(set) - 1)];
		if (!linkat(out->fd, "", AT_FDCWD, out->tmp, AT_EMPTY_PATH) ||
		    (errno != EEXIST &&
		     !linkat(AT_FDCWD, proc, AT_FDCWD, out->tmp, AT_SYMLINK_FOLLOW))) {
			out->unnamed = false;
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int eo_out_commit(const struct elfobj *o, struct eo_out *out, const char *dest)
{
	int err = out->unnamed ? name_it(out) : 0;

	if (err)
		eo_fail(o, err, "cannot name the new file: %s", strerror(-err));
	if (close(out->fd) && !err)
		err = eo_fail(o, -errno, "cannot write: %s", strerror(errno));
	out->fd = -1;
	if (!err && rename(out->tmp, dest))
		err = eo_fail(o, -errno, "cannot replace the file: %s", strerror(errno));
	if (err)
		eo_out_abort(out);
	free(out->tmp);
	out->tmp = NULL;
	return err;
}

void eo_out_abort(struct eo_out *out)
{
	if (out->fd >= 0)
		close(out->fd);
	if (out->tmp && !out->unnamed)
		unlink(out->tmp);
	free(out->tmp);
	*out = (struct eo_out){ .fd = -1 };
}
