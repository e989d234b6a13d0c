// SPDX-License-Identifier: GPL-2.0-only
/*
 * report --graph[=FUNC]: the aggregated call tree, as uftrace's `graph`
 * (issue #28).  Every distinct path of calls is one node with its calls,
 * total, self, min and max; the threads and processes shown are merged.
 * With FUNC, the tree is rooted at FUNC: the calls of FUNC not made inside
 * another call of FUNC, merged, so that the root's total and calls are
 * report's total for FUNC (report counts a recursive function's outermost
 * calls in its total) and its outermost calls.
 *
 * Memory is one node per distinct path, not per call; a frame of the walk
 * holds its node in frame.path_len (what folded stacks keep there).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tree.h"
#include "walk.h"

#define NONE TREE_NONE
/* The printers recurse: deeper paths are cut, and the cut said (text and JSON). */
#define GRAPH_MAX_DEPTH 4000

struct graph {
	struct tree t;		/* t.n[0]: the root above every thread's outermost calls */
	const char *func;	/* --graph=FUNC, or NULL */
	psr_srcline_fn srcline;	/* --srcline, or NULL */
	int err;
	struct walk_hits hits;	/* the function tracer's, said on stderr */
};

/* The open calls an exit at depth k closes, innermost first. */
static void graph_close(struct graph *g, struct stream *m, size_t k, uint64_t tsc)
{
	while (m->depth >= k) {
		struct frame *fr = &m->stack[--m->depth];
		uint64_t d = walk_dur(m->p, fr->tsc, tsc);
		struct tree_node *n;

		if (m->depth)
			m->stack[m->depth - 1].child_ns += d;
		if (fr->path_len == NONE)
			continue;	/* outside every call of FUNC */
		n = &g->t.n[fr->path_len];
		n->calls++;
		n->total += d;
		n->self += d > fr->child_ns ? d - fr->child_ns : 0;
		n->min = d < n->min ? d : n->min;
		n->max = d > n->max ? d : n->max;
	}
}

/* --srcline: a node's FILE:LINE, from its first call's function ("" when not known). */
static int node_src(struct graph *g, const struct psr_proc *p, size_t node,
		    const struct psr_event *e)
{
	char where[4096];
	const char *s = g->srcline(p, e->id, e->tsc, where, sizeof(where));

	g->t.n[node].src = strdup(s ? s : "");
	return g->t.n[node].src ? 0 : -ENOMEM;
}

static int graph_thread(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct graph *g = arg;
	char buf[48];
	size_t k;

	for (; m->has_ev && !g->err; walk_advance(m)) {
		struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY) {
			const char *name = psr_site_name(p, e->id, e->tsc, buf, sizeof(buf));
			size_t up = m->depth ? m->stack[m->depth - 1].path_len : 0, node = NONE;

			if (up != NONE && (!g->func || up != 0 || !strcmp(name, g->func))) {
				node = tree_child(&g->t, up, name);
				if (node == NONE) {
					g->err = -ENOMEM;
					break;
				}
			} else if (g->func && !strcmp(name, g->func)) {
				node = tree_child(&g->t, 0, name);	/* FUNC inside no FUNC: a root */
				if (node == NONE) {
					g->err = -ENOMEM;
					break;
				}
			}
			if (node != NONE && g->srcline && !g->t.n[node].src)
				g->err = node_src(g, p, node, e);
			if (walk_push(m, e->id, e->tsc, node))
				g->err = -ENOMEM;
		} else if (e->type == PSR_EXIT && (k = walk_match(m, e->id))) {
			graph_close(g, m, k, e->tsc);
		} else if (e->type == PSR_FUNC) {
			walk_hits_count(&g->hits, p, e);
		}
	}
	return g->err;
}

/* A time in 10 columns: ns, us, ms or s with 3 decimals. */
static void graph_time(FILE *f, uint64_t ns)
{
	if (ns >= 1000000000u)
		fprintf(f, " %8.3f s", (double)ns / 1e9);
	else if (ns >= 1000000u)
		fprintf(f, " %7.3f ms", (double)ns / 1e6);
	else if (ns >= 1000u)
		fprintf(f, " %7.3f us", (double)ns / 1e3);
	else
		fprintf(f, " %7llu ns", (unsigned long long)ns);
}

