// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every live change of the set of objects: the objects that left are
 * forgotten, the ones that arrived are added (checked, NOPed, indexed),
 * then the watchers hear of both (ps_watch: the trace directory, events,
 * branch counts).  The dlopen wrappers (dl.c) and every live change through
 * the API come here, through ps_loader_sync.
 *
 * What keeps it safe:
 *   - Text is written only inside ps_loader_sync, from a dl_iterate_phdr
 *     callback.  glibc holds its dl_load_write_lock there, and dlclose
 *     unmaps objects under that lock, so an object we still find in the
 *     list cannot be unmapped while we write to it, whoever calls dlclose.
 *     Nothing in that section waits for another thread (a thread in a
 *     tracer may itself be in dl_iterate_phdr, unwinding): grace periods
 *     come after it.
 *   - An object is added only once its dlopen is over: a library built
 *     with -mrecord-mcount has DT_TEXTREL, and the loader writes its text
 *     while relocating.  glibc adds an object to its list early in dlopen,
 *     and holds dl_load_lock from before that until the objects are
 *     relocated and initialised, or removed again.  So ps_loader_prepare
 *     notes the objects we do not know yet, then waits for that lock
 *     (dladdr takes it; dlopen with RTLD_NOLOAD would too, but it resets
 *     the program's dlerror() state, and dladdr does not).  The scan adds
 *     only those objects, and only if glibc's load and unload counts show
 *     that none of them can have been replaced by a newer object at the
 *     same address meanwhile.  Objects loaded later wait for the next sync.
 *   - An unloaded object's sites leave the global index at once; its stub
 *     page and, when its slot is reused, its record are freed only after
 *     every thread has left the dispatcher and the SIGTRAP handler (the
 *     core/thread.c grace period).  The record itself stays, without code,
 *     so that events already in the rings keep their names; the same file
 *     loaded again takes the same slot and the same global indices.
 *
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/demangle.h"
#include "sites/got.h"
#include "sites/site.h"

struct object {
	const char *name;
	uintptr_t addr;
	struct dl_phdr_info info;
};

struct sync_ctx {
	const struct ps_arrivals *arrivals;	/* the objects we may add, or NULL */
	bool ran;
	int err;
	struct object *objs;
	size_t nobjs, cap;
	struct ps_module *gone[PS_MAX_MODULES];	/* their stubs are unmapped after a grace period */
	unsigned ngone;
	struct ps_module *evicted[PS_MAX_MODULES];	/* records replaced in their slot */
	unsigned nevicted;
	struct ps_old_sets old_sets;	/* freed after the grace period */
};

static const struct ps_watch *watches[4];
static unsigned nwatches;

/* Once, at init (api.c wire): told of every object that arrives or goes. */
void ps_watch_add(const struct ps_watch *w)
{
	if (nwatches < sizeof(watches) / sizeof(watches[0]))
		watches[nwatches++] = w;
}

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sync_ctx *c = arg;

	(void)size;
	if (c->nobjs == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct object *o = realloc(c->objs, cap * sizeof(*o));

		if (!o) {
			c->err = -ENOMEM;
			return 1;
		}
		c->objs = o;
		c->cap = cap;
	}
	c->objs[c->nobjs].name = info->dlpi_name ? info->dlpi_name : "";
	c->objs[c->nobjs].addr = info->dlpi_addr;
	c->objs[c->nobjs].info = *info;
	c->nobjs++;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The program has no name in the list; the others are known by basename and bias. */
static bool is_module(const struct object *o, const struct ps_module *m)
{
	return o->addr == m->bias && (!o->name[0] || !strcmp(base_name(o->name), m->name));
}

static bool object_known(const struct object *o)
{
	for (unsigned i = 0; i < ps.nmods; i++)
		if (!ps.mods[i]->gone && is_module(o, ps.mods[i]))
			return true;
	return false;
}

/* An object that left: its sites leave the index; the record stays to name old events. */
static void module_forget(struct sync_ctx *c, struct ps_module *m)
{
	for (size_t i = 0; i < m->nsites; i++)
		if (m->gbase + i < ps.nsites && ps.site_index[m->gbase + i] == &m->sites[i])
			ps.site_index[m->gbase + i] = NULL;
	m->gone = true;
	m->gone_tsc = ps_tsc_now();
	m->nsegs = 0;
	m->text_lo = UINTPTR_MAX;	/* ps_site_by_addr skips it */
	m->text_hi = 0;
	m->tramp_slot = NULL;		/* ps_tramp_set leaves it alone */
	c->gone[c->ngone++] = m;
	for (unsigned i = nwatches; i-- > 0;)
		if (watches[i]->gone)
			watches[i]->gone(m);
	ps_log(PATCHSITE_LOG_NOTE, "%s: unloaded: %zu sites forgotten", m->name, m->nsites);
}

/*
 * The slot for a new object: the same file's old one, a free one, or the
 * oldest unloaded one.  Never a library-call module's (named as its
 * caller): got_dlopen.c reuses those itself, their thunks are never freed.
 */
static int slot_for(const char *name)
{
	const char *base = base_name(name);

	for (unsigned i = 0; i < ps.nmods; i++)
		if (ps.mods[i]->gone && !ps_got_module(ps.mods[i]) &&
		    !strcmp(ps.mods[i]->name, base))
			return (int)i;
	if (ps.nmods < PS_MAX_MODULES)
		return -1;
	for (unsigned i = 0; i < ps.nmods; i++)
		if (ps.mods[i]->gone && !ps_got_module(ps.mods[i]))
			return (int)i;
	return -2;
}

/* Global indices for a new object's sites: its predecessor's when the file is the same. */
static int index_sites(struct sync_ctx *c, struct ps_module *m, const struct ps_module *prev)
{
	size_t old_n = ps.nsites, base = old_n;
	int err = 0;

	if (prev && !strcmp(prev->path, m->path) && prev->nsites == m->nsites)
		base = prev->gbase;
	if (base == old_n && m->nsites) {
		struct ps_site **idx = realloc(ps.site_index, (old_n + m->nsites) *
					       sizeof(*idx));

		if (!idx)
			return -ENOMEM;
		ps.site_index = idx;
		ps.nsites = old_n + m->nsites;
		/* Every filter array keeps ps.nsites bytes. */
		err = ps_globs_grow_all(old_n, &c->old_sets);
		if (err) {
			ps.nsites = old_n;
			return err;
		}
	}
	m->gbase = base;
	for (size_t i = 0; i < m->nsites; i++) {
		m->sites[i].gindex = (uint32_t)(base + i);
		ps.site_index[base + i] = &m->sites[i];
	}
	ps_module_syms(m);
	ps_globs_eval_all(base, base + m->nsites);
	return 0;
}

/* A new object: check and NOP its sites (live), map its stubs, index them. */
static void module_arrive(struct sync_ctx *c, struct object *o)
{
	int slot = slot_for(o->name[0] ? o->name : "/");
	struct ps_module *prev = slot >= 0 ? ps.mods[slot] : NULL, *m = NULL;
	int err;

	if (slot == -2) {
		ps_warn_full(o->name);
		return;
	}
	err = ps_module_add(&o->info, slot, &m);
	if (!m) {
		if (err)
			c->err = err;
		return;
	}
	if (prev && ps.mods[slot] == m)
		c->evicted[c->nevicted++] = prev;
	if (!ps.can_write || ps_patch_late(m) || ps_stubs_map(m)) {
		for (size_t i = 0; i < m->nsites; i++)
			m->sites[i].state = SITE_REFUSED;
	}
	err = index_sites(c, m, prev);
	if (err) {
		c->err = err;
		module_forget(c, m);	/* untraceable: as if it had left */
		return;
	}
	for (unsigned i = 0; i < nwatches; i++)
		if (watches[i]->arrived)
			watches[i]->arrived(m);
	ps_log(PATCHSITE_LOG_NOTE, "%s: loaded: %zu sites", m->name, m->nsites);
}

/*
 * Whether an unknown object may be added: it was noted before the wait
 * (its dlopen is over), and it is still that object.  The program headers
 * are in the object's own mapping, so no two loaded objects share them;
 * but if objects were both removed and added since, a newer object may
 * sit at the same address: it waits for the next sync.
 */
static bool arrived(const struct sync_ctx *c, const struct object *o)
{
	const struct ps_arrivals *a = c->arrivals;

	if (!a || (o->info.dlpi_adds != a->adds && o->info.dlpi_subs != a->subs))
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->phdr[i] == o->info.dlpi_phdr)
			return true;
	return false;
}

