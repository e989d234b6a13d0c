// SPDX-License-Identifier: GPL-2.0-only
/*
 * Following a trace directory while its processes write it (patchsite
 * pipe): psr_open_live and psr_follow.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "reader.h"

/*
 * Following (psr_open_live, psr_follow).  Lengths and chunk ends come from
 * pread: a thread file is cut at the process's exit (ftruncate), and a
 * mapping read past the new end would fault.  Events are then read through
 * the mapping below the end found, where every word was complete before
 * the last one seen (the writer stores in order).
 */
#define FOLLOW_BLOCK	8192	/* words per pread; more than any run of zero data words */

int psr_open_live(const char *dir, FILE *err, struct psr_session **out)
{
	int r = read_open_session(dir, err, true, out);

	if (!r)
		psr_follow(*out);
	return r;
}

/* The last data word + 1 of [from, to) in fd (words), from + 0 when none; reads forward. */
static size_t follow_end(int fd, size_t from, size_t to)
{
	static uint64_t buf[FOLLOW_BLOCK];
	size_t end = from;

	while (from < to) {
		size_t n = to - from < FOLLOW_BLOCK ? to - from : FOLLOW_BLOCK, last = 0;
		ssize_t got = pread(fd, buf, n * 8, (off_t)(from * 8));

		if (got <= 0)
			break;
		n = (size_t)got / 8;
		for (size_t i = n; i-- > 0;)
			if (buf[i]) {
				last = i + 1;
				break;
			}
		if (!last)
			break;	/* a whole block of zeros: nothing is written after it yet */
		end = from + last;
		from += n;
	}
	return end;
}

/*
 * New and grown chunks of a growing thread file (chunk k at file chunk k).
 * The new chunks are found first: a chunk with a successor was complete
 * (padded to its end) before the successor began, so its end read after
 * that is final.  The chunk a live thread writes is read up to the end
 * found at the look before: a store seen out of order by another CPU
 * (aarch64 allows it; x86-64 does not) has long been seen by then.
 */
static void follow_chunks(struct psr_thread *t, const struct psd_thread_hdr *h, int fd)
{
	size_t cw = (size_t)(h->chunk_bytes / 8), hw = PSD_HDR_BYTES / 8;
	size_t from = t->nchunks ? t->nchunks - 1 : 0;

	for (size_t k = t->nchunks;; k++) {
		size_t at = hw + k * cw;
		struct psr_chunk *g;
		uint64_t head[2];

		if (at + PSD_CHUNK_WORDS + 2 > t->nwords ||
		    pread(fd, head, sizeof(head), (off_t)(at * 8)) != sizeof(head) ||
		    (head[0] & ~0xffffull) != PSD_CHUNK_MAGIC)
			break;
		g = realloc(t->chunks, (k + 1) * sizeof(*g));
		if (!g)
			break;
		t->chunks = g;
		t->chunks[t->nchunks++] = (struct psr_chunk){ head[1], at + PSD_CHUNK_WORDS,
							      at + PSD_CHUNK_WORDS, at + cw, 0 };
	}
	for (size_t k = from; k < t->nchunks; k++) {
		struct psr_chunk *c = &t->chunks[k];
		size_t base = c->first - PSD_CHUNK_WORDS, end;

		c->limit = base + cw < t->nwords ? base + cw : t->nwords;
		end = follow_end(fd, c->seen > c->end ? c->seen : c->end, c->limit);
		if (t->live && k + 1 == t->nchunks) {
			if (c->seen > c->end)
				c->end = c->seen;
			if (end > c->seen)
				c->seen = end;
			continue;
		}
		if (c->seen > end)
			end = c->seen;
		if (end > c->end)
			c->end = end;
		if (!t->live && h->clean && k + 1 == t->nchunks && h->end_word <= cw &&
		    base + h->end_word > c->end && base + h->end_word <= c->limit)
			c->end = base + (size_t)h->end_word;
	}
}

