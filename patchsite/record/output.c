// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reader: decode every thread's ring (single consumer, under ps.lock)
 * and write the trace in one of three formats:
 *   ftrace   the function tracer's `TASK-PID [CPU] TIMESTAMP: func <-parent`
 *            or function_graph's `CPU) TASK-PID | DURATION | func() {`
 *            with ftrace's +, !, #, *, @, $ duration markers
 *   chrome   Chrome trace-event JSON (Perfetto, chrome://tracing): "X"
 *            events for completed calls, "B" for calls still open, "i" for
 *            function-tracer events, thread names as "M" events
 *   folded   one `comm;outer;...;inner self_ns` line per distinct stack
 *            (flamegraph.pl, speedscope), from function_graph events
 * Threads are merged by time.  A thread's ring is read from where the
 * last write stopped; words still being written by a running thread may
 * be missed, never misread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/record.h"
#include "data/format.h"
#include "json.h"
#include "render/render.h"

enum ps_format ps_format = PS_FORMAT_FTRACE;

struct ev {
	uint64_t tsc;
	uint64_t parent;	/* PS_EV_FUNC */
	uint32_t id;
	uint8_t type;
	uint8_t leaf;		/* an entry whose exit comes next */
	int32_t cpu;
	uint32_t match;		/* entry: index of its exit + 1; exit: of its entry + 1; or 0 */
	uint8_t closed_by;	/* entry closed by an outer function's exit */
};

/* The entry site an exit event belongs to (exit sites name their function's). */
static uint32_t entry_of(uint32_t id)
{
	struct ps_module *m = ps_module_of_id(id);
	const struct ps_site *s;

	if (!m || (id & PS_ID_MASK) >= m->nsites)
		return id;
	s = &m->sites[id & PS_ID_MASK];
	return s->kind == SITE_EXIT ? m->sites[s->owner].id : id;
}

struct stream {
	struct ps_thread *t;
	struct ev *ev;
	size_t n, at;
	uint64_t head;
	unsigned long lost;
	/* printing state */
	uint32_t *stack;	/* open entries (indices into ev) */
	size_t depth, cap;
};

/* Decode [tail, head) of a thread's ring. */
static int decode(struct stream *s)
{
	struct ps_thread *t = s->t;
	struct ps_fast *f = atomic_load(&t->fast);
	uint64_t cap = (uint64_t)(t->end - t->base), lap1, lap2, head, tail, p;
	uint64_t *wp;
	size_t n = 0;

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
	s->head = head;
	s->ev = malloc((head - tail + 1) * sizeof(*s->ev));
	if (!s->ev)
		return -ENOMEM;
	for (p = tail; p < head; p++) {
		uint64_t w = t->base[p % cap];
		struct ev *e = &s->ev[n];

		if (w == PS_EV_PAD)
			continue;
		switch (w & 3) {
		case PS_EV_MARK:
			if (PSD_EXT_KIND(w)) {
				p += PSD_EXT_WORDS(w);	/* extended records: not shown here */
				continue;
			}
			t->rd_hi = (uint32_t)(w >> 32);
			if (++p < head)
				t->rd_cpu = (int32_t)t->base[p % cap];
			continue;
		case PS_EV_FUNC:
			e->parent = ++p < head ? t->base[p % cap] : 0;
			break;
		default:
			e->parent = 0;
		}
		e->tsc = (uint64_t)t->rd_hi << 32 | w >> 32;
		e->id = (uint32_t)w >> 2;
		e->type = w & 3;
		e->cpu = t->rd_cpu;
		e->leaf = 0;
		e->match = 0;
		e->closed_by = 0;
		n++;
	}
	s->n = n;
	/*
	 * Pair entries with exits (the ring holds them in call order).  An
	 * exit site's event names its function's entry site; an exit whose
	 * function is not open is dropped, and calls above it that saw no
	 * exit (left by longjmp or an exception) are closed with it.
	 */
	{
		uint32_t *st = malloc((n + 1) * sizeof(*st));
		size_t d = 0;

		if (!st)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			struct ev *e = &s->ev[i];

			if (e->type == PS_EV_ENTRY) {
				st[d++] = (uint32_t)i;
			} else if (e->type == PS_EV_EXIT) {
				uint32_t fn = entry_of(e->id);
				size_t k = d;

				while (k > 0 && s->ev[st[k - 1]].id != fn)
					k--;
				if (!k) {
					e->type = PS_EV_MARK;	/* not shown */
					continue;
				}
				while (d > k) {
					s->ev[st[--d]].match = (uint32_t)i + 1;
					s->ev[st[d]].closed_by = 1;
				}
				d--;
				s->ev[st[d]].match = (uint32_t)i + 1;
				s->ev[st[d]].leaf = st[d] + 1 == i;
				e->match = st[d] + 1;
				e->id = fn;
			}
		}
		free(st);
	}
	s->lost = atomic_exchange(&t->lost, 0);
	return 0;
}

