// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime loaded into a process that already runs.
 *
 * `patchsite record -p PID` and `patchsite ctl PID` load libpatchsite.so
 * into a process started without it (patchsite/cmd/attach.c): a thread
 * they create in it, named PS_ATTACH_THREAD, calls dlopen, and our
 * constructor runs on that thread while the program's threads go on
 * calling the functions whose sites it is about to change.  A program may
 * also dlopen the runtime itself once it has threads.  Either way the
 * start-up plain stores (ps_patch_startup, "one thread, nothing else runs
 * the code yet") would be wrong: a thread may be executing a site while
 * its bytes change.  Start-up then takes ps_patch_late, the breakpoint
 * protocol used for objects dlopened after start-up, for every object.
 *
 * How "late" is told: the thread's name, which the injector sets before
 * dlopen (no guess: we chose it), or more than one thread in the process
 * (/proc/self/status "Threads:"): nothing but the late path is safe then,
 * whoever loaded us.  A preloaded or linked runtime starts before main(),
 * on the only thread, and keeps the plain stores.  Objects whose sites are
 * several one-byte NOPs are not rewritten then (ps_attach_patch).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "internal.h"
#include "sites/late.h"

/* The process's thread count, from /proc/self/status; 0 when unreadable. */
static long threads(void)
{
	char line[256];
	long n = 0;
	FILE *f = fopen("/proc/self/status", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %ld", &n) == 1)
			break;
	if (f)
		fclose(f);
	return n;
}

bool ps_attach_late(void)
{
	char name[17] = "";

	if (!prctl(PR_GET_NAME, name, 0, 0, 0) && !strcmp(name, PS_ATTACH_THREAD))
		return true;
	return threads() > 1;
}

/*
 * Start-up NOPs, late: ps_patch_late for each object, but for an object
 * whose sites are one-byte NOPs (gcc's -fpatchable-function-entry=5 on
 * x86-64: 90 90 90 90 90).  A thread of the running program may be
 * between two of them, preempted there for milliseconds; rewriting the
 * tail under it makes it execute half an instruction (SIGILL: attach.sh
 * saw it).  At start-up no thread is there, and later changes rewrite our
 * own one-instruction NOP; attached late, such an object is left as built
 * (its NOPs do nothing) and not traced, said once.  clang's form (one
 * 5-byte NOP) and the call/NOP forms of -pg are one instruction: changed.
 */
int ps_attach_patch(struct ps_module *m)
{
	for (size_t i = 0; i < m->nsites; i++) {
		struct site_insn in;

		if (!ps_module_has_code(m, m->sites[i].addr, ps.arch->max_site_len + 4))
			continue;
		ps.arch->decode_site((const uint8_t *)m->sites[i].addr, m->sites[i].addr, &in);
		if (in.form != FORM_NOP_BYTES)
			continue;
		ps_log(PATCHSITE_LOG_WARNING, "%s: its sites are one-byte NOPs "
		       "(-fpatchable-function-entry): loaded into the running process, the runtime "
		       "cannot rewrite them while a thread may be between two of them: not traced "
		       "(preload libpatchsite, or build with -pg -mfentry -mrecord-mcount)", m->name);
		for (size_t j = 0; j < m->nsites; j++)
			m->sites[j].state = SITE_REFUSED;
		return 0;
	}
	return ps_patch_late(m);
}
