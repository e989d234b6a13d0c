// SPDX-License-Identifier: GPL-2.0-only
/*
 * Library-call sites switched (got.c finds the slots and makes their thunks): a
 * site's switch is one aligned pointer store into its GOT slot, after checking
 * that the slot still holds what we or the dynamic linker stored; RELRO pages
 * are writable for the batch only.  And what the rest of the runtime asks of a
 * site: whether its module is a GOT module, its library, why it was refused.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "got.h"
#include "got_mod.h"
#include "sites.h"

bool ps_got_module(const struct ps_module *m)
{
	return m->index < PS_MAX_MODULES && got_mods[m->index] && got_mods[m->index]->m == m;
}

static struct got_slot *slot_of(const struct ps_site *s)
{
	return ps_got_module(s->mod) ? &got_mods[s->mod->index]->slots[s->id & PS_ID_MASK] : NULL;
}

const char *ps_got_library(const struct ps_site *s)
{
	struct got_slot *gs = slot_of(s);

	return gs ? gs->lib : NULL;
}

const char *ps_got_refused(const struct ps_site *s)
{
	struct got_slot *gs = slot_of(s);

	return gs ? gs->why : NULL;
}

/*
 * Whether site i changes, after checking its slot: switching on, the slot
 * must hold its start-up value or a bound function (the lazy resolver may
 * have bound it since: that is then the target); switching off, our thunk.
 */
static bool slot_pending(struct got_mod *g, size_t i, enum site_state *to)
{
	struct ps_site *s = &g->m->sites[i];
	struct got_slot *gs = &g->slots[i];
	uintptr_t cur;

	if (s->state == SITE_REFUSED)
		return false;
	*to = atomic_load_explicit(&s->want, memory_order_relaxed) ? SITE_CALL : SITE_NOP;
	if (*to == s->state)
		return false;
	cur = __atomic_load_n(gs->slot, __ATOMIC_RELAXED);
	if (*to == SITE_CALL && cur != gs->orig && cur != atomic_load(&g->targets[i])) {
		if (ps_module_has_code(g->caller, cur, 1) || !cur) {
			ps_log_site(PATCHSITE_LOG_WARNING, s, "GOT slot holds %#lx, not its function "
				    "or PLT entry: changed behind our back, refused", (unsigned long)cur);
			s->state = SITE_REFUSED;
			return false;
		}
		atomic_store(&g->targets[i], cur);	/* bound since, by the dynamic linker */
	}
	if (*to == SITE_NOP && cur != s->addr) {
		ps_log_site(PATCHSITE_LOG_WARNING, s, "GOT slot holds %#lx, not our thunk: changed "
			    "behind our back, left alone", (unsigned long)cur);
		s->state = SITE_REFUSED;
		return false;
	}
	if (*to == SITE_CALL && !atomic_load(&g->targets[i]))
		atomic_store(&g->targets[i], cur);	/* never 0: got_resolve() said where it goes */
	return true;
}

static bool in_relro(const struct got_mod *g, const uintptr_t *slot)
{
	return (uintptr_t)slot >= g->relro_lo && (uintptr_t)slot < g->relro_hi;
}

/* The pending slots of one module; RELRO writable once for all of them. */
static size_t update_one(struct got_mod *g)
{
	size_t n = 0, relro = 0;
	enum site_state to;

	for (size_t i = 0; i < g->m->nsites; i++)
		if (slot_pending(g, i, &to))
			n++, relro += in_relro(g, g->slots[i].slot);
	if (relro && mprotect((void *)g->relro_lo, g->relro_hi - g->relro_lo,
			      PROT_READ | PROT_WRITE) < 0) {
		ps_log(PATCHSITE_LOG_ERROR, "%s: cannot make its RELRO GOT writable: %s",
		       g->caller->name, strerror(errno));
		return 0;
	}
	for (size_t i = 0; n && i < g->m->nsites; i++) {
		struct ps_site *s = &g->m->sites[i];

		if (s->state == SITE_REFUSED)
			continue;
		to = atomic_load_explicit(&s->want, memory_order_relaxed) ? SITE_CALL : SITE_NOP;
		if (to == s->state)
			continue;
		/* The target was stored before: a thread that reads the thunk finds it. */
		__atomic_store_n(g->slots[i].slot, to == SITE_CALL ? s->addr
				 : atomic_load(&g->targets[i]), __ATOMIC_RELEASE);
		s->state = to;
	}
	if (relro && mprotect((void *)g->relro_lo, g->relro_hi - g->relro_lo, PROT_READ) < 0)
		ps_log(PATCHSITE_LOG_ERROR, "%s: cannot make its RELRO GOT read-only again: %s",
		       g->caller->name, strerror(errno));
	return n;
}

size_t ps_got_update(void)
{
	size_t n = 0;

	for (unsigned k = 0; k < ps.nmods; k++)
		if (got_mods[k] && got_mods[k]->m == ps.mods[k] && !ps.mods[k]->gone)
			n += update_one(got_mods[k]);
	return n;
}
