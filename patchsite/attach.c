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
 *
 * What a dlopened runtime lacks: its dlopen/dlclose wrappers do not
 * interpose (the loader notices loads at the next change, loader.c), nor
 * do its longjmp and unwinder wrappers, which function_graph needs to keep
 * its hooked return addresses right.  ps_attach_graph_check refuses
 * function_graph in a process that could longjmp or throw through a hooked
 * frame, by name; the function tracer needs none of them.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "attach.h"
#include "internal.h"

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

static const char *const jumps[] = { "longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", NULL };

/* The relocations of one table that name a longjmp function; the first such name, or NULL. */
static const char *jump_import(const ElfW(Rela) *r, size_t size, const ElfW(Sym) *sym,
			       const char *str, size_t strsz)
{
	for (size_t i = 0; r && i < size / sizeof(*r); i++) {
		size_t k = ELF64_R_SYM(r[i].r_info);

		if (!k || sym[k].st_name >= strsz)
			continue;
		for (unsigned j = 0; jumps[j]; j++)
			if (!strcmp(str + sym[k].st_name, jumps[j]))
				return jumps[j];
	}
	return NULL;
}

struct jump_scan {
	const char *obj, *name;
};

/* dl_iterate_phdr: an object whose relocations import a longjmp function. */
static int jump_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct jump_scan *js = arg;
	const ElfW(Rela) *rela = NULL, *jmprel = NULL;
	const ElfW(Sym) *sym = NULL;
	const char *str = NULL, *hit;
	size_t relasz = 0, pltsz = 0, strsz = 0;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Dyn) *d;

		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		/* glibc relocated these d_ptr values to addresses (but for the vDSO's). */
		for (d = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		     d->d_tag != DT_NULL; d++) {
			switch (d->d_tag) {
			case DT_RELA: rela = (const void *)d->d_un.d_ptr; break;
			case DT_RELASZ: relasz = d->d_un.d_val; break;
			case DT_JMPREL: jmprel = (const void *)d->d_un.d_ptr; break;
			case DT_PLTRELSZ: pltsz = d->d_un.d_val; break;
			case DT_SYMTAB: sym = (const void *)d->d_un.d_ptr; break;
			case DT_STRTAB: str = (const void *)d->d_un.d_ptr; break;
			case DT_STRSZ: strsz = d->d_un.d_val; break;
			}
		}
	}
	/* The vDSO's entries are not relocated (below its base): it imports nothing anyway. */
	if (!sym || !str || (uintptr_t)sym < info->dlpi_addr || (uintptr_t)str < info->dlpi_addr)
		return 0;
	hit = jump_import(rela, relasz, sym, str, strsz);
	if (!hit)
		hit = jump_import(jmprel, pltsz, sym, str, strsz);
	if (!hit)
		return 0;
	js->obj = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "the program";
	js->name = hit;
	return 1;
}

int ps_attach_graph_check(void)
{
	Dl_info ours, theirs;
	struct jump_scan js = { NULL, NULL };
	void *jump = dlsym(RTLD_DEFAULT, "longjmp");

	/* Our wrappers are the process's (preloaded, or linked into the program): all is seen. */
	if (!jump || (dladdr((void *)ps_attach_graph_check, &ours) && dladdr(jump, &theirs) &&
		      ours.dli_fbase == theirs.dli_fbase))
		return 0;
	if (dlsym(RTLD_DEFAULT, "_Unwind_RaiseException")) {
		ps_log(PATCHSITE_LOG_ERROR, "function_graph: libpatchsite was loaded into the running "
		       "process (not preloaded), so its unwinder wrappers are not in effect, and an "
		       "unwinder is loaded (C++ exceptions, pthread_cancel): an unwind through a "
		       "hooked return would crash it; use the function tracer, or start the program "
		       "with patchsite record");
		return -ENOTSUP;
	}
	dl_iterate_phdr(jump_object, &js);
	if (js.obj) {
		ps_log(PATCHSITE_LOG_ERROR, "function_graph: libpatchsite was loaded into the running "
		       "process (not preloaded), so its longjmp wrappers are not in effect, and %s "
		       "calls %s: a jump over a hooked return would crash it; use the function "
		       "tracer, or start the program with patchsite record", js.obj, js.name);
		return -ENOTSUP;
	}
	return 0;
}
