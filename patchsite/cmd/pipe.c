// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite pipe: ftrace's trace_pipe for processes recording into a
 * trace directory (pipe.h).  It reads what the threads write as they write
 * it (their files are mapped shared by the runtime: a word stored is in
 * the page cache at once), prints it as the ftrace text, sleeps while
 * there is nothing new, and stops once every process it follows has
 * ended, after printing what was left.
 *
 * Consuming: where it stopped is kept per process directory and reader
 * (pipe.pos, or pipe.NAME.pos for --reader=NAME); the next pipe of that
 * reader goes on from there, as a second read of trace_pipe does not show
 * events already read.
 *
 * cmd_pipe, at the end, turns the verb's arguments (a pid is asked for its
 * trace directory over the control channel) into pipe_opts.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach/attach.h"
#include "cmd.h"
#include "ctlclient.h"
#include "pipe.h"
#include "pipe_ended.h"
#include "../render/render.h"

#define IDLE_NS		10000000	/* a look every 10 ms while nothing comes */

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

struct followed {
	struct render_live *live;
	bool ended, final;
	bool said_overwrite;
};

static void nap(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/* Has process p ended (record --live's command: reaped; pipe_ended.c: not at its end file)? */
static bool ended(const struct psr_proc *p, const struct pipe_opts *o)
{
	if (o->child && p->pid == o->child)
		return o->child_done;
	return pipe_proc_ended(p);
}

static void pos_path(char *buf, size_t len, const struct psr_proc *p, const struct pipe_opts *o)
{
	if (o->reader)
		snprintf(buf, len, "%s/pipe.%s.pos", p->dir, o->reader);
	else
		snprintf(buf, len, "%s/pipe.pos", p->dir);
}

static void load_pos(struct followed *f, const struct psr_proc *p, const struct pipe_opts *o)
{
	char path[4400];
	FILE *in;

	pos_path(path, sizeof(path), p, o);
	in = fopen(path, "r");
	if (in) {
		render_live_load(in, f->live, p);
		fclose(in);
	}
}

static void save_pos(const struct followed *f, const struct psr_proc *p, const struct pipe_opts *o)
{
	char path[4400];
	FILE *out;

	pos_path(path, sizeof(path), p, o);
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "patchsite: pipe: %s: %s: the next pipe starts from the beginning\n",
			path, strerror(errno));
		return;
	}
	render_live_save(out, f->live);
	if (fclose(out))
		fprintf(stderr, "patchsite: pipe: %s: %s\n", path, strerror(errno));
}

/*
 * A round's lines go out in one write (record --live: the command's own
 * output, in the same file, falls between lines, never inside one).
 */
struct round {
	FILE *mem;
	char *text;
	size_t len;
};

static FILE *round_start(struct round *r)
{
	if (!r->mem)
		r->mem = open_memstream(&r->text, &r->len);
	return r->mem;
}

