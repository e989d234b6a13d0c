// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control channel (patchsite(7)): a Unix stream socket, PID.sock in a
 * private per-user directory, that `patchsite ctl` connects to.  It is
 * started with the runtime in every process (traced or not: "untraced but
 * ready"), unless PATCHSITE_CTL=0.  One thread, with every signal blocked,
 * waits in poll() and costs nothing while nobody connects.
 *
 * One client at a time, one request per connection (ctl/proto.h).  Only
 * the process's own user or root is served (SO_PEERCRED); anyone else
 * gets one refusal reply.  A request is read against a deadline with
 * every length bounded before anything is allocated, so a stalled or
 * hostile client costs at most PSCTL_TIMEOUT_MS and never reaches the
 * program.  Requests go through patchsite_ctl_read/patchsite_ctl_write,
 * hence every control file table is reachable.
 *
 * A forked child starts a channel of its own, FORK_DELAY_MS later (so that
 * fork-and-exec or fork-and-_exit makes no socket: it would be left
 * behind, as _exit runs no destructor); an exec'd image starts a new one
 * under the same name (the old socket file is replaced); the file is
 * removed at exit, and files of dead pids are removed at the next start.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl/channel.h"
#include "ctl/control.h"
#include "ctl/proto.h"
#include "internal.h"

#define FORK_DELAY_MS	20	/* a forked child's channel waits this long before its socket */

static struct {
	_Atomic int fd;		/* listening, or -1; dir and path are set before it */
	_Atomic bool stopping;	/* the process is exiting: no socket file from now on */
	bool started;		/* the thread was started (a forked child starts its own) */
	pid_t pid;		/* the process that started it */
	char xdg[80];		/* $XDG_RUNTIME_DIR, read at start (the program may setenv later) */
	char dir[96];		/* the channel directory */
	char path[108];		/* dir/PID.sock */
	sem_t running;		/* posted by the thread once it runs */
	_Atomic bool unsure;	/* a forked child's thread may not be running yet */
} chan = { .fd = -1 };

/* The directory is ours alone: a directory (not a symlink), owned by us, 0700. */
static int dir_private(const char *dir)
{
	struct stat sb;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(dir, &sb))
		return -errno;
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 077)) {
		ps_log(PATCHSITE_LOG_NOTE, "%s: not a private directory of uid %d: no control channel",
		       dir, (int)geteuid());
		return -EPERM;
	}
	return 0;
}

/* $XDG_RUNTIME_DIR/patchsite when that is ours, else /tmp/patchsite-UID. */
static int channel_dir(void)
{
	const char *xdg = chan.xdg;
	struct stat sb;

	if (*xdg == '/' && !stat(xdg, &sb) && S_ISDIR(sb.st_mode) &&
	    sb.st_uid == geteuid() && !access(xdg, W_OK | X_OK) &&
	    (size_t)snprintf(chan.dir, sizeof(chan.dir), "%s/patchsite", xdg) < sizeof(chan.dir) &&
	    !dir_private(chan.dir))
		return 0;
	snprintf(chan.dir, sizeof(chan.dir), "/tmp/patchsite-%d", (int)geteuid());
	return dir_private(chan.dir);
}


/* Socket files of processes that are gone (killed: no destructor removed them). */
/* One entry of the channel directory: a dead process's socket is removed. */
static void clean_one(int dirfd, const char *name)
{
	char *end;
	long pid = strtol(name, &end, 10);

	if (pid <= 0 || strcmp(end, ".sock") || pid == getpid())
		return;
	if (kill((pid_t)pid, 0) && errno == ESRCH)
		unlinkat(dirfd, name, 0);
}

/*
 * Read with getdents64 into the stack, not opendir(): nothing the thread
 * does at start allocates, so a program that forks at once never copies
 * an allocator lock this thread holds (glibc's malloc guards fork itself;
 * gcc 12's AddressSanitizer allocator does not, and the child hung).
 */
static void clean_stale(void)
{
	struct ent {			/* the kernel's linux_dirent64 */
		uint64_t ino;
		int64_t off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	};
	_Alignas(8) char buf[2048];
	int fd = open(chan.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n, off;

	while (fd >= 0 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n; off += ((struct ent *)(buf + off))->reclen)
			clean_one(fd, ((struct ent *)(buf + off))->name);
	}
	if (fd >= 0)
		close(fd);
}

static void reply(int fd, unsigned status, int err, const char *text, size_t len)
{
	long long deadline = psctl_deadline(PSCTL_TIMEOUT_MS);
	struct psctl_hdr h = { .op = status, .err = (unsigned)err, .len1 = len };
	uint8_t hdr[PSCTL_HDR];

	psctl_hdr_make(hdr, 1, &h);
	if (!psctl_io(fd, hdr, sizeof(hdr), 1, deadline) && len)
		psctl_io(fd, (void *)text, len, 1, deadline);
}

