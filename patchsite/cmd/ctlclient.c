// SPDX-License-Identifier: GPL-2.0-only
/*
 * The client side of the control channel (patchsite/channel.c): find the
 * process's socket, send one request, read its reply.  Where the socket
 * should be follows the runtime's choice: $XDG_RUNTIME_DIR/patchsite of
 * the process (its environment, readable by its user and root), of the
 * standard /run/user/UID, or /tmp/patchsite-UID.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctlclient.h"

#define REPLY_WAIT_MS	30000	/* a write may patch 100,000 sites, a read list them */

__attribute__((format(printf, 3, 4)))
static int say(char **reply, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(reply, fmt, ap) < 0)
		*reply = NULL;
	va_end(ap);
	return err;
}

/* XDG_RUNTIME_DIR in the process's environment, or "" when unreadable or unset. */
static void their_xdg(int pid, char *out, size_t len)
{
	char path[64], env[65536];
	ssize_t n;
	int fd;

	*out = '\0';
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, env, sizeof(env) - 1);
	close(fd);
	for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(env + i) + 1) {
		env[n] = '\0';
		if (!strncmp(env + i, "XDG_RUNTIME_DIR=", 16) && env[i + 16] == '/') {
			snprintf(out, len, "%s", env + i + 16);
			return;
		}
	}
}

/* The first candidate socket that exists, in path; 0, or -ENOENT. */
static int find_socket(int pid, uid_t uid, char *path, size_t len)
{
	char xdg[4096], cand[4][4200];
	const char *mine = getenv("XDG_RUNTIME_DIR");
	struct stat sb;
	int n = 0;

	their_xdg(pid, xdg, sizeof(xdg));
	if (*xdg)
		snprintf(cand[n++], sizeof(cand[0]), "%s/patchsite/%d.sock", xdg, pid);
	snprintf(cand[n++], sizeof(cand[0]), "/run/user/%d/patchsite/%d.sock", (int)uid, pid);
	if (mine && *mine == '/' && uid == geteuid())
		snprintf(cand[n++], sizeof(cand[0]), "%s/patchsite/%d.sock", mine, pid);
	snprintf(cand[n++], sizeof(cand[0]), "/tmp/patchsite-%d/%d.sock", (int)uid, pid);
	for (int i = 0; i < n; i++) {
		errno = 0;
		if (!lstat(cand[i], &sb) || errno == EACCES) {
			memcpy(path, cand[i], len < sizeof(cand[0]) ? len : sizeof(cand[0]));
			path[len - 1] = '\0';
			return errno == EACCES ? -EACCES : 0;
		}
	}
	memcpy(path, cand[n - 1], len < sizeof(cand[0]) ? len : sizeof(cand[0]));
	path[len - 1] = '\0';
	return -ENOENT;
}

/* Why pid has no channel we can reach, in one line. */
/* The process exited and waits for its parent to reap it. */
static bool zombie(int pid)
{
	char path[64], text[512], *close;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	close = strrchr(text, ')');	/* after the command name, which may hold anything */
	return close && close[1] == ' ' && close[2] == 'Z';
}

static int no_channel(int pid, uid_t uid, const char *path, int err, char **reply)
{
	if (zombie(pid))
		return say(reply, -ESRCH, "pid %d: exited (not yet reaped by its parent)", pid);
	if (kill(pid, 0) && errno == ESRCH) {
		if (err == -ECONNREFUSED)
			unlink(path);	/* it died without removing it */
		return say(reply, -ESRCH, "pid %d: no such process (it exited?)", pid);
	}
	if (uid != geteuid() && geteuid() != 0)
		return say(reply, -EACCES, "pid %d: runs as uid %d: only that user or root may "
			   "control it", pid, (int)uid);
	if (err == -EACCES)
		return say(reply, -EACCES, "pid %d: %s: permission denied (another user's "
			   "channel)", pid, path);
	if (err == -ECONNREFUSED)
		return say(reply, -ECONNREFUSED, "pid %d: %s: nobody listens (it exec'd a program "
			   "without the runtime, or is exiting)", pid, path);
	return say(reply, err, "pid %d: no control channel (not started with libpatchsite, or "
		   "PATCHSITE_CTL=0): %s", pid, strerror(-err));
}

static int exchange(int fd, enum psctl_op op, const char *file, const char *value, char **reply)
{
	struct psctl_hdr h = { .op = op, .len1 = file ? strlen(file) : 0,
			       .len2 = value ? strlen(value) : 0 };
	uint8_t hdr[PSCTL_HDR];
	long long deadline = psctl_deadline(PSCTL_TIMEOUT_MS);
	char *text;
	int err;

	if (h.len1 > PSCTL_MAX_NAME || h.len2 > PSCTL_MAX_VALUE || (op != PSCTL_LIST && !h.len1))
		return say(reply, -EMSGSIZE, "a file name of 1 to %d bytes and a value of at most "
			   "%u bytes", PSCTL_MAX_NAME, PSCTL_MAX_VALUE);
	psctl_hdr_make(hdr, 0, &h);
	err = psctl_io(fd, hdr, sizeof(hdr), 1, deadline);
	if (!err && h.len1)
		err = psctl_io(fd, (void *)file, h.len1, 1, deadline);
	if (!err && h.len2)
		err = psctl_io(fd, (void *)value, h.len2, 1, deadline);
	/* Refused peers get their reply at once: read it even if the send broke off. */
	deadline = psctl_deadline(REPLY_WAIT_MS);
	err = psctl_io(fd, hdr, sizeof(hdr), 0, deadline);
	if (!err)
		err = psctl_hdr_parse(hdr, 1, &h);
	if (err)
		return say(reply, err, "no valid reply: %s", strerror(-err));
	text = malloc(h.len1 + 1);
	if (!text)
		return say(reply, -ENOMEM, "out of memory");
	err = psctl_io(fd, text, h.len1, 0, deadline);
	text[err ? 0 : h.len1] = '\0';
	*reply = text;
	if (err)
		return say((free(text), reply), err, "reply cut short: %s", strerror(-err));
	if (h.op != PSCTL_OK)
		return h.op == PSCTL_REFUSED ? -EPERM : -(int)(h.err ? h.err : EIO);
	return 0;
}

int psctl_request(int pid, enum psctl_op op, const char *file, const char *value, char **reply)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char path[4200], proc[64];
	struct stat sb;
	uid_t uid = geteuid();
	int fd, err;

	*reply = NULL;
	snprintf(proc, sizeof(proc), "/proc/%d", pid);
	if (pid <= 0 || stat(proc, &sb)) {
		/* Gone: a socket it left where we would look is stale. */
		if (pid > 0 && !find_socket(pid, uid, path, sizeof(path)) &&
		    !lstat(path, &sb) && S_ISSOCK(sb.st_mode))
			return no_channel(pid, uid, path, -ECONNREFUSED, reply);
		return no_channel(pid, uid, "", -ENOENT, reply);
	}
	uid = sb.st_uid;
	err = find_socket(pid, uid, path, sizeof(path));
	if (err)
		return no_channel(pid, uid, path, err, reply);
	if (strlen(path) >= sizeof(a.sun_path))
		return say(reply, -ENAMETOOLONG, "%s: path too long for a socket", path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return say(reply, -errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		err = -errno;
		close(fd);
		return no_channel(pid, uid, path, err, reply);
	}
	err = exchange(fd, op, file, value, reply);
	close(fd);
	return err;
}
