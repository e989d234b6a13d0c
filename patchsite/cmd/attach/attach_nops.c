// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcc's one-byte NOP sites, made one instruction before the runtime is
 * loaded into a running process (x86-64).
 *
 * gcc -fpatchable-function-entry=N (N >= 5, M = 0) leaves N one-byte NOPs
 * at each function's entry (after endbr64 under -fcf-protection).  The
 * runtime rewrites the first five into one 5-byte NOP, then a call, and at
 * start-up no other thread runs them.  Loaded into a running process
 * (attach_inject.c) it cannot: a thread of the program may be between two
 * of the NOPs, preempted there, and rewriting the tail under it makes it
 * execute half an instruction (SIGILL).  Here the attach does that one
 * rewrite itself, with every thread of the process stopped, so that the
 * runtime then finds one-instruction NOPs (as clang writes them) and
 * patches them live like any other site:
 *
 *   1. The sites: each mapped object's __patchable_function_entries, read
 *      from the process (relocated there), whose entry is a function's
 *      start (gcc's M > 0 puts M of the NOPs before the function's label:
 *      left as built, and the runtime refuses them) and whose five bytes
 *      are still 90 90 90 90 90.  None: nothing is stopped.
 *   2. Every thread is seized and interrupted; the thread list is read
 *      again until it holds no thread not yet stopped (a stopped thread
 *      makes none).
 *   3. A thread whose PC is 1 to 4 bytes into a site is moved to its end:
 *      the NOPs it skips do nothing.  A thread with such an address
 *      anywhere in the live part of its stack (a signal handler's frame
 *      holding the PC it interrupted, which sigreturn would resume; no
 *      return address can be one) is not moved: every thread is let go
 *      unchanged and the whole is tried again 1 ms later.
 *   4. Each site is written nopl 0x0(%rax,%rax,1) through /proc/PID/mem.
 *   5. Every thread is let go with the signal that stopped it, if any.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attach_nops.h"

#if defined(__x86_64__)

#include "attach_ptrace.h"
#include "x86_insn.h"

#define SITE_LEN	5	/* the five NOPs the runtime makes one instruction */
#define TRIES		1000	/* 1 ms apart: a signal frame over a site's inside */

struct sites {
	unsigned long *at;	/* sorted, for inside() */
	size_t n, cap;
};

static int sites_add(struct sites *s, unsigned long at)
{
	if (s->n == s->cap) {
		unsigned long *na = realloc(s->at, (s->cap = s->cap ? 2 * s->cap : 256) * sizeof(*na));

		if (!na)
			return -ENOMEM;
		s->at = na;
	}
	s->at[s->n++] = at;
	return 0;
}

static int by_address(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* The one-byte NOP sites of the object mapped at m (its first mapping). */
static int object_sites(const struct target *t, int mem, const struct map *m, struct sites *s)
{
	unsigned long addr, size, bias, *table = NULL;
	struct file f;
	int err = 0;

	if (target_file_open(t, m->path, &f))
		return 0;	/* not readable: the runtime will not find its sites either */
	if (!target_file_section(&f, "__patchable_function_entries", &addr, &size) || !size ||
	    target_file_bias(t, m, &f, &bias))
		goto out;
	table = malloc(size);
	if (!table) {
		err = -ENOMEM;
		goto out;
	}
	if (pread(mem, table, size, (off_t)(bias + addr)) != (ssize_t)size)
		goto out;	/* the process ended: attach_inject says so */
	for (size_t i = 0; i < size / sizeof(*table) && !err; i++) {
		const size_t e = sizeof(x86_endbr64);
		uint8_t b[2 * sizeof(x86_endbr64) + SITE_LEN];	/* from 4 bytes before the entry */
		unsigned long at = table[i];
		bool fn;

		if (at < bias + e || !target_in_text(t, at, m->path) ||
		    pread(mem, b, sizeof(b), (off_t)(at - e)) != sizeof(b))
			continue;
		/* gcc -fcf-protection: the entry is after the function's endbr64 */
		fn = target_file_function_at(&f, at - bias) ||
		     (!memcmp(b, x86_endbr64, e) && target_file_function_at(&f, at - bias - e));
		if (fn && !memcmp(b + e, x86_endbr64, e))
			at += e;	/* an entry at the endbr64 itself */
		if (fn && !memcmp(b + (at - table[i]) + e, x86_nops5, SITE_LEN))
			err = sites_add(s, at);
	}
out:
	free(table);
	target_file_close(&f);
	return err;
}

/* Is m the first mapping of its file? */
static bool first_of_file(const struct target *t, const struct map *m)
{
	for (const struct map *o = t->maps; o < m; o++)
		if (!strcmp(o->path, m->path))
			return false;
	return m->path[0] == '/';
}

/* Every object's one-byte NOP sites, sorted. */
static int find_sites(const struct target *t, int mem, struct sites *s)
{
	for (size_t i = 0; i < t->nmaps; i++) {
		const struct map *m = &t->maps[i];
		int err;

		if (!first_of_file(t, m))
			continue;
		err = object_sites(t, mem, m, s);
		if (err)
			return err;
	}
	if (s->n)	/* none (only no-flag sites to trace): s->at is NULL, qsort's UB */
		qsort(s->at, s->n, sizeof(*s->at), by_address);
	return 0;
}

/* Is a 1 to 4 bytes into a site?  Then *site is that site. */
static bool inside(const struct sites *s, unsigned long a, unsigned long *site)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {	/* the first site at or above a */
		size_t mid = lo + (hi - lo) / 2;

		if (s->at[mid] < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a - s->at[lo - 1] >= SITE_LEN)
		return false;
	*site = s->at[lo - 1];
	return true;
}

/* Does the live part of the stack at sp (to the end of its mapping) hold an address inside a site? */
static bool stack_inside(const struct target *t, int mem, const struct sites *s, unsigned long sp)
{
	static uint64_t words[8192];
	unsigned long top = 0, site;

	for (size_t i = 0; i < t->nmaps; i++)
		if (sp >= t->maps[i].lo && sp < t->maps[i].hi)
			top = t->maps[i].hi;
	for (sp &= ~7UL; sp < top;) {
		size_t n = top - sp < sizeof(words) ? top - sp : sizeof(words);
		ssize_t got = pread(mem, words, n, (off_t)sp);

		if (got <= 0)
			return false;
		for (ssize_t i = 0; i < got / 8; i++)
			if (inside(s, words[i], &site))
				return true;
		sp += (unsigned long)got & ~7UL;
	}
	return false;
}

struct stopped {
	int tid, pending;	/* the signal that stopped it, delivered when it is let go */
	struct user_regs_struct regs;
};

struct threads {
	struct stopped *th;
	size_t n, cap;
};

static bool have(const struct threads *ts, int tid)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->th[i].tid == tid)
			return true;
	return false;
}

