// SPDX-License-Identifier: GPL-2.0-only
/*
 * Objects loaded and unloaded after start-up.
 *
 * How we hear of them: libpatchsite defines dlopen, dlmopen and dlclose
 * (preloaded, or linked into the program), which call the C library's and
 * then bring our list of objects up to date.  The rtld audit interface
 * would need LD_AUDIT; the r_debug breakpoint would mean patching ld.so.
 * Loads that do not come through us (libpatchsite itself dlopened, a
 * library calling dlopen when libpatchsite is linked into the program)
 * are picked up by the next live change through the API (tracing on or
 * off, a filter, an ops registered or unregistered, the function list);
 * until then their sites keep what the compiler put there (a call to
 * __fentry__, which does nothing without gprof, or a NOP): untraced.
 * Unloads are noticed the same way: every live change first drops the
 * objects that are no longer loaded.
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
 *     dispatch.c grace period).  The record itself stays, without code,
 *     so that events already in the rings keep their names; the same file
 *     loaded again takes the same slot and the same global indices.
 *
 * Other namespaces: dl_iterate_phdr lists only its caller's namespace, so
 * objects that dlmopen puts elsewhere are neither seen nor written; each
 * is reported once as not traced.  Their sites call their own namespace's
 * __fentry__ (glibc's gprof hook, idle).  A copy of libpatchsite loaded
 * into another namespace stays inert (api.c).
 *
 * The wrapper calls dlopen from libpatchsite, but glibc searches a bare
 * name through its caller's DT_RUNPATH and expands $ORIGIN from the
 * caller, found by the return address.  caller_path() does that part for
 * the real caller, so that wrapping changes nothing the program sees.
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

#include "internal.h"
#include "event.h"

#define EXPORT __attribute__((visibility("default")))

static pthread_mutex_t dl_mutex = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned dl_depth;

static void dl_enter(void)
{
	if (dl_depth++ == 0)
		pthread_mutex_lock(&dl_mutex);
}

static void dl_leave(void)
{
	if (--dl_depth == 0)
		pthread_mutex_unlock(&dl_mutex);
}

/* A fork must not copy dl_mutex held by a thread the child will not have. */
void ps_loader_init(void)
{
	pthread_atfork(dl_enter, dl_leave, dl_leave);
}

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
	m->was_lo = m->text_lo;
	m->was_hi = m->text_hi;
	m->nsegs = 0;
	m->text_lo = UINTPTR_MAX;	/* ps_site_by_addr and ps_sym_by_addr skip it */
	m->text_hi = 0;
	m->tramp_slot = NULL;		/* ps_tramp_set leaves it alone */
	c->gone[c->ngone++] = m;
	for (unsigned i = nwatches; i-- > 0;)
		if (watches[i]->gone)
			watches[i]->gone(m);
	ps_log(PATCHSITE_LOG_NOTE, "%s: unloaded: %zu sites forgotten", m->name, m->nsites);
}

/* The slot for a new object: the same file's old one, a free one, or the oldest unloaded one. */
static int slot_for(const char *name)
{
	const char *base = base_name(name);

	for (unsigned i = 0; i < ps.nmods; i++)
		if (ps.mods[i]->gone && !strcmp(ps.mods[i]->name, base))
			return (int)i;
	if (ps.nmods < PS_MAX_MODULES)
		return -1;
	for (unsigned i = 0; i < ps.nmods; i++)
		if (ps.mods[i]->gone)
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
	c->err = c->err ? c->err : ps_patch_update();
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
		c.err = ps_patch_update();	/* no object at all: cannot happen with glibc */
	if (c.ngone || c.nevicted || c.old_sets.n) {
		ps_sync_dispatchers();
		for (unsigned i = 0; i < c.ngone; i++) {
			struct ps_module *m = c.gone[i];

			if (m->stubs)
				munmap(m->stubs, m->stubs_size);
			m->stubs = NULL;
		}
		for (unsigned i = 0; i < c.nevicted; i++)
			ps_module_free(c.evicted[i]);
		for (unsigned i = 0; i < c.old_sets.n; i++)
			free(c.old_sets.set[i]);
	}
	free(c.objs);
	return c.err;
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

/* Search dirs of an object, as dlinfo(RTLD_DI_SERINFO) gives them; NULL on failure. */
static Dl_serinfo *search_list(void *lm)
{
	Dl_serinfo size, *si;

	if (dlinfo(lm, RTLD_DI_SERINFOSIZE, &size))
		return NULL;
	si = malloc(size.dls_size);
	if (!si)
		return NULL;
	*si = size;
	if (dlinfo(lm, RTLD_DI_SERINFO, si)) {
		free(si);
		return NULL;
	}
	return si;
}

static bool search_has(const Dl_serinfo *si, const char *dir)
{
	for (unsigned i = 0; i < si->dls_cnt; i++)
		if (!strcmp(si->dls_serpath[i].dls_name, dir))
			return true;
	return false;
}

/*
 * A bare name found in a directory that only the caller searches (its
 * DT_RUNPATH or DT_RPATH) and not loaded yet into namespace lmid, by its
 * full path.
 */
static char *caller_search(const char *name, void *caller_lm, Lmid_t lmid)
{
	struct link_map *self = NULL;
	Dl_info di;
	Dl_serinfo *theirs = NULL, *ours = NULL;
	char *path = NULL, buf[PATH_MAX];
	void *h;

	if (!dladdr1((void *)&caller_search, &di, (void **)&self, RTLD_DL_LINKMAP) || !self)
		return NULL;
	theirs = search_list(caller_lm);
	ours = search_list(self);
	if (!theirs || !ours)
		goto out;
	for (unsigned i = 0; i < theirs->dls_cnt && !path; i++) {
		const char *dir = theirs->dls_serpath[i].dls_name;

		if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, name) >= sizeof(buf) ||
		    access(buf, F_OK))
			continue;
		if (search_has(ours, dir))
			break;		/* we would find the same file */
		path = strdup(buf);
	}
	/* Already loaded under that name: glibc returns that object, whatever the paths. */
	if (path && lmid != LM_ID_NEWLM) {
		h = ps_libc_dlmopen(lmid, name, RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			ps_libc_dlclose(h);
			free(path);
			path = NULL;
		} else {
			dlerror();	/* the probe's failure is not the program's */
		}
	}
