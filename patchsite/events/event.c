// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static trace events: every object's table (include/patchsite_event.h)
 * is read at start-up and when it is loaded; each descriptor is checked
 * and bound to one runtime event per subsys:name (the same event in
 * several objects is one event); each site must hold the arch's NOP, or is
 * refused by name.  An event's sites are jumps while it has a probe (the
 * recorder is one), NOPs otherwise, changed live by ps_patch_code.
 *
 * Site records are never freed (an unloaded object's are marked dead):
 * the SIGTRAP handler reads them without the lock.  Probes and the rules
 * that enable events are event_probe.c's (it hands this file, the lowest
 * of events/, what a site calls and what a new event gets); the API and
 * the events' descriptions event_api.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "evfield.h"
#include "record/record.h"
#include "data/format.h"

enum { EV_NOP, EV_JUMP, EV_REFUSED };

struct ps_evsite {
	uintptr_t addr, target;
	struct ps_event *ev;
	struct ps_module *m;
	uint8_t state;
	_Atomic bool dead;
	_Atomic uintptr_t resume;	/* where a thread trapping here goes (ps_event_trap) */
};

#define BLOCK_SITES 256
struct site_block {
	_Atomic size_t n;
	struct site_block *_Atomic next;
	struct ps_evsite s[BLOCK_SITES];
};

static struct site_block *_Atomic blocks;	/* newest first */
static struct ps_event *events, **events_tail = &events;
static unsigned next_id = 1;
static size_t nevents;

struct ps_event *ps_event_first(void)
{
	return events;
}

size_t ps_event_count(void)
{
	return nevents;
}

static struct ps_evsite *site_new(void)
{
	struct site_block *b = atomic_load(&blocks);
	size_t n = b ? atomic_load(&b->n) : BLOCK_SITES;

	if (n == BLOCK_SITES) {
		b = calloc(1, sizeof(*b));
		if (!b)
			return NULL;
		b->next = atomic_load(&blocks);
		atomic_store_explicit(&blocks, b, memory_order_release);
		n = 0;
	}
	/* Filled before it is counted: the handler reads only counted ones. */
	memset(&b->s[n], 0, sizeof(b->s[n]));
	return &b->s[n];
}

static void site_publish(void)
{
	struct site_block *b = atomic_load(&blocks);

	atomic_fetch_add_explicit(&b->n, 1, memory_order_release);
}

bool ps_event_trap(uintptr_t addr, uintptr_t *resume)
{
	for (struct site_block *b = atomic_load_explicit(&blocks, memory_order_acquire); b;
	     b = atomic_load_explicit(&b->next, memory_order_relaxed)) {
		size_t n = atomic_load_explicit(&b->n, memory_order_acquire);

		for (size_t i = 0; i < n; i++)
			if (b->s[i].addr == addr && !atomic_load(&b->s[i].dead)) {
				*resume = atomic_load(&b->s[i].resume);
				return *resume != 0;
			}
	}
	return false;
}

#define EACH_SITE(b, i)									\
	for (struct site_block *b = atomic_load(&blocks); b; b = atomic_load(&b->next))	\
		for (size_t i = 0; i < atomic_load(&b->n); i++)

/* The descriptor's text, split: false when it is not well formed. */
static bool desc_text(const struct patchsite_event *d, uintptr_t end, const char **parts,
		      unsigned nparts)
{
	const char *p = (const char *)d + d->text_off;

	if ((uintptr_t)p >= end)
		return false;
	for (unsigned i = 0; i < nparts; i++) {
		size_t room = end - (uintptr_t)p, len = strnlen(p, room);

		if (len == room)
			return false;
		parts[i] = p;
		p += len + 1;
	}
	return true;
}

/* The largest record's payload, every string at its limit (with room for alignment). */
static size_t max_bytes(const struct patchsite_event *d)
{
	const struct patchsite_event_field *df = (const void *)(d + 1);
	size_t bytes = 8;

	for (unsigned i = 0; i < d->nfields; i++)
		bytes += df[i].kind == PATCHSITE_FIELD_STRING ? 8 + PATCHSITE_EVENT_STR_MAX
							       : (size_t)df[i].size + 7;
	return (bytes + 7) & ~(size_t)7;
}

static bool fits(const struct patchsite_event *d)
{
	return max_bytes(d) <= PSD_EXT_MAX_WORDS * 8;
}

/* Payload offsets: word 0 the id, then each field naturally aligned (strings: a u32). */
static uint32_t layout(struct ps_event *ev)
{
	uint32_t off = 8;

	for (unsigned i = 0; i < ev->nfields; i++) {
		struct ps_evfield *f = &ev->f[i];
		unsigned sz = f->kind == PATCHSITE_FIELD_STRING ? 4 : f->size;
		unsigned al = f->kind == PATCHSITE_FIELD_BYTES ? 1 : sz;

		off = (off + al - 1) & ~(al - 1);
		f->off = off;
		off += sz;
	}
	return off;
}

