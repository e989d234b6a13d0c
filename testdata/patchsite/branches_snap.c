// SPDX-License-Identifier: GPL-2.0-only
/*
 * ps_branches_write on demand (what a snapshot calls), with libpatchsite
 * linked in (build/patchsite.o: its hidden symbols link statically):
 *   branches_snap N
 * runs patchsite_likely(i % 4 != 0) over i < N (SNAP_LINE), writes the
 * counts, prints the branches file as it is then and ps_branches_write's
 * result, then runs the loop again; at exit the file holds both loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "patchsite_branch.h"

int ps_branches_write(void);

static long loop(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		if (patchsite_likely(i % 4 != 0))	/* SNAP_LINE */
			s += i;
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, s;
	const char *dir = getenv("PATCHSITE_DATA");
	char path[4200], line[512];
	FILE *f;
	int err;

	s = loop(n);
	err = ps_branches_write();
	printf("write %d\n", err);
	snprintf(path, sizeof(path), "%s/%d/branches", dir ? dir : "patchsite.data", (int)getpid());
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		printf("snap %s", line);
	if (f)
		fclose(f);
	s += loop(n);
	printf("sum=%ld\n", s);
	return 0;
}
