// SPDX-License-Identifier: GPL-2.0-only
/*
 * The calls of -finstrument-functions code, from arch/<arch>/cyg.S: the
 * function's site pair (cyg.c) by its address, then the dispatcher with the
 * compiler's call_site as the parent.  A call nobody wants returns here.
 * Apart from cyg.c, which module.c reaches at start-up, so that the sites
 * files do not call round in a loop.
 */
#include "arch/entry.h"
#include "sites.h"

#ifdef PS_HAVE_CYG
void ps_cyg_dispatch(void *fn, unsigned exit, struct patchsite_regs *regs,
		     unsigned long call_site)
{
	struct ps_site *s = ps_site_by_addr((uintptr_t)fn);

	if (!s || s->state != SITE_INTERPOSED || s->kind != SITE_ENTRY_EXITS)
		return;		/* not ours, or a module loaded before the runtime knew it */
	if (exit)
		s++;		/* ps_cyg_sites put the exit right after its entry */
	if (!atomic_load_explicit(&s->want, memory_order_relaxed))
		return;
	ps_dispatch_parent(s->id, &call_site, regs);
}
#endif
