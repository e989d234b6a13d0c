// SPDX-License-Identifier: GPL-2.0-only
/*
 * Objects loaded and unloaded after start-up: the dlopen, dlmopen and
 * dlclose wrappers.  Each calls the C library's (core/libc.c), then brings
 * the objects up to date (sites/sync.c ps_loader_sync).
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
#include "sites/got.h"

#define EXPORT __attribute__((visibility("default")))

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

/*
 * Objects of other namespaces reported so far, by namespace and dynamic
 * section (which is in the object's mapping: no two loaded objects share
 * it).  The loads' lock held (core/libc.c ps_libc_dl_enter).
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

	if (ps_libc_namespace() != LM_ID_BASE)
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
static void after_change(bool scan, void *h, int flags)
{
	struct ps_arrivals a = { .n = 0 };

	if (ps_libc_dl_depth() != 1 || !ps.inited || ps.init_err)
		return;
	if (scan) {
		ps_demangle_lookup(h);	/* a C++ library may have brought libstdc++ */
		ps_loader_prepare(&a);
	}
	pthread_mutex_lock(&ps.lock);
	ps_loader_sync(scan ? &a : NULL);
	pthread_mutex_unlock(&ps.lock);
	ps_loader_done(&a);
	if (scan)
		ps_got_dlopened(flags);	/* their library calls (sites/got_dlopen.c) */
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
	ps_libc_dl_enter();
	if (name)
		caller = caller_map(ret, &lmid);
	if (into)
		lmid = *into;
	path = caller_path(name, caller, lmid);
	h = ps_libc_dlmopen(lmid, path ? path : name, flags);
	free(path);
	if (h && lmid == LM_ID_BASE)
		after_change(true, h, flags);
	else if (h)
		report_elsewhere(fn, h);
	ps_libc_dl_leave();
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
	ps_libc_dl_enter();
	/* Branch counts of whatever this unloads: read while its memory is there. */
	if (ps_libc_dl_depth() == 1)
		ps_branches_capture();
	err = ps_libc_dlclose(h);
	if (!err)
		after_change(false, NULL, 0);
	if (ps_libc_dl_depth() == 1)
		ps_branches_settle();
	ps_libc_dl_leave();
	return err;
}
