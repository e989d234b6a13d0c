// SPDX-License-Identifier: GPL-2.0-only
/*
 * Section groups (SHT_GROUP, COMDAT): which group a section belongs to, and
 * adding new sections to a group.  A table entry for code in a COMDAT group
 * must live in that group too: when the linker keeps another object's copy
 * of the group it discards this one, and an entry outside the group would
 * then point into a discarded section, which ld refuses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "elfobj_priv.h"

/* The members of group section g as host words (flags first), or NULL. */
static struct eo_group *group_words(struct elfobj *o, size_t g)
{
	const uint8_t *p = elfobj_sec_bytes(o, g);
	struct eo_group *grp;
	size_t i, n = p ? o->secs[g].size / 4 : 0;

	for (i = 0; i < o->ngroups; i++)
		if (o->groups[i].sec == g)
			return &o->groups[i];
	if (!n)
		return NULL;
	grp = realloc(o->groups, (o->ngroups + 1) * sizeof(*grp));
	if (!grp)
		return NULL;
	o->groups = grp;
	grp = &grp[o->ngroups];
	*grp = (struct eo_group){ .sec = g, .n = n, .words = malloc(n * 4) };
	if (!grp->words)
		return NULL;
	for (i = 0; i < n; i++)
		grp->words[i] = get32(p + 4 * i, o->hdr.big_endian);
	o->ngroups++;
	return grp;
}

/* group_of[i]: the group section holding section i, 0 for none. */
static int map_groups(struct elfobj *o)
{
	size_t g, i;

	o->group_of = calloc(o->shnum, sizeof(*o->group_of));
	if (!o->group_of)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	for (g = 1; g < o->shnum; g++) {
		struct eo_group *grp;

		if (o->secs[g].type != SHT_GROUP || !(grp = group_words(o, g)))
			continue;
		/* A section claimed twice keeps its first group (ld refuses such files). */
		for (i = 1; i < grp->n; i++)
			if (grp->words[i] && grp->words[i] < o->shnum &&
			    !o->group_of[grp->words[i]])
				o->group_of[grp->words[i]] = (uint32_t)g;
	}
	return 0;
}

size_t elfobj_sec_group(struct elfobj *o, size_t sec)
{
	if (sec >= o->shnum || !(o->secs[sec].flags & SHF_GROUP))
		return 0;
	if (!o->group_of && map_groups(o))
		return 0;
	return o->group_of[sec];
}

int elfobj_group_add(struct elfobj *o, size_t g, size_t member)
{
	struct eo_group *grp = g < o->shnum && o->secs[g].type == SHT_GROUP ? group_words(o, g)
									     : NULL;
	uint32_t *w;

	if (!grp)
		return eo_fail(o, -EINVAL, "%s", "no such section group");
	w = realloc(grp->words, (grp->n + 1) * sizeof(*w));
	if (!w)
		return eo_fail(o, -ENOMEM, "%s", "out of memory");
	w[grp->n++] = (uint32_t)member;
	grp->words = w;
	grp->grown = true;
	return 0;
}
