// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a trace directory (psread.h, patchsite-data(5)).  Thread files
 * are mapped read-only and walked chunk by chunk; every index into them is
 * checked against the mapping, every text line is parsed with bounds, and
 * whatever is missing or wrong is said once and skipped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "psread.h"

/* Damage in s's directory: counted, and said on s->err when there is one. */
__attribute__((format(printf, 3, 4)))
static void say(struct psr_session *s, const char *path, const char *fmt, ...)
{
	va_list ap;

	s->problems++;
	if (!s->err)
		return;
	fprintf(s->err, "patchsite: %s: ", path);
	va_start(ap, fmt);
	vfprintf(s->err, fmt, ap);
	va_end(ap);
	fputc('\n', s->err);
}

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 2);

	if (s) {
		memcpy(s, a, la);
		s[la] = '/';
		memcpy(s + la + 1, b, lb + 1);
	}
	return s;
}

/* A whole file, NUL-terminated (NULL: missing or unreadable; *len its size). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			char *g = realloc(buf, cap = cap * 2 + 8192);

			if (!g)
				break;
			buf = g;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		if (!got)
			break;
		n += got;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

/* "key value" lines: the value of key (a pointer into text, up to the newline), or NULL. */
static const char *field(const char *text, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, kl) && l[kl] == ' ') {
			const char *v = l + kl + 1, *e = strchr(v, '\n');
			size_t n = e ? (size_t)(e - v) : strlen(v);

			if (n >= len)
				n = len - 1;
			memcpy(buf, v, n);
			buf[n] = 0;
			return buf;
		}
	}
	return NULL;
}

static uint64_t field_u64(const char *text, const char *key, bool *ok)
{
	char buf[64], *end;
	unsigned long long v;

	if (!field(text, key, buf, sizeof(buf)))
		return *ok = false, 0;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (*end || errno || end == buf)
		*ok = false;
	return v;
}