/* Seize and stop tid; 1 if it ended meanwhile. */
static int stop_one(struct threads *ts, int tid)
{
	struct stopped st = { .tid = tid };
	int status;

	if (ts->n == ts->cap) {
		struct stopped *nt = realloc(ts->th, (ts->cap = ts->cap ? 2 * ts->cap : 16) *
					     sizeof(*nt));

		if (!nt)
			return -ENOMEM;
		ts->th = nt;
	}
	if (ptrace(PTRACE_SEIZE, tid, NULL, NULL))
		return errno == ESRCH ? 1 : -errno;
	if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL)) {
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return 1;
	}
	if (hijack_wait(tid, &status, 10000))
		return -ETIMEDOUT;	/* not let go before it stops: our exit has the kernel do it */
	if (!WIFSTOPPED(status))
		return 1;
	if (!(status >> 16))
		st.pending = WSTOPSIG(status);
	if (ptrace(PTRACE_GETREGS, tid, NULL, &st.regs)) {
		ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)st.pending);
		return 1;
	}
	ts->th[ts->n++] = st;
	return 0;
}

/* Every thread of pid stopped, the list read until it holds none we have not. */
static int stop_all(int pid, struct threads *ts)
{
	for (bool more = true; more;) {
		char dir[64];
		struct dirent *de;
		DIR *d;
		int err = 0;

		snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
		d = opendir(dir);
		if (!d)
			return -ESRCH;
		more = false;
		while (!err && (de = readdir(d))) {
			int tid = atoi(de->d_name);

			if (tid <= 0 || have(ts, tid))
				continue;
			err = stop_one(ts, tid);
			more |= err == 0;
			err = err > 0 ? 0 : err;
		}
		closedir(d);
		if (err)
			return err;
	}
	return 0;
}

static void let_go(struct threads *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		ptrace(PTRACE_DETACH, ts->th[i].tid, NULL, (void *)(long)ts->th[i].pending);
	ts->n = 0;
}

/*
 * With every thread stopped: 1 if a signal frame may resume inside a site
 * (nothing changed), else move the threads inside one to its end and
 * write the sites.
 */
static int rewrite(const struct target *t, int mem, const struct sites *s, struct threads *ts)
{
	unsigned long site;

	for (size_t i = 0; i < ts->n; i++)
		if (stack_inside(t, mem, s, ts->th[i].regs.rsp))
			return 1;
	for (size_t i = 0; i < ts->n; i++) {
		struct user_regs_struct *r = &ts->th[i].regs;

		if (!inside(s, r->rip, &site))
			continue;
		r->rip = site + SITE_LEN;
		if (ptrace(PTRACE_SETREGS, ts->th[i].tid, NULL, r))
			return -errno;
	}
	for (size_t i = 0; i < s->n; i++)
		if (pwrite(mem, x86_nop5_forms[0], SITE_LEN, (off_t)s->at[i]) != SITE_LEN)
			return -errno;
	return 0;
}

int attach_nop_bytes(const struct target *t, char *why, size_t len)
{
	struct sites s = { 0 };
	struct threads ts = { 0 };
	char path[64];
	int mem, err, tries = 0;

	snprintf(path, sizeof(path), "/proc/%d/mem", t->pid);
	mem = open(path, O_RDWR | O_CLOEXEC);
	if (mem < 0)
		return 0;	/* attach_inject opens it too, and says why it cannot */
	err = find_sites(t, mem, &s);
	while (!err && s.n && tries++ < TRIES) {
		err = stop_all(t->pid, &ts);
		if (!err)
			err = rewrite(t, mem, &s, &ts);
		let_go(&ts);
		if (err == 1)
			attach_sleep_ms(1);
	}
	close(mem);
	free(s.at);
	free(ts.th);
	if (err == 1)
		return attach_fail(why, len, "pid %d: a signal handler's frame stayed over one of "
				   "the program's one-byte NOP sites (-fpatchable-function-entry) "
				   "for %d tries: try again", t->pid, TRIES);
	if (err)
		return attach_fail(why, len, "pid %d: making its one-byte NOP sites "
				   "(-fpatchable-function-entry) one instruction: %s", t->pid,
				   strerror(-err));
	return 0;
}

#else /* !__x86_64__ */

int attach_nop_bytes(const struct target *t, char *why, size_t len)
{
	(void)t, (void)why, (void)len;
	return 0;	/* attach_inject refuses every arch but x86-64 */
}

#endif