static int round_end(struct round *r, FILE *out)
{
	const char *p;
	size_t left;

	if (!r->mem)
		return 0;
	if (fclose(r->mem))
		return -ENOMEM;
	r->mem = NULL;
	if (fflush(out))
		return -errno;
	for (p = r->text, left = r->len; left;) {
		ssize_t n = write(fileno(out), p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		left -= (size_t)n;
	}
	free(r->text);
	r->text = NULL;
	return 0;
}

static bool target_gone(const struct pipe_opts *o)
{
	return o->target && kill(o->target, 0) && errno == ESRCH;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* record -p --live: its tracer on, once (pipe.h ready); non-zero: stop. */
static int ready_once(struct pipe_opts *o)
{
	int (*ready)(void *) = o->ready;

	o->ready = NULL;
	return ready ? ready(o->ready_arg) : 0;
}

/* A stop (signal, until_ms): record -p --live switches its tracer off before the last look. */
static bool stopped(struct pipe_opts *o)
{
	int (*fn)(void *) = o->stopping;

	if (o->until_ms && mono_ms() >= o->until_ms)
		stop = 1;
	if (stop && fn) {
		o->stopping = NULL;
		fn(o->ready_arg);
	}
	return stop;
}

/* Signals that end following: ^C and SIGTERM, or the ones the caller held. */
static void catch_stop(const struct pipe_opts *o)
{
	if (!o->held) {
		signal(SIGINT, on_stop);
		signal(SIGTERM, on_stop);
		return;
	}
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(o->held, sig) == 1)
			signal(sig, on_stop);
	sigprocmask(SIG_UNBLOCK, o->held, NULL);
}

/* record --live: the command, reaped here (its status kept for record). */
static void reap(struct pipe_opts *o)
{
	if (o->child && !o->child_done && waitpid(o->child, &o->child_status, WNOHANG) == o->child)
		o->child_done = true;
}

/* One process's new events; -errno.  Overwrite mode is refused once (chunks are reused). */
static int follow_one(FILE *out, struct followed *f, struct psr_proc *p, struct pipe_opts *o,
		      bool last, unsigned long long *shown)
{
	unsigned long long before = render_live_shown(f->live);
	int err;

	if (p->overwrite) {
		if (!f->said_overwrite)
			fprintf(stderr, "patchsite: pipe: %s: process %d records in overwrite mode "
				"(chunks are reused as it runs): not followed; see replay, snapshot\n",
				p->dir, p->pid);
		f->said_overwrite = f->final = true;
		return 0;
	}
	/*
	 * Its events wait for the modules log, which a directory opened by
	 * `record -p` or ctl gets just after its first tracer went on
	 * (record/store_mods_later.c): shown named, not by site number.
	 */
	if (!p->nmods && !p->gone && !p->has_end && !last)
		return 0;
	err = render_live_round(out, f->live, p);
	*shown += render_live_shown(f->live) - before;
	if (!err && (p->gone || last) && !f->final) {
		f->final = true;
		if (o->consume)
			save_pos(f, p, o);
	}
	return err;
}

int pipe_follow(FILE *out, struct pipe_opts *o)
{
	struct psr_session *s = NULL;
	struct followed *fl = NULL;
	size_t nfl = 0;
	int err = 0;
	bool any = false, first = true, failed = false;

	struct round r = { 0 };

	bool waits = o->child || o->ready;

	stop = 0;
	if (!o->child)
		catch_stop(o);
	/*
	 * record --live starts before the command made its directory; record
	 * -p --live before its tracer made the process's (nothing was there
	 * before now: nothing to skip).
	 */
	while (psr_open_live(o->dir, waits ? NULL : stderr, &s)) {
		reap(o);
		o->from_now = false;
		if (ready_once(o))
			return 1;
		if (!waits || o->child_done || stopped(o) || target_gone(o))
			return waits ? 0 : 1;
		nap(IDLE_NS);
	}
	for (;;) {
		unsigned long long shown = 0;
		bool all_final = true, wanted = false;

		reap(o);
		stopped(o);
		/*
		 * Seen ended at the last look: this look at its files is the last.
		 * A consuming pipe stopped while a process records keeps its threads
		 * live in that look: what must wait (a switch drained later goes
		 * before it) is left for the next pipe, from the position saved.
		 */
		for (size_t i = 0; i < nfl; i++)
			if (fl[i].ended || (stop && !o->consume))
				s->procs[i].gone = true;
		psr_follow(s);
		if (s->nprocs > nfl) {
			struct followed *g = realloc(fl, s->nprocs * sizeof(*g));

			if (!g) {
				err = -ENOMEM;
				break;
			}
			fl = g;
			for (size_t i = nfl; i < s->nprocs; i++) {
				memset(&fl[i], 0, sizeof(fl[i]));
				fl[i].live = render_live_new(o->opt_set, o->opt_clear, !o->no_sched);
				if (!fl[i].live)
					err = -ENOMEM;
				else if (o->from_now && first)
					render_live_skip(fl[i].live, &s->procs[i]);	/* there already */
				else if (o->consume && !o->from_start)
					load_pos(&fl[i], &s->procs[i], o);
			}
			nfl = s->nprocs;
		}
		first = false;
		if (!err && ready_once(o)) {
			failed = true;
			break;
		}
		for (size_t i = 0; i < s->nprocs && !err; i++) {
			struct psr_proc *p = &s->procs[i];

			if (o->pid && p->pid != o->pid)
				continue;
			wanted = any = true;
			if (!fl[i].ended && ended(p, o))
				fl[i].ended = true;
			if (!fl[i].final)
				err = round_start(&r) ? follow_one(r.mem, &fl[i], p, o, stop, &shown) :
					-ENOMEM;
			all_final &= fl[i].final;
		}
		if (!err)
			err = round_end(&r, out);
		if (err)
			break;
		/* Every process followed has ended (record --live: and the command). */
		if (wanted && all_final && (!o->child || o->child_done) &&
		    (!o->target || stop || target_gone(o)))
			break;
		/* --pid of a process the session does not list: said below, not waited for. */
		if (!wanted && (stop || (o->child && o->child_done) || o->pid || target_gone(o)))
			break;
		if (!shown)
			nap(IDLE_NS);
	}
	o->shown = 0;
	for (size_t i = 0; i < nfl; i++) {
		if (fl[i].live)
			o->shown += render_live_shown(fl[i].live);
		render_live_free(fl[i].live);
	}
	if (o->pid && !any)
		fprintf(stderr, "patchsite: pipe: %s: no process %d in the session\n", o->dir, o->pid);
	free(fl);
	free(r.text);
	psr_close(s);
	if (err == -ENOMEM)
		fprintf(stderr, "patchsite: pipe: out of memory\n");
	else if (err)
		fprintf(stderr, "patchsite: pipe: writing the output: %s\n", strerror(-err));
	return err || failed || (o->pid && !any) ? 1 : 0;
}

/*
 * `pipe PID`: the trace directory a running process records into, asked
 * over its control channel (trace_dir), made absolute through the
 * process's working directory when it is relative.
 */
static int pipe_dir_of(int pid, char *dir, size_t len)
{
	char *reply = NULL;
	int err = psctl_request(pid, PSCTL_READ, "trace_dir", NULL, &reply);
	char why[1024];
	size_t n;

	/* No channel (or an exec'd image's stale one): attach (attach.c). */
	if ((err == -ENOENT || err == -ECONNREFUSED) &&
	    !attach_runtime(pid, "pipe", why, sizeof(why))) {
		free(reply);
		err = psctl_request(pid, PSCTL_READ, "trace_dir", NULL, &reply);
	} else if (err == -ENOENT || err == -ECONNREFUSED) {
		fprintf(stderr, "patchsite: pipe: %s\n", why);
	}
	if (err) {
		fprintf(stderr, "patchsite: pipe: %s\n", reply ? reply : strerror(-err));
		free(reply);
		return -1;
	}
	n = strcspn(reply, "\n");
	reply[n] = '\0';
	if (!n) {
		fprintf(stderr, "patchsite: pipe: process %d records nothing (no tracer set: "
			"patchsite ctl %d current_tracer function)\n", pid, pid);
		free(reply);
		return -1;
	}
	if (reply[0] == '/')
		snprintf(dir, len, "%s", reply);
	else
		snprintf(dir, len, "/proc/%d/cwd/%s", pid, reply);
	free(reply);
	return 0;
}

int cmd_pipe(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "pid", required_argument, NULL, 'p' },
		{ "from-start", no_argument, NULL, 's' },
		{ "from-now", no_argument, NULL, 'n' },
		{ "reader", required_argument, NULL, 'r' },
		{ "options", required_argument, NULL, 'O' },
		{ "no-sched", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct pipe_opts o = { .dir = DEFAULT_DIR, .consume = true };
	char dir[PATH_MAX + 64];
	bool dir_given = false;
	int c;

	while ((c = getopt_long(argc, argv, "d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': o.dir = optarg; dir_given = true; break;
		case 'p': if (parse_int(optarg, "--pid", &o.pid)) return 2; break;
		case 's': o.from_start = true; break;
		case 'n': o.from_now = true; break;
		case 'r':
			if (!*optarg || strlen(optarg) > 64 || strspn(optarg, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(optarg))
				return bad_usage("pipe: --reader=%s: a name of up to 64 letters, digits, "
						 "_ and -", optarg);
			o.reader = optarg;
			break;
		case 'O': if (parse_options(optarg, &o.opt_set, &o.opt_clear, false)) return 2; break;
		case 'S': o.no_sched = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return bad_usage("pipe: bad option%s", "");
		}
	}
	if (o.from_start && o.from_now)
		return bad_usage("pipe: --from-start and --from-now: one or the other%s", "");
	if (optind + 1 == argc && !dir_given && strspn(argv[optind], "0123456789") ==
	    strlen(argv[optind]) && o.pid <= 0) {
		if (parse_int(argv[optind], "pid", &o.pid))
			return 2;
		if (pipe_dir_of(o.pid, dir, sizeof(dir)))
			return 1;
		o.dir = dir;
		optind++;
	}
	if (optind < argc)
		return bad_usage("pipe: unexpected argument '%s' (-d DIR or a pid)", argv[optind]);
	return pipe_follow(stdout, &o);
}