static int cmp_func(const void *a, const void *b)
{
	const struct psr_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* mod.N: site and func lines. */
static void read_module(struct psr_session *s, struct psr_module *m, const char *path)
{
	char *text = slurp(path, NULL), *line, *save = NULL;
	size_t capf = 0, caps = 0;

	if (!text) {
		say(s, path, "cannot read: %s: its events are shown by site number", strerror(errno));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, c;
		char kind[16];
		int off = 0;

		if (sscanf(line, "site %llu %llx %15s %llu %n", &a, &b, kind, &c, &off) == 4 && off) {
			if (a > PSD_ID_MASK || a != m->nsites) {
				say(s, path, "site %llu out of order: ignored", a);
				continue;
			}
			if (m->nsites == caps) {
				struct psr_site *g = realloc(m->sites, (caps = caps * 2 + 64) * sizeof(*g));

				if (!g)
					break;
				m->sites = g;
			}
			m->sites[m->nsites].addr = b;
			m->sites[m->nsites].exit = !strcmp(kind, "exit");
			m->sites[m->nsites].owner = c <= PSD_ID_MASK ? (uint32_t)c : (uint32_t)a;
			m->sites[m->nsites].name = strdup(line + off);
			if (!m->sites[m->nsites].name)
				break;
			m->nsites++;
		} else if (sscanf(line, "func %llx %llu %n", &a, &b, &off) == 2 && off) {
			if (m->nfuncs == capf) {
				struct psr_func *g = realloc(m->funcs, (capf = capf * 2 + 64) * sizeof(*g));

				if (!g)
					break;
				m->funcs = g;
			}
			m->funcs[m->nfuncs].addr = a;
			m->funcs[m->nfuncs].size = b;
			m->funcs[m->nfuncs].name = strdup(line + off);
			if (!m->funcs[m->nfuncs].name)
				break;
			m->nfuncs++;
		} else if (!strncmp(line, "path ", 5) && !m->path) {
			m->path = strdup(line + 5);
		}
	}
	free(text);
	if (m->nfuncs)
		qsort(m->funcs, m->nfuncs, sizeof(*m->funcs), cmp_func);
}

/* The modules log: load/unload lines, each load naming its mod file. */
static void read_modules(struct psr_proc *p)
{
	char *path = join(p->dir, "modules"), *text = path ? slurp(path, NULL) : NULL;
	char *line, *save = NULL;
	size_t cap = 0;

	if (!text) {
		if (path && !p->session->follow)	/* followed: written just after the session line */
			say(p->session, path, "missing: events are shown by site number");
		free(path);
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned idx;
		unsigned long long tsc, bias;
		char file[64];
		int off = 0;

		if (sscanf(line, "load %u %llu %llx %63s %n", &idx, &tsc, &bias, file, &off) == 4) {
			struct psr_module *m;
			char *mp;

			if (p->nmods == cap) {
				struct psr_module *g = realloc(p->mods, (cap = cap * 2 + 8) * sizeof(*g));

				if (!g)
					break;
				p->mods = g;
			}
			m = &p->mods[p->nmods++];
			memset(m, 0, sizeof(*m));
			m->index = idx;
			m->load_tsc = tsc;
			m->bias = bias;
			if (strchr(file, '/') || !strncmp(file, "..", 2)) {
				say(p->session, path, "bad module file name '%s': ignored", file);
				continue;
			}
			mp = strcmp(file, "-") ? join(p->dir, file) : NULL;
			if (mp)
				read_module(p->session, m, mp);
			free(mp);
			if (!m->path && off)
				m->path = strdup(line + off);
		} else if (sscanf(line, "unload %u %llu", &idx, &tsc) == 2) {
			for (size_t i = p->nmods; i-- > 0;)
				if (p->mods[i].index == idx && !p->mods[i].unload_tsc) {
					p->mods[i].unload_tsc = tsc;
					break;
				}
		} else {
			say(p->session, path, "not a modules line: '%.40s': ignored", line);
		}
	}
	free(text);
	free(path);
}

/* The object that slot idx held at tsc. */
static const struct psr_module *module_at(const struct psr_proc *p, unsigned idx, uint64_t tsc)
{
	const struct psr_module *best = NULL;

	for (size_t i = 0; i < p->nmods; i++) {
		const struct psr_module *m = &p->mods[i];

		if (m->index != idx)
			continue;
		if (!best || (m->load_tsc <= tsc && (best->load_tsc > tsc || m->load_tsc > best->load_tsc)))
			best = m;
	}
	return best;
}

static const struct psr_site *site_at(const struct psr_proc *p, uint32_t id, uint64_t tsc)
{
	const struct psr_module *m = module_at(p, id >> PSD_ID_SHIFT, tsc);

	return m && (id & PSD_ID_MASK) < m->nsites ? &m->sites[id & PSD_ID_MASK] : NULL;
}

const char *psr_site_name(const struct psr_proc *p, uint32_t id, uint64_t tsc, char *buf,
			  size_t len)
{
	const struct psr_site *s = site_at(p, id, tsc);

	if (s && s->name)
		return s->name;
	snprintf(buf, len, "site#%u", id);
	return buf;
}

static const char *const option_names[] = {
	"print-parent", "sym-offset", "funcgraph-proc", "funcgraph-abstime", NULL
};

int psr_options_parse(const char *list, unsigned *set, unsigned *clear, const char **bad)
{
	static char word[64];

	*set = *clear = 0;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ", \n"), k;
		bool no = n > 2 && !strncmp(p, "no", 2);
		const char *name = no ? p + 2 : p;
		size_t len = no ? n - 2 : n;

		for (k = 0; n && option_names[k]; k++)
			if (strlen(option_names[k]) == len && !strncmp(option_names[k], name, len))
				break;
		if (n && !option_names[k]) {
			snprintf(word, sizeof(word), "%.*s", (int)(n < 60 ? n : 60), p);
			*bad = word;
			return -1;
		}
		if (n)
			*(no ? clear : set) |= 1u << k;
		p += n + (p[n] != 0);
	}
	return 0;
}

/* The options file: "NAME 0|1" lines; missing: the defaults (a record made before it). */
static void read_options(struct psr_proc *p)
{
	char *path = join(p->dir, "options"), *text = path ? slurp(path, NULL) : NULL;

	p->options = PSR_OPT_DEFAULT;
	for (size_t k = 0; text && option_names[k]; k++) {
		char buf[8];

		if (field(text, option_names[k], buf, sizeof(buf)))
			p->options = (p->options & ~(1u << k)) | (!strcmp(buf, "1") ? 1u << k : 0);
	}
	free(text);
	free(path);
}

