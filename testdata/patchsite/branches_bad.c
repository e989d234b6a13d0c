// SPDX-License-Identifier: GPL-2.0-only
/*
 * Planted defects in the branch counters' section (tests/patchsite/branches.sh):
 *   -DBAD_ENTRY: one good counter, then an entry of another layout (gcc 12
 *                emits main's counter first: the test expects entry 1 bad);
 *   -DBAD_SIZE:  a section whose size is not a whole number of counters;
 *   -DBAD_REF:   a reference to something that is not a counter.
 * The runtime must refuse what it cannot read, by name, and keep the rest.
 */
#include <stdio.h>

#include "patchsite_branch.h"

#ifdef BAD_ENTRY
static struct patchsite_branch bad __attribute__((section("patchsite_branches"), aligned(8), used)) =
	{ "f", "x.c", 1, 0, PATCHSITE_BRANCH_ABI + 1, 0, 0 };
#endif
#ifdef BAD_REF
/* A reference (patchsite_branch_refs, as g++ builds list) to something that is no counter. */
static char junk[48] __attribute__((aligned(8), used)) = "not a counter";
__asm__(".pushsection patchsite_branch_refs,\"aw\"\n\t.balign 8\n\t.quad junk\n\t.popsection");
#endif
#ifdef BAD_SIZE
static char odd[12] __attribute__((section("patchsite_branches"), aligned(8), used));
#endif

int main(int argc, char **argv)
{
	(void)argv;
	if (patchsite_likely(argc > 0))		/* GOOD_LINE */
		puts("ok");
	return 0;
}
