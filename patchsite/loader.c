// SPDX-License-Identifier: GPL-2.0-only
/*
 * Objects loaded and unloaded after start-up.
 *
 * How we hear of them: libpatchsite defines dlopen and dlclose (preloaded,
 * or linked into the program), which call the C library's and then bring
 * our list of objects up to date.  The rtld audit interface would need
 * LD_AUDIT; the r_debug breakpoint would mean patching ld.so.  Calls that
 * do not come through us (libpatchsite itself dlopened, a library calling
 * dlclose when libpatchsite is linked into the program) are seen later:
 * every live change first drops objects that are no longer loaded.
 *
 * What keeps it safe:
 *   - Text is written only inside ps_loader_sync, from a dl_iterate_phdr
 *     callback.  glibc holds its dl_load_write_lock there, and dlclose
 *     unmaps objects under that lock, so an object we still find in the
 *     list cannot be unmapped while we write to it, whoever calls dlclose.
 *     Nothing in that section waits for another thread (a thread in a
 *     tracer may itself be in dl_iterate_phdr, unwinding): grace periods
 *     come after it.
 *   - Our dlopen wrappers run one at a time (dl_mutex, re-entrant for a
 *     constructor that calls dlopen), so the objects a scan finds are
 *     loaded and relocated, not half-way through the loader (a library
 *     built with -mrecord-mcount has DT_TEXTREL: the loader writes its
 *     text while relocating).
 *   - An unloaded object's sites leave the global index at once; its stub
 *     page and, when its slot is reused, its record are freed only after
 *     every thread has left the dispatcher and the SIGTRAP handler (the
 *     dispatch.c grace period).  The record itself stays, without code,
 *     so that events already in the rings keep their names; the same file
 *     loaded again takes the same slot and the same global indices.
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
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

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
	bool scan;		/* add objects we do not know yet */
	bool ran;
	int err;
	struct object *objs;
	size_t nobjs, cap;
	struct ps_module *gone[PS_MAX_MODULES];	/* their stubs are unmapped after a grace period */
	unsigned ngone;
	struct ps_module *evicted[PS_MAX_MODULES];	/* records replaced in their slot */
	unsigned nevicted;
	uint8_t *old_trigger;
};

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
		for (struct ps_ops_state *st = ps.states; st && !err; st = st->next) {
			uint8_t *old = NULL;

			err = ps_filter_grow(&st->filter, old_n, &old);
			free(old);
			if (!err)
				err = ps_filter_grow(&st->notrace, old_n, &old);
			free(old);
		}
		if (!err)
			err = ps_filter_grow(&ps_graph_trigger, old_n, &c->old_trigger);
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
	for (struct ps_ops_state *st = ps.states; st; st = st->next) {
		ps_filter_eval(&st->filter, base, base + m->nsites);
		ps_filter_eval(&st->notrace, base, base + m->nsites);
	}
	ps_filter_eval(&ps_graph_trigger, base, base + m->nsites);
	return 0;
}

/* A new object: check and NOP its sites (live), map its stubs, index them. */
static void module_arrive(struct sync_ctx *c, struct object *o)
{
	int slot = slot_for(o->name[0] ? o->name : "/");
	struct ps_module *prev = slot >= 0 ? ps.mods[slot] : NULL, *m = NULL;
	int err;

	if (slot == -2) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: more than %d objects: not traced", o->name,
		       PS_MAX_MODULES);
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
	ps_log(PATCHSITE_LOG_NOTE, "%s: loaded: %zu sites", m->name, m->nsites);
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
	for (size_t k = 0; c->scan && k < c->nobjs; k++) {
		if (object_known(&c->objs[k]))
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
 * Bring the objects up to date (adding new ones only when scan), then
 * patch what the ops want.  Every live change goes through here.  ps.lock
 * held; dl_mutex too when scan.
 */
int ps_loader_sync(bool scan)
{
	struct sync_ctx c = { .scan = scan };

	dl_iterate_phdr(locked, &c);
	if (!c.ran)
		c.err = ps_patch_update();	/* no object at all: cannot happen with glibc */
	if (c.ngone || c.nevicted || c.old_trigger) {
		ps_sync_dispatchers();
		for (unsigned i = 0; i < c.ngone; i++) {
			struct ps_module *m = c.gone[i];

			if (m->stubs)
				munmap(m->stubs, m->stubs_size);
			m->stubs = NULL;
		}
		for (unsigned i = 0; i < c.nevicted; i++)
			ps_module_free(c.evicted[i]);
		free(c.old_trigger);
	}
	free(c.objs);
	return c.err;
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

static void *(*real_dlopen)(const char *, int);
static void *(*real_dlmopen)(Lmid_t, const char *, int);
static int (*real_dlclose)(void *);

/*
 * A bare name found in a directory that only the caller searches (its
 * DT_RUNPATH or DT_RPATH) and not loaded yet, by its full path.
 */
static char *caller_search(const char *name, void *caller_lm)
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
	if (path) {
		h = real_dlopen(name, RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			real_dlclose(h);
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

/* What to pass to the real dlopen for this caller (NULL: name as it is), and its namespace. */
static char *caller_path(const char *name, void *ret, Lmid_t *lmid)
{
	struct link_map *lm = NULL;
	Dl_info di;

	*lmid = LM_ID_BASE;
	if (!name || !dladdr1(ret, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
		return NULL;
	if (dlinfo(lm, RTLD_DI_LMID, lmid))
		*lmid = LM_ID_BASE;
	if (strchr(name, '/'))
		return caller_origin(name, lm);
	return caller_search(name, lm);
}

static bool next_symbols(void)
{
	if (!real_dlopen) {
		real_dlmopen = (void *(*)(Lmid_t, const char *, int))dlsym(RTLD_NEXT, "dlmopen");
		real_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
		__atomic_store_n(&real_dlopen, (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen"),
				 __ATOMIC_RELEASE);
	}
	return real_dlopen && real_dlclose && real_dlmopen;
}

/* After the outermost dlopen or dlclose of this thread: bring the objects up to date. */
static void after_change(bool scan, void *h)
{
	if (dl_depth != 1 || !ps.inited || ps.init_err)
		return;
	if (scan)
		ps_demangle_lookup(h);	/* a C++ library may have brought libstdc++ */
	pthread_mutex_lock(&ps.lock);
	ps_loader_sync(scan);
	pthread_mutex_unlock(&ps.lock);
}

EXPORT void *dlopen(const char *name, int flags)
{
	void *ret = __builtin_return_address(0), *h;
	Lmid_t lmid;
	char *path;

	if (!next_symbols()) {
		errno = ENOSYS;
		return NULL;
	}
	dl_enter();
	path = caller_path(name, ret, &lmid);
	if (lmid != LM_ID_BASE)
		h = real_dlmopen(lmid, path ? path : name, flags);
	else
		h = real_dlopen(path ? path : name, flags);
	free(path);
	if (h)
		after_change(true, h);
	dl_leave();
	return h;
}

EXPORT int dlclose(void *h)
{
	int err;

	if (!next_symbols()) {
		errno = ENOSYS;
		return -1;
	}
	dl_enter();
	err = real_dlclose(h);
	if (!err)
		after_change(false, NULL);
	dl_leave();
	return err;
}