const char *psr_addr_sym(const struct psr_proc *p, uint64_t addr, uint64_t tsc, uint64_t *off,
			 uint64_t *size)
{
	for (size_t i = p->nmods; i-- > 0;) {
		const struct psr_module *m = &p->mods[i];
		size_t lo = 0, hi = m->nfuncs;

		if (m->load_tsc > tsc || (m->unload_tsc && m->unload_tsc <= tsc))
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (m->funcs[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && addr - m->funcs[lo - 1].addr < (m->funcs[lo - 1].size ? m->funcs[lo - 1].size : 1)) {
			*off = addr - m->funcs[lo - 1].addr;
			*size = m->funcs[lo - 1].size;
			return m->funcs[lo - 1].name;
		}
	}
	return NULL;
}

uint64_t psr_site_addr(const struct psr_proc *p, uint32_t id, uint64_t tsc)
{
	const struct psr_site *s = site_at(p, id, tsc);

	return s ? s->addr : 0;
}

const char *psr_addr_name(const struct psr_proc *p, uint64_t addr, uint64_t tsc, char *buf,
			  size_t len)
{
	uint64_t off, size;
	const char *name = psr_addr_sym(p, addr, tsc, &off, &size);

	if (name)
		return name;
	snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return buf;
}

uint64_t psr_ns(const struct psr_proc *p, uint64_t tsc)
{
	return p->ns0 + (uint64_t)((double)(int64_t)(tsc - p->tsc0) * p->ns_per_tsc);
}

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
				say(s, path, "truncated in chunk %zu: %zu of %zu words", k, end - at, cw);
		}
		if (end - at < PSD_CHUNK_WORDS || (w[at] & ~0xffffull) != PSD_CHUNK_MAGIC)
			continue;	/* never used (zero) or damaged */
		if ((w[at] & 0xffff) < PSD_VERSION_MIN || (w[at] & 0xffff) > PSD_VERSION) {
			say(s, path, "chunk %zu: format version %llu, not %d to %d: skipped", k,
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

static void count_events(struct psr_proc *p, struct psr_thread *t)
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
		if (ev.tsc - p->tsc0 < (1ull << 62) && psr_ns(p, ev.tsc) > p->last_ns)
			p->last_ns = psr_ns(p, ev.tsc);
	}
}

