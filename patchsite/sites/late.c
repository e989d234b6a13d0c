// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtime loaded into a process that already runs.
 *
 * `patchsite record -p PID` and `patchsite ctl PID` load libpatchsite.so
 * into a process started without it (patchsite/cmd/attach/attach.c): a thread
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
 * (/proc/self/status "Threads:") in a runtime the program did not load at
 * start-up (loaded_at_startup): nothing but the late path is safe then.
 * A preloaded or linked runtime starts before main() and keeps the plain
 * stores, whatever threads other start-ups made.  Objects whose sites are
 * still several one-byte NOPs are not rewritten then (ps_attach_patch).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "dyn.h"
#include "sites/site.h"
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

struct startup_scan {
	const char *self;	/* our object's file name */
	uintptr_t addr;		/* an address of our code */
	bool found;
};

/* The last part of a path. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * dl_iterate_phdr, the program only (the first object): are we part of it
 * (patchsite.o linked in), or one of the libraries it names (DT_NEEDED)?
 */
static int in_program(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct startup_scan *sc = arg;
	const ElfW(Dyn) *d = ps_dyn_section(info);
	const char *str = NULL;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && sc->addr >= lo && sc->addr - lo < ph->p_memsz)
			sc->found = true;
	}
	for (const ElfW(Dyn) *e = d; e && e->d_tag != DT_NULL; e++)
		if (e->d_tag == DT_STRTAB)
			str = ps_dyn_ptr(info, e);
	for (const ElfW(Dyn) *e = d; str && !sc->found && e && e->d_tag != DT_NULL; e++)
		if (e->d_tag == DT_NEEDED && !strcmp(str + e->d_un.d_val, base_name(sc->self)))
			sc->found = true;
	return 1;	/* the program is the first object: stop */
}

/*
 * Loaded with the program (preloaded, linked in, or a library it needs):
 * our constructor runs before main, so any other thread was made by
 * another start-up (a sanitizer's, an earlier constructor's, qemu-user's
 * own): they do not run the program's code yet, and the plain stores stay
 * right.  Only a runtime dlopened later finds threads that may.
 */
static bool loaded_at_startup(void)
{
	struct startup_scan sc = { .addr = (uintptr_t)loaded_at_startup };
	const char *pre = getenv("LD_PRELOAD");
	Dl_info self;

	if (!dladdr((void *)loaded_at_startup, &self) || !self.dli_fname)
		return false;
	sc.self = self.dli_fname;
	size_t len = strlen(base_name(sc.self));

	for (const char *p = pre; p && *p;) {
		size_t n = strcspn(p, " :");

		/* An entry that ends with our file's name. */
		if (n >= len && !strncmp(p + n - len, base_name(sc.self), len))
			return true;
		p += n + (p[n] != '\0');
	}
	dl_iterate_phdr(in_program, &sc);
	return sc.found;
}

static bool started_late;	/* what ps_attach_late answered at init */

bool ps_attach_late(void)
{
	char name[17] = "";

	started_late = (!prctl(PR_GET_NAME, name, 0, 0, 0) && !strcmp(name, PS_ATTACH_THREAD)) ||
		       (threads() > 1 && !loaded_at_startup());
	return started_late;
}

bool ps_attach_started_late(void)
{
	return started_late;
}

/*
 * Start-up NOPs, late: ps_patch_late for each object, but for an object
 * whose sites are one-byte NOPs (gcc's -fpatchable-function-entry=5 on
 * x86-64: 90 90 90 90 90).  A thread of the running program may be
 * between two of them, preempted there for milliseconds; rewriting the
 * tail under it makes it execute half an instruction (SIGILL: attach.sh
 * saw it).  At start-up no thread is there, and later changes rewrite our
 * own one-instruction NOP.  The attach (cmd/attach/attach_nops.c) makes them one
 * instruction itself before loading us, with every thread stopped and
 * moved out of them; what is still one-byte NOPs here (a runtime the
 * program dlopened itself, or gcc's M > 0 entries, which start before the
 * function) is left as built (its NOPs do nothing) and not traced, said
 * once.  clang's form (one 5-byte NOP) and the call/NOP forms of -pg are
 * one instruction: changed.
 */
int ps_attach_patch(struct ps_module *m)
{
	if (m->noflag)
		return ps_patch_late(m);	/* no-flag sites: stubs now, jumps when wanted */
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
