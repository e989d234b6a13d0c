// SPDX-License-Identifier: GPL-2.0-only
/*
 * function_profile: per thread and per function, hits, total, self, min,
 * max, sum of squares and a log-linear histogram of call times, in memory
 * (the kernel's function profiler, trace_stat/function, with self time and
 * a histogram).  The calls are function_graph's (graph.c times them with
 * its shadow frames and hooked returns, in its profile mode); their ends
 * come here instead of the ring.  On x86-64 the common call takes
 * arch/x86_64/tramp.S's path instead, which counts the same way in
 * assembly (profile_counters.h; profile_fast.c checks its offsets).
 *
 * Each thread writes only its own counters, so a call costs no atomic
 * read-modify-write: a sequence count per function (odd while it changes)
 * lets readers (ps_profile_text) take a consistent copy and merge.  Memory comes from mmap (the C
 * library's malloc may be the very function interrupted), in per-thread
 * arenas, and is never freed: a reader may hold any pointer, and a thread
 * that ended keeps its counts.  A reset (ps_profile_reset; a fork, in the
 * child) bumps a generation; each thread clears its own counters at its
 * next call, readers skip threads still in an older generation, and a call
 * that began in an older one is not counted.
 *
 * A call made while the same function is still running further out in its
 * thread (recursion) adds to hits, the histogram and self, but not to
 * total, which the outer call already holds: as report counts a
 * function_graph recording, so that the two agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "core/ctl_file.h"
#include "data/hist.h"
#include "data/read_profile.h"
#include "render/profile_stat.h"
#include "profile.h"
#include "profile_counters.h"

#define ARENA_BYTES	(256u << 10)

/* prof_fn's link for the thread's list lives after it, so hist stays aligned and dense. */
struct prof_node {
	struct prof_fn fn;
	struct prof_fn *next;
};

static struct prof_thread *_Atomic threads;
_Atomic unsigned ps_prof_generation;
uint64_t ps_prof_ns_mult;	/* no floating point on the call path */
__thread struct prof_thread *ps_prof_me __attribute__((tls_model("initial-exec")));

/* function_profile ran in this process: its file is written (empty after a reset). */
static _Atomic bool used;

void ps_profile_prepare(void)
{
	uint64_t t0 = ps_clock(), span = 1ull << 32;

	atomic_store(&used, true);
	/* The rate ps_tsc_to_ns uses, over 2^32 ticks (exact to ~1e-9). */
	ps_prof_ns_mult = ps_tsc_to_ns(t0 + span) - ps_tsc_to_ns(t0);
}

static void *arena_take(struct prof_thread *pt, size_t size)
{
	void *p;

	size = (size + 63) & ~(size_t)63;
	if (pt->arena_end - pt->arena < (ptrdiff_t)size) {
		size_t bytes = size > ARENA_BYTES ? size : ARENA_BYTES;

		pt->arena = ps_map_zero(&bytes, false, 0);
		if (!pt->arena) {
			pt->arena_end = NULL;
			return NULL;
		}
		pt->arena_end = pt->arena + bytes;
	}
	p = pt->arena;
	pt->arena += size;
	return p;
}

static struct prof_thread *thread_counters(struct ps_thread *t)
{
	struct prof_thread *pt;
	size_t bytes = sizeof(*pt);

	if (ps_prof_me)
		return ps_prof_me;
	pt = ps_map_zero(&bytes, false, 0);
	if (!pt)
		return NULL;
	pt->tid = t->tid;
	memcpy(pt->comm, t->comm, sizeof(pt->comm));
	atomic_store(&pt->gen, atomic_load(&ps_prof_generation));
	pt->next = atomic_load(&threads);
	while (!atomic_compare_exchange_weak(&threads, (struct prof_thread **)&pt->next, pt))
		;
	ps_prof_me = pt;
	return pt;
}