out:
	free(theirs);
	free(ours);
	return path;
}

/* $ORIGIN and ${ORIGIN} in a name: the caller's directory. */
static char *caller_origin(const char *name, void *caller_lm)
{
	char origin[PATH_MAX], *out;
	const char *p = name;
	size_t n = 0, len;

	if (!strstr(name, "$ORIGIN") && !strstr(name, "${ORIGIN}"))
		return NULL;
	if (dlinfo(caller_lm, RTLD_DI_ORIGIN, origin))
		return NULL;
	len = strlen(origin);
	out = malloc(strlen(name) / 7 * len + strlen(name) + 1);
	if (!out)
		return NULL;
	while (*p) {
		if (!strncmp(p, "$ORIGIN", 7) || !strncmp(p, "${ORIGIN}", 9)) {
			memcpy(out + n, origin, len);
			n += len;
			p += p[1] == '{' ? 9 : 7;
		} else {
			out[n++] = *p++;
		}
	}
	out[n] = '\0';
	return out;
}

/* The caller's link map, found by its return address, and its namespace. */
static struct link_map *caller_map(void *ret, Lmid_t *lmid)
{
	struct link_map *lm = NULL;
	Dl_info di;

	*lmid = LM_ID_BASE;
	if (!dladdr1(ret, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	if (dlinfo(lm, RTLD_DI_LMID, lmid))
		*lmid = LM_ID_BASE;
	return lm;
}

/* What to pass to the real dlopen for this caller (NULL: name as it is), loading into lmid. */
static char *caller_path(const char *name, struct link_map *caller, Lmid_t lmid)
{
	if (!name || !caller)
		return NULL;
	if (strchr(name, '/'))
		return caller_origin(name, caller);
	return caller_search(name, caller, lmid);
}

/* The namespace this copy of the runtime lives in: dlmopen can load a second copy elsewhere. */
long ps_loader_namespace(void)
{
	static long own = -2;	/* not known yet */
	long known = __atomic_load_n(&own, __ATOMIC_RELAXED);
	struct link_map *self = NULL;
	Dl_info di;
	Lmid_t lmid = LM_ID_BASE;

	if (known != -2)
		return known;
	if (dladdr1((void *)&ps_loader_namespace, &di, (void **)&self, RTLD_DL_LINKMAP) && self)
		dlinfo(self, RTLD_DI_LMID, &lmid);
	__atomic_store_n(&own, lmid, __ATOMIC_RELAXED);
	return lmid;
}

/*
 * Objects of other namespaces reported so far, by namespace and dynamic
 * section (which is in the object's mapping: no two loaded objects share
 * it).  dl_mutex held.
 */
static struct foreign {
	Lmid_t lmid;
	const void *ld;
} *foreign;
static size_t nforeign, foreign_cap;

struct namespace_walk {
	struct link_map *lm;	/* an object dlmopen returned */
	Lmid_t lmid;
	char **names;		/* objects not reported yet */
	size_t n;
};

static bool in_list(const struct link_map *head, const void *ld)
{
	for (const struct link_map *l = head; l; l = l->l_next)
		if (l->l_ld == ld)
			return true;
	return false;
}

static bool foreign_add(struct namespace_walk *w, const struct link_map *l)
{
	char **names = realloc(w->names, (w->n + 1) * sizeof(*names));

	if (!names)
		return false;
	w->names = names;
	if (nforeign == foreign_cap) {
		size_t cap = foreign_cap ? 2 * foreign_cap : 16;
		struct foreign *f = realloc(foreign, cap * sizeof(*f));

		if (!f)
			return false;
		foreign = f;
		foreign_cap = cap;
	}
	w->names[w->n] = strdup(l->l_name);
	if (!w->names[w->n])
		return false;
	w->n++;
	foreign[nforeign++] = (struct foreign){ w->lmid, l->l_ld };
	return true;
}

/*
 * With glibc's dl_load_write_lock held, so that the namespace's list (its
 * link maps, l_prev and l_next) stays as it is while we walk it.  ld.so is
 * in every namespace, as one mapping: it is the base namespace's.
 */
static int namespace_walk(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct namespace_walk *w = arg;
	uintptr_t ldso = (uintptr_t)getauxval(AT_BASE);
	struct link_map *head = w->lm;
	size_t k = 0;

	(void)info, (void)size;
	while (head->l_prev)
		head = head->l_prev;
	/* Objects that left are reported again if they come back. */
	for (size_t i = 0; i < nforeign; i++)
		if (foreign[i].lmid != w->lmid || in_list(head, foreign[i].ld))
			foreign[k++] = foreign[i];
	nforeign = k;
	for (struct link_map *l = head; l; l = l->l_next) {
		bool known = !l->l_name[0] || l->l_addr == ldso;

		for (size_t i = 0; i < nforeign && !known; i++)
			known = foreign[i].lmid == w->lmid && foreign[i].ld == l->l_ld;
		if (!known && !foreign_add(w, l))
			break;
	}
	return 1;
}

/* Objects loaded into another namespace, which we cannot see or patch: one line each. */
static void report_elsewhere(const char *fn, void *h)
{
	struct namespace_walk w = { .lm = NULL };

	if (ps_loader_namespace() != LM_ID_BASE)
		return;		/* an inert copy: the base namespace's copy speaks */
	if (dlinfo(h, RTLD_DI_LINKMAP, &w.lm) || dlinfo(h, RTLD_DI_LMID, &w.lmid) || !w.lm) {
		dlerror();	/* not the program's error */
		return;
	}
	dl_iterate_phdr(namespace_walk, &w);
	for (size_t i = 0; i < w.n; i++) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: loaded by %s into namespace %ld: not traced",
		       w.names[i], fn, (long)w.lmid);
		free(w.names[i]);
	}
	free(w.names);
}