/* A thread file again: its header's counts, its new length (mapped again), its chunks. */
static void follow_thread(struct psr_proc *p, struct psr_thread *t)
{
	int fd = open(t->file, O_RDONLY | O_CLOEXEC);
	struct psd_thread_hdr h;
	struct stat sb;

	if (fd < 0)
		return;
	if (fstat(fd, &sb) || pread(fd, &h, sizeof(h), 0) != sizeof(h) || h.overwrite ||
	    h.chunk_bytes < 4096 || h.chunk_bytes > (1ull << 30) || h.chunk_bytes % 8) {
		close(fd);
		return;
	}
	t->lost = h.lost;
	t->stopped = h.stopped == 1;
	memcpy(t->why, h.why, 128);
	memcpy(t->comm, h.comm, 16);
	t->clean = h.clean == 1;
	t->live = !p->gone;
	if ((size_t)sb.st_size / 8 > t->nwords) {
		void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);

		if (map != MAP_FAILED) {
			munmap((void *)t->words, t->map_bytes);
			t->words = map;
			t->map_bytes = (size_t)sb.st_size;
			t->nwords = (size_t)sb.st_size / 8;
		}
	} else if ((size_t)sb.st_size / 8 < t->nwords) {
		t->nwords = (size_t)sb.st_size / 8;	/* cut at exit: the mapping's end goes unread */
		for (size_t k = 0; k < t->nchunks; k++) {
			if (t->chunks[k].limit > t->nwords)
				t->chunks[k].limit = t->nwords;
			if (t->chunks[k].end > t->nwords)
				t->chunks[k].end = t->nwords;
		}
	}
	follow_chunks(t, &h, fd);
	close(fd);
}

static bool known_thread(const struct psr_proc *p, const char *path)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (!strcmp(p->threads[i].file, path))
			return true;
	return false;
}

static void follow_proc(struct psr_proc *p)
{
	char *path = read_join(p->dir, "modules");
	struct stat sb;
	DIR *d;
	struct dirent *e;

	/* Objects loaded since: the whole list again (it is small). */
	if (path && !stat(path, &sb) && (size_t)sb.st_size != p->modules_size) {
		read_modules_free(p);
		p->modules_size = (size_t)sb.st_size;
		read_modules(p);
	}
	free(path);
	if (!p->has_end)
		read_end(p);
	read_options(p);	/* changed while it runs: the next lines follow */
	d = opendir(p->dir);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "thread.", 7) || !(path = read_join(p->dir, e->d_name)))
			continue;
		if (!known_thread(p, path))
			read_thread(p, e->d_name);
		free(path);
	}
	if (d)
		closedir(d);
	for (size_t k = 0; k < p->nthreads; k++) {
		follow_thread(p, &p->threads[k]);
		read_sched_follow(p, &p->threads[k]);
	}
}

/* Processes listed since the last look (whole lines only), then every process. */
static void follow_session(struct psr_session *s)
{
	char *path = read_join(s->dir, "session"), *text = path ? read_slurp(path, NULL) : NULL;
	size_t line = 0;

	for (char *l = text, *nl; l && (nl = strchr(l, '\n')); l = nl + 1) {
		int pid, ppid;
		char name[64];
		struct psr_proc *g;

		*nl = 0;
		if (line++ < s->nlines)
			continue;
		s->nlines++;
		if (sscanf(l, "%d %d %63s", &pid, &ppid, name) != 3 || !strcmp(name, "-") ||
		    strchr(name, '/') || name[0] == '.') {
			s->nosites += sscanf(l, "%d %d %63s", &pid, &ppid, name) == 3;
			continue;
		}
		g = realloc(s->procs, (s->nprocs + 1) * sizeof(*g));
		if (!g)
			break;
		s->procs = g;
		read_proc(s, name);
	}
	free(text);
	free(path);
}

void psr_follow(struct psr_session *s)
{
	if (!s->err)
		s->err = stderr;
	follow_session(s);
	for (size_t i = 0; i < s->nprocs; i++)
		follow_proc(&s->procs[i]);
}
