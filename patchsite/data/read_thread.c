// SPDX-License-Identifier: GPL-2.0-only
/*
 * Thread files: mapped read-only, their chunks indexed in time order and
 * read word by word through a cursor that checks every index against the
 * mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "reader.h"

static int cmp_chunk(const void *a, const void *b)
{
	const struct psr_chunk *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The chunks of a mapped thread file, in time order, each [first, end) of data words. */
static void index_chunks(struct psr_session *s, struct psr_thread *t,
			 const struct psd_thread_hdr *h, const char *path)
{
	size_t cw = (size_t)(h->chunk_bytes / 8), hw = PSD_HDR_BYTES / 8, n = 0;

	if (t->nwords <= hw)
		return;
	n = (t->nwords - hw + cw - 1) / cw;
	t->chunks = calloc(n, sizeof(*t->chunks));
	if (!t->chunks)
		return;
	for (size_t k = 0; k < n; k++) {
		size_t at = hw + k * cw, end = at + cw;
		const uint64_t *w = t->words;

		if (end > t->nwords) {
			end = t->nwords;
			if (!h->overwrite && k + 1 < h->chunks)
				read_say(s, path, "truncated in chunk %zu: %zu of %zu words", k, end - at, cw);
		}
		if (end - at < PSD_CHUNK_WORDS || (w[at] & ~0xffffull) != PSD_CHUNK_MAGIC)
			continue;	/* never used (zero) or damaged */
		if ((w[at] & 0xffff) < PSD_VERSION_MIN || (w[at] & 0xffff) > PSD_VERSION) {
			read_say(s, path, "chunk %zu: format version %llu, not %d to %d: skipped", k,
				    (unsigned long long)(w[at] & 0xffff), PSD_VERSION_MIN, PSD_VERSION);
			continue;
		}
		t->chunks[t->nchunks].seq = w[at + 1];
		t->chunks[t->nchunks].first = at + PSD_CHUNK_WORDS;
		/* Data ends at the last word written: words never written are zero. */
		while (end > at + PSD_CHUNK_WORDS && !w[end - 1])
			end--;
		t->chunks[t->nchunks].end = end;
		t->chunks[t->nchunks].limit = at + cw < t->nwords ? at + cw : t->nwords;
		t->nchunks++;
	}
	qsort(t->chunks, t->nchunks, sizeof(*t->chunks), cmp_chunk);
	/* A clean end says exactly where the last chunk's data ends (a last word may be 0). */
	if (t->nchunks && h->clean) {
		struct psr_chunk *last = &t->chunks[t->nchunks - 1];
		size_t at = last->first - PSD_CHUNK_WORDS;

		if (h->end_word <= cw && at + h->end_word > last->end && at + h->end_word <= last->limit)
			last->end = at + (size_t)h->end_word;
	}
}

void read_count_events(struct psr_proc *p, struct psr_thread *t)
{
	struct psr_cursor c;
	struct psr_event ev;

	psr_cursor_init(&c, p, t);
	while (psr_next(&c, &ev)) {
		t->events++;
		t->entries += ev.type == PSR_ENTRY;
		t->funcs += ev.type == PSR_FUNC;
		t->ext += ev.type == PSR_EXT;
		t->markers += ev.type == PSR_EXT && ev.ext_kind == PSD_EXT_MARKER;
		t->trace_events += ev.type == PSR_EXT && ev.ext_kind == PSD_EXT_EVENT;
		if (ev.tsc - p->tsc0 < (1ull << 62) && psr_ns(p, ev.tsc) > p->last_ns)
			p->last_ns = psr_ns(p, ev.tsc);
	}
}

void read_thread(struct psr_proc *p, const char *name)
{
	struct psr_thread *t, *g;
	const struct psd_thread_hdr *h;
	struct stat sb;
	char *path = read_join(p->dir, name);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	void *map;

	if (fd < 0 || fstat(fd, &sb)) {
		read_say(p->session, path ? path : name, "cannot read: %s", strerror(errno));
		goto out;
	}
	if ((size_t)sb.st_size < sizeof(*h)) {
		read_say(p->session, path, "truncated (%lld bytes, no header): skipped", (long long)sb.st_size);
		goto out;
	}
	/* Shared: a followed file's words are seen as they are written. */
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		read_say(p->session, path, "cannot map: %s", strerror(errno));
		goto out;
	}
	h = map;
	if (p->session->follow && !h->magic[0]) {
		munmap(map, (size_t)sb.st_size);	/* being created: read at a later psr_follow */
		goto out;
	}
	if (memcmp(h->magic, PSD_THREAD_MAGIC, 8) || h->version < PSD_VERSION_MIN ||
	    h->version > PSD_VERSION ||
	    h->hdr_bytes != PSD_HDR_BYTES || h->chunk_bytes < 4096 || h->chunk_bytes > (1ull << 30) ||
	    h->chunk_bytes % 8) {
		read_say(p->session, path, "not a thread file of format version %d to %d (bad header): skipped",
			    PSD_VERSION_MIN, PSD_VERSION);
		munmap(map, (size_t)sb.st_size);
		goto out;
	}
	g = realloc(p->threads, (p->nthreads + 1) * sizeof(*g));
	if (!g) {
		munmap(map, (size_t)sb.st_size);
		goto out;
	}
	p->threads = g;
	t = &p->threads[p->nthreads++];
	memset(t, 0, sizeof(*t));
	t->file = path;
	path = NULL;
	t->tid = (int)h->tid;
	memcpy(t->comm, h->comm, 16);
	t->lost = h->lost;
	t->overwritten = h->overwritten;
	t->clean = h->clean == 1;
	t->stopped = h->stopped == 1;
	memcpy(t->why, h->why, 128);
	t->words = map;
	t->map_bytes = (size_t)sb.st_size;
	t->nwords = (size_t)sb.st_size / 8;
	t->live = p->session->follow;
	if (!p->session->follow)
		index_chunks(p->session, t, h, t->file);