static void read_thread(struct psr_proc *p, const char *name)
{
	struct psr_thread *t, *g;
	const struct psd_thread_hdr *h;
	struct stat sb;
	char *path = join(p->dir, name);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	void *map;

	if (fd < 0 || fstat(fd, &sb)) {
		say(p->session, path ? path : name, "cannot read: %s", strerror(errno));
		goto out;
	}
	if ((size_t)sb.st_size < sizeof(*h)) {
		say(p->session, path, "truncated (%lld bytes, no header): skipped", (long long)sb.st_size);
		goto out;
	}
	/* Shared: a followed file's words are seen as they are written. */
	map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		say(p->session, path, "cannot map: %s", strerror(errno));
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
		say(p->session, path, "not a thread file of format version %d to %d (bad header): skipped",
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

static void read_info(struct psr_proc *p)
{
	char *path = join(p->dir, "info"), *text = path ? slurp(path, NULL) : NULL, buf[4096];
	bool ok = true;
	double rate;

	p->ns_per_tsc = 1.0;
	if (!text) {
		say(p->session, path ? path : p->dir, "missing: times are raw time stamps");
		free(path);
		return;
	}
	if (!field(text, "format", buf, sizeof(buf)) || strncmp(buf, "patchsite-data ", 15) ||
	    (strcmp(buf + 15, "1") && strcmp(buf + 15, "2")))
		say(p->session, path, "format '%s', expected 'patchsite-data 1' or '2': read anyway",
		    field(text, "format", buf, sizeof(buf)) ? buf : "(none)");
	p->pid = (int)field_u64(text, "pid", &ok);
	p->ppid = (int)field_u64(text, "ppid", &ok);
	p->tsc0 = field_u64(text, "tsc0", &ok);
	p->ns0 = field_u64(text, "ns0", &ok);
	p->realtime0 = field_u64(text, "realtime0", &ok);
	p->overwrite = field_u64(text, "overwrite", &ok);
	if (field(text, "exe", buf, sizeof(buf)))
		p->exe = strdup(buf);
	if (field(text, "tracer", buf, sizeof(buf)))
		snprintf(p->tracer, sizeof(p->tracer), "%.31s", buf);
	if (field(text, "ns_per_tsc", buf, sizeof(buf)) && (rate = strtod(buf, NULL)) > 0 &&
	    rate < 1e6)
		p->ns_per_tsc = rate;
	if (!ok)
		say(p->session, path, "damaged: some fields missing or not numbers");
	free(text);
	free(path);
}

/* end: the clean trailer; with it, the rate over the whole run. */
static void read_end(struct psr_proc *p)
{
	char *path = join(p->dir, "end"), *text = path ? slurp(path, NULL) : NULL;
	bool ok = true;
	uint64_t tsc, ns;

	if (text) {
		tsc = field_u64(text, "tsc", &ok);
		ns = field_u64(text, "ns", &ok);
		p->end_realtime = field_u64(text, "realtime", &ok);
		if (ok) {
			p->has_end = true;
			p->end_ns = ns;
			if (ns > p->ns0 + 10000000 && tsc > p->tsc0)
				p->ns_per_tsc = (double)(ns - p->ns0) / (double)(tsc - p->tsc0);
		} else if (!p->session->follow) {
			/* (followed: being written now, read again at the next look) */
			say(p->session, path, "damaged: the run's end is not known");
		}
	}
	free(text);
	free(path);
	path = join(p->dir, "status");
	text = path ? slurp(path, NULL) : NULL;
	if (text) {
		text[strcspn(text, "\n")] = 0;
		snprintf(p->status, sizeof(p->status), "%s", text);
	}
	free(text);
	free(path);
}

static void read_cmdline(struct psr_proc *p)
{
	size_t n = 0;
	char *path = join(p->dir, "cmdline"), *text = path ? slurp(path, &n) : NULL;

	for (size_t i = 0; text && n && i < n - 1; i++)
		if (!text[i])
			text[i] = ' ';
	p->cmdline = text;
	free(path);
}

/* No trailer: the latest chunk header's clock pair measures the rate over the run. */
static void rate_from_chunks(struct psr_proc *p)
{
	uint64_t tsc = 0, ns = 0;

	for (size_t i = 0; i < p->nthreads; i++)
		for (size_t k = 0; k < p->threads[i].nchunks; k++) {
			const uint64_t *w = p->threads[i].words + p->threads[i].chunks[k].first;

			if (w[-1] > ns && w[-2] > p->tsc0)
				ns = w[-1], tsc = w[-2];
		}
	if (ns > p->ns0 + 10000000 && ns - p->ns0 < (1ull << 50))
		p->ns_per_tsc = (double)(ns - p->ns0) / (double)(tsc - p->tsc0);
}

static int cmp_thread(const void *a, const void *b)
{
	const struct psr_thread *x = a, *y = b;

	return x->tid - y->tid;
}

/* The events file: only where events were recorded. */
static void read_events(struct psr_proc *p)
{
	char *path = join(p->dir, "events"), *text = path ? slurp(path, NULL) : NULL;

	if (text && psr_events_parse(p, text))
		say(p->session, path, "damaged lines (events with them cannot be decoded)");
	free(text);
	free(path);
}

static void read_proc(struct psr_session *s, const char *name)
{
	struct psr_proc *p = &s->procs[s->nprocs];
	DIR *d;
	struct dirent *e;

	memset(p, 0, sizeof(*p));
	p->session = s;
	p->name = strdup(name);
	p->dir = join(s->dir, name);
	if (!p->dir || !p->name || !(d = opendir(p->dir))) {
		say(s, p->dir ? p->dir : name, "cannot read the process directory: %s", strerror(errno));
		free(p->dir);
		free(p->name);
		return;
	}
	s->nprocs++;
	read_info(p);
	read_end(p);
	read_cmdline(p);
	read_modules(p);
	read_options(p);
	read_events(p);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "thread.", 7))
			read_thread(p, e->d_name);
	closedir(d);
	if (p->nthreads)
		qsort(p->threads, p->nthreads, sizeof(*p->threads), cmp_thread);
	if (s->follow)
		return;		/* psr_follow indexes the chunks */
	if (!p->has_end)
		rate_from_chunks(p);
	for (size_t k = 0; k < p->nthreads; k++)
		count_events(p, &p->threads[k]);
	if (p->end_ns > p->last_ns)
		p->last_ns = p->end_ns;
}

/*
 * Process directories: from the session list, in its order (start order).  follow: opened by
 * psr_open_live, so parts being written are left for psr_follow.
 */
