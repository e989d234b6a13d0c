// SPDX-License-Identifier: GPL-2.0-only
/*
 * Scheduler switch files (format.h, patchsite-data(5)): sched.T beside
 * thread.T, read whole and checked record by record.  A damaged one is
 * said in one line and the thread's off-CPU time is then unknown, never
 * half-known.  The switches become off-CPU spans with running sums, so a
 * call's off-CPU time is two binary searches (any renderer, any order of
 * reading), and the cursor can merge them among the thread's events.
 *
 * The switches are stamped CLOCK_MONOTONIC by the kernel; the events carry
 * the counter.  Both meet in ns through the process's mapping (psr_ns).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "reader.h"

/* The time stamp of CLOCK_MONOTONIC ns (psr_ns inverted). */
static uint64_t psr_tsc(const struct psr_proc *p, uint64_t ns)
{
	double d = (double)(int64_t)(ns - p->ns0) / p->ns_per_tsc;

	/* Far outside the run (damage): clamped to what int64_t holds, never undefined. */
	if (!(d > -9.2e18))
		d = -9.2e18;
	if (d > 9.2e18)
		d = 9.2e18;
	return p->tsc0 + (uint64_t)(int64_t)d;
}

void read_sched_unknown(struct psr_thread *t, const char *why)
{
	t->sched = PSR_SCHED_UNKNOWN;
	snprintf(t->sched_why, sizeof(t->sched_why), "%s", why);
}

/* Spans off the CPU: from a switch out to the next switch in (or on, past the end). */
int read_sched_spans(struct psr_thread *t)
{
	size_t n = 0;
	bool out = false;

	t->off = malloc((t->nsw + 1) * 2 * sizeof(*t->off));
	t->off_sum = malloc((t->nsw + 2) * sizeof(*t->off_sum));
	if (!t->off || !t->off_sum)
		return -ENOMEM;
	t->off_sum[0] = 0;
	for (size_t k = 0; k < t->nsw; k++) {
		if (t->sw[k].what != PSR_SW_IN && !out) {
			t->off[2 * n] = t->sw[k].ns;
			out = true;
		} else if (t->sw[k].what == PSR_SW_IN && out) {
			t->off[2 * n + 1] = t->sw[k].ns;
			t->off_sum[n + 1] = t->off_sum[n] + (t->sw[k].ns - t->off[2 * n]);
			n++;
			out = false;
		}
	}
	if (out) {
		t->off[2 * n + 1] = UINT64_MAX;	/* still off when the record ends */
		t->off_sum[n + 1] = t->off_sum[n];
		n++;
	}
	t->noff = n;
	return 0;
}

/* The records of a file of len bytes at h: checked, copied; false (said) when damaged. */
static bool take_records(struct psr_session *s, const char *path, struct psr_thread *t,
			 const char *data, size_t len)
{
	size_t n = (len - PSD_SCHED_HDR_BYTES) / PSD_SCHED_REC_BYTES;

	if ((len - PSD_SCHED_HDR_BYTES) % PSD_SCHED_REC_BYTES) {
		read_say(s, path, "damaged: %zu bytes after the last whole record: off-CPU time "
			 "unknown", (len - PSD_SCHED_HDR_BYTES) % PSD_SCHED_REC_BYTES);
		return false;
	}
	t->sw = calloc(n ? n : 1, sizeof(*t->sw));
	if (!t->sw)
		return false;
	for (size_t k = 0; k < n; k++) {
		struct psd_sched_rec r;

		memcpy(&r, data + PSD_SCHED_HDR_BYTES + k * PSD_SCHED_REC_BYTES, sizeof(r));
		if (r.what < PSD_SCHED_OUT || r.what > PSD_SCHED_IN) {
			read_say(s, path, "damaged: record %zu: unknown switch %u: off-CPU time "
				 "unknown", k, r.what);
			return false;
		}
		if (k && r.ns < t->sw[k - 1].ns) {
			read_say(s, path, "damaged: record %zu: out of time order: off-CPU time "
				 "unknown", k);
			return false;
		}
		t->sw[k] = (struct psr_switch_rec){ r.ns, r.what, r.cpu };
	}
	t->nsw = n;
	return true;
}