out:
	if (fd >= 0)
		close(fd);
	free(path);
}

void psr_cursor_init(struct psr_cursor *c, const struct psr_proc *p, const struct psr_thread *t)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->t = t;
	c->at = t->nchunks ? t->chunks[0].first : 0;
	c->cpu = -1;
}

/*
 * An extended record: its payload in place.  Its words may be zero, so its
 * end is its count, within the chunk's limit; one cut short by the end of
 * the file is returned with the words there are (ev->truncated).
 */
static int ext_record(struct psr_cursor *c, const struct psr_chunk *k, uint64_t w,
		      struct psr_event *ev)
{
	size_t n = PSD_EXT_WORDS(w), room = k->limit - c->at;

	memset(ev, 0, sizeof(*ev));
	ev->type = PSR_EXT;
	ev->tsc = (uint64_t)c->hi << 32 | w >> 32;
	ev->cpu = c->cpu;
	ev->ext_kind = (uint8_t)PSD_EXT_KIND(w);
	if (ev->ext_kind == PSD_EXT_EVENT_PACKED) {	/* the same event, read as one (psr_evdesc) */
		ev->ext_kind = PSD_EXT_EVENT;
		ev->packed = true;
	}
	ev->truncated = n > PSD_EXT_MAX_WORDS || n > room;
	if (n > room)
		n = room;
	if (n > PSD_EXT_MAX_WORDS)
		n = PSD_EXT_MAX_WORDS;
	ev->payload = c->t->words + c->at;
	ev->nwords = (uint32_t)n;
	c->at += n;
	return 1;
}

/* A live thread's last chunk: a record not all there yet is waited for. */
static bool incomplete(const struct psr_cursor *c, const struct psr_chunk *k, uint64_t w)
{
	size_t need = 0;

	if (!c->t->live || c->chunk + 1 < c->t->nchunks)
		return false;
	if ((w & 3) == PSD_EV_MARK)
		need = PSD_EXT_KIND(w) ? PSD_EXT_WORDS(w) : 1;
	else if ((w & 3) == PSR_FUNC)
		need = 1;
	return c->at + need > k->end && c->at + need <= k->limit;
}

static int next_in_file(struct psr_cursor *c, struct psr_event *ev)
{
	const struct psr_thread *t = c->t;

	while (c->chunk < t->nchunks) {
		const struct psr_chunk *k = &t->chunks[c->chunk];
		uint64_t w;

		if (c->at < k->first)
			c->at = k->first;	/* a cursor made before the thread's first chunk */
		if (c->at >= k->end && t->live && c->chunk + 1 == t->nchunks)
			return 0;	/* the visible end: more may come */
		if (c->at >= k->end) {
			/* Read: its pages can go (peak memory stays near one chunk a thread). */
			size_t from = (k->first - PSD_CHUNK_WORDS) * 8, to = k->limit * 8;

			if (!t->in_memory && !(from & 4095) && to > from)
				(void)madvise((char *)t->words + from, ((to - from) + 4095) & ~(size_t)4095,
					      MADV_DONTNEED);
			if (++c->chunk < t->nchunks)
				c->at = t->chunks[c->chunk].first;
			continue;
		}
		w = t->words[c->at++];
		if (w == PSD_EV_PAD)
			continue;
		if (incomplete(c, k, w)) {
			c->at--;
			return 0;
		}
		if ((w & 3) == PSD_EV_MARK && PSD_EXT_KIND(w))
			return ext_record(c, k, w, ev);
		if ((w & 3) == PSD_EV_MARK) {
			c->hi = (uint32_t)(w >> 32);
			if (c->at < k->end)
				c->cpu = (int32_t)t->words[c->at++];
			continue;
		}
		ev->tsc = (uint64_t)c->hi << 32 | w >> 32;
		ev->id = (uint32_t)w >> 2;
		ev->type = w & 3;
		ev->cpu = c->cpu;
		ev->parent = 0;
		if (ev->type == PSR_FUNC && c->at < k->end)
			ev->parent = t->words[c->at++];
		if (ev->type == PSR_EXIT) {
			const struct psr_site *s = read_site_at(c->p, ev->id, ev->tsc);

			if (s && s->exit)
				ev->id = (ev->id & ~PSD_ID_MASK) | s->owner;
		}
		return 1;
	}
	return 0;
}

int psr_next(struct psr_cursor *c, struct psr_event *ev)
{
	return c->sched ? read_sched_next(c, ev, next_in_file) : next_in_file(c, ev);
}