/* ev->pwords (event.h): what the packed record saves, if anything. */
static unsigned packed_words(const struct ps_event *ev)
{
	unsigned w = (ev->fixed - 4 + 7) / 8;

	for (unsigned i = 0; i < ev->nfields; i++) {
		const struct ps_evfield *f = &ev->f[i];

		if (f->kind == PATCHSITE_FIELD_STRING || f->off < 8 ||
		    (f->off - 4) / 8 != (f->off - 4 + f->size - 1) / 8)
			return 0;
	}
	return ev->nfields && w < (ev->fixed + 7) / 8 ? w : 0;
}

/*
 * A new event, its text copied: the object that defined it may be
 * unloaded while the event stays known (its id names old records).
 */
static struct ps_event *event_new(const struct patchsite_event *d, const char **in)
{
	const struct patchsite_event_field *df = (const void *)(d + 1);
	const char *text = (const char *)d + d->text_off, *parts[3 + 2 * 8];
	struct ps_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return NULL;
	ev->nfields = d->nfields;
	ev->f = calloc(d->nfields, sizeof(*ev->f));
	ev->names = calloc(d->nfields, sizeof(*ev->names));
	ev->kinds = calloc(d->nfields, 1);
	ev->text = malloc(d->size - d->text_off);
	if (!ev->f || !ev->names || !ev->kinds || !ev->text) {
		free(ev->f);
		free(ev->names);
		free(ev->kinds);
		free(ev->text);
		free(ev);
		return NULL;
	}
	memcpy(ev->text, text, d->size - d->text_off);
	for (unsigned i = 0; i < 3 + 2u * d->nfields; i++)
		parts[i] = ev->text + (in[i] - text);
	ev->info.subsys = parts[0];
	ev->info.name = parts[1];
	ev->info.fmt = parts[2];
	for (unsigned i = 0; i < d->nfields; i++) {
		ev->f[i].name = ev->names[i] = parts[3 + 2 * i];
		ev->f[i].type = parts[4 + 2 * i];
		ev->f[i].kind = ev->kinds[i] = df[i].kind;
		ev->f[i].size = df[i].size;
	}
	ev->fixed = layout(ev);
	ev->max_bytes = (uint32_t)max_bytes(d);
	for (unsigned i = 0; i < d->nfields; i++)
		ev->widen |= (df[i].kind == PATCHSITE_FIELD_SIGNED && df[i].size < 8) ||
			     (df[i].kind == PATCHSITE_FIELD_FLOAT && df[i].size == 4);
	ev->flat = true;
	for (unsigned i = 0; i < d->nfields; i++)
		ev->flat &= df[i].size == 8 && df[i].kind != PATCHSITE_FIELD_STRING &&
			    df[i].kind != PATCHSITE_FIELD_BYTES;
	ev->nostr = true;
	for (unsigned i = 0; i < d->nfields; i++)
		ev->nostr &= df[i].kind != PATCHSITE_FIELD_STRING;
	ev->pwords = packed_words(ev);
	ev->info.id = next_id++;
	ev->info.nfields = d->nfields;
	ev->info.field_names = ev->names;
	ev->info.field_kinds = ev->kinds;
	return ev;
}

/* Same name, same fields: the same event. */
static bool same_fields(const struct ps_event *ev, const struct patchsite_event *d,
			const char **parts)
{
	const struct patchsite_event_field *df = (const void *)(d + 1);

	if (d->nfields != ev->nfields)
		return false;
	for (unsigned i = 0; i < d->nfields; i++)
		if (df[i].kind != ev->f[i].kind || df[i].size != ev->f[i].size ||
		    strcmp(parts[3 + 2 * i], ev->f[i].name))
			return false;
	return true;
}

