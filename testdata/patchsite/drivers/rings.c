// SPDX-License-Identifier: GPL-2.0-only
/*
 * The built-in tracers' rings with several writers and a reader at once.
 * Worker threads call traced functions (testdata/patchsite/work.c) without
 * pause while the main thread, for ROUNDS rounds, switches between the
 * function and function_graph tracers, toggles tracing and writes (and so
 * empties) the rings with patchsite_trace_write while the workers record.
 *   - nothing may crash or compute a wrong result;
 *   - steady phase: with the function tracer on work_count alone, each
 *     thread calling it CALLS times (the rings are made twice the size
 *     those calls take), one write afterwards has every call: entries-written
 *     equals THREADS * CALLS, none lost, each a work_count line.  (The
 *     churn used to leave a thread's ring a word short of room for an
 *     entry at its end: it never wrapped and lost every later event.)
 * Its main use is under ThreadSanitizer (tsan.sh): the rings' producer
 * side in C (slow paths, thread set-up) against the reader.
 * Usage: rings THREADS ROUNDS CALLS
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

long work_count(long a);
long work_other(long a);

static atomic_bool stop, steady_go;
static atomic_int ready, parked, steady_done;
static atomic_long wrong;
static long steady_calls;
static int failures;

static void *worker(void *arg)
{
	long i = 0;

	(void)arg;
	atomic_fetch_add(&ready, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (work_count(i) != (i ^ 1) || work_other(i) != i + 3)
			atomic_fetch_add(&wrong, 1);
		i++;
	}
	atomic_fetch_add(&parked, 1);
	while (!atomic_load(&steady_go))
		sched_yield();	/* the machine may have fewer cores than threads */
	for (i = 0; i < steady_calls; i++)
		if (work_count(i) != (i ^ 1))
			atomic_fetch_add(&wrong, 1);
	atomic_fetch_add(&steady_done, 1);
	return NULL;
}

/* A write of the rings to a file, read back whole (NULL on failure). */
static char *trace_text(void)
{
	char path[] = "/tmp/patchsite-rings.XXXXXX";
	int fd = mkstemp(path);
	char *buf = NULL;
	off_t size;

	if (fd < 0)
		return NULL;
	unlink(path);
	if (patchsite_trace_write(fd) == 0 && (size = lseek(fd, 0, SEEK_END)) >= 0 &&
	    (buf = calloc(1, (size_t)size + 1)) && pread(fd, buf, (size_t)size, 0) != size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	return buf;
}

static void churn(long rounds)
{
	int null = open("/dev/null", O_WRONLY);
	long bad = 0;

	for (long r = 0; r < rounds; r++) {
		bad += patchsite_set_tracer(r % 2 ? "function_graph" : "function") != 0;
		bad += patchsite_tracing_off() != 0;
		bad += patchsite_tracing_on() != 0;
		bad += patchsite_trace_write(null) != 0;
	}
	close(null);
	CHECK(bad == 0, "churn: %ld rounds of tracer switches, toggles and writes, %ld failed calls",
	      rounds, bad);
}

/* entries-in-buffer/entries-written: K/W, and the count of work_count lines. */
static void check_steady(long threads)
{
	char *text = trace_text(), *p;
	unsigned long kept = 0, written = 0, lines = 0;

	CHECK(text != NULL, "steady: trace written");
	if (!text)
		return;
	p = strstr(text, "entries-in-buffer/entries-written: ");
	if (p)
		sscanf(p + strlen("entries-in-buffer/entries-written: "), "%lu/%lu", &kept, &written);
	for (p = text; (p = strstr(p, ": work_count <-")); p++)
		lines++;
	CHECK(written == (unsigned long)(threads * steady_calls),
	      "steady: entries-written %lu == %ld threads x %ld calls", written, threads,
	      steady_calls);
	CHECK(kept == written && lines == kept,
	      "steady: %lu of %lu entries kept (none may be lost), %lu work_count lines", kept,
	      written, lines);
	if (getenv("RINGS_DUMP"))
		fputs(text, stdout);
	free(text);
}

int main(int argc, char **argv)
{
	long threads = argc > 1 ? atol(argv[1]) : 4, rounds = argc > 2 ? atol(argv[2]) : 200;
	pthread_t tid[64];

	steady_calls = argc > 3 ? atol(argv[3]) : 50000;
	if (threads < 1 || threads > 64 || steady_calls < 1 || steady_calls > 10000000)
		return 2;
	/* 16 bytes an entry, twice over: the churn fills them, the steady phase fits. */
	CHECK(patchsite_set_buffer_kb((unsigned long)(steady_calls * 32 / 1024 + 16)) == 0,
	      "ring size set");
	for (long t = 0; t < threads; t++)
		pthread_create(&tid[t], NULL, worker, NULL);
	while (atomic_load(&ready) < threads)
		sched_yield();
	churn(rounds);
	/* Steady: function tracer on work_count alone, rings emptied before the phase. */
	CHECK(patchsite_set_tracer("function") == 0 &&
	      patchsite_set_filter(NULL, "work_count", 1) == 0, "steady: filter set");
	atomic_store(&stop, true);
	while (atomic_load(&parked) < threads)
		sched_yield();
	free(trace_text());	/* empties the rings: no worker is in traced code now */
	atomic_store(&steady_go, true);
	while (atomic_load(&steady_done) < threads)
		sched_yield();
	check_steady(threads);
	for (long t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	CHECK(atomic_load(&wrong) == 0, "results: %ld wrong", atomic_load(&wrong));
	return failures;
}
