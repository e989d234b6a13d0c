// SPDX-License-Identifier: GPL-2.0-only
/*
 * gprof's start-up in a program linked with -pg.  gcrt1.o's __gmon_start__
 * calls __monstartup (which starts profil()'s SIGPROF sampling) and
 * registers _mcleanup, which writes gmon.out at exit.  Once the runtime
 * owns a process's sites (start-up NOPed them; a tracer calls our stubs),
 * gprof's mcount never runs and its gmon.out would hold no call graph,
 * only samples of a process we slow down; so, as uftrace's libmcount does,
 * neither runs: these two interpose on glibc's (the version script exports
 * them with glibc's version).  A process where the runtime owns no site
 * (it did not start, or found none) gets glibc's, through dlsym(RTLD_NEXT):
 * it behaves as if we were not there.
 *
 * __gmon_start__ is called by the _init of every object built with glibc's
 * crti, the first of them (a sanitizer's runtime, the C library's
 * neighbours) before our constructor and before the runtime may start:
 * the question is then put off until our constructor (ps_gprof_started),
 * which answers it once the runtime is up.
 */
#include <dlfcn.h>
#include <stdatomic.h>

#include "internal.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT void __monstartup(unsigned long lowpc, unsigned long highpc);
EXPORT void _mcleanup(void);

static atomic_bool gprof_runs;	/* glibc's __monstartup was called: its _mcleanup runs too */

/* Does the runtime own any site of this process? */
static bool owns_sites(void)
{
	bool owns = false;

	if (patchsite_init() < 0)
		return false;
	pthread_mutex_lock(&ps.lock);
	for (unsigned i = 0; i < ps.nmods && !owns; i++)
		for (size_t j = 0; j < ps.mods[i]->nsites && !owns; j++)
			owns = ps.mods[i]->sites[j].state != SITE_REFUSED;
	pthread_mutex_unlock(&ps.lock);
	return owns;
}

static bool started, pending;		/* under the loader's lock: start-up is one thread */
static unsigned long pending_lo, pending_hi;

static void decide(unsigned long lowpc, unsigned long highpc)
{
	void (*real)(unsigned long, unsigned long);

	if (owns_sites()) {
		ps_log(PATCHSITE_LOG_NOTE, "linked with -pg: gprof's start-up skipped while traced "
		       "(no profil() sampling, no gmon.out)");
		return;
	}
	real = (void (*)(unsigned long, unsigned long))dlsym(RTLD_NEXT, "__monstartup");
	if (real) {
		atomic_store(&gprof_runs, true);
		real(lowpc, highpc);
	}
}

EXPORT void __monstartup(unsigned long lowpc, unsigned long highpc)
{
	if (!started) {
		pending = true;
		pending_lo = lowpc;
		pending_hi = highpc;
		return;
	}
	decide(lowpc, highpc);
}

/* Our constructor, the runtime started: the question put off, answered now. */
void ps_gprof_started(void)
{
	started = true;
	if (pending) {
		pending = false;
		decide(pending_lo, pending_hi);
	}
}

EXPORT void _mcleanup(void)
{
	void (*real)(void);

	if (!atomic_load(&gprof_runs))
		return;
	real = (void (*)(void))dlsym(RTLD_NEXT, "_mcleanup");
	if (real)
		real();
}