/* A reset happened: this thread's counters start over (only it writes them). */
static void catch_up(struct prof_thread *pt, unsigned gen)
{
	for (struct prof_fn *fn = atomic_load(&pt->list); fn; fn = ((struct prof_node *)fn)->next) {
		write_begin(fn);
		fn->total = fn->sum = fn->self = 0;
		fn->sumsq = 0;
		fn->open = 0;
		fn->pend = 0;
		hist_init(&fn->h);
		write_end(fn);
	}
	atomic_store_explicit(&pt->gen, gen, memory_order_release);
}

static struct prof_fn *counters_of(struct prof_thread *pt, uint32_t id)
{
	unsigned mi = id >> PS_ID_SHIFT;
	size_t i = id & PS_ID_MASK;
	struct prof_fn **row = atomic_load_explicit(&pt->mods[mi], memory_order_relaxed);
	struct prof_node *node;

	if (!row) {
		row = arena_take(pt, ps.mods[mi]->nsites * sizeof(*row));
		if (!row)
			return NULL;
		atomic_store_explicit(&pt->mods[mi], row, memory_order_release);
	}
	if (row[i])
		return row[i];
	node = arena_take(pt, sizeof(*node));
	if (!node)
		return NULL;
	node->fn.id = id;
	node->fn.pend = 0;
	hist_init(&node->fn.h);
	node->next = atomic_load_explicit(&pt->list, memory_order_relaxed);
	atomic_store_explicit(&pt->list, &node->fn, memory_order_release);
	__atomic_store_n(&row[i], &node->fn, __ATOMIC_RELEASE);
	return &node->fn;
}

void ps_profile_enter(struct ps_thread *t, struct ps_fslow *x, uint32_t id)
{
	struct prof_thread *pt = thread_counters(t);
	unsigned gen = atomic_load_explicit(&ps_prof_generation, memory_order_relaxed);
	struct prof_fn *fn;

	x->prof = NULL;
	if (!pt)
		return;
	if (atomic_load_explicit(&pt->gen, memory_order_relaxed) != gen)
		catch_up(pt, gen);
	fn = counters_of(pt, id);
	if (!fn) {
		atomic_fetch_add_explicit(&t->lost, 1, memory_order_relaxed);
		return;
	}
	fn->open++;
	x->prof = fn;
	x->units = gen;		/* the entry took no ring room: the field holds its generation */
}

void ps_profile_exit(struct ps_thread *t, const struct ps_frame *fr, struct ps_fslow *x,
		     uint64_t tsc)
{
	struct prof_fn *fn = x->prof;
	uint64_t d;

	if (!fn || !ps_prof_me)
		return;
	d = prof_ns(tsc - x->tsc);
	prof_to_caller(t, fr, x, d);
	if (x->units != atomic_load_explicit(&ps_prof_generation, memory_order_relaxed))
		return;		/* begun before a reset (or a fork): not counted */
	prof_count(fn, d, d > x->child_ns ? d - x->child_ns : 0);
}

void ps_profile_reset(void)
{
	atomic_fetch_add(&ps_prof_generation, 1);
}

/* Did function_profile run in this process (its file is written, even empty after a reset)? */
static bool ps_profile_any(void)
{
	return atomic_load(&used);
}

/* A 128-bit count in hexadecimal, the file's form for the sum of squares. */
static void put_u128(struct ps_buf *out, unsigned __int128 v)
{
	ps_buf_printf(out, "0x%llx%016llx", (unsigned long long)(v >> 64),
		      (unsigned long long)(uint64_t)v);
}

/*
 * A consistent copy of src, which its thread may be changing; false when
 * it has no hits.  A thread stopped in the middle of a change (a signal
 * handler waiting on us) would keep us retrying: after 1000 tries the
 * copy is made consistent by hand (hits from the buckets, extremes within
 * them), said once.
 */
