/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A call tree aggregated by path: one node per distinct path of calls (its
 * name under its parent's), not per call.  report --graph (graph.c) and
 * dump --flamegraph (flame.c) build one over the walk; a frame of the walk
 * holds its node in frame.path_len.
 */
#ifndef PS_RENDER_TREE_H
#define PS_RENDER_TREE_H

#include <stddef.h>
#include <stdint.h>

#define TREE_NONE SIZE_MAX

struct tree_node {
	char *name;			/* NULL for the root */
	char *src;			/* graph --srcline: its function's FILE:LINE, or NULL */
	size_t parent, child, next;	/* first child, next sibling: indexes, or TREE_NONE */
	uint64_t calls, total, self, min, max;
};

struct tree {
	struct tree_node *n;		/* n[0]: the root */
	size_t len, cap;
};

/* An empty tree (only the root): 0 or -ENOMEM. */
int tree_init(struct tree *t);
void tree_free(struct tree *t);
/* The child of parent named name, made when new (min UINT64_MAX); TREE_NONE when out of memory. */
size_t tree_child(struct tree *t, size_t parent, const char *name);
/*
 * The children of node, sorted by cmp (qsort_r's, given t->n), in a new
 * array (*nkids of them; NULL with none, or when out of memory: *nkids is
 * then SIZE_MAX).
 */
size_t *tree_kids(const struct tree *t, size_t node, size_t *nkids,
		  int (*cmp)(const void *, const void *, void *));

#endif
