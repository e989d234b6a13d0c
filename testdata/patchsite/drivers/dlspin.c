// SPDX-License-Identifier: GPL-2.0-only
/*
 * A library's code running in another thread while the runtime NOPs its
 * sites (linked with libpatchsite.a).  Usage: dlspin LIBRARY ROUNDS
 * LIBRARY (testdata/patchsite/libspin.c) starts, from its constructor, a
 * thread that calls spin_mid -> spin_leaf in a loop, so the thread is in
 * that code while our dlopen writes int3, the tail and the NOP on each
 * site (ps_patch_late): a thread reaching a site then traps and the
 * SIGTRAP handler emulates it.  Each round: dlopen, spin_stop (1000 more
 * calls, stop, join), dlclose.
 *   A. ROUNDS rounds, no ops wants the library: its sites are only NOPed.
 *   B. ROUNDS rounds with an ops whose pending filter 'spin_*:mod:<lib>'
 *      wants them: NOPed, then patched to calls, while the thread runs.
 * Oracles: the process does not crash (run.sh checks the exit status);
 * every result the library computes is checked there (3x + 1);
 * in B, the 1000 calls made after dlopen returned are all traced, so at
 * least 2 x 999 callbacks per round (the call in flight at dlopen's
 * return may be missed), and at most 2 per call plus spin_stop's own
 * (spin_* matches it too); afterwards no site of the library is left.
 * Whether a thread hits a site in the few microseconds it is being
 * changed is up to the scheduler: traps_emulated is printed (INFO), not
 * asserted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int failures;

/* ROUNDS times dlopen, let the thread make 1000 more calls, stop it, dlclose; false on an error. */
static bool rounds_of(const char *lib, long rounds, long *calls)
{
	for (long r = 0; r < rounds; r++) {
		void *h = dlopen(lib, RTLD_NOW);
		long (*stop)(long) = h ? (long (*)(long))dlsym(h, "spin_stop") : NULL;
		long n;

		if (!stop) {
			printf("FAIL dlopen %s: %s\n", lib, dlerror());
			return false;
		}
		n = stop(1000);
		if (n < 1100) {		/* 100 before dlopen returned, 1000 after */
			printf("FAIL round %ld: spin_stop returned %ld\n", r, n);
			return false;
		}
		*calls += n;
		if (dlclose(h)) {
			printf("FAIL dlclose: %s\n", dlerror());
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	const char *lib = argc > 1 ? argv[1] : "./libspin-pie.so", *base = strrchr(lib, '/');
	long rounds = argc > 2 ? atol(argv[2]) : 200, calls = 0;
	unsigned long sites0 = patchsite_stat("sites"), traps_a, traps_b;
	struct patchsite_ops ops = { .func = count };
	char filter[256];

	snprintf(filter, sizeof(filter), "spin_*:mod:%s", base ? base + 1 : lib);

	CHECK(patchsite_tracing_on() == 0, "tracing on");
	CHECK(rounds_of(lib, rounds, &calls), "A: %ld rounds of dlopen while the library's "
	      "constructor thread calls it, sites only NOPed: %ld calls, results right",
	      rounds, calls);
	traps_a = patchsite_stat("traps_emulated");
	CHECK(patchsite_stat("sites") == sites0, "A: %lu sites after dlclose, as at start (%lu)",
	      patchsite_stat("sites"), sites0);

	CHECK(patchsite_set_filter(&ops, filter, 1) == 0, "B: filter '%s' (pending)", filter);
	CHECK(patchsite_register_function(&ops) == 0, "B: ops registered");
	calls = 0;
	atomic_store(&hits, 0);
	CHECK(rounds_of(lib, rounds, &calls), "B: %ld rounds, sites NOPed then enabled while the "
	      "thread runs: %ld calls, results right", rounds, calls);
	CHECK(hits >= 2 * 999 * rounds && hits <= 2 * calls + rounds, "B: %ld callbacks, at least "
	      "2 x 999 per round, at most 2 per call (%ld calls) and 1 per spin_stop", (long)hits,
	      calls);
	CHECK(patchsite_unregister_function(&ops) == 0, "B: ops unregistered");
	patchsite_ops_release(&ops);
	traps_b = patchsite_stat("traps_emulated") - traps_a;
	CHECK(patchsite_stat("sites") == sites0, "B: %lu sites after dlclose, as at start (%lu)",
	      patchsite_stat("sites"), sites0);
	printf("INFO dlspin: traps emulated: %lu while only NOPing (A), %lu while NOPing and "
	       "enabling (B), %lu retried, in %ld rounds each\n", traps_a, traps_b,
	       patchsite_stat("traps_retried"), rounds);
	return failures != 0;
}
