// SPDX-License-Identifier: GPL-2.0-only
/* The memory file and the counting diagnostic sink of the fuzz harnesses. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common.h"
#include "diag.h"

unsigned fuzz_errors, fuzz_warnings;

static int memfd = -1;
static char mempath[64];
static char scratch[256];

static void count(enum diag_level level, const char *file, const char *msg)
{
	(void)file;
	(void)msg;
	if (level == DIAG_ERROR)
		fuzz_errors++;
	else if (level == DIAG_WARNING)
		fuzz_warnings++;
}

static void cleanup(void)
{
	char cmd[300];

	if (scratch[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
		if (system(cmd))
			fprintf(stderr, "fuzz: cannot remove %s\n", scratch);
	}
}

void fuzz_init_sink(void)
{
	diag_set_sink(count);
}

void fuzz_init(void)
{
	if (memfd >= 0)
		return;
	fuzz_init_sink();
	memfd = memfd_create("fuzz-input", MFD_CLOEXEC);
	if (memfd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(mempath, sizeof(mempath), "/proc/self/fd/%d", memfd);
}

const char *fuzz_input(const uint8_t *data, size_t size)
{
	size_t off = 0;

	fuzz_init();
	fuzz_errors = fuzz_warnings = 0;
	if (ftruncate(memfd, 0))
		abort();
	while (off < size) {
		ssize_t n = pwrite(memfd, data + off, size - off, (off_t)off);

		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	return mempath;
}

const char *fuzz_scratch(const char *name)
{
	static char path[512];

	if (!scratch[0]) {
		const char *base = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";

		snprintf(scratch, sizeof(scratch), "%s/fuzz.XXXXXX", base);
		if (!mkdtemp(scratch))
			abort();
		atexit(cleanup);
	}
	snprintf(path, sizeof(path), "%s/%s", scratch, name);
	return path;
}
