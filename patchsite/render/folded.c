// SPDX-License-Identifier: GPL-2.0-only
/* Folded stacks (dump --folded), the input of flame graph tools. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "walk.h"

/* Folded stacks: self time of every completed call, summed by stack. */
static int folded_thread(struct stream *m, struct table *t, char **path, size_t *cap,
			 struct walk_hits *hits)
{
	char buf[32];
	size_t len = strlen(m->t->comm), k;

	if (*cap < len + 1 && !(*path = realloc(*path, *cap = len + 4096)))
		return -ENOMEM;
	memcpy(*path, m->t->comm, len + 1);
	for (; m->has_ev; walk_advance(m)) {
		struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY) {
			const char *name = psr_site_name(m->p, e->id, e->tsc, buf, sizeof(buf));
			size_t nl = strlen(name);

			if (len + nl + 2 > *cap && !(*path = realloc(*path, *cap = 2 * (len + nl + 2))))
				return -ENOMEM;
			if (walk_push(m, e->id, e->tsc, len))
				return -ENOMEM;
			(*path)[len] = ';';
			memcpy(*path + len + 1, name, nl + 1);
			len += nl + 1;
		} else if (e->type == PSR_EXIT && (k = walk_match(m, e->id))) {
			while (m->depth >= k) {
				struct frame *fr = &m->stack[--m->depth];
				uint64_t d = walk_dur(m->p, fr->tsc, e->tsc);
				struct entry *x = table_lookup(t, *path, 0);

				if (!x)
					return -ENOMEM;
				x->self += d > fr->child_ns ? d - fr->child_ns : 0;
				if (m->depth)
					m->stack[m->depth - 1].child_ns += d;
				len = fr->path_len;
				(*path)[len] = 0;
			}
		} else if (e->type == PSR_FUNC) {
			walk_hits_count(hits, m->p, e);
		}
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->key, ((const struct entry *)b)->key);
}

struct folded_walk {
	struct table t;
	char *path;
	size_t cap;
	struct walk_hits hits;
};

static int folded_one(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct folded_walk *w = arg;

	(void)p;
	return folded_thread(m, &w->t, &w->path, &w->cap, &w->hits);
}

int render_folded(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	static struct folded_walk w;	/* its name cache is large for the stack */
	struct table *t;
	size_t n;
	int err;

	memset(&w, 0, sizeof(w));
	w.hits.what = "folded stacks";
	err = walk_each_thread(s, o, folded_one, &w);
	walk_hits_say(&w.hits);
	t = &w.t;
	free(w.path);
	n = table_pack(t);
	if (n)
		qsort(t->e, n, sizeof(*t->e), cmp_key);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %llu\n", t->e[i].key,
			(unsigned long long)(t->e[i].self ? t->e[i].self : 1));
	table_free(t);
	return err;
}
