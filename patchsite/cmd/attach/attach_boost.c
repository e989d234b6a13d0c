// SPDX-License-Identifier: GPL-2.0-only
/*
 * Why: the target's own threads may keep every CPU busy (issue #26's bench
 * runs three spinning threads on two cores).  The loader thread's dlopen
 * and start-up (about 50 ms of CPU for 100,000 sites) and the channel's
 * first tracer then get a fair share only, and took 3-8 times their CPU in
 * wall time.  With CAP_SYS_NICE (root) the attach's threads run at nice
 * -20 until the tracer is on, and only they: the borrowed thread is back
 * at its own nice before it runs again, and every thread the attach made
 * (the loader, the runtime's channel and store threads, which inherit the
 * loader's nice) is put back to the borrowed thread's nice at the end.
 * Which threads the attach made is told by their names: the injector's
 * are "ps-attach", the runtime's are made by its channel thread
 * ("patchsite-ctl", a name they inherit); a thread the program made
 * meanwhile bears its creator's name and keeps its creator's nice, -20
 * included.
 * Without the capability (another user's RLIMIT_NICE) nothing changes;
 * PATCHSITE_ATTACH_BOOST=0 turns it off (the bench compares both).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>

#include "attach_boost.h"

#define MAX_OLD	4096	/* threads remembered as the program's own; more: those not restored */

static struct {
	bool self, thread;	/* boosted: this command; the target's new threads */
	bool self_fifo;		/* this command SCHED_FIFO (attach_boost_self_fifo) */
	int self_nice, thread_nice, pid;
	int old[MAX_OLD];
	unsigned nold;
	const char *said;
} boost = { .said = "not boosted" };

static bool wanted(void)
{
	const char *v = getenv("PATCHSITE_ATTACH_BOOST");

	if (v && !strcmp(v, "0")) {
		boost.said = "not boosted (PATCHSITE_ATTACH_BOOST=0)";
		return false;
	}
	return true;
}

/* A thread's nice, or 1000 if unreadable (getpriority's -1 is a nice too). */
static int nice_of(int tid)
{
	int v;

	errno = 0;
	v = getpriority(PRIO_PROCESS, (id_t)tid);
	return errno ? 1000 : v;
}

void attach_boost_self(void)
{
	int v = nice_of(0);

	if (boost.self || v == 1000 || !wanted())
		return;
	boost.self_nice = v;
	boost.self = !setpriority(PRIO_PROCESS, 0, ATTACH_BOOST_NICE);
	if (!boost.self)
		boost.said = "not boosted (no CAP_SYS_NICE)";
}

void attach_boost_self_fifo(bool on)
{
	struct sched_param fifo = { .sched_priority = 1 }, none = { 0 };

	if (!boost.self)
		return;
	if (on && sched_getscheduler(0) == SCHED_OTHER)
		boost.self_fifo = !sched_setscheduler(0, SCHED_FIFO, &fifo);
	else if (!on && boost.self_fifo)
		boost.self_fifo = sched_setscheduler(0, SCHED_OTHER, &none) != 0;
}

/* The process's threads now: they are the program's, never changed at the end. */
static void remember_old(int pid)
{
	char dir[64];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	boost.nold = 0;
	while (d && (de = readdir(d)) && boost.nold < MAX_OLD)
		if (atoi(de->d_name) > 0)
			boost.old[boost.nold++] = atoi(de->d_name);
	if (d)
		closedir(d);
}

void attach_boost_stop(int tid, struct attach_prio *old)
{
	struct sched_param fifo = { .sched_priority = 1 };
	int v = nice_of(tid), policy = sched_getscheduler(tid);

	old->nice = 1000;
	old->policy = -1;
	if (v == 1000 || !wanted() || setpriority(PRIO_PROCESS, (id_t)tid, ATTACH_BOOST_NICE)) {
		if (v != 1000 && strcmp(boost.said, "boosted") && wanted())
			boost.said = "not boosted (no CAP_SYS_NICE)";
		return;
	}
	boost.said = "boosted";
	old->nice = v;
	if ((policy == SCHED_OTHER || policy == SCHED_BATCH) &&
	    !sched_setscheduler(tid, SCHED_FIFO, &fifo))
		old->policy = policy;
}

void attach_unboost_stop(int tid, const struct attach_prio *old)
{
	struct sched_param none = { 0 };

	/* The policy first: going back to SCHED_OTHER keeps the nice, put back next. */
	if (old->policy != -1)
		(void)sched_setscheduler(tid, old->policy, &none);
	if (old->nice != 1000)
		(void)setpriority(PRIO_PROCESS, (id_t)tid, old->nice);
}

void attach_boost_made(int pid, int nice)
{
	if (boost.thread || nice == 1000)
		return;
	remember_old(pid);
	boost.thread_nice = nice;
	boost.pid = pid;
	boost.thread = true;
}

static bool is_old(int tid)
{
	for (unsigned i = 0; i < boost.nold; i++)
		if (boost.old[i] == tid)
			return true;
	return false;
}

/* Did the attach make thread tid (its name, above)? */
static bool ours(int pid, int tid)
{
	char path[96], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return !strcmp(comm, ATTACH_THREAD_NAME) || !strncmp(comm, "patchsite-", 10);
}

void attach_boost_end(int pid)
{
	char dir[64];
	struct dirent *de;
	DIR *d;

	attach_boost_self_fifo(false);
	if (boost.self)
		(void)setpriority(PRIO_PROCESS, 0, boost.self_nice);
	boost.self = false;
	if (!boost.thread || pid != boost.pid)
		return;
	boost.thread = false;
	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid > 0 && !is_old(tid) && nice_of(tid) == ATTACH_BOOST_NICE && ours(pid, tid))
			(void)setpriority(PRIO_PROCESS, (id_t)tid, boost.thread_nice);
	}
	if (d)
		closedir(d);
}

const char *attach_boost_said(void)
{
	return boost.said;
}