/* After the outermost dlopen or dlclose of this thread: bring the objects up to date. */
static void after_change(bool scan, void *h)
{
	struct ps_arrivals a = { .n = 0 };

	if (dl_depth != 1 || !ps.inited || ps.init_err)
		return;
	if (scan) {
		ps_demangle_lookup(h);	/* a C++ library may have brought libstdc++ */
		ps_loader_prepare(&a);
	}
	pthread_mutex_lock(&ps.lock);
	ps_loader_sync(scan ? &a : NULL);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
}

/* dlopen (into the caller's namespace: into NULL) and dlmopen. */
static void *load(const char *fn, const Lmid_t *into, const char *name, int flags, void *ret)
{
	struct link_map *caller = NULL;
	Lmid_t lmid = LM_ID_BASE;
	char *path;
	void *h;

	if (!ps_libc_ready()) {
		errno = ENOSYS;
		return NULL;
	}
	dl_enter();
	if (name)
		caller = caller_map(ret, &lmid);
	if (into)
		lmid = *into;
	path = caller_path(name, caller, lmid);
	h = ps_libc_dlmopen(lmid, path ? path : name, flags);
	free(path);
	if (h && lmid == LM_ID_BASE)
		after_change(true, h);
	else if (h)
		report_elsewhere(fn, h);
	dl_leave();
	return h;
}

EXPORT void *dlopen(const char *name, int flags)
{
	return load("dlopen", NULL, name, flags, __builtin_return_address(0));
}

/* LM_ID_BASE: as dlopen.  Elsewhere we cannot see the objects (see the top of this file). */
EXPORT void *dlmopen(Lmid_t lmid, const char *name, int flags)
{
	return load("dlmopen", &lmid, name, flags, __builtin_return_address(0));
}

EXPORT int dlclose(void *h)
{
	int err;

	if (!ps_libc_ready()) {
		errno = ENOSYS;
		return -1;
	}
	dl_enter();
	/* Branch counts of whatever this unloads: read while its memory is there. */
	if (dl_depth == 1)
		ps_branches_capture();
	err = ps_libc_dlclose(h);
	if (!err)
		after_change(false, NULL);
	if (dl_depth == 1)
		ps_branches_settle();
	dl_leave();
	return err;
}