/*
 * Objects whose late NOPing waited first (nop.c), then the jumps of no-flag
 * functions wanted for the first time (noflag_arm.c), then every site the
 * ops want.
 */
static int patch_all(void)
{
	int err = ps_patch_late_pending();

	if (!err)
		err = ps_noflag_arm_wanted();
	return err ? err : ps_patch_update();
}

/* With glibc's dl_load_write_lock held: no object can come or go meanwhile. */
static int locked(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct sync_ctx *c = arg;
	bool changed = false;
	unsigned n;

	(void)info, (void)size;
	c->ran = true;
	dl_iterate_phdr(collect, c);
	if (c->err)
		return 1;
	n = ps.nmods;
	for (unsigned i = 0; i < n; i++) {
		struct ps_module *m = ps.mods[i];
		bool here = false;

		for (size_t k = 0; k < c->nobjs && !m->gone && !here; k++)
			here = is_module(&c->objs[k], m);
		if (!m->gone && !here) {
			module_forget(c, m);
			changed = true;
		}
	}
	for (size_t k = 0; c->arrivals && k < c->nobjs; k++) {
		if (object_known(&c->objs[k]) || !arrived(c, &c->objs[k]))
			continue;
		module_arrive(c, &c->objs[k]);
		changed = true;
	}
	if (changed) {
		ps_tramp_set(ps.tramp);		/* new stubs go where the others go */
		ps_recompute_want();
	}
	c->err = c->err ? c->err : patch_all();
	return 1;
}