static void reply_error(int fd, unsigned status, int err, const char *fmt, const char *arg)
{
	char text[600];
	int n = snprintf(text, sizeof(text), fmt, arg);

	reply(fd, status, err, text, n < 0 ? 0 : (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
}

/* Every file, "name\twhat" a line; a directory's files under it. */
static void list_files(struct ps_buf *b)
{
	for (const struct ps_ctl_file *const *g = ps_ctl_groups; *g; g++)
		for (const struct ps_ctl_file *f = *g; f->name; f++) {
			ps_buf_printf(b, "%s\t%s%s\n", f->name,
				      !f->write ? "(read-only) " : !f->read ? "(write-only) " : "",
				      f->what);
			if (f->list)
				f->list(b);
		}
}

/* The file's whole text into b (patchsite_ctl_read cuts to its buffer: grow and ask again). */
static long read_file(const char *name, struct ps_buf *b)
{
	size_t size = 64 * 1024;

	for (int round = 0; round < 8; round++) {
		char *p = malloc(size);
		long n;

		if (!p)
			return -ENOMEM;
		n = patchsite_ctl_read(name, p, size);
		if (n >= 0 && (size_t)n < size)
			ps_buf_add(b, p, (size_t)n);
		free(p);
		if (n < 0 || (size_t)n < size)
			return n < 0 ? n : b->oom ? -ENOMEM : n;
		size = (size_t)n + 4096;	/* it grew meanwhile: again, with room */
	}
	return -EAGAIN;
}

static void execute(int fd, unsigned op, const char *name, const char *value)
{
	struct ps_buf b = { 0 };
	struct ps_told *told = NULL;
	long err = 0;

	if (op == PSCTL_LIST) {
		list_files(&b);
	} else if (op == PSCTL_READ) {
		err = read_file(name, &b);
	} else {
		/* a write's reply is empty but for what its work refused (a write's one text) */
		told = calloc(1, sizeof(*told));
		if (told)
			ps_log_told_begin(told);
		err = ps_ctl_write_before_reply(name, value, op == PSCTL_APPEND);
		ps_log_told_end();
	}
	if (!err && b.oom)
		err = -ENOMEM;
	if (err < 0) {
		const char *why = patchsite_last_error();

		reply_error(fd, PSCTL_ERROR, (int)-err, "%s", *why ? why : strerror((int)-err));
	} else if (told) {
		reply(fd, PSCTL_OK, 0, told->text, told->len);
	} else {
		reply(fd, PSCTL_OK, 0, b.p ? b.p : "", b.len);
	}
	free(told);
	ps_buf_free(&b);
}

static void serve(int fd)
{
	long long deadline = psctl_deadline(PSCTL_TIMEOUT_MS);
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	uint8_t hdr[PSCTL_HDR];
	struct psctl_req r = { 0 };
	struct psctl_hdr h;
	char *body, who[64];
	int err;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) ||
	    (cred.uid != geteuid() && cred.uid != 0)) {
		snprintf(who, sizeof(who), "%d", (int)getpid());
		reply_error(fd, PSCTL_REFUSED, EPERM,
			    "pid %s: refused: only its own user or root may control it", who);
		return;
	}
	err = psctl_io(fd, hdr, sizeof(hdr), 0, deadline);
	if (!err)
		err = psctl_hdr_parse(hdr, 0, &h);
	if (err) {
		/* A client that stalled or left gets nothing; a bad header gets why. */
		if (err != -ETIMEDOUT && err != -ECONNRESET)
			reply_error(fd, PSCTL_ERROR, -err, "bad request: %s", strerror(-err));
		return;
	}
	body = malloc(h.len1 + h.len2 + 1);
	if (!body) {
		reply_error(fd, PSCTL_ERROR, ENOMEM, "%s", "out of memory");
		return;
	}
	err = psctl_io(fd, body, h.len1 + h.len2, 0, deadline);
	if (!err)
		err = psctl_req_body(&h, (const uint8_t *)body, &r);
	if (!err)
		execute(fd, r.op, r.name, r.value);
	else if (err != -ETIMEDOUT && err != -ECONNRESET)
		reply_error(fd, PSCTL_ERROR, -err, "bad request: %s", err == -EINVAL ?
			    "a NUL byte in a name or value" : strerror(-err));
	psctl_req_free(&r);
	free(body);
}