static bool copy_fn(struct prof_fn *fn, const struct prof_fn *src)
{
	static bool said;
	uint32_t s1, s2;
	unsigned tries = 0;
	int first = -1, last = -1;

	do {
		s1 = atomic_load_explicit(&src->seq, memory_order_acquire);
		memcpy(fn, src, sizeof(*fn));
		seq_fence(memory_order_acquire, &src->seq);
		s2 = atomic_load_explicit(&src->seq, memory_order_relaxed);
	} while ((s1 != s2 || (s1 & 1)) && ++tries < 1000);
	if (fn->pend && fn->pend <= HIST_BUCKETS)	/* counted in h.n, its bucket still to add */
		fn->h.count[fn->pend - 1]++;
	fn->pend = 0;
	if (tries == 1000) {
		if (!said)
			ps_log(PATCHSITE_LOG_WARNING, "function_profile: counters read while "
			       "their thread was changing them: hits taken from the buckets");
		said = true;
		fn->h.n = 0;
		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			if (fn->h.count[b]) {
				fn->h.n += fn->h.count[b];
				first = first < 0 ? (int)b : first;
				last = (int)b;
			}
		if (fn->h.n && hist_bucket(fn->h.min) != (unsigned)first)
			fn->h.min = hist_bucket_lo((unsigned)first);
		if (fn->h.n && hist_bucket(fn->h.max) != (unsigned)last)
			fn->h.max = hist_bucket_lo((unsigned)last + 1) - 1;
		fn->sum = fn->sum < fn->h.n * fn->h.min ? fn->h.n * fn->h.min : fn->sum;
		fn->sum = fn->sum > fn->h.n * fn->h.max ? fn->h.n * fn->h.max : fn->sum;
		fn->total = fn->total > fn->sum ? fn->sum : fn->total;
		fn->self = fn->self > fn->sum ? fn->sum : fn->self;
	}
	return fn->h.n != 0;
}

/* One function of one thread: its line, then its non-empty buckets. */
static void put_fn(struct ps_buf *out, const struct prof_fn *src)
{
	static struct prof_fn fn;	/* ps.lock held: one reader at a time */
	char buf[32];
	const char *name;

	if (!copy_fn(&fn, src))
		return;
	name = ps_site_name(ps_site_by_id(fn.id), buf, sizeof(buf));
	ps_buf_printf(out, "f %llu %llu %llu %llu %llu %llu ", (unsigned long long)fn.h.n,
		      (unsigned long long)fn.total, (unsigned long long)fn.sum,
		      (unsigned long long)fn.self, (unsigned long long)fn.h.min,
		      (unsigned long long)fn.h.max);
	put_u128(out, fn.sumsq);
	ps_buf_printf(out, " %s\nh", name);
	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		if (fn.h.count[b])
			ps_buf_printf(out, " %u:%llu", b, (unsigned long long)fn.h.count[b]);
	ps_buf_puts(out, "\n");
}

/* The counts of every thread, as the `profile` file's text (data/read_profile.h parses it). */
static void ps_profile_text(struct ps_buf *out)
{
	unsigned gen;

	pthread_mutex_lock(&ps.lock);
	gen = atomic_load(&ps_prof_generation);
	ps_buf_printf(out, "patchsite-profile %d\n", PS_PROFILE_VERSION);
	for (struct prof_thread *pt = atomic_load(&threads); pt; pt = atomic_load(&pt->next)) {
		if (atomic_load_explicit(&pt->gen, memory_order_acquire) != gen)
			continue;
		ps_buf_printf(out, "thread %d %.16s\n", (int)pt->tid, pt->comm);
		for (struct prof_fn *fn = atomic_load_explicit(&pt->list, memory_order_acquire); fn;
		     fn = ((struct prof_node *)fn)->next)
			put_fn(out, fn);
	}
	pthread_mutex_unlock(&ps.lock);
}

