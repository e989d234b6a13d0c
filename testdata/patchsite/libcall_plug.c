// SPDX-License-Identifier: GPL-2.0-only
/*
 * A plugin for tests/patchsite/libcall_dl.sh: plug_work() makes library
 * calls of its own (the program never calls strtol, strlen or memset), so
 * that the ones counted are the plugin's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long plug_work(long i)
{
	char *buf = malloc(32);
	long v;

	if (!buf)
		return -1;
	memset(buf, 0, 32);
	snprintf(buf, 32, "%ld", i * 7);
	v = strtol(buf, NULL, 10) + (long)strlen(buf);
	free(buf);
	return v;
}
