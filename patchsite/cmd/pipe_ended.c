// SPDX-License-Identifier: GPL-2.0-only
/*
 * When patchsite pipe takes its last look at a process (pipe_ended.h).
 *
 * Its end file is not that moment: the runtime's destructor writes it
 * while the process still runs (other destructors, the exit itself), and
 * the main thread is switched out and preempted after it; its drain
 * thread writes those switches into the sched file later, and replay of
 * the finished directory shows them.  A last look taken at the end file
 * showed a thread's switches up to it and never the rest (sched.sh,
 * "pipe stopped half way and again": 5 of 17 of the main thread's, 1 run
 * in 8 under SAN).  So the last look waits until the process is gone, or
 * a zombie (no thread of it runs: nothing more is written).
 *
 * A pid that runs although its end file is there may be another process
 * (the pid reused; a directory from another boot): one that started after
 * the recorded one's runtime had started is not waited for.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipe_ended.h"

/*
 * /proc/PID/stat: the state and the start (ns since boot, CLOCK_BOOTTIME):
 * 1, 0 no such process, -1 not known (unreadable, not understood).
 */
static int proc_stat(int pid, char *state, unsigned long long *start_ns)
{
	char path[64], text[1024];
	unsigned long long ticks;
	const char *paren;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : -1;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	/* "PID (COMM) STATE ... field 22 STARTTIME": COMM may hold ") ", the last one ends it. */
	paren = strrchr(text, ')');
	if (!paren || sscanf(paren + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
			     "%*d %*d %*d %*d %*d %*d %llu", state, &ticks) != 2 || hz <= 0)
		return -1;
	*start_ns = ticks / (unsigned long long)hz * 1000000000ull +
		    ticks % (unsigned long long)hz * 1000000000ull / (unsigned long long)hz;
	return 1;
}

static unsigned long long clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/*
 * Did a process that started at start_ns (since boot) start after p's
 * runtime did?  Both in wall-clock time (realtime0 is the runtime's start
 * by CLOCK_REALTIME), so that a directory from an earlier boot, whose pid
 * now belongs to a daemon that started before its numbers would say on a
 * monotonic clock, is not waited for either; a tick of slack for the
 * start's rounding to clock ticks.
 */
static bool started_after(const struct psr_proc *p, unsigned long long start_ns)
{
	unsigned long long boot = clock_ns(CLOCK_BOOTTIME), real = clock_ns(CLOCK_REALTIME);
	unsigned long long start_real = real - (boot > start_ns ? boot - start_ns : 0);
	long hz = sysconf(_SC_CLK_TCK);

	return start_real > p->realtime0 + 1000000000ull / (unsigned long long)(hz > 0 ? hz : 1);
}

bool pipe_proc_ended(const struct psr_proc *p)
{
	unsigned long long start_ns;
	char state;
	int known;

	if (kill(p->pid, 0) && errno == ESRCH)
		return true;
	known = proc_stat(p->pid, &state, &start_ns);
	if (known <= 0)
		return !known || p->has_end;	/* not known: its end file says, as before */
	if (state == 'Z' || state == 'X')
		return true;
	return p->has_end && started_after(p, start_ns);
}
