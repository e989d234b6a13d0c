// SPDX-License-Identifier: GPL-2.0-only
/*
 * Uses up a process's static TLS surplus, for tests/patchsite/attach.sh:
 * preloaded (LD_PRELOAD), its constructor dlopens FILL_DIR/fillK.so, each
 * with 2^K bytes of initial-exec TLS, which glibc can only place in the
 * static TLS block's surplus (the room a dlopened runtime gets too).
 *   FILL_PROBE=1     dlopen each size once, largest first, as long as it
 *                    fits: "fill N" on stderr, the bytes that fitted
 *   FILL_BYTES=N     dlopen the sizes whose sum is N (N's binary digits)
 *   FILL_THEN=A:B    then dlopen A, B...: "A: ok" or "A: " and dlerror()
 * (FILL_DIR's files are made by the test: 2^K-byte __thread arrays, K 5..11.)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fill(const char *dir, int k)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/fill%d.so", dir, k);
	return dlopen(path, RTLD_NOW) ? 0 : -1;
}

__attribute__((constructor)) static void tlsfill(void)
{
	const char *dir = getenv("FILL_DIR"), *bytes = getenv("FILL_BYTES");
	const char *then = getenv("FILL_THEN");
	long n = bytes ? atol(bytes) : 0, total = 0;

	if (!dir)
		return;
	for (int k = 11; k >= 5; k--) {
		if (getenv("FILL_PROBE") && !fill(dir, k))
			total += 1L << k;
		else if (!getenv("FILL_PROBE") && (n >> k & 1) && fill(dir, k))
			fprintf(stderr, "tlsfill: fill%d.so did not fit: %s\n", k, dlerror());
	}
	if (getenv("FILL_PROBE"))
		fprintf(stderr, "fill %ld\n", total);
	for (char *p = then ? strdup(then) : NULL, *s; p && (s = strsep(&p, ":"));)
		fprintf(stderr, "%s: %s\n", s, dlopen(s, RTLD_NOW) ? "ok" : dlerror());
}
