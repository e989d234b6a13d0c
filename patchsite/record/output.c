// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchsite_trace_write: the recording so far, in the format PATCHSITE_OUTPUT
 * asks for (ftrace text, Chrome JSON, folded stacks), printed by render/,
 * the code of `patchsite replay` and `patchsite dump`; there is no other
 * decoder or formatter in the runtime.
 *
 * Recording into a trace directory, this process's part of it is read
 * from there.  Without one (a program that uses the API alone), the rings
 * are copied, under ps.lock, into a reader session made in memory: one
 * process, a thread per ring whose words are the copy (one chunk), and an
 * object per loaded object with the sites and names its events need.  The
 * copy is what a thread file would hold, so data/read_thread.c's cursor
 * reads it as it reads a file.  Each call takes what the rings gained
 * since the last (a ring's tail moves to what was copied).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"
#include "data/format.h"
#include "render/render.h"

enum ps_format ps_format = PS_FORMAT_FTRACE;

static int render(FILE *f, const struct psr_session *s, const struct render_opts *o)
{
	if (ps_format == PS_FORMAT_CHROME)
		return render_chrome(f, s, o);
	if (ps_format == PS_FORMAT_FOLDED)
		return render_folded(f, s, o);
	return render_replay(f, s, o);
}

/* Recording into a trace directory: this process's part of it. */
static int write_from_store(FILE *f)
{
	struct render_opts o = { .bare = true };
	struct psr_session *s;
	int err;

	ps_store_dir(&o.proc);
	o.pid = getpid();
	err = psr_open(ps_store_dir(&o.proc), stderr, &s);
	if (err)
		return err;
	err = render(f, s, &o);
	psr_close(s);
	return err;
}

/* The memory session: what mem_free gives back. */
struct mem {
	struct psr_session s;
	struct psr_proc p;
	uint64_t *heads;	/* per thread: the ring position copied up to */
	struct ps_thread **rings;
};

static void mem_free(struct mem *m)
{
	for (size_t i = 0; i < m->p.nmods; i++) {
		struct psr_module *md = &m->p.mods[i];

		for (size_t k = 0; k < md->nsites; k++)
			free(md->sites[k].name);
		free(md->sites);
		free(md->funcs);	/* names point into the runtime's symbols */
	}
	for (size_t i = 0; i < m->p.nthreads; i++) {
		free((void *)m->p.threads[i].words);
		free(m->p.threads[i].chunks);
	}
	free(m->p.mods);
	free(m->p.threads);
	free(m->heads);
	free(m->rings);
}

/* An object's sites (names filled later, for the ids events use) and functions. */
static int mem_module(struct psr_module *md, struct ps_module *m, unsigned index, bool funcs)
{
	md->index = index;
	md->bias = m->bias;
	md->path = m->path;
	md->unload_tsc = m->gone ? m->gone_tsc : 0;
	md->sites = calloc(m->nsites ? m->nsites : 1, sizeof(*md->sites));
	if (!md->sites)
		return -ENOMEM;
	md->nsites = m->nsites;
	for (size_t k = 0; k < m->nsites; k++) {
		md->sites[k].addr = m->sites[k].addr;
		md->sites[k].exit = m->sites[k].kind == SITE_EXIT;
		md->sites[k].owner = m->sites[k].owner;
	}
	/* Callers of function-tracer events are named from the symbols (print-parent). */
	if (!funcs || m->gone || ps_module_syms(m) || !m->nsyms)
		return 0;
	md->funcs = calloc(m->nsyms, sizeof(*md->funcs));
	if (!md->funcs)
		return -ENOMEM;
	for (size_t k = 0; k < m->nsyms; k++)
		md->funcs[md->nfuncs++] = (struct psr_func){ m->syms[k].addr, m->syms[k].size,
							     (char *)ps_sym_shown(&m->syms[k]) };
	return 0;
}

/* The name of the site id an event carries (an exit's: its function's entry). */
static int mem_name(struct psr_proc *p, uint32_t id)
{
	unsigned mi = id >> PS_ID_SHIFT;
	size_t k = id & PS_ID_MASK;
	struct ps_site *site = ps_site_by_id(id);
	char buf[256];

	if (mi >= p->nmods || k >= p->mods[mi].nsites || !site)
		return 0;
	if (site->kind == SITE_EXIT)
		return mem_name(p, site->mod->sites[site->owner].id);
	if (p->mods[mi].sites[k].name)
		return 0;
	p->mods[mi].sites[k].name = strdup(ps_site_name(site, buf, sizeof(buf)));
	return p->mods[mi].sites[k].name ? 0 : -ENOMEM;
}

/*
 * A thread's ring from its tail to its head, as a thread file's words: a
 * mark with the time's upper half and the CPU the last copy ended with,
 * then the words, without extended records (their formats are the trace
 * directory's).  The ring's reader state moves to the end of the copy.
 */
static int mem_copy(struct psr_proc *p, struct psr_thread *pt, struct ps_thread *t, uint64_t *headp)
{
	struct ps_fast *f = atomic_load(&t->fast);
	uint64_t cap = (uint64_t)(t->end - t->base), lap1, lap2, head, tail, *w;
	uint64_t *wp;
	size_t n = 0;
	int err = 0;

	do {
		lap1 = atomic_load_explicit(&t->lap, memory_order_acquire);
		wp = ps_wp_get(f);
		lap2 = atomic_load_explicit(&t->lap, memory_order_acquire);
	} while (lap1 != lap2);
	if (wp < t->base || wp > t->end)
		wp = t->base;
	head = lap1 + (uint64_t)(wp - t->base);
	tail = atomic_load(&t->tail);
	if (head < tail)
		head = tail;
	if (head - tail > cap)
		tail = head - cap;
	*headp = head;
	w = malloc((head - tail + 2) * sizeof(*w));
	pt->chunks = calloc(1, sizeof(*pt->chunks));
	if (!w || !pt->chunks) {
		free(w);
		return -ENOMEM;
	}
	w[n++] = (uint64_t)t->rd_hi << 32 | PS_EV_MARK;
	w[n++] = (uint64_t)(uint32_t)t->rd_cpu;
	for (uint64_t i = tail; i < head && !err; i++) {
		uint64_t x = t->base[i % cap];

		if ((x & 3) == PS_EV_MARK && x != PS_EV_PAD && PSD_EXT_KIND(x)) {
			i += PSD_EXT_WORDS(x);
			continue;
		}
		w[n++] = x;
		if (x == PS_EV_PAD)
			continue;
		if ((x & 3) == PS_EV_MARK) {
			t->rd_hi = (uint32_t)(x >> 32);
			if (++i < head)
				t->rd_cpu = (int32_t)(w[n++] = t->base[i % cap]);
			continue;
		}
		pt->events++;
		pt->entries += (x & 3) == PS_EV_ENTRY;
		pt->funcs += (x & 3) == PS_EV_FUNC;
		if ((x & 3) == PS_EV_FUNC && ++i < head)
			w[n++] = t->base[i % cap];
		err = mem_name(p, (uint32_t)x >> 2);
	}
	pt->words = w;
	pt->nwords = n;
	pt->in_memory = true;
	pt->chunks[0] = (struct psr_chunk){ .first = 0, .end = n, .limit = n };
	pt->nchunks = 1;
	pt->tid = t->tid;
	memcpy(pt->comm, t->comm, sizeof(t->comm));
	pt->clean = true;
	pt->lost = atomic_exchange(&t->lost, 0);
	return err;
}

static int mem_threads(struct mem *m)
{
	size_t cap = 0;
	int err = 0;

	for (struct ps_thread *t = atomic_load(&ps.threads); t && !err; t = t->next) {
		/* fast is published after the ring: only then may base be read. */
		if (!atomic_load(&t->fast) || !t->base)
			continue;
		if (m->p.nthreads == cap) {
			size_t c = cap ? cap * 2 : 16;
			struct psr_thread *g = realloc(m->p.threads, c * sizeof(*g));
			uint64_t *h = g ? realloc(m->heads, c * sizeof(*h)) : NULL;
			struct ps_thread **r = h ? realloc(m->rings, c * sizeof(*r)) : NULL;

			if (g)
				m->p.threads = g;
			if (h)
				m->heads = h;
			if (!r)
				return -ENOMEM;
			m->rings = r;
			cap = c;
		}
		memset(&m->p.threads[m->p.nthreads], 0, sizeof(m->p.threads[0]));
		m->rings[m->p.nthreads] = t;
		err = mem_copy(&m->p, &m->p.threads[m->p.nthreads], t, &m->heads[m->p.nthreads]);
		m->p.nthreads++;
	}
	return err;
}

/* The session, under ps.lock: the process, its objects, its rings. */
static int mem_session(struct mem *m)
{
	unsigned nmods = atomic_load(&ps.nmods);
	const struct ps_tracer *tr = ps_tracer_now();
	bool graph = ps_graph_ops.state && ps_graph_ops.state->s.registered;
	int err = 0;

	m->s.procs = &m->p;
	m->s.nprocs = 1;
	m->s.err = stderr;
	m->p.session = &m->s;
	m->p.pid = getpid();
	m->p.options = PSR_OPT_DEFAULT;
	m->p.has_end = true;
	/* The tracer names the format; a switch since leaves it to the events (render/text.c). */
	snprintf(m->p.tracer, sizeof(m->p.tracer), "%s",
		 graph ? "function_graph" : tr && tr->ops ? tr->name : "");
	ps_clock_params(&m->p.tsc0, &m->p.ns0, &m->p.ns_per_tsc);
	m->p.mods = calloc(nmods ? nmods : 1, sizeof(*m->p.mods));
	if (!m->p.mods)
		return -ENOMEM;
	for (unsigned i = 0; i < nmods && !err; i++, m->p.nmods++)
		err = mem_module(&m->p.mods[i], ps.mods[i], i, !graph);
	return err ? err : mem_threads(m);
}

static int write_from_rings(FILE *f)
{
	struct render_opts o = { .bare = true };
	struct mem m = { 0 };
	int err;

	pthread_mutex_lock(&ps.lock);
	err = mem_session(&m);
	if (!err)
		for (size_t i = 0; i < m.p.nthreads; i++)
			atomic_store_explicit(&m.rings[i]->tail, m.heads[i], memory_order_release);
	pthread_mutex_unlock(&ps.lock);
	if (!err)
		err = render(f, &m.s, &o);
	mem_free(&m);
	return err;
}

int patchsite_trace_write(int fd)
{
	FILE *f;
	int dupfd, err;

	dupfd = dup(fd);
	if (dupfd < 0)
		return -errno;
	f = fdopen(dupfd, "w");
	if (!f) {
		err = -errno;
		close(dupfd);
		return err;
	}
	err = ps_store_on() ? write_from_store(f) : write_from_rings(f);
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
