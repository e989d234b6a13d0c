// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump --graphviz and dump --mermaid: the aggregated call tree (tree.h) as
 * a graph to draw, as uftrace's dump draws it (issue 42).  Under each
 * program's name (its executable's base name; processes of one name are
 * merged, as threads are), every distinct path of calls is one node, and
 * the edge into it carries its calls: the calls entered, whether or not
 * they returned (uftrace's count), less the calls a forked child inherits
 * open from its parent (those are counted in the parent).
 *
 * DOT names a node by its function, so a function called from two places
 * is one node with an edge from each path (uftrace's graph: mid -> leaf
 * twice, with each path's calls).  Mermaid's flowchart keeps the tree, a
 * node per path, as uftrace's does.  Edges come in the order their paths
 * were first entered: the nodes' order in the tree, so no recursion.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tree.h"
#include "walk.h"

#define NONE TREE_NONE

struct callgraph {
	struct tree t;		/* t.n[0]: above the programs; its children: the programs */
	int err;
	struct walk_hits hits;
};

/* A program's name: its executable's base name, as uftrace names the graph's root. */
static const char *program_name(const struct psr_proc *p)
{
	const char *exe = p->exe && *p->exe ? p->exe : p->name, *slash = strrchr(exe, '/');

	return slash && slash[1] ? slash + 1 : exe;
}

static int callgraph_thread(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct callgraph *g = arg;
	size_t root = tree_child(&g->t, 0, program_name(p)), k;
	char buf[48];

	if (root == NONE)
		return g->err = -ENOMEM;
	for (; m->has_ev; walk_advance(m)) {
		const struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY) {
			size_t up = m->depth ? m->stack[m->depth - 1].path_len : root;
			size_t node = tree_child(&g->t, up, psr_site_name(p, e->id, e->tsc, buf,
									  sizeof(buf)));

			if (node == NONE || walk_push(m, e->id, e->tsc, node))
				return g->err = -ENOMEM;
			if (!m->ev_at.inherited)
				g->t.n[node].calls++;
		} else if (e->type == PSR_EXIT && (k = walk_match(m, e->id))) {
			m->depth = k - 1;
		} else if (e->type == PSR_FUNC) {
			walk_hits_count(&g->hits, p, e);
		}
	}
	return 0;
}

/* A DOT string's text: '"' and '\' escaped (a node's label is its name: \N), no controls. */
static void dot_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
	}
	fputc('"', f);
}

/*
 * A mermaid label's text, quoted: its entity codes for what the flowchart's
 * syntax or its HTML labels would read otherwise (C++ names hold <, > and ").
 */
static void mermaid_text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		switch (*s) {
		case '"': fputs("#quot;", f); break;
		case '#': fputs("#35;", f); break;
		case '<': fputs("#lt;", f); break;
		case '>': fputs("#gt;", f); break;
		case '&': fputs("#amp;", f); break;
		default: fputc((unsigned char)*s < 0x20 ? '?' : *s, f);
		}
	}
	fputc('"', f);
}

static int callgraph_build(struct callgraph *g, const struct psr_session *s,
			   const struct render_opts *o)
{
	int err;

	memset(g, 0, sizeof(*g));
	g->hits.what = "call graph";
	err = tree_init(&g->t);
	if (err)
		return err;
	/* Every program shown is a node, in the session's order, even with no thread read. */
	for (size_t i = 0; i < s->nprocs; i++)
		if (render_proc_wanted(&s->procs[i], o) &&
		    tree_child(&g->t, 0, program_name(&s->procs[i])) == NONE)
			return -ENOMEM;
	err = walk_each_thread(s, o, callgraph_thread, g);
	walk_hits_say(&g->hits);
	return err ? err : g->err;
}

int render_graphviz(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct callgraph g;
	int err = callgraph_build(&g, s, o);
	/* The graph's name: the first program's (the children are prepended). */
	size_t first = NONE;

	for (size_t c = g.t.n[0].child; c != NONE; c = g.t.n[c].next)
		first = c;
	if (!err) {
		fputs("digraph ", out);
		dot_text(out, first != NONE ? g.t.n[first].name : "patchsite");
		fputs(" {\n", out);
		for (size_t i = 1; i < g.t.len; i++) {
			const struct tree_node *n = &g.t.n[i];

			if (!n->parent)
				continue;	/* a program: a node, no edge */
			fputs("\t", out);
			dot_text(out, g.t.n[n->parent].name);
			fputs(" -> ", out);
			dot_text(out, n->name);
			fprintf(out, " [xlabel = \"%llu\"]\n", (unsigned long long)n->calls);
		}
		fputs("}\n", out);
	}
	tree_free(&g.t);
	return err;
}

int render_mermaid(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct callgraph g;
	int err = callgraph_build(&g, s, o);

	if (!err) {
		fputs("flowchart TB\n", out);
		for (size_t i = 1; i < g.t.len; i++) {
			const struct tree_node *n = &g.t.n[i];

			if (!n->parent) {	/* a program: a node, no edge */
				fprintf(out, "\tn%zu[", i);
				mermaid_text(out, n->name);
				fputs("]\n", out);
				continue;
			}
			fprintf(out, "\tn%zu -->|%llu| n%zu[", n->parent,
				(unsigned long long)n->calls, i);
			mermaid_text(out, n->name);
			fputs("]\n", out);
		}
	}
	tree_free(&g.t);
	return err;
}