static struct ps_event *bind(struct ps_module *m, const struct patchsite_event *d, uintptr_t lo,
			     uintptr_t hi, const struct ps_event_hooks *h)
{
	const char *parts[3 + 2 * 8];
	struct ps_event *ev;

	if (__atomic_load_n(&d->rt, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&d->rt, __ATOMIC_ACQUIRE);
	if ((uintptr_t)d < lo || (uintptr_t)d % 8 || hi - (uintptr_t)d < sizeof(*d) ||
	    d->magic != PATCHSITE_EVENT_MAGIC || d->version != PATCHSITE_EVENT_VERSION ||
	    d->nfields < 1 || d->nfields > 8 || d->size > hi - (uintptr_t)d ||
	    d->text_off < sizeof(*d) + d->nfields * sizeof(struct patchsite_event_field) ||
	    d->text_off >= d->size ||
	    !desc_text(d, (uintptr_t)d + d->size, parts, 3 + 2 * d->nfields)) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: event descriptor at %#lx is not well formed: "
		       "its sites refused", m->name, (unsigned long)((uintptr_t)d - m->bias));
		return NULL;
	}
	for (unsigned i = 0; i < d->nfields; i++)
		if (!ps_event_field_ok((const struct patchsite_event_field *)(d + 1) + i, sizeof(void *))) {
			ps_log(PATCHSITE_LOG_WARNING, "%s: event %s:%s: field %s has kind %u size "
			       "%u, not one this runtime knows: its sites refused", m->name,
			       parts[0], parts[1], parts[3 + 2 * i],
			       ((const struct patchsite_event_field *)(d + 1))[i].kind,
			       ((const struct patchsite_event_field *)(d + 1))[i].size);
			return NULL;
		}
	if (!fits(d)) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: event %s:%s: its largest record is more than "
		       "%u bytes: its sites refused", m->name, parts[0], parts[1],
		       PSD_EXT_MAX_WORDS * 8);
		return NULL;
	}
	for (ev = events; ev; ev = ev->next)
		if (!strcmp(ev->info.subsys, parts[0]) && !strcmp(ev->info.name, parts[1]))
			break;
	if (ev && !same_fields(ev, d, parts)) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: event %s:%s has other fields than the one "
		       "already loaded: its sites refused", m->name, parts[0], parts[1]);
		return NULL;
	}
	if (!ev) {
		ev = event_new(d, parts);
		if (!ev)
			return NULL;
		*events_tail = ev;
		events_tail = &ev->next;
		nevents++;
		if (h->born)
			h->born(ev);
	}
	ev->gone = false;
	((struct patchsite_event *)d)->rt = ev;
	__atomic_store_n(&((struct patchsite_event *)d)->fire, h->fire, __ATOMIC_RELEASE);
	return ev;
}

/*
 * An event with no site of its own (a dynamic probe, probe.c): d is built
 * by the caller.  The same name with the same fields, once gone, is the
 * same event again (a probe defined anew: old records keep their id);
 * another one of that name is -EEXIST.  0 fields are allowed here.
 */
int ps_event_define(const struct patchsite_event *d, struct ps_event **out)
{
	const char *parts[3 + 2 * 8];
	struct ps_event *ev;

	if (d->nfields > 8 || d->text_off >= d->size ||
	    !desc_text(d, (uintptr_t)d + d->size, parts, 3 + 2 * d->nfields) || !fits(d))
		return -EINVAL;
	for (ev = events; ev; ev = ev->next)
		if (!strcmp(ev->info.subsys, parts[0]) && !strcmp(ev->info.name, parts[1]))
			break;
	if (ev && (!ev->gone || !same_fields(ev, d, parts)))
		return -EEXIST;
	if (!ev) {
		ev = event_new(d, parts);
		if (!ev)
			return -ENOMEM;
		*events_tail = ev;
		events_tail = &ev->next;
		nevents++;
	}
	ev->gone = false;
	*out = ev;
	return 0;
}

/* One table entry: its site, checked. */
static void add_site(struct ps_module *m, uintptr_t e, uintptr_t dlo, uintptr_t dhi,
		     const struct ps_event_hooks *h)
{
	int32_t site_rel, target_rel;
	int64_t desc_rel;
	uintptr_t site, target;
	struct ps_evsite *s;
	struct ps_event *ev;
	uint8_t nop[8];
	char found[32];

	memcpy(&site_rel, (const void *)e, 4);
	memcpy(&target_rel, (const void *)(e + 4), 4);
	memcpy(&desc_rel, (const void *)(e + 8), 8);
	site = e + (uintptr_t)(intptr_t)site_rel;
	target = e + 4 + (uintptr_t)(intptr_t)target_rel;
	ev = bind(m, (const struct patchsite_event *)(e + 8 + (uintptr_t)desc_rel), dlo, dhi, h);
	if (!ev)
		return;
	s = site_new();
	if (!s)
		return;
	s->addr = site;
	s->target = target;
	s->ev = ev;
	s->m = m;
	s->state = EV_REFUSED;
	ps.arch->make_jump_nop(nop);
	if (!ps_module_has_code(m, site, ps.arch->jump_len) || !ps_module_has_code(m, target, 1))
		ps_log(PATCHSITE_LOG_WARNING, "%s: event %s:%s: site %#lx or its target %#lx is "
		       "outside the code: refused", m->name, ev->info.subsys, ev->info.name,
		       (unsigned long)(site - m->bias), (unsigned long)(target - m->bias));
	else if (memcmp((const void *)site, nop, ps.arch->jump_len)) {
		ps_format_bytes(found, sizeof(found), (const uint8_t *)site, ps.arch->jump_len);
		ps_log(PATCHSITE_LOG_WARNING, "%s: event %s:%s: site %#lx holds %s, not the %s "
		       "NOP: refused", m->name, ev->info.subsys, ev->info.name,
		       (unsigned long)(site - m->bias), found, ps.arch->name);
	} else
		s->state = EV_NOP;
	site_publish();
}