static const char *id_name(uint32_t id, char *buf, size_t len)
{
	struct ps_module *m = ps_module_of_id(id);

	if (!m || (id & PS_ID_MASK) >= m->nsites) {
		snprintf(buf, len, "site#%u", id);
		return buf;
	}
	return ps_site_name(&m->sites[id & PS_ID_MASK], buf, len);
}

static void print_addr(FILE *f, uintptr_t addr, uint64_t tsc)
{
	const struct ps_sym *s = ps_sym_at(addr, tsc);

	if (s)
		fputs(ps_sym_shown(s), f);
	else
		fprintf(f, "0x%lx", (unsigned long)addr);
}

/* The stream whose next event is the earliest, or NULL. */
static struct stream *next_stream(struct stream *s, size_t ns)
{
	struct stream *min = NULL;

	for (size_t i = 0; i < ns; i++)
		if (s[i].at < s[i].n && (!min || s[i].ev[s[i].at].tsc < min->ev[min->at].tsc))
			min = &s[i];
	return min;
}

static void write_function(FILE *f, struct stream *s, size_t ns)
{
	unsigned long long entries = 0, lost = 0;
	struct stream *m;

	for (size_t i = 0; i < ns; i++) {
		for (size_t k = 0; k < s[i].n; k++)
			entries += s[i].ev[k].type == PS_EV_FUNC;
		lost += s[i].lost;
	}
	fprintf(f, "# tracer: function\n#\n");
	fprintf(f, "# entries-in-buffer/entries-written: %llu/%llu   #P:%ld\n#\n", entries,
		entries + lost, sysconf(_SC_NPROCESSORS_ONLN));
	for (size_t i = 0; i < ns; i++)
		if (s[i].lost)
			fprintf(f, "# %s-%d [LOST %lu EVENTS]\n", s[i].t->comm, s[i].t->tid,
				s[i].lost);
	fprintf(f, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n");
	fprintf(f, "#              | |         |         |         |\n");
	while ((m = next_stream(s, ns))) {
		struct ev *e = &m->ev[m->at++];
		uint64_t ns_ = ps_tsc_to_ns(e->tsc);
		char buf[32];

		if (e->type != PS_EV_FUNC)
			continue;
		fprintf(f, "%16s-%-7d [%03d] %5llu.%06llu: %s <-", m->t->comm, m->t->tid, e->cpu,
			(unsigned long long)(ns_ / 1000000000u),
			(unsigned long long)(ns_ % 1000000000u / 1000u),
			id_name(e->id, buf, sizeof(buf)));
		print_addr(f, e->parent, e->tsc);
		fputc('\n', f);
	}
}

static double dur_ns(uint64_t a, uint64_t b)
{
	return (double)(ps_tsc_to_ns(b) - ps_tsc_to_ns(a));
}

/* ftrace's markers: $ > 1 s, @ > 100 ms, * > 10 ms, # > 1 ms, ! > 100 us, + > 10 us. */
static char dur_mark(double ns)
{
	return ns > 1e9 ? '$' : ns > 1e8 ? '@' : ns > 1e7 ? '*' : ns > 1e6 ? '#' : ns > 1e5 ? '!' :
	       ns > 1e4 ? '+' : ' ';
}

/* One line; its text in pieces (a, b, c), so that no name is cut, whatever its length. */
static void graph_line(FILE *f, const struct stream *m, const struct ev *e, const double *dur,
		       size_t depth, const char *a, const char *b, const char *c)
{
	char task[40];

	snprintf(task, sizeof(task), "%s-%d", m->t->comm, m->t->tid);
	fprintf(f, " %d) %14s | ", e->cpu, task);
	if (dur)
		fprintf(f, "%c %8.3f us | ", dur_mark(*dur), *dur / 1000.0);
	else
		fprintf(f, "              | ");
	fprintf(f, "%*s%s%s%s\n", (int)(2 * depth), "", a, b, c);
}

static void write_graph(FILE *f, struct stream *s, size_t ns)
{
	struct stream *m, *last = NULL;

	fprintf(f, "# tracer: function_graph\n#\n");
	for (size_t i = 0; i < ns; i++)
		if (s[i].lost)
			fprintf(f, "# %s-%d [LOST %lu EVENTS]\n", s[i].t->comm, s[i].t->tid,
				s[i].lost);
	fprintf(f, "# CPU  TASK/PID         DURATION                  FUNCTION CALLS\n");
	fprintf(f, "# |     |    |           |   |                     |   |   |   |\n");
	while ((m = next_stream(s, ns))) {
		struct ev *e = &m->ev[m->at++];
		char buf[32];
		double d;

		if (e->type == PS_EV_MARK)
			continue;
		if (last && last != m) {
			fprintf(f, " ------------------------------------------\n");
			fprintf(f, " %d) %s-%d => %s-%d\n", e->cpu, last->t->comm, last->t->tid,
				m->t->comm, m->t->tid);
			fprintf(f, " ------------------------------------------\n\n");
		}
		last = m;
		if (e->type == PS_EV_FUNC) {
			/* function_graph on another stack (a coroutine's): no exit to wait for. */
			graph_line(f, m, e, NULL, m->depth, id_name(e->id, buf, sizeof(buf)),
				   "(); /* other stack */", "");
		} else if (e->type == PS_EV_ENTRY) {
			const char *name = id_name(e->id, buf, sizeof(buf));

			if (e->leaf) {
				d = dur_ns(e->tsc, m->ev[e->match - 1].tsc);
				graph_line(f, m, e, &d, m->depth, name, "();", "");
				m->at++;	/* the exit */
				continue;
			}
			graph_line(f, m, e, NULL, m->depth, name, "() {", "");
			if (m->depth == m->cap) {
				uint32_t *g = realloc(m->stack, (m->cap = m->cap * 2 + 16) *
							     sizeof(*g));

				if (!g)
					continue;
				m->stack = g;
			}
			m->stack[m->depth++] = (uint32_t)(e - m->ev);
		} else if (m->depth && e->match) {
			struct ev *in;

			/* Calls left without an exit close here too. */
			while (m->depth > 1 && m->ev[m->stack[m->depth - 1]].closed_by) {
				in = &m->ev[m->stack[--m->depth]];
				d = dur_ns(in->tsc, e->tsc);
				graph_line(f, m, e, &d, m->depth, "}", "", "");
			}
			in = &m->ev[m->stack[--m->depth]];
			d = dur_ns(in->tsc, e->tsc);
			graph_line(f, m, e, &d, m->depth, "}", "", "");
		} else if (e->match) {
			graph_line(f, m, e, NULL, 0, "} /* ", id_name(e->id, buf, sizeof(buf)), " */");
		}
	}
}

static void write_chrome(FILE *f, struct stream *s, size_t ns)
{
	pid_t pid = getpid();
	const char *sep = "\n";
	struct stream *m;

	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	for (size_t i = 0; i < ns; i++) {
		fprintf(f, "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
			"\"args\":{\"name\":", sep, pid, s[i].t->tid);
		json_str(f, s[i].t->comm);
		fprintf(f, "}}");
		sep = ",\n";
	}
	while ((m = next_stream(s, ns))) {
		struct ev *e = &m->ev[m->at++];
		char buf[32];
		double ts = (double)ps_tsc_to_ns(e->tsc) / 1000.0;

		if (e->type == PS_EV_EXIT)
			continue;
		fprintf(f, "%s{\"name\":", sep);
		json_str(f, id_name(e->id, buf, sizeof(buf)));
		if (e->type == PS_EV_FUNC)
			fprintf(f, ",\"ph\":\"i\",\"s\":\"t\"");
		else if (e->match)
			fprintf(f, ",\"ph\":\"X\",\"dur\":%.3f",
				dur_ns(e->tsc, m->ev[e->match - 1].tsc) / 1000.0);
		else
			fprintf(f, ",\"ph\":\"B\"");
		fprintf(f, ",\"ts\":%.3f,\"pid\":%d,\"tid\":%d,\"cat\":\"patchsite\"}", ts, pid,
			m->t->tid);
	}
	fprintf(f, "\n]}\n");
}

struct folded {
	char *stack;
	double ns;
};

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

/* Self time of every completed call, by stack; identical stacks summed. */
static int write_folded(FILE *f, struct stream *s, size_t ns)
{
	struct folded *out = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	for (size_t i = 0; i < ns; i++) {
		struct stream *m = &s[i];
		size_t depth = 0;
		uint32_t *st = malloc((m->n + 1) * sizeof(*st));
		double *child = calloc(m->n + 1, sizeof(*child));

		if (!st || !child) {
			free(st);
			free(child);
			err = -ENOMEM;
			break;
		}
		for (size_t k = 0; k < m->n; k++) {
			struct ev *e = &m->ev[k];
			char buf[32], *line;
			size_t len;
			double d;

			if (e->type == PS_EV_ENTRY) {
				st[depth++] = (uint32_t)k;
				child[depth] = 0;
				continue;
			}
			if (e->type != PS_EV_EXIT || !depth)
				continue;
			d = dur_ns(m->ev[st[depth - 1]].tsc, e->tsc);
			len = strlen(m->t->comm) + 1;
			for (size_t j = 0; j < depth; j++)
				len += strlen(id_name(m->ev[st[j]].id, buf, sizeof(buf))) + 1;
			line = malloc(len + 1);
			if (!line || (n == cap && !(out = realloc(out, (cap = cap * 2 + 64) *
									sizeof(*out))))) {
				free(line);
				err = -ENOMEM;
				break;
			}
			strcpy(line, m->t->comm);
			for (size_t j = 0; j < depth; j++) {
				strcat(line, ";");
				strcat(line, id_name(m->ev[st[j]].id, buf, sizeof(buf)));
			}
			out[n].stack = line;
			out[n].ns = d - child[depth] > 0 ? d - child[depth] : 0;
			n++;
			depth--;
			child[depth] += d;
		}
		free(st);
		free(child);
		if (err)
			break;
	}
	if (n)
		qsort(out, n, sizeof(*out), cmp_folded);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double sum = 0;

		while (j < n && !strcmp(out[j].stack, out[i].stack))
			sum += out[j++].ns;
		fprintf(f, "%s %.0f\n", out[i].stack, sum < 1 ? 1 : sum);
		i = j;
	}
	for (size_t i = 0; i < n; i++)
		free(out[i].stack);
	free(out);
	return err;
}

