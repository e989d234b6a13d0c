// SPDX-License-Identifier: GPL-2.0-only
/*
 * Who records, now: ftrace's tracing_on switch and set_ftrace_pid.
 *
 * Neither changes a site.  While either holds something back (tracing off,
 * or a thread list) the stubs jump to the generic trampoline (one pointer
 * per module, dispatch.c ps_tramp_select) and the built-in ops test
 * ps_gate_open() on every call; with both at their defaults the fast
 * trampolines run exactly as before, so the per-call cost with tracing on
 * is unchanged.  A thread already inside a fast trampoline when the switch
 * flips finishes that one event: "takes effect" means from the next call.
 *
 * The thread list is immutable once published; a thread caches its answer
 * under a generation number (bumped after each new list), so the test is
 * two loads in the common case.  An old list is freed after a grace period
 * (the built-in ops run inside the dispatcher).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/textbuf.h"
#include "record/record.h"

struct ps_pids {
	unsigned n;
	pid_t id[];
};

static _Atomic(struct ps_pids *) pids;
static _Atomic unsigned pids_gen = 1;	/* a new thread's 0 never matches */

/* The calling thread's answer for the current list (its tid, or the process id, listed). */
static bool pid_listed(const struct ps_thread *t)
{
	const struct ps_pids *p = atomic_load_explicit(&pids, memory_order_acquire);
	pid_t me = getpid();

	if (!p)
		return true;
	for (unsigned i = 0; i < p->n; i++)
		if (p->id[i] == t->tid || p->id[i] == me)
			return true;
	return false;
}

bool ps_gate_open(struct ps_thread *t)
{
	unsigned gen;

	if (!atomic_load_explicit(&ps.tracing_on, memory_order_relaxed) || ps_own)
		return false;
	gen = atomic_load_explicit(&pids_gen, memory_order_acquire);
	if (__builtin_expect(t->pid_gen != gen, 0)) {
		t->pid_ok = pid_listed(t);
		t->pid_gen = gen;
	}
	return t->pid_ok;
}

/* After fork the child's thread has a new id: ask again. */
void ps_gate_forked(struct ps_thread *t)
{
	t->pid_gen = 0;
}

bool ps_gate_filtering(void)
{
	return !atomic_load_explicit(&ps.tracing_on, memory_order_relaxed) ||
	       atomic_load_explicit(&pids, memory_order_relaxed);
}

/* Sorted, no repeats: the list reads back the same however it was written. */
static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* ps.lock held: publish p (NULL: every thread), free the old list after a grace period. */
static void pids_publish(struct ps_pids *p)
{
	struct ps_pids *old = atomic_exchange(&pids, p);

	atomic_fetch_add_explicit(&pids_gen, 1, memory_order_release);
	ps_tramp_select(false);
	ps_sync_dispatchers();
	free(old);
}

/*
 * ids: thread or process ids separated by spaces, commas or newlines;
 * append adds to the list.  An empty text with !append clears it.
 */
int ps_gate_set_pids(const char *ids, bool append)
{
	struct ps_pids *cur, *p;
	unsigned n = 0, cap;
	const char *s;

	pthread_mutex_lock(&ps.lock);
	cur = atomic_load(&pids);
	cap = (append && cur ? cur->n : 0) + (unsigned)strlen(ids) / 2 + 1;
	p = malloc(sizeof(*p) + cap * sizeof(pid_t));
	if (!p) {
		pthread_mutex_unlock(&ps.lock);
		return -ENOMEM;
	}
	if (append && cur)
		for (; n < cur->n; n++)
			p->id[n] = cur->id[n];
	for (s = ids; *s;) {
		char *end;
		long v;

		if (strchr(" \t\n,", *s)) {
			s++;
			continue;
		}
		v = strtol(s, &end, 10);
		if (end == s || v <= 0 || v != (pid_t)v || (*end && !strchr(" \t\n,", *end))) {
			ps_log(PATCHSITE_LOG_ERROR, "set_ftrace_pid: '%.*s' is not a thread or "
			       "process id", (int)strcspn(s, " \t\n,"), s);
			pthread_mutex_unlock(&ps.lock);
			free(p);
			return -EINVAL;
		}
		p->id[n++] = (pid_t)v;
		s = end;
	}
	qsort(p->id, n, sizeof(pid_t), cmp_pid);
	p->n = 0;
	for (unsigned i = 0; i < n; i++)
		if (!p->n || p->id[p->n - 1] != p->id[i])
			p->id[p->n++] = p->id[i];
	if (!p->n && !(append && cur)) {
		free(p);
		p = NULL;
	}
	pids_publish(p);
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

/* One id a line, as ftrace lists them; "no pid" when every thread records. */
void ps_gate_list_pids(struct ps_buf *out)
{
	const struct ps_pids *p;

	pthread_mutex_lock(&ps.lock);	/* the list stays while we read it */
	p = atomic_load(&pids);
	if (!p)
		ps_buf_puts(out, "no pid\n");
	for (unsigned i = 0; p && i < p->n; i++)
		ps_buf_printf(out, "%d\n", (int)p->id[i]);
	pthread_mutex_unlock(&ps.lock);
}

/* The switch: sites stay as they are; only the trampoline of the moment changes. */
int ps_gate_set_tracing(bool on)
{
	pthread_mutex_lock(&ps.lock);
	atomic_store_explicit(&ps.tracing_on, on, memory_order_relaxed);
	ps_tramp_select(false);
	pthread_mutex_unlock(&ps.lock);
	return 0;
}

/* Up to max of the ids into ids; how many there are. */
int ps_gate_get_pids(int *ids, unsigned max)
{
	const struct ps_pids *p;
	int n;

	pthread_mutex_lock(&ps.lock);
	p = atomic_load(&pids);
	n = p ? (int)p->n : 0;
	for (unsigned i = 0; p && i < p->n && i < max; i++)
		ids[i] = (int)p->id[i];
	pthread_mutex_unlock(&ps.lock);
	return n;
}
