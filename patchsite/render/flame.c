// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump --flamegraph: an SVG flame graph, no script needed (issue #28), and
 * with --reverse an icicle graph (the root at the top).  What it draws is
 * what dump --folded lists: the self time of every completed call summed by
 * stack, each thread's stacks under its comm, here as a tree whose frames
 * are as wide as the time spent in them and in what they called.  Children
 * are ordered by name, as flamegraph.pl orders them; frames narrower than
 * 0.1 pixel are left out with what is above them (flamegraph.pl's
 * minwidth).  The SVG is static: each frame's <title> holds its name, time
 * and share, which a browser shows on hover.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"
#include "walk.h"

#define NONE		TREE_NONE
#define WIDTH		1200.0
#define FRAME_H		16
#define PAD_TOP		40
#define PAD_SIDE	10.0
#define MIN_WIDTH	0.1	/* pixels */
#define MAX_DEPTH	4000	/* the printer recurses */

struct flame {
	struct tree t;		/* t.n[0]: "all" */
	int err;
	struct walk_hits hits;
};

/* A thread's completed calls: each one's self time to its stack's node (frame.path_len). */
static int flame_thread(struct stream *m, const struct psr_proc *p, void *arg)
{
	struct flame *g = arg;
	size_t comm = tree_child(&g->t, 0, m->t->comm), k;
	char buf[48];

	if (comm == NONE)
		return g->err = -ENOMEM;
	for (; m->has_ev; walk_advance(m)) {
		struct psr_event *e = &m->ev;

		if (e->type == PSR_ENTRY) {
			size_t up = m->depth ? m->stack[m->depth - 1].path_len : comm;
			size_t node = tree_child(&g->t, up, psr_site_name(p, e->id, e->tsc, buf,
								       sizeof(buf)));

			if (node == NONE || walk_push(m, e->id, e->tsc, node))
				return g->err = -ENOMEM;
		} else if (e->type == PSR_EXIT && (k = walk_match(m, e->id))) {
			while (m->depth >= k) {
				struct frame *fr = &m->stack[--m->depth];
				uint64_t d = walk_dur(p, fr->tsc, e->tsc);

				g->t.n[fr->path_len].self += d > fr->child_ns ? d - fr->child_ns : 0;
				if (m->depth)
					m->stack[m->depth - 1].child_ns += d;
			}
		} else if (e->type == PSR_FUNC) {
			walk_hits_count(&g->hits, p, e);
		}
	}
	return 0;
}

static void xml_text(FILE *f, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)s[i] < 0x20)
				fputc('?', f);
			else
				fputc(s[i], f);
		}
	}
}

/* flamegraph.pl's "hot" palette, from the name: the same function, the same colour. */
static void color(const char *name, int *r, int *g, int *b)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	*r = 205 + (int)(h % 50);
	*g = (int)((h >> 8) % 230);
	*b = (int)((h >> 16) % 55);
}

static int by_name(const void *a, const void *b, void *arg)
{
	const struct tree_node *n = arg;

	return strcmp(n[*(const size_t *)a].name, n[*(const size_t *)b].name);
}

struct layout {
	FILE *out;
	const struct flame *g;
	double scale;		/* pixels per ns */
	int height;		/* of the image */
	bool reverse;
};

static int flame_draw(const struct layout *l, size_t node, double x, unsigned depth)
{
	const struct tree_node *n = &l->g->t.n[node];
	double w = (double)n->total * l->scale;
	int y = l->reverse ? PAD_TOP + (int)depth * FRAME_H
			   : l->height - 20 - ((int)depth + 1) * FRAME_H;
	size_t nc = 0, *kids;
	int r, gr, b;
	size_t fit;

	if (w < MIN_WIDTH)
		return 0;
	color(node ? n->name : "all", &r, &gr, &b);
	fprintf(l->out, "<g><title>");
	xml_text(l->out, node ? n->name : "all", SIZE_MAX);
	fprintf(l->out, " (%llu ns, %.2f%%)</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
		"height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>", (unsigned long long)n->total,
		l->g->t.n[0].total ? 100.0 * (double)n->total / (double)l->g->t.n[0].total : 0.0, x, y, w,
		FRAME_H - 1, r, gr, b);
	fit = (size_t)(w / 7.0);	/* 12 px Verdana: about 7 px a character */
	if (fit >= 3) {
		const char *name = node ? n->name : "all";
		size_t len = strlen(name);

		fprintf(l->out, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + FRAME_H - 4);
		xml_text(l->out, name, len <= fit ? len : fit - 2);
		fprintf(l->out, "%s</text>", len <= fit ? "" : "..");
	}
	fprintf(l->out, "</g>\n");
	if (depth >= MAX_DEPTH)
		return 0;
	kids = tree_kids(&l->g->t, node, &nc, by_name);
	if (!kids)
		return nc ? -ENOMEM : 0;
	for (size_t i = 0; i < nc; i++) {
		if (flame_draw(l, kids[i], x, depth + 1)) {
			free(kids);
			return -ENOMEM;
		}
		x += (double)l->g->t.n[kids[i]].total * l->scale;
	}
	free(kids);
	return 0;
}

int render_flamegraph(FILE *out, const struct psr_session *s, const struct render_opts *o)
{
	struct flame g = { .hits.what = "flame graph" };
	unsigned depth = 0;
	int err;

	if (tree_init(&g.t))
		return -ENOMEM;
	err = walk_each_thread(s, o, flame_thread, &g);
	walk_hits_say(&g.hits);
	/* Children come after their parent: one backward pass sums the totals. */
	for (size_t i = g.t.len; i-- > 0;) {
		g.t.n[i].total += g.t.n[i].self;
		if (i)
			g.t.n[g.t.n[i].parent].total += g.t.n[i].total;
	}
	for (size_t i = 1; i < g.t.len; i++) {
		unsigned d = 0;

		for (size_t k = i; k; k = g.t.n[k].parent)
			d++;
		if (d > depth && (double)g.t.n[i].total * (WIDTH - 2 * PAD_SIDE) >=
				 MIN_WIDTH * (double)(g.t.n[0].total ? g.t.n[0].total : 1))
			depth = d;
	}
	if (depth > MAX_DEPTH)
		depth = MAX_DEPTH;
	if (!err) {
		struct layout l = { out, &g, g.t.n[0].total ? (WIDTH - 2 * PAD_SIDE) /
							    (double)g.t.n[0].total : 0,
				    PAD_TOP + ((int)depth + 1) * FRAME_H + 30, o->flame_reverse };

		fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%d\" height=\"%d\" "
			"xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana\" "
			"font-size=\"12\">\n<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" "
			"fill=\"#f8f8f8\"/>\n<text x=\"%d\" y=\"24\" text-anchor=\"middle\" "
			"font-size=\"17\">%s</text>\n", (int)WIDTH, l.height, (int)WIDTH / 2,
			o->flame_reverse ? "Icicle Graph" : "Flame Graph");
		err = flame_draw(&l, 0, PAD_SIDE, 0);
		fprintf(out, "</svg>\n");
	}
	tree_free(&g.t);
	return err;
}
