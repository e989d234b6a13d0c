// SPDX-License-Identifier: GPL-2.0-only
/* The call tree of report --graph and dump --flamegraph (tree.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

int tree_init(struct tree *t)
{
	t->n = calloc(256, sizeof(*t->n));
	if (!t->n)
		return -ENOMEM;
	t->cap = 256;
	t->len = 1;
	t->n[0] = (struct tree_node){ .name = NULL, .parent = TREE_NONE, .child = TREE_NONE,
				      .next = TREE_NONE };
	return 0;
}

void tree_free(struct tree *t)
{
	for (size_t i = 1; i < t->len; i++)
		free(t->n[i].name), free(t->n[i].src);
	free(t->n);
	t->n = NULL;
	t->len = t->cap = 0;
}

size_t tree_child(struct tree *t, size_t parent, const char *name)
{
	size_t c;

	for (c = t->n[parent].child; c != TREE_NONE; c = t->n[c].next)
		if (!strcmp(t->n[c].name, name))
			return c;
	if (t->len == t->cap) {
		size_t cap = t->cap * 2 + 256;
		struct tree_node *n = realloc(t->n, cap * sizeof(*n));

		if (!n)
			return TREE_NONE;
		t->n = n;
		t->cap = cap;
	}
	c = t->len;
	t->n[c] = (struct tree_node){ .name = strdup(name), .parent = parent, .child = TREE_NONE,
				      .next = t->n[parent].child, .min = UINT64_MAX };
	if (!t->n[c].name)
		return TREE_NONE;
	t->len++;
	t->n[parent].child = c;
	return c;
}

size_t *tree_kids(const struct tree *t, size_t node, size_t *nkids,
		  int (*cmp)(const void *, const void *, void *))
{
	size_t nc = 0, *kids;

	*nkids = 0;
	for (size_t c = t->n[node].child; c != TREE_NONE; c = t->n[c].next)
		nc++;
	if (!nc)
		return NULL;
	kids = malloc(nc * sizeof(*kids));
	if (!kids) {
		*nkids = SIZE_MAX;
		return NULL;
	}
	nc = 0;
	for (size_t c = t->n[node].child; c != TREE_NONE; c = t->n[c].next)
		kids[nc++] = c;
	qsort_r(kids, nc, sizeof(*kids), cmp, t->n);
	*nkids = nc;
	return kids;
}
