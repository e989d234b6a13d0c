// SPDX-License-Identifier: GPL-2.0-only
/*
 * Rounds of text while processes record (patchsite pipe), over the walk
 * and text.c's line formatters; positions saved and loaded between runs.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/*
 * Following a process as it records (patchsite pipe): each round prints
 * what every thread added since, merged by time within the round.  A
 * function_graph call is printed once its next event is there (a leaf's
 * duration needs its exit); a thread whose next event must wait is left
 * for the next round.
 */
struct render_live {
	struct render_ctx ctx;		/* every round's: no static events, no window, not bare */
	struct stream *s;
	size_t n;
	ssize_t last;			/* graph: the stream shown last (=> lines), -1 none */
	unsigned opt_set, opt_clear;	/* --options */
	uint64_t *lost;			/* per stream: the loss count said so far */
	unsigned long long shown;
};

/*
 * The options of p's lines.  Durations count the time off the CPU whatever
 * sleep-time says: a live call's switches may not all be read when its exit
 * is (pipe refuses nosleep-time; replay honours it).
 */
static void live_options(struct render_live *l, const struct psr_proc *p)
{
	walk_use_options(&l->ctx, p, l->opt_set, l->opt_clear);
	l->ctx.opts |= PSR_OPT_SLEEP_TIME;
}

struct render_live *render_live_new(unsigned opt_set, unsigned opt_clear, bool sched)
{
	struct render_live *l = calloc(1, sizeof(*l));

	if (l) {
		l->last = -1;
		l->ctx.with_sched = sched;
		l->opt_set = opt_set;
		l->opt_clear = opt_clear;
	}
	return l;
}

void render_live_free(struct render_live *l)
{
	if (!l)
		return;
	walk_streams_free(l->s, l->n);
	free(l->lost);
	free(l);
}

/* The streams follow p's threads (moved by psr_follow; new ones added at the end). */
static int live_sync(struct render_live *l, const struct psr_proc *p)
{
	if (p->nthreads > l->n) {
		struct stream *g = realloc(l->s, p->nthreads * sizeof(*g));
		uint64_t *h;

		if (!g)
			return -ENOMEM;
		l->s = g;
		h = realloc(l->lost, p->nthreads * sizeof(*h));
		if (!h)
			return -ENOMEM;
		l->lost = h;
		for (size_t i = l->n; i < p->nthreads; i++) {
			memset(&l->s[i], 0, sizeof(l->s[i]));
			psr_cursor_init(&l->s[i].cur, p, &p->threads[i]);
			if (l->ctx.with_sched)
				psr_cursor_sched(&l->s[i].cur);
			l->lost[i] = 0;
		}
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		struct stream *m = &l->s[i];

		m->ctx = &l->ctx;
		m->p = m->cur.p = p;
		m->t = m->cur.t = &p->threads[i];
		snprintf(m->task, sizeof(m->task), "%s-%d", m->t->comm, m->t->tid);
	}
	l->n = p->nthreads;
	return 0;
}

unsigned long long render_live_shown(const struct render_live *l)
{
	return l->shown;
}

int render_live_round(FILE *f, struct render_live *l, const struct psr_proc *p)
{
	/*
	 * A tracer chosen at run time (info says "ctl": it may change while it
	 * records) is rendered event by event: function events as the
	 * function tracer's lines, entries and exits as function_graph's.
	 */
	bool any = !strcmp(p->tracer, "ctl");
	bool graph = !strcmp(p->tracer, "function_graph") || !strcmp(p->tracer, "latency");
	struct stream *m;
	int err = live_sync(l, p);

	if (err)
		return err;
	live_options(l, p);
	for (size_t i = 0; i < l->n; i++) {
		m = &l->s[i];
		m->blocked = false;
		if (m->t->lost != l->lost[i]) {
			fprintf(f, "%s [LOST %llu EVENTS]\n", m->task, (unsigned long long)m->t->lost);
			l->lost[i] = m->t->lost;
		}
		if (!m->has_ev)
			walk_advance(m);
	}
	while ((m = walk_earliest(l->s, l->n))) {
		if (any)
			graph = m->ev.type == PSR_ENTRY || m->ev.type == PSR_EXIT;
		if (graph && m->ev.type == PSR_ENTRY && m->t->live && !walk_peek(m)) {
			m->blocked = true;	/* a leaf or not: its next event says */
			continue;
		}
		if (graph) {
			struct stream *last = l->last >= 0 ? &l->s[l->last] : NULL;

			text_graph_event(f, m, &last);
			l->last = last ? last - l->s : -1;
		} else {
			text_function_line(f, p, m, &m->ev);
		}
		l->shown++;
		walk_advance(m);
	}
	return 0;
}

