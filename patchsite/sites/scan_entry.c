// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sites of an object built -pg -mfentry without -mrecord-mcount: no
 * __mcount_loc, only each function's first instruction (after endbr64), a
 * call to the entry hook in one of the forms decode_site reads:
 *
 *   e8 <rel32>           call __fentry__                   non-PIE, via the PLT
 *   ff 15 <disp32>       call *__fentry__@GOTPCREL(%rip)   PIE, and -fno-plt
 *
 * that module.c's calls_hook says goes to an entry hook.  Such a site is
 * the same as one a table lists: start-up makes it a NOP of its length and
 * live changes follow the arch's protocol (nop.c).  Bytes are read from
 * the file, as scan.c does.  Only an object that imports an entry hook is
 * searched.
 */
#include <errno.h>
#include <stdlib.h>

#include "scan.h"
#include "sites.h"

bool ps_scan_imports_entry_hook(const struct ps_module *m)
{
	for (size_t i = 0; i < m->nhook_slots; i++)
		if (m->hook_slot_hook[i] && m->hook_slot_hook[i] <= ps.arch->late_hook)
			return true;
	return false;
}

/* The function's first bytes, enough for decode_site (beyond a short function: the file's next). */
static const uint8_t *entry_bytes(const struct ps_module *m, const struct ps_sym *fn)
{
	size_t want = ps.arch->max_site_len + 8;	/* and what comes before the site (endbr64) */
	const uint8_t *p = ps_module_file_code(m, fn->addr, want);

	return p || fn->size >= want ? p : NULL;
}

int ps_scan_entry_sites(struct ps_module *m, ps_calls_hook_fn calls_hook)
{
	struct ps_site *sites;
	struct ps_scan_report *rep;
	size_t found = 0, missed = 0;
	int err = ps_module_syms(m);

	if (err || !m->nsyms)
		return err;
	sites = realloc(m->sites, (m->nsyms + 1) * sizeof(*sites));
	if (!sites)
		return -ENOMEM;
	m->sites = sites;
	rep = ps_scan_report_new(m, "fentry");
	for (size_t i = 0; i < m->nsyms; i++) {
		const struct ps_sym *fn = &m->syms[i];
		const uint8_t *p;
		struct site_insn in;
		unsigned hook;

		if (i && fn->addr == m->syms[i - 1].addr)
			continue;	/* an alias of the last one */
		if (!fn->size || !(p = entry_bytes(m, fn))) {
			ps_scan_report_miss(rep, fn, PS_SCAN_NO_SIZE);
			missed++;
			continue;
		}
		ps.arch->decode_site(p, fn->addr, &in);
		hook = in.form == FORM_CALL || in.form == FORM_CALL_SLOT ? calls_hook(m, &in) : 0;
		if (!hook || hook > ps.arch->late_hook) {
			ps_scan_report_miss(rep, fn, PS_SCAN_NO_ENTRY_CALL);
			missed++;
			continue;
		}
		m->sites[m->nsites++] = (struct ps_site){ .addr = fn->addr + in.skip, .sym = fn,
							  .kind = SITE_ENTRY_HOOK };
		found++;
	}
	if (rep)
		rep->found = found;
	ps_log(PATCHSITE_LOG_NOTE, "%s: no site table (-pg -mfentry without -mrecord-mcount): %zu "
	       "functions call %s at their entry, found from the symbols; %zu do not", m->name,
	       found, ps.arch->hooks[0], missed);
	return 0;
}