char *read_sched_path(const char *thread_file)
{
	const char *base = strrchr(thread_file, '/');
	size_t dir;
	char *path;

	base = base ? base + 1 : thread_file;
	dir = (size_t)(base - thread_file);
	if (strncmp(base, "thread", 6))
		return NULL;
	path = malloc(dir + strlen(base) + 1);
	if (path)
		sprintf(path, "%.*ssched%s", (int)dir, thread_file, base + 6);
	return path;
}

bool read_sched_header_ok(const struct psr_thread *t, const struct psd_sched_hdr *h)
{
	return !memcmp(h->magic, PSD_SCHED_MAGIC, 8) && h->version == PSD_SCHED_VERSION &&
	       h->hdr_bytes == PSD_SCHED_HDR_BYTES && h->clockid == 1 /* CLOCK_MONOTONIC */ &&
	       (h->state == PSD_SCHED_ON || h->state == PSD_SCHED_UNKNOWN) &&
	       h->tid == (uint32_t)t->tid;
}

void read_sched_bad_header(struct psr_proc *p, struct psr_thread *t, const char *path)
{
	read_say(p->session, path, "not a scheduler switch file of version %d for thread "
		 "%d (bad header): off-CPU time unknown", PSD_SCHED_VERSION, t->tid);
	read_sched_unknown(t, "damaged switch file");
}

void read_sched_file(struct psr_proc *p, struct psr_thread *t, const char *path)
{
	size_t len = 0;
	char *data = read_slurp(path, &len);
	struct psd_sched_hdr h;

	if (!data) {
		/* Asked for and not there: the runtime could not make it (it said so). */
		if (p->sched_asked == 1)
			read_sched_unknown(t, errno == ENOENT ? "no switch file" :
					      errno == EINVAL ? "not a regular file" : strerror(errno));
		return;
	}
	memset(&h, 0, sizeof(h));
	memcpy(&h, data, len < sizeof(h) ? len : sizeof(h));
	if (len < PSD_SCHED_HDR_BYTES || !read_sched_header_ok(t, &h)) {
		read_sched_bad_header(p, t, path);
	} else if (h.state == PSD_SCHED_UNKNOWN) {
		h.why[sizeof(h.why) - 1] = 0;
		read_sched_unknown(t, h.why[0] ? h.why : "not recorded");
	} else if (!take_records(p->session, path, t, data, len)) {
		read_sched_unknown(t, "damaged switch file");
		free(t->sw);
		t->sw = NULL;
		t->nsw = 0;
	} else if (read_sched_spans(t)) {
		read_sched_unknown(t, "out of memory");
	} else {
		t->sched = PSR_SCHED_ON;
		t->sched_lost = h.lost;
		t->sched_clean = h.clean == 1;
		t->sched_upto = UINT64_MAX;
	}
	free(data);
}

void read_sched(struct psr_proc *p, struct psr_thread *t)
{
	char *path = read_sched_path(t->file);

	if (path)
		read_sched_file(p, t, path);
	free(path);
}

void read_sched_free(struct psr_thread *t)
{
	free(t->sw);
	free(t->off);
	free(t->off_sum);
}

/* The first span ending after ns (noff when none). */
static size_t span_after(const struct psr_thread *t, uint64_t ns)
{
	size_t lo = 0, hi = t->noff;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->off[2 * mid + 1] > ns)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Span k's overlap with [a, b). */
static uint64_t overlap(const struct psr_thread *t, size_t k, uint64_t a, uint64_t b)
{
	uint64_t s = t->off[2 * k] > a ? t->off[2 * k] : a;
	uint64_t e = t->off[2 * k + 1] < b ? t->off[2 * k + 1] : b;

	return e > s ? e - s : 0;
}