/*
 * Positions (the next event of each thread), one line per thread file:
 * NAME CHUNK WORD HI CPU SWITCH (the next switch; older lines lack it).
 * An event the cursor read ahead (merging switches) is the next one.
 */
void render_live_save(FILE *f, const struct render_live *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct stream *m = &l->s[i];
		const struct psr_cursor *c = m->has_ev ? &m->at_ev : &m->cur;
		const char *name = strrchr(m->t->file, '/');
		bool ahead = c->sched && c->pend_state == 1;
		size_t chunk = ahead ? c->pend_chunk : c->chunk, at = ahead ? c->pend_at : c->at;
		unsigned hi = ahead ? c->pend_hi : c->hi;
		int cpu = ahead ? c->pend_cpu : c->cpu;

		if (!m->t->nchunks)
			continue;
		if (chunk >= m->t->nchunks) {	/* read to the end */
			chunk = m->t->nchunks - 1;
			at = m->t->chunks[chunk].end;
		}
		fprintf(f, "%s %zu %zu %u %d %zu\n", name ? name + 1 : m->t->file, chunk, at, hi, cpu,
			c->sw_at);
	}
}

/* Go on from saved positions (render_live_save); other lines are ignored. */
void render_live_load(FILE *f, struct render_live *l, const struct psr_proc *p)
{
	char line[256], name[128];
	size_t chunk, at, sw_at;
	unsigned hi;
	int cpu;

	if (live_sync(l, p))
		return;
	while (fgets(line, sizeof(line), f)) {
		sw_at = 0;
		if (sscanf(line, "%127s %zu %zu %u %d %zu", name, &chunk, &at, &hi, &cpu, &sw_at) < 5)
			continue;
		for (size_t i = 0; i < l->n; i++) {
			struct stream *m = &l->s[i];
			const char *base = strrchr(m->t->file, '/');

			if (strcmp(base ? base + 1 : m->t->file, name) || chunk >= m->t->nchunks ||
			    at < m->t->chunks[chunk].first || at > m->t->chunks[chunk].end)
				continue;
			m->cur.chunk = chunk;
			m->cur.at = at;
			m->cur.hi = hi;
			m->cur.cpu = cpu;
			m->cur.sw_at = sw_at;
			m->cur.pend_state = 0;
			m->has_ev = m->has_next = false;
		}
	}
}

/*
 * pipe --from-now: each thread's position moved to the end of what it has
 * written, nothing shown.  Only its last chunk is read, for the time base
 * (marks) the events after it need; losses so far are not said again.
 */
void render_live_skip(struct render_live *l, const struct psr_proc *p)
{
	if (live_sync(l, p))
		return;
	live_options(l, p);
	for (size_t i = 0; i < l->n; i++) {
		struct stream *m = &l->s[i];
		bool sched;

		l->lost[i] = m->t->lost;
		if (!m->t->nchunks)
			continue;
		m->cur.chunk = m->t->nchunks - 1;
		m->cur.at = m->t->chunks[m->cur.chunk].first;
		m->has_ev = m->has_next = false;
		/* Past every event, held or not; switches drained later than now are shown. */
		sched = m->cur.sched;
		m->cur.sched = false;
		while (walk_advance(m))
			;
		m->cur.sched = sched;
		m->cur.pend_state = 0;
		m->cur.sw_at = m->t->nsw;
	}
}