static int open_session(const char *dir, FILE *err, bool follow, struct psr_session **out)
{
	struct psr_session *s = calloc(1, sizeof(*s));
	char *path, *text, *line, *save = NULL;
	size_t cap = 0;

	if (!s)
		return -ENOMEM;
	s->err = err;
	s->follow = follow;
	s->dir = strdup(dir);
	path = join(dir, "session");
	text = path ? slurp(path, NULL) : NULL;
	if (!text) {
		int e = errno;

		if (err)	/* NULL: a caller waiting for the directory to appear */
			fprintf(err, "patchsite: %s: not a trace directory (no session list: %s)\n",
				dir, strerror(e));
		free(path);
		psr_close(s);
		return -(e ? e : ENOENT);
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int pid, ppid;
		char name[64];

		s->nlines++;
		if (sscanf(line, "%d %d %63s", &pid, &ppid, name) != 3) {
			say(s, path, "not a session line: '%.40s': ignored", line);
			continue;
		}
		if (!strcmp(name, "-")) {
			s->nosites++;
			continue;
		}
		if (strchr(name, '/') || name[0] == '.') {
			say(s, path, "bad process directory '%s': ignored", name);
			continue;
		}
		if (s->nprocs == cap) {
			struct psr_proc *g = realloc(s->procs, (cap = cap * 2 + 4) * sizeof(*g));

			if (!g)
				break;
			s->procs = g;
		}
		read_proc(s, name);
	}
	/* A later image of the same pid: the earlier one ended by exec, not a crash. */
	for (size_t i = 0; i < s->nprocs; i++)
		for (size_t j = i + 1; j < s->nprocs; j++)
			if (s->procs[j].pid == s->procs[i].pid)
				s->procs[i].exec_followed = true;
	free(text);
	free(path);
	*out = s;
	return 0;
}

int psr_open(const char *dir, FILE *err, struct psr_session **out)
{
	return open_session(dir, err, false, out);
}

void psr_close(struct psr_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nprocs; i++) {
		struct psr_proc *p = &s->procs[i];

		for (size_t k = 0; k < p->nthreads; k++) {
			munmap((void *)p->threads[k].words, p->threads[k].map_bytes);
			free(p->threads[k].chunks);
			free(p->threads[k].file);
		}
		for (size_t k = 0; k < p->nmods; k++) {
			for (size_t j = 0; j < p->mods[k].nsites; j++)
				free(p->mods[k].sites[j].name);
			for (size_t j = 0; j < p->mods[k].nfuncs; j++)
				free(p->mods[k].funcs[j].name);
			free(p->mods[k].sites);
			free(p->mods[k].funcs);
			free(p->mods[k].path);
		}
		psr_events_free(p);
		free(p->threads);
		free(p->mods);
		free(p->dir);
		free(p->name);
		free(p->exe);
		free(p->cmdline);
	}
	free(s->procs);
	free(s->dir);
	free(s);
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

int psr_next(struct psr_cursor *c, struct psr_event *ev)
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

			if (!(from & 4095) && to > from)
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
			const struct psr_site *s = site_at(c->p, ev->id, ev->tsc);

			if (s && s->exit)
				ev->id = (ev->id & ~PSD_ID_MASK) | s->owner;
		}
		return 1;
	}
	return 0;
}

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
	int r = open_session(dir, err, true, out);

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
	char *path = join(p->dir, "modules");
	struct stat sb;
	DIR *d;
	struct dirent *e;

	/* Objects loaded since: the whole list again (it is small). */
	if (path && !stat(path, &sb) && (size_t)sb.st_size != p->modules_size) {
		for (size_t k = 0; k < p->nmods; k++) {
			for (size_t j = 0; j < p->mods[k].nsites; j++)
				free(p->mods[k].sites[j].name);
			for (size_t j = 0; j < p->mods[k].nfuncs; j++)
				free(p->mods[k].funcs[j].name);
			free(p->mods[k].sites);
			free(p->mods[k].funcs);
			free(p->mods[k].path);
		}
		free(p->mods);
		p->mods = NULL;
		p->nmods = 0;
		p->modules_size = (size_t)sb.st_size;
		read_modules(p);
	}
	free(path);
	if (!p->has_end)
		read_end(p);
	read_options(p);	/* changed while it runs: the next lines follow */
	d = opendir(p->dir);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "thread.", 7) || !(path = join(p->dir, e->d_name)))
			continue;
		if (!known_thread(p, path))
			read_thread(p, e->d_name);
		free(path);
	}
	if (d)
		closedir(d);
	for (size_t k = 0; k < p->nthreads; k++)
		follow_thread(p, &p->threads[k]);
}

/* Processes listed since the last look (whole lines only), then every process. */
static void follow_session(struct psr_session *s)
{
	char *path = join(s->dir, "session"), *text = path ? slurp(path, NULL) : NULL;
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