/*
 * An object's event sites (at start-up, or when it was loaded): h says what
 * an enabled site calls and what a new event gets (event_probe.c
 * ps_events_found).
 */
void ps_event_module(struct ps_module *m, const struct ps_event_hooks *h)
{
	uintptr_t tab, dlo;
	size_t tsz, dsz;

	if (!m->file_ok || ps_module_section(m, "patchsite_event_sites", &tab, &tsz))
		return;
	if (ps_module_section(m, "patchsite_events", &dlo, &dsz)) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: event sites but no patchsite_events section: "
		       "refused", m->name);
		return;
	}
	if (tsz % 16 || tab % 8)
		ps_log(PATCHSITE_LOG_WARNING, "%s: patchsite_event_sites is %zu bytes, not whole "
		       "16-byte entries: the rest refused", m->name, tsz);
	for (size_t i = 0; i + 16 <= tsz && tab % 8 == 0; i += 16)
		add_site(m, tab + i, dlo, dlo + dsz, h);
	ps_event_update();
}

void ps_event_module_gone(struct ps_module *m)
{
	EACH_SITE(b, i)
		if (b->s[i].m == m)
			atomic_store(&b->s[i].dead, true);
	for (struct ps_event *ev = events; ev; ev = ev->next) {
		bool live = false;

		EACH_SITE(b, i)
			live |= b->s[i].ev == ev && !atomic_load(&b->s[i].dead);
		ev->gone = !live;
	}
}

/* Patch every live site to what its event's probes ask. */
int ps_event_update(void)
{
	struct ps_code_poke *pk;
	struct ps_evsite **which;
	size_t n = 0, k = 0;
	int err;

	EACH_SITE(b, i) {
		struct ps_evsite *s = &b->s[i];
		bool want = atomic_load(&s->ev->probes) != NULL;

		n += !atomic_load(&s->dead) && s->state != EV_REFUSED && want != (s->state == EV_JUMP);
	}
	if (!n)
		return 0;
	pk = calloc(n, sizeof(*pk));
	which = calloc(n, sizeof(*which));
	if (!pk || !which) {
		free(pk);
		free(which);
		return -ENOMEM;
	}
	EACH_SITE(b, i) {
		struct ps_evsite *s = &b->s[i];
		bool want = atomic_load(&s->ev->probes) != NULL;
		uint8_t jmp[8], nop[8];

		if (k == n || atomic_load(&s->dead) || s->state == EV_REFUSED ||
		    want == (s->state == EV_JUMP))
			continue;
		ps.arch->make_jump_nop(nop);
		if (!ps.arch->make_jump(jmp, s->addr, s->target)) {
			ps_log(PATCHSITE_LOG_WARNING, "%s: event %s:%s: site %#lx: its target is "
			       "out of a jump's reach: refused", s->m->name, s->ev->info.subsys,
			       s->ev->info.name, (unsigned long)(s->addr - s->m->bias));
			s->state = EV_REFUSED;
			continue;
		}
		pk[k] = (struct ps_code_poke){ .m = s->m, .addr = s->addr, .len = ps.arch->jump_len };
		memcpy(pk[k].old, want ? nop : jmp, ps.arch->jump_len);
		memcpy(pk[k].new, want ? jmp : nop, ps.arch->jump_len);
		atomic_store(&s->resume, want ? s->target : s->addr + ps.arch->jump_len);
		which[k++] = s;
	}
	err = ps_patch_code(pk, k);
	for (size_t i = 0; i < k && !err; i++) {
		struct ps_evsite *s = which[i];

		if (pk[i].ok) {
			s->state = s->state == EV_JUMP ? EV_NOP : EV_JUMP;
			continue;
		}
		ps_log(PATCHSITE_LOG_WARNING, "%s: event %s:%s: site %#lx changed behind our "
		       "back: refused", s->m->name, s->ev->info.subsys, s->ev->info.name,
		       (unsigned long)(s->addr - s->m->bias));
		s->state = EV_REFUSED;
	}
	if (err)
		ps_log(PATCHSITE_LOG_ERROR, "cannot switch event sites: %s", strerror(-err));
	free(pk);
	free(which);
	return err;
}

/* Small signed fields sign-extended, floats as doubles: what a probe gets. */
