// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where libpatchsite.so is, for record (preloaded into CMD) and record -p
 * (loaded into a running process): $PATCHSITE_LIB, else next to this
 * program (the build tree), else in ../lib (an installed tree).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime_path.h"

int runtime_path(char *buf, size_t len, bool absolute)
{
	char exe[PATH_MAX - 64], *slash;
	const char *env = getenv("PATCHSITE_LIB");
	ssize_t n;

	if (env && *env && absolute)
		return realpath(env, buf) ? 0 : -errno;
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return access(buf, R_OK) ? -errno : 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	snprintf(buf, len, "%s/libpatchsite.so", exe);
	if (!access(buf, R_OK))
		return 0;
	snprintf(buf, len, "%s/../lib/libpatchsite.so", exe);
	return access(buf, R_OK) ? -ENOENT : 0;
}
