// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in "function" tracer: one bounded ring per thread, written only
 * by its thread (lock-free single producer) and drained by
 * patchsite_trace_write (single consumer, under ps.lock).  A full ring
 * drops the new event and counts it, as ftrace's producer/consumer mode
 * does; memory never grows past PATCHSITE_BUFFER_KB per thread.
 *
 * Output is ftrace's function tracer text:
 *   # tracer: function
 *             prog-1234    [001]  5432.123456: leaf <-mid
 * with events of all threads merged by time.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

struct ps_event {
	uint64_t ts;		/* CLOCK_MONOTONIC, ns */
	uintptr_t ip;
	uintptr_t parent;
	int32_t cpu;
	uint32_t pad;
};

struct ps_ring {
	_Atomic uint64_t head;	/* next slot the owner writes */
	_Atomic uint64_t tail;	/* next slot the reader reads */
	_Atomic uint64_t lost;
	uint64_t mask;
	size_t map_size;
	struct ps_event ev[];
};

size_t ps_ring_bytes = 1024 * 1024;

static struct ps_ring *ring_alloc(struct ps_thread *t)
{
	size_t bytes = ps_ring_bytes, cap = 1;
	struct ps_ring *r;

	while (cap * 2 * sizeof(struct ps_event) + sizeof(*r) <= bytes)
		cap *= 2;
	bytes = sizeof(*r) + cap * sizeof(struct ps_event);
	r = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		return NULL;
	r->mask = cap - 1;
	r->map_size = bytes;
	atomic_store_explicit(&t->ring, r, memory_order_release);
	return r;
}

static void function_call(unsigned long ip, unsigned long parent, struct patchsite_ops *op,
			  struct patchsite_regs *regs)
{
	struct ps_thread *t = ps_thread_self();
	struct ps_ring *r;
	struct ps_event *e;
	struct timespec ts;
	uint64_t h;

	(void)op;
	(void)regs;
	if (!t)
		return;
	r = atomic_load_explicit(&t->ring, memory_order_relaxed);
	if (!r && !(r = ring_alloc(t)))
		return;
	h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (h - atomic_load_explicit(&r->tail, memory_order_acquire) > r->mask) {
		atomic_fetch_add_explicit(&r->lost, 1, memory_order_relaxed);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e = &r->ev[h & r->mask];
	e->ts = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	e->ip = ip;
	e->parent = parent;
	e->cpu = sched_getcpu();
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
}

struct patchsite_ops ps_function_ops = { .func = function_call };

static void print_addr(FILE *f, uintptr_t addr)
{
	const struct ps_sym *s = ps_sym_by_addr(addr, NULL);

	if (s)
		fputs(s->name, f);
	else
		fprintf(f, "0x%lx", (unsigned long)addr);
}

struct cursor {
	struct ps_thread *t;
	struct ps_ring *r;
	uint64_t at, end;
};

int patchsite_trace_write(int fd)
{
	struct cursor *c = NULL;
	size_t nc = 0, cap = 0;
	uint64_t entries = 0, lost = 0;
	FILE *f;
	int dupfd, err = 0;

	dupfd = dup(fd);
	if (dupfd < 0)
		return -errno;
	f = fdopen(dupfd, "w");
	if (!f) {
		err = -errno;
		close(dupfd);
		return err;
	}
	pthread_mutex_lock(&ps.lock);
	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		struct ps_ring *r = atomic_load_explicit(&t->ring, memory_order_acquire);

		if (!r)
			continue;
		if (nc == cap) {
			struct cursor *grown = realloc(c, (cap = cap ? cap * 2 : 16) * sizeof(*c));

			if (!grown) {
				err = -ENOMEM;
				goto out;
			}
			c = grown;
		}
		c[nc].t = t;
		c[nc].r = r;
		c[nc].at = atomic_load_explicit(&r->tail, memory_order_relaxed);
		c[nc].end = atomic_load_explicit(&r->head, memory_order_acquire);
		entries += c[nc].end - c[nc].at;
		lost += atomic_load(&r->lost);
		nc++;
	}
	fprintf(f, "# tracer: function\n#\n");
	fprintf(f, "# entries-in-buffer/entries-written: %llu/%llu   #P:%ld\n#\n",
		(unsigned long long)entries, (unsigned long long)(entries + lost),
		sysconf(_SC_NPROCESSORS_ONLN));
	for (size_t i = 0; i < nc; i++) {
		uint64_t l = atomic_exchange(&c[i].r->lost, 0);

		if (l)
			fprintf(f, "# %s-%d [LOST %llu EVENTS]\n", c[i].t->comm, c[i].t->tid,
				(unsigned long long)l);
	}
	fprintf(f, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	fprintf(f, "#              | |         |         |         |\n");
	for (;;) {
		struct cursor *min = NULL;
		struct ps_event *e;

		for (size_t i = 0; i < nc; i++)
			if (c[i].at != c[i].end &&
			    (!min || c[i].r->ev[c[i].at & c[i].r->mask].ts <
					     min->r->ev[min->at & min->r->mask].ts))
				min = &c[i];
		if (!min)
			break;
		e = &min->r->ev[min->at & min->r->mask];
		fprintf(f, "%16s-%-7d [%03d] %5llu.%06llu: ", min->t->comm, min->t->tid, e->cpu,
			(unsigned long long)(e->ts / 1000000000u),
			(unsigned long long)(e->ts % 1000000000u / 1000u));
		print_addr(f, e->ip);
		fputs(" <-", f);
		print_addr(f, e->parent);
		fputc('\n', f);
		min->at++;
	}
	for (size_t i = 0; i < nc; i++)
		atomic_store_explicit(&c[i].r->tail, c[i].end, memory_order_release);
out:
	pthread_mutex_unlock(&ps.lock);
	free(c);
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int patchsite_set_buffer_kb(unsigned long kb)
{
	if (kb < 4 || kb > (1ul << 22)) {
		errno = EINVAL;
		return -EINVAL;
	}
	ps_ring_bytes = kb * 1024;
	return 0;
}