/*
 * Recording into a trace directory: this process's part of it, rendered by
 * the same code as `patchsite replay` and `patchsite dump`.
 */
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
	if (ps_format == PS_FORMAT_CHROME)
		err = render_chrome(f, s, &o);
	else if (ps_format == PS_FORMAT_FOLDED)
		err = render_folded(f, s, &o);
	else
		err = render_replay(f, s, &o);
	psr_close(s);
	return err;
}

int patchsite_trace_write(int fd)
{
	struct stream *s = NULL;
	size_t ns = 0, cap = 0;
	bool graph = ps_graph_ops.state && ps_graph_ops.state->s.registered;
	FILE *f;
	int dupfd, err = 0;

	dupfd = dup(fd);
	if (dupfd < 0)
		return -errno;
	f = fdopen(dupfd, "w");
	if (!f) {
		err = -errno;
		close(dupfd);
		return err;
	}
	if (ps_store_on()) {
		err = write_from_store(f);
		if (fclose(f) && !err)
			err = -errno;
		return err;
	}
	pthread_mutex_lock(&ps.lock);
	for (struct ps_thread *t = atomic_load(&ps.threads); t; t = t->next) {
		/* fast is published after the ring: only then may base be read. */
		if (!atomic_load(&t->fast) || !t->base)
			continue;
		if (ns == cap) {
			struct stream *g = realloc(s, (cap = cap ? cap * 2 : 16) * sizeof(*s));

			if (!g) {
				err = -ENOMEM;
				goto out;
			}
			s = g;
		}
		memset(&s[ns], 0, sizeof(s[ns]));
		s[ns].t = t;
		err = decode(&s[ns++]);
		if (err)
			goto out;
		for (size_t k = 0; k < s[ns - 1].n && !graph; k++)
			graph = s[ns - 1].ev[k].type != PS_EV_FUNC;
	}
	if (ps_format == PS_FORMAT_CHROME)
		write_chrome(f, s, ns);
	else if (ps_format == PS_FORMAT_FOLDED)
		err = write_folded(f, s, ns);
	else if (graph)
		write_graph(f, s, ns);
	else
		write_function(f, s, ns);
	for (size_t i = 0; i < ns; i++)
		atomic_store_explicit(&s[i].t->tail, s[i].head, memory_order_release);
out:
	pthread_mutex_unlock(&ps.lock);
	for (size_t i = 0; i < ns; i++) {
		free(s[i].ev);
		free(s[i].stack);
	}
	free(s);
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