uint64_t psr_offcpu_ns(const struct psr_proc *p, const struct psr_thread *t, uint64_t a,
		       uint64_t b)
{
	uint64_t na = psr_ns(p, a), nb = psr_ns(p, b), sum;
	size_t i, j;

	if (t->sched != PSR_SCHED_ON || !t->noff || nb <= na)
		return 0;
	i = span_after(t, na);
	j = span_after(t, nb);		/* the span holding nb, or the first after it */
	if (j < t->noff && t->off[2 * j] < nb)
		j++;
	if (i >= j)
		return 0;
	if (j - i == 1)
		return overlap(t, i, na, nb);
	/* The spans between the first and the last lie wholly inside, and end. */
	sum = t->off_sum[j - 1] - t->off_sum[i + 1];
	return sum + overlap(t, i, na, nb) + overlap(t, j - 1, na, nb);
}

void psr_cursor_sched(struct psr_cursor *c)
{
	/* A followed thread's switches may come later (read_sched_follow.c). */
	if (c->t->live)
		c->sched = c->p->sched_asked == 1;
	else
		c->sched = c->t->nsw && c->t->sched == PSR_SCHED_ON;
}

/* True when ev must stay right after the event before it (its arguments, its return value). */
static bool attached(const struct psr_event *ev)
{
	return ev->type == PSR_EXT &&
	       (ev->ext_kind == PSD_EXT_ARGS || ev->ext_kind == PSD_EXT_RETVAL);
}

#define SCHED_GUARD_NS	200000ull	/* 200 us: see held() */

/*
 * A followed thread's event that must wait: from what its switch file is
 * known complete up to on (none yet: all), while switches are asked for
 * and not known to be refused.  Arguments and return values go with the
 * event before them.
 */
static bool held(const struct psr_cursor *c, const struct psr_event *ev)
{
	const struct psr_thread *t = c->t;

	if (!t->live || attached(ev) || t->sched == PSR_SCHED_UNKNOWN || t->sched_upto == UINT64_MAX)
		return false;
	if (t->sched == PSR_SCHED_NONE || !t->sched_upto)
		return true;
	/*
	 * A guard below it: the counter maps to CLOCK_MONOTONIC to about a
	 * microsecond, and a switch stamped just before the drain read the
	 * clock may reach the ring just after it read the head.
	 */
	return t->sched_upto <= SCHED_GUARD_NS ||
	       (int64_t)(ev->tsc - psr_tsc(c->p, t->sched_upto - SCHED_GUARD_NS)) >= 0;
}

int read_sched_next(struct psr_cursor *c, struct psr_event *ev,
		    int (*next)(struct psr_cursor *c, struct psr_event *ev))
{
	const struct psr_thread *t = c->t;

	if (!c->pend_state) {
		c->pend_chunk = c->chunk;
		c->pend_at = c->at;
		c->pend_hi = c->hi;
		c->pend_cpu = c->cpu;
		c->pend_state = next(c, &c->pend) ? 1 : 2;
	}
	/* A live thread's switch after its last event: an event before it may not be seen yet. */
	if (c->sw_at < t->nsw && !(c->pend_state == 2 && t->live)) {
		const struct psr_switch_rec *r = &t->sw[c->sw_at];
		uint64_t tsc = psr_tsc(c->p, r->ns);

		bool first = c->pend_state == 2 ||
			     (!attached(&c->pend) && (int64_t)(tsc - c->pend.tsc) <= 0);

		if (first) {
			memset(ev, 0, sizeof(*ev));
			ev->type = PSR_SCHED;
			ev->tsc = tsc;
			ev->id = r->what;
			ev->cpu = r->cpu;
			c->sw_at++;
			return 1;
		}
	}
	if (c->pend_state == 2) {
		if (t->live)
			c->pend_state = 0;	/* more may come */
		return 0;
	}
	if (held(c, &c->pend))
		return 0;
	*ev = c->pend;
	c->pend_state = 0;
	return 1;
}
