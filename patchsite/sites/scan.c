// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sites of an object that has no table: a plain `gcc -pg` build (uftrace's
 * documented one) has no __mcount_loc, only its calls to mcount after each
 * function's prologue.  They are found from what the object has: its
 * function symbols, and the arch's prologue form (ps_arch.find_late_call,
 * which walks the same prologue instructions lib/arch's patchverify does)
 * ending in a call that module.c's calls_hook says goes to a late hook.
 * The bytes are read from the file, not the image, so that the text pages
 * are first touched when start-up writes them (patch.c writes_likely).
 *
 * Only an object that imports a late hook (a slot the dynamic linker binds
 * to mcount) is searched: one built without -pg has no such call, and the
 * C library, which defines mcount, is not searched at all.  What was found
 * and what was not, and why, is said once per object (a note).
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scan.h"
#include "sites.h"

/* Does the object call a late hook through a slot (-pg code, linked dynamically)? */
static bool imports_late_hook(const struct ps_module *m)
{
	for (size_t i = 0; i < m->nhook_slots; i++)
		if (m->hook_slot_hook[i] > ps.arch->late_hook)
			return true;
	return false;
}

#define SCAN_SAID	8	/* functions named in the note, for each reason */

int ps_scan_late_sites(struct ps_module *m, ps_calls_hook_fn calls_hook)
{
	size_t found = 0, nofp = 0, nocall = 0, nosize = 0;
	const char *named[2][SCAN_SAID];
	size_t nnamed[2] = { 0, 0 };
	char list[2][512];
	struct ps_site *sites;
	struct timespec t0, t1;
	struct ps_scan_report *rep;
	int err;

	if (ps_scan_imports_entry_hook(m))
		return ps_scan_entry_sites(m, calls_hook);
	if (!ps.arch->find_late_call || !imports_late_hook(m))
		return ps_cyg_imports(m) ? ps_cyg_sites(m) : 0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	err = ps_module_syms(m);
	if (err)
		return err;
	if (!m->nsyms)
		return 0;
	sites = realloc(m->sites, (m->nsyms + 1) * sizeof(*sites));
	if (!sites)
		return -ENOMEM;
	m->sites = sites;
	rep = ps_scan_report_new(m, "mcount");
	for (size_t i = 0; i < m->nsyms; i++) {
		const struct ps_sym *fn = &m->syms[i];
		const uint8_t *p;
		const char *why = NULL;
		struct site_insn in;
		unsigned hook;
		size_t off;

		if (i && fn->addr == m->syms[i - 1].addr)
			continue;	/* an alias of the last one */
		if (!fn->size || !(p = ps_module_file_code(m, fn->addr, fn->size))) {
			nosize++;
			ps_scan_report_miss(rep, fn, PS_SCAN_NO_SIZE);
			continue;
		}
		off = ps.arch->find_late_call(p, fn->size, fn->addr, &in, &why);
		hook = off ? calls_hook(m, &in) : 0;
		if (off && hook > ps.arch->late_hook) {
			m->sites[m->nsites++] = (struct ps_site){ .addr = fn->addr + off, .sym = fn,
								  .kind = SITE_ENTRY_HOOK };
			found++;
			continue;
		}
		if (!off && why && strstr(why, "prologue (")) {
			nofp++;
			ps_scan_report_miss(rep, fn, PS_SCAN_NO_FP);
			if (nnamed[0] < SCAN_SAID)
				named[0][nnamed[0]++] = fn->name;
		} else {
			nocall++;
			ps_scan_report_miss(rep, fn, PS_SCAN_NO_CALL);
			if (nnamed[1] < SCAN_SAID)
				named[1][nnamed[1]++] = fn->name;
		}
	}
	m->mcount_table = true;	/* its sites are after the prologue: patch.c classifies them */
	if (rep)
		rep->found = found;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	for (int r = 0; r < 2; r++) {
		size_t at = 0;

		list[r][0] = '\0';
		for (size_t k = 0; k < nnamed[r] && at + 2 < sizeof(list[r]); k++)
			at += (size_t)snprintf(list[r] + at, sizeof(list[r]) - at, "%s%s",
					       k ? ", " : ": ", named[r][k]);
		if ((r ? nocall : nofp) > nnamed[r] && at + 2 < sizeof(list[r]))
			snprintf(list[r] + at, sizeof(list[r]) - at, ", ...");
	}
	ps_log(PATCHSITE_LOG_NOTE, "%s: no site table (-pg without -mrecord-mcount): %zu functions "
	       "call %s after their prologue, found from the symbols in %.2f ms CPU; not traced: %zu "
	       "without a frame-pointer prologue%s; %zu without a call to %s right after it%s; "
	       "%zu without a size or code", m->name, found, ps.arch->hooks[ps.arch->late_hook],
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
	       nofp, list[0], nocall, ps.arch->hooks[ps.arch->late_hook], list[1], nosize);
	return 0;
}