int ps_profile_store(void)
{
	struct ps_buf b = { 0 };
	int err;

	if (!ps_profile_any())
		return 0;
	ps_profile_text(&b);
	err = b.oom ? -ENOMEM : ps_store_replace("profile", b.p, b.len);
	if (err && err != -ENODEV)
		ps_log(PATCHSITE_LOG_ERROR, "writing the function profile: %s", strerror(-err));
	ps_buf_free(&b);
	return err == -ENODEV ? 0 : err;
}

/* The counts now, parsed back by the reader of the trace directory's file and printed. */
static int show(struct ps_buf *out, const char *file, const char *hist_of)
{
	struct ps_buf text = { 0 };
	struct psr_profile pf;
	char why[160], *p = NULL;
	size_t n = 0;
	FILE *f;
	int err;

	ps_profile_text(&text);
	if (text.oom) {
		ps_buf_free(&text);
		return -ENOMEM;
	}
	err = psr_profile_parse(text.p, text.len, &pf, why, sizeof(why));
	ps_buf_free(&text);
	if (err) {
		ps_log(PATCHSITE_LOG_ERROR, "%s: %s", file, why);
		return err;
	}
	f = open_memstream(&p, &n);
	if (!f) {
		psr_profile_free(&pf);
		return -ENOMEM;
	}
	if (!hist_of)
		render_profile_stat(f, &pf);
	else if ((err = render_profile_hist(f, &pf, hist_of)) == -ENOENT)
		ps_log(PATCHSITE_LOG_ERROR, "%s: no call of %.300s counted (function_profile "
		       "since the last reset)", file, hist_of);
	psr_profile_free(&pf);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (!err)
		ps_buf_add(out, p, n);
	free(p);
	return err;
}

static int stat_read(const char *sub, struct ps_buf *out)
{
	(void)sub;
	return show(out, "trace_stat/function", NULL);
}

/* Any write starts the counts over (the kernel resets when the profiler is switched). */
static int stat_write(const char *sub, const char *v, bool append)
{
	(void)sub, (void)v, (void)append;
	ps_profile_reset();
	return 0;
}

static pthread_mutex_t hist_lock = PTHREAD_MUTEX_INITIALIZER;
static char hist_name[4096];

static int hist_read(const char *sub, struct ps_buf *out)
{
	char name[sizeof(hist_name)];

	(void)sub;
	pthread_mutex_lock(&hist_lock);
	memcpy(name, hist_name, sizeof(name));
	pthread_mutex_unlock(&hist_lock);
	if (!name[0]) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_stat/function_hist: no function chosen (write "
		       "its name to this file first)");
		return -EINVAL;
	}
	return show(out, "trace_stat/function_hist", name);
}

static int hist_write(const char *sub, const char *v, bool append)
{
	size_t n = strlen(v);

	(void)sub, (void)append;
	while (n && (v[n - 1] == '\n' || v[n - 1] == ' '))
		n--;
	if (!n || n >= sizeof(hist_name)) {
		ps_log(PATCHSITE_LOG_ERROR, "trace_stat/function_hist: expected a function's name");
		return -EINVAL;
	}
	pthread_mutex_lock(&hist_lock);
	memcpy(hist_name, v, n);
	hist_name[n] = 0;
	pthread_mutex_unlock(&hist_lock);
	return 0;
}

const struct ps_ctl_file ps_ctl_profile[] = {
	{ .name = "trace_stat/function",
	  .what = "function_profile's counts per function: hits, time, avg, s^2, self, min, max; "
		  "a write starts them over (ftrace: trace_stat/function*)",
	  .read = stat_read, .write = stat_write },
	{ .name = "trace_stat/function_hist",
	  .what = "function_profile: write a function's name, read its latency histogram "
		  "(no ftrace counterpart)",
	  .read = hist_read, .write = hist_write },
	{ 0 }
};

/* Written into the process directory at exit (a snapshot writes it too: snapshot.c). */
static void profile_finishing(void)
{
	ps_profile_store();
}
const struct ps_store_part ps_profile_part = { NULL, NULL, profile_finishing };