static int by_total(const void *a, const void *b, void *arg)
{
	const struct tree_node *n = arg;
	const struct tree_node *x = &n[*(const size_t *)a], *y = &n[*(const size_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The tree under node at depth, children by total time: uftrace's "+-"
 * for a child, "| " where the parent has more children below.
 */
static int graph_print(FILE *out, const struct graph *g, size_t node, char *indent, size_t ilen,
		       size_t cap, unsigned depth)
{
	size_t nc = 0, *kids;

	if (depth >= GRAPH_MAX_DEPTH && g->t.n[node].child != NONE) {
		fprintf(out, "%*s : %.*s[paths deeper than %u calls cut]\n", 65, "", (int)ilen, indent,
			GRAPH_MAX_DEPTH);
		return 0;
	}

	kids = tree_kids(&g->t, node, &nc, by_total);
	if (!kids)
		return nc ? -ENOMEM : 0;
	for (size_t i = 0; i < nc; i++) {
		const struct tree_node *n = &g->t.n[kids[i]];

		graph_time(out, n->total);
		graph_time(out, n->self);
		fprintf(out, " %10llu", (unsigned long long)n->calls);
		graph_time(out, n->calls ? n->total / n->calls : 0);
		graph_time(out, n->calls ? n->min : 0);
		graph_time(out, n->max);
		fprintf(out, " : %.*s%s%s", (int)ilen, indent, node ? "+-" : "", n->name);
		if (n->src && n->src[0])
			fprintf(out, " [%s]", n->src);	/* uftrace graph --srcline's form */
		fputc('\n', out);
		size_t in = ilen;

		if (node && ilen + 2 < cap) {	/* beyond the buffer: the same indentation */
			memcpy(indent + ilen, i + 1 < nc ? "| " : "  ", 2);
			in += 2;
		}
		if (graph_print(out, g, kids[i], indent, in, cap, depth + 1))
			goto fail;
	}
	free(kids);
	return 0;
fail:
	free(kids);
	return -ENOMEM;
}

/* --json: the tree as nested objects, children by total time. */
static int graph_json(FILE *out, const struct graph *g, size_t node, unsigned depth)
{
	size_t nc = 0, *kids;

	if (depth >= GRAPH_MAX_DEPTH && g->t.n[node].child != NONE) {
		fprintf(out, "[],\"cut\":true");
		return 0;
	}

	kids = tree_kids(&g->t, node, &nc, by_total);
	if (!kids && nc)
		return -ENOMEM;
	fprintf(out, "[");
	for (size_t i = 0; i < nc; i++) {
		const struct tree_node *n = &g->t.n[kids[i]];

		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_str(out, n->name);
		fprintf(out, ",\"calls\":%llu,\"total_ns\":%llu,\"self_ns\":%llu,\"min_ns\":%llu,"
			"\"max_ns\":%llu,\"children\":", (unsigned long long)n->calls,
			(unsigned long long)n->total, (unsigned long long)n->self,
			(unsigned long long)(n->calls ? n->min : 0), (unsigned long long)n->max);
		if (graph_json(out, g, kids[i], depth + 1)) {
			free(kids);
			return -ENOMEM;
		}
		fprintf(out, "}");
	}
	fprintf(out, "]");
	free(kids);
	return 0;
}

int render_graph(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct graph g = { .func = o->graph_func, .srcline = o->srcline,
			   .hits.what = "call graph" };
	static char indent[4096];
	int err;

	if (tree_init(&g.t))
		return -ENOMEM;
	err = walk_each_thread(s, o, graph_thread, &g);
	walk_hits_say(&g.hits);
	if (!err && g.func && g.t.n[0].child == NONE)
		err = -ENOENT;
	if (!err && o->json) {
		err = graph_json(out, &g, 0, 0);
		fprintf(out, "\n");
	} else if (!err) {
		for (size_t i = 0; i < s->nprocs; i++)
			if (render_proc_wanted(&s->procs[i], o))
				walk_losses(out, &s->procs[i], "# ", o->bare);
		fprintf(out, "# call graph%s%s%s: completed calls, every thread merged\n",
			g.func ? " of " : "", g.func ? g.func : "",
			g.func ? " (its calls made inside no other call of it)" : "");
		fprintf(out, "#  Total time  Self time      Calls    Average        Min        Max"
			" : Function%s\n", g.srcline ? " [source]" : "");
		err = graph_print(out, &g, 0, indent, 0, sizeof(indent), 0);
	}
	tree_free(&g.t);
	return err;
}
