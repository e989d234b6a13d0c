// SPDX-License-Identifier: GPL-2.0-only
/*
 * The least any tool in recordmcount's place does per object, for
 * bench/recordmcount/run.sh's "where the time goes": be a process, map the
 * object, and replace it with a copy that is 2 KiB longer (about what a
 * __mcount_loc and its relocations add to a small object).
 *   floor FILE         atomically, as ours does (O_TMPFILE, linkat, rename)
 *   floor -n FILE      as the kernel's does (FILE.rc, then rename)
 *   floor -0 FILE      nothing: process start-up alone
 *   floor -i FILE      in place: append 2 KiB, rewrite the 64-byte header
 * FLOOR_MODE compiles a mode in ("-n", "-0", "-i", ""), so that the bench's loop
 * runs it as it runs the tools, with the object as the only argument.
 * Built static and dynamic: the difference is the dynamic loader, which
 * the kernel's tool pays.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

static char extra[2048];

static int copy_into(int out, int in, const struct stat *sb)
{
	off_t off = 0;

	if (sendfile(out, in, &off, (size_t)sb->st_size) != sb->st_size)
		return -1;
	return pwrite(out, extra, sizeof(extra), sb->st_size) == (ssize_t)sizeof(extra) ? 0 : -1;
}

int main(int argc, char **argv)
{
#ifdef FLOOR_MODE
	const char *mode = FLOOR_MODE, *path = argv[argc - 1];
#else
	const char *mode = argc == 3 ? argv[1] : "", *path = argv[argc - 1];
#endif
	char dir[4096], tmp[4200];
	const char *slash;
	struct stat sb;
	int in, out;

	if (argc < 2 || argc > 3)
		return 2;
	if (!strcmp(mode, "-0"))
		return 0;
	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &sb) ||
	    mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, in, 0) == MAP_FAILED)
		return 1;
	if (!strcmp(mode, "-i")) {
		char hdr[64];

		out = open(path, O_WRONLY | O_CLOEXEC);
		return out < 0 || pread(in, hdr, sizeof(hdr), 0) != sizeof(hdr) ||
		       pwrite(out, extra, sizeof(extra), sb.st_size) != sizeof(extra) ||
		       pwrite(out, hdr, sizeof(hdr), 0) != sizeof(hdr) || close(out);
	}
	if (!strcmp(mode, "-n")) {
		snprintf(tmp, sizeof(tmp), "%s.rc", path);
		out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, sb.st_mode & 07777);
		return out < 0 || copy_into(out, in, &sb) || close(out) || rename(tmp, path);
	}
	/* The temporary name in the object's directory: linkat and rename stay in one. */
	slash = strrchr(path, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	snprintf(tmp, sizeof(tmp), "%s/.floor.tmp", dir);
	out = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	return out < 0 || fchmod(out, sb.st_mode & 07777) || copy_into(out, in, &sb) ||
	       linkat(out, "", AT_FDCWD, tmp, AT_EMPTY_PATH) || rename(tmp, path);
}