static int listen_on(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if ((size_t)snprintf(chan.path, sizeof(chan.path), "%s/%d.sock", chan.dir,
			     (int)getpid()) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, chan.path, strlen(chan.path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(chan.path);	/* this pid's earlier image (exec), or a dead process's */
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || chmod(chan.path, 0600) || listen(fd, 4)) {
		int err = -errno;

		close(fd);
		unlink(chan.path);
		return err;
	}
	return fd;
}

/*
 * The thread makes the socket itself: a process (a forked child most of
 * all) that exits at once pays only for the thread, and rarely leaves a
 * socket file behind.
 */
static void *channel_main(void *arg)
{
	bool forked = arg != NULL;
	int lfd;

	sem_post(&chan.running);
	ps_log_quiet = true;	/* a client's errors are the client's, not the program's stderr */
	/* A forked child that execs or exits at once (most do) makes no socket at all. */
	if (forked)
		nanosleep(&(struct timespec){ .tv_nsec = FORK_DELAY_MS * 1000000L }, NULL);
	if (channel_dir())
		return NULL;
	lfd = listen_on();
	if (lfd < 0) {
		ps_log(PATCHSITE_LOG_NOTE, "%s: %s: no control channel", chan.path, strerror(-lfd));
		return NULL;
	}
	atomic_store_explicit(&chan.fd, lfd, memory_order_release);
	ps_store_set_default_dir(chan.dir);	/* tracers started over the channel record there */
	if (atomic_load(&chan.stopping)) {
		unlink(chan.path);	/* the process began to exit meanwhile */
		return NULL;
	}
	clean_stale();
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int fd;

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				usleep(100 * 1000);	/* not to spin while the program is out of fds */
			continue;
		}
		serve(fd);
		close(fd);
		ps_ctl_run_after_reply();	/* the client has its answer */
	}
	return NULL;
}

/*
 * Wait for the thread to run, bounded: its start-up is the C library's and
 * a sanitizer's, which may allocate, and a fork meanwhile would copy an
 * allocator lock it holds into the child.  In a forked child the thread
 * may never run: gcc 12's AddressSanitizer does not guard fork, so a lock
 * another of the parent's threads held is held for ever in the child, and
 * the thread's start-up blocks on it.  The program is not held up by that.
 */
static void wait_running(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += ms % 1000 * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (sem_timedwait(&chan.running, &t) && errno == EINTR)
		;
}

static void start(bool forked)
{
	const char *env = getenv("PATCHSITE_CTL");
	pthread_t th;
	int err;

	if (env && !strcmp(env, "0"))
		return;
	chan.pid = getpid();
	atomic_store(&chan.fd, -1);
	ps_store_set_default_dir(NULL);
	env = getenv("XDG_RUNTIME_DIR");
	if (!env || (size_t)snprintf(chan.xdg, sizeof(chan.xdg), "%s", env) >= sizeof(chan.xdg))
		chan.xdg[0] = '\0';	/* unset, or too long for a socket path: /tmp/patchsite-UID */
	sem_init(&chan.running, 0, 0);
	/* Signals meant for the program must never land in this thread. */
	err = ps_spawn(channel_main, forked ? &chan : NULL, 512 * 1024, &th);
	if (err) {
		ps_log(PATCHSITE_LOG_NOTE, "control channel thread: %s: no control channel",
		       strerror(err));
		return;
	}
	pthread_setname_np(th, "patchsite-ctl");
	chan.started = true;
	/*
	 * At start-up, return once the thread runs (a program that forks or
	 * exits at once).  A forked child goes on at once, from inside fork():
	 * its next fork or its exit waits instead (ps_channel_before_fork).
	 */
	if (forked)
		atomic_store(&chan.unsure, true);
	else
		while (sem_wait(&chan.running) && errno == EINTR)
			;
}

void ps_channel_start(void)
{
	start(false);
}

/* In a forked child: the parent's socket is the parent's; the child listens on its own. */
void ps_channel_forked(void)
{
	int fd = atomic_exchange(&chan.fd, -1);

	ps_store_set_default_dir(NULL);
	if (fd >= 0)
		close(fd);
	if (chan.started)
		start(true);
}

/* Before a fork, and at exit: a forked child's thread has run, or 200 ms went by. */
void ps_channel_before_fork(void)
{
	if (atomic_exchange(&chan.unsure, false))
		wait_running(200);
}

void ps_channel_stop(void)
{
	ps_channel_before_fork();
	atomic_store(&chan.stopping, true);
	if (atomic_load_explicit(&chan.fd, memory_order_acquire) >= 0 && chan.pid == getpid())
		unlink(chan.path);
}
