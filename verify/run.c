// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every input, --jobs of them at a time, in one process.  Each input's
 * stdout and stderr text is written to memory streams and printed whole,
 * in input order, when its turn comes: a parallel run prints exactly what
 * a sequential one prints.  A sequential run takes the same path, without
 * threads.  Worker threads take the next input from a shared counter;
 * the main thread prints.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

static __thread struct output *current;

struct output *run_current_output(void)
{
	return current;
}

struct pool {
	const struct options *opt;
	struct inputs *in;
	struct output *outs;
	bool *done;
	atomic_size_t next;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static int output_open(struct output *o)
{
	memset(o, 0, sizeof(*o));
	o->out = open_memstream(&o->outbuf, &o->outlen);
	o->err = open_memstream(&o->errbuf, &o->errlen);
	return o->out && o->err ? 0 : -ENOMEM;
}

static void audit_one(const struct options *opt, struct inputs *in, size_t k, struct output *o)
{
	if (output_open(o)) {
		/* Nothing can be kept: say so where it cannot be lost. */
		fprintf(stderr, "patchverify: %s: error: out of memory\n", in->v[k].path);
		o->t.failed++;
		return;
	}
	current = o;
	input_audit(opt, in, k, o);
	current = NULL;
	fclose(o->out);
	fclose(o->err);
	o->out = o->err = NULL;
}

/* Print one input's output: its messages, then its stdout part. */
static void print_one(const struct options *opt, struct output *o, unsigned *docs,
		      struct totals *t)
{
	if (o->errlen)
		fwrite(o->errbuf, 1, o->errlen, stderr);
	if (opt->json && o->docs && *docs)
		fputc(',', stdout);
	if (o->outlen)
		fwrite(o->outbuf, 1, o->outlen, stdout);
	/* Whole files, also when stdout and stderr are the same pipe. */
	fflush(stdout);
	*docs += o->docs;
	totals_add(t, &o->t);
	free(o->outbuf);
	free(o->errbuf);
	o->outbuf = o->errbuf = NULL;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	size_t k;

	while ((k = atomic_fetch_add(&p->next, 1)) < p->in->n) {
		audit_one(p->opt, p->in, k, &p->outs[k]);
		pthread_mutex_lock(&p->lock);
		p->done[k] = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	disasm_cleanup();	/* this thread's disassembler handles */
	return NULL;
}

static int run_parallel(const struct options *opt, struct inputs *in, struct totals *t,
			unsigned *docs)
{
	struct pool p = { .opt = opt, .in = in };
	pthread_t *th;
	unsigned i, started = 0;
	size_t k;

	p.outs = calloc(in->n, sizeof(*p.outs));
	p.done = calloc(in->n, sizeof(*p.done));
	th = calloc(opt->jobs, sizeof(*th));
	if (!p.outs || !p.done || !th) {
		free(p.outs);
		free(p.done);
		free(th);
		return -ENOMEM;
	}
	atomic_init(&p.next, 0);
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (i = 0; i < opt->jobs; i++)
		if (!pthread_create(&th[started], NULL, worker, &p))
			started++;
	if (!started)
		worker(&p);	/* no thread could start: this one does the work */
	for (k = 0; k < in->n; k++) {
		pthread_mutex_lock(&p.lock);
		while (!p.done[k])
			pthread_cond_wait(&p.cond, &p.lock);
		pthread_mutex_unlock(&p.lock);
		print_one(opt, &p.outs[k], docs, t);
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.cond);
	free(p.outs);
	free(p.done);
	free(th);
	return 0;
}

int run_all(const struct options *opt, struct inputs *in, struct totals *t)
{
	unsigned docs = 0;
	struct output o;
	size_t k;

	if (opt->jobs > 1 && in->n > 1)
		return run_parallel(opt, in, t, &docs);
	for (k = 0; k < in->n; k++) {
		audit_one(opt, in, k, &o);
		print_one(opt, &o, &docs, t);
	}
	return 0;
}