/*
 * Bring the objects up to date (adding those of arrivals that are new,
 * arrivals from ps_loader_prepare, or NULL), then patch what the ops
 * want.  Every live change goes through here.  ps.lock held.
 */
int ps_loader_sync(const struct ps_arrivals *arrivals)
{
	struct sync_ctx c = { .arrivals = arrivals };

	dl_iterate_phdr(locked, &c);
	if (!c.ran)
		c.err = patch_all();	/* no object at all: cannot happen with glibc */
	if (c.ngone || c.nevicted || c.old_sets.n) {
		ps_sync_dispatchers();
		for (unsigned i = 0; i < c.ngone; i++) {
			struct ps_module *m = c.gone[i];

			/* A thunk may still be returned into (got.c): kept for the file's next load. */
			if (m->stubs && !ps_got_module(m)) {
				munmap(m->stubs, m->stubs_size);
				m->stubs = NULL;
			}
		}
		for (unsigned i = 0; i < c.nevicted; i++)
			ps_module_free(c.evicted[i]);
		for (unsigned i = 0; i < c.old_sets.n; i++)
			free(c.old_sets.set[i]);
	}
	free(c.objs);
	return c.err;
}

/*
 * A module made outside the loader sync (a dlopened object's library
 * calls, got_dlopen.c), already in ps.mods: indexed (prev: the record it
 * replaced in its slot, whose global indices it takes), told to the
 * watchers, then switched as the ops want.  ps.lock held.
 */
int ps_loader_adopt(struct ps_module *m, const struct ps_module *prev)
{
	struct sync_ctx c = { .arrivals = NULL };
	int err = index_sites(&c, m, prev);

	if (err) {
		for (size_t i = 0; i < m->nsites; i++)
			m->sites[i].state = SITE_REFUSED;
		return err;
	}
	for (unsigned i = 0; i < nwatches; i++)
		if (watches[i]->arrived)
			watches[i]->arrived(m);
	ps_tramp_set(ps.tramp);
	ps_recompute_want();
	err = patch_all();
	if (c.old_sets.n) {
		ps_sync_dispatchers();
		for (unsigned i = 0; i < c.old_sets.n; i++)
			free(c.old_sets.set[i]);
	}
	return err;
}

/* For ps_loader_prepare: the objects with a file that we do not know yet. */
static int note_unknown(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct ps_arrivals *a = arg;
	struct object o = { .name = info->dlpi_name ? info->dlpi_name : "",
			    .addr = info->dlpi_addr };

	(void)size;
	a->adds = info->dlpi_adds;
	a->subs = info->dlpi_subs;
	if (!strchr(o.name, '/') || object_known(&o))
		return 0;	/* no file (the vDSO), or known already */
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		const void **p = realloc(a->phdr, cap * sizeof(*p));

		if (!p)
			return 1;	/* the others wait for a later sync */
		a->phdr = p;
		a->cap = cap;
	}
	a->phdr[a->n++] = info->dlpi_phdr;
	a->cxx |= !strncmp(base_name(o.name), "libstdc++", 9);
	return 0;
}

/*
 * Before a sync, without ps.lock (a constructor may hold glibc's lock while
 * it waits for ps.lock): note the objects we do not know, then wait for
 * any dlopen still busy with them (see the top of this file).
 */
void ps_loader_prepare(struct ps_arrivals *a)
{
	Dl_info di;

	memset(a, 0, sizeof(*a));
	pthread_mutex_lock(&ps.lock);
	if (ps.inited && !ps.init_err)
		dl_iterate_phdr(note_unknown, a);
	pthread_mutex_unlock(&ps.lock);
	if (!a->n)
		return;
	/* Takes dl_load_lock, held by a dlopen until its objects are relocated or removed. */
	dladdr((void *)&ps_loader_prepare, &di);
	if (a->cxx)
		ps_demangle_lookup(NULL);	/* loaded RTLD_GLOBAL, maybe */
}

void ps_loader_done(struct ps_arrivals *a)
{
	free(a->phdr);
	a->phdr = NULL;
	a->n = a->cap = 0;
}
