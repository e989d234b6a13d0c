// SPDX-License-Identifier: GPL-2.0-only
/*
 * A followed thread's switch file (patchsite pipe, record --live), read
 * again at each psr_follow while the runtime appends to it.  The writer
 * (record/sched_switch.c) writes records, then the header with their
 * count and drained_ns: every switch stamped before drained_ns is among
 * them.  So records past the header's count may be half written (they
 * wait, never said damaged), and the thread's events from drained_ns on
 * are held back by its cursor (read_sched.c): a switch drained later goes before
 * them, as replay of the finished directory shows it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "reader.h"

/* Records [t->nsw, n) of fd appended; false (said) when damaged. */
static bool append(struct psr_proc *p, struct psr_thread *t, const char *path, int fd, size_t n)
{
	struct psr_switch_rec *g = realloc(t->sw, (n ? n : 1) * sizeof(*g));

	if (!g)
		return false;
	t->sw = g;
	for (size_t k = t->nsw; k < n; k++) {
		struct psd_sched_rec r;

		if (pread(fd, &r, sizeof(r), PSD_SCHED_HDR_BYTES + (off_t)k * PSD_SCHED_REC_BYTES) !=
		    (ssize_t)sizeof(r))
			return true;	/* not there yet: the next look */
		if (r.what < PSD_SCHED_OUT || r.what > PSD_SCHED_IN ||
		    (k && r.ns < t->sw[k - 1].ns)) {
			read_say(p->session, path, "damaged: record %zu: %s: off-CPU time unknown", k,
				 r.what < PSD_SCHED_OUT || r.what > PSD_SCHED_IN ? "unknown switch" :
				 "out of time order");
			return false;
		}
		t->sw[k] = (struct psr_switch_rec){ r.ns, r.what, r.cpu };
		t->nsw = k + 1;
	}
	return true;
}

static bool read_hdr(int fd, struct psd_sched_hdr *h)
{
	memset(h, 0, sizeof(*h));
	return pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h);
}

/*
 * info's rate is measured over the first moments of the run (1% off here):
 * a switch would be placed among the events tens of microseconds early
 * within the first seconds.  Each drain's clock pair gives the rate since
 * the start, as the end file gives it to replay.
 */
static void rate_from(struct psr_proc *p, const struct psd_sched_hdr *h)
{
	if (p->has_end || !h->drained_tsc || h->drained_ns <= p->rate_ns ||
	    h->drained_ns < p->ns0 + 10000000 || h->drained_tsc <= p->tsc0 ||
	    h->drained_ns - p->ns0 >= (1ull << 50))
		return;
	p->ns_per_tsc = (double)(h->drained_ns - p->ns0) / (double)(h->drained_tsc - p->tsc0);
	p->rate_ns = h->drained_ns;
}

/* The new records of a live thread's file, and how far it is complete. */
static void follow_file(struct psr_proc *p, struct psr_thread *t, const char *path, int fd)
{
	struct psd_sched_hdr h, again;

	if (!read_hdr(fd, &h))
		return;		/* being made: the next look */
	if (!read_sched_header_ok(t, &h)) {
		read_sched_bad_header(p, t, path);
		return;
	}
	if (h.state == PSD_SCHED_UNKNOWN) {
		h.why[sizeof(h.why) - 1] = 0;
		read_sched_unknown(t, h.why[0] ? h.why : "not recorded");
		return;
	}
	if (h.records > t->nsw) {
		free(t->off);
		free(t->off_sum);
		t->off = NULL;
		t->off_sum = NULL;
		t->noff = 0;
		if (!append(p, t, path, fd, (size_t)h.records)) {
			read_sched_unknown(t, "damaged switch file");
			return;
		}
		if (read_sched_spans(t)) {
			read_sched_unknown(t, "out of memory");
			return;
		}
	}
	t->sched = PSR_SCHED_ON;
	t->sched_lost = h.lost;
	t->sched_clean = h.clean == 1;
	/*
	 * The header read again: one read while it was rewritten may pair a
	 * new drained_ns with an old count; then the older stamp stays.
	 */
	if (t->nsw < h.records || !read_hdr(fd, &again) || again.records != h.records ||
	    again.drained_ns != h.drained_ns || again.clean != h.clean)
		return;
	rate_from(p, &h);
	t->sched_upto = h.clean == 1 ? UINT64_MAX : h.drained_ns;
}

void read_sched_follow(struct psr_proc *p, struct psr_thread *t)
{
	char *path;
	int fd;

	if (t->sched == PSR_SCHED_UNKNOWN || !(path = read_sched_path(t->file)))
		return;
	if (!t->live && p->has_end) {
		/* The last look at an ended process: the whole file, checked as replay checks it. */
		read_sched_free(t);
		t->sw = NULL;
		t->off = t->off_sum = NULL;
		t->nsw = t->noff = 0;
		t->sched = PSR_SCHED_NONE;
		read_sched_file(p, t, path);
	} else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		/* (a last look at a process still running: what its header counts) */
		follow_file(p, t, path, fd);
		close(fd);
	}
	free(path);
}
