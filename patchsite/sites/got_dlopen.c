// SPDX-License-Identifier: GPL-2.0-only
/*
 * Library calls of objects dlopened after start-up (got.h has the model).
 *
 * Which: with --nest-libcall every object but the ones got.c never scans;
 * without it the plugins, objects built with patch sites of their own
 * (-pg, -mfentry...): the program loaded them to be part of it, and their
 * calls into the C library are the program's library calls.  Objects that
 * were there at start-up are never scanned here: start-up decided.
 *
 * When: after the dlopen wrapper's loader sync added the objects (dl.c),
 * in three steps, because the dynamic linker's dl_load_lock (taken by
 * dlsym, dladdr, dlopen) must never be waited for under ps.lock (a
 * constructor may hold it while it waits for ps.lock):
 *   1. under ps.lock, the objects to scan are noted;
 *   2. without it, each is pinned by a dlopen(RTLD_NOLOAD) of its own, so
 *      that no dlclose of another thread can unmap it meanwhile, and its
 *      slots are read and resolved (lazy ones as the dynamic linker would:
 *      the global scope, then the object's own, see got_resolve);
 *   3. under ps.lock again, its module is made, indexed and switched as the
 *      filters want; then the pin is dropped.
 *
 * At dlclose the loader sync forgets the module with its caller (same
 * name and bias): its sites leave the index, its GOT is not touched (it is
 * gone).  Its thunks are never unmapped: the trampoline returns into a
 * thunk after the grace period has ended for that thread, so no moment is
 * known when none can still be there.  The same file loaded again takes
 * the same module index and the same thunks (same slots, same ids: the
 * same code), only their targets are stored anew; so a program that opens
 * and closes a plugin in a loop keeps one set of thunks for it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/libc.h"
#include "got_mod.h"
#include "got_uses.h"
#include "sites.h"

#define MAX_FRESH	32		/* objects scanned per dlopen; more wait for the next */

/* One object to scan: noted in step 1, read in step 2. */
struct fresh {
	struct ps_module *m;
	unsigned index;
	uintptr_t bias;
	char *path;
	void *pin;
	struct dl_phdr_info info;
	bool found;
	struct got_pre pre;
	char *libs;			/* the basenames pre's slots point to */
};

/* Objects found not to be scanned, so that each is said once (the decision is the file's). */
static struct {
	const struct ps_module *m;
	uintptr_t bias;
	size_t nsites;
} skipped[PS_MAX_MODULES];

/* The live library-call module of caller, or NULL. */
static struct got_mod *module_of(const struct ps_module *caller)
{
	for (unsigned k = 0; k < ps.nmods; k++)
		if (got_mods[k] && got_mods[k]->m == ps.mods[k] && !ps.mods[k]->gone &&
		    got_mods[k]->caller == caller)
			return got_mods[k];
	return NULL;
}

static bool at_startup(const struct ps_module *m)
{
	for (unsigned k = 0; k < PS_MAX_MODULES; k++)
		if (got_boot.startup[k] == m)
			return true;
	return false;
}

static bool was_skipped(const struct ps_module *m)
{
	return skipped[m->index].m == m && skipped[m->index].bias == m->bias &&
	       skipped[m->index].nsites == m->nsites;
}

/* Why m's calls are not traced (said once), "" (silently), or NULL: scan it. */
static const char *why_not(const struct ps_module *m, int flags)
{
	if (m->gone || ps_got_module(m) || !m->file_ok || !m->path || at_startup(m) ||
	    module_of(m) || was_skipped(m))
		return "";
	if (!got_boot.nest && !m->nsites)	/* a library the program uses, not a part of it */
		return "no patch sites of its own (--nest-libcall traces it)";
	if (got_never_caller(m))
		return "patchsite itself calls into it or runs under it";
	if (got_ours(m))
		return got_ours(m);
	/* Its lookups go to its own scope first: a lazy slot would be bound elsewhere. */
	if (flags & RTLD_DEEPBIND)
		return "dlopened with RTLD_DEEPBIND";
	return NULL;
}

/* Step 1 (ps.lock held): the objects to scan. */
static size_t note_fresh(struct fresh *f, int flags)
{
	size_t n = 0;

	for (unsigned i = 0; i < ps.nmods && n < MAX_FRESH; i++) {
		struct ps_module *m = ps.mods[i];
		const char *why = why_not(m, flags);

		if (why && *why) {
			ps_log(PATCHSITE_LOG_NOTE, "%s: its library calls not traced: %s",
			       m->name, why);
			skipped[i].m = m;
			skipped[i].bias = m->bias;
			skipped[i].nsites = m->nsites;
		}
		if (why)
			continue;
		f[n] = (struct fresh){ .m = m, .index = i, .bias = m->bias,
				       .path = strdup(m->path) };
		if (f[n].path)
			n++;
	}
	return n;
}

static int find_info(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct fresh *f = arg;

	(void)size;
	/* By bias and basename: the list may name it as dlopen was given it (relative). */
	if (info->dlpi_addr != f->bias || !info->dlpi_name || !*info->dlpi_name ||
	    strcmp(strrchr(info->dlpi_name, '/') ? strrchr(info->dlpi_name, '/') + 1
		   : info->dlpi_name, f->m->name))
		return 0;
	f->info = *info;	/* its program headers stay mapped while it is pinned */
	f->found = true;
	return 1;
}

/* Step 2 (no ps.lock): pin the object, read its slots, resolve them. */
static bool prepare(struct fresh *f)
{
	struct link_map *lm = NULL;
	struct got_uses uses;
	struct dyn d;
	char *at;

	f->pin = ps_libc_dlmopen(LM_ID_BASE, f->path, RTLD_LAZY | RTLD_NOLOAD);
	if (!f->pin) {
		dlerror();	/* closed again meanwhile: nothing to trace */
		return false;
	}
	if (dlinfo(f->pin, RTLD_DI_LINKMAP, &lm) || !lm || lm->l_addr != f->bias)
		return false;	/* another object by that name now */
	dl_iterate_phdr(find_info, f);
	if (!f->found || !got_read_dyn(&f->info, &d))
		return false;
	got_find_uses(f->m, &f->info, &d, &uses);
	f->pre.n = got_count(&d, f->bias, got_boot.mode, &uses);
	f->pre.c = calloc(f->pre.n ? f->pre.n : 1, sizeof(*f->pre.c));
	f->libs = malloc((f->pre.n ? f->pre.n : 1) * LIB_NAME_MAX);
	if (!f->pre.c || !f->libs) {
		got_uses_free(&uses);
		return false;
	}
	got_gather(&d, f->bias, got_boot.mode, &uses, f->pre.c);
	got_uses_free(&uses);
	at = f->libs;
	for (size_t i = 0; i < f->pre.n; i++) {
		struct cand *c = &f->pre.c[i];

		c->target = got_resolve(f->m, c, f->pin);
		c->lib = c->target ? got_lib_of(c->target, &at) : NULL;
		c->known = true;
	}
	return f->pre.n > 0;
}

/* A gone module of the same file's library calls: its index and thunks are reused. */
static struct got_mod *old_module(const struct ps_module *caller)
{
	size_t len = strlen(caller->path);

	for (unsigned k = 0; k < ps.nmods; k++) {
		struct got_mod *g = got_mods[k];

		if (g && g->m == ps.mods[k] && g->m->gone && g->m->stubs &&
		    !strncmp(g->m->path, caller->path, len) &&
		    !strcmp(g->m->path + len, " (library calls)"))
			return g;
	}
	return NULL;
}

/* Step 3 (ps.lock held): the module, in the old one's place when the file is the same. */
static void adopt(struct fresh *f)
{
	struct got_mod *old, *g;
	int err;

	if (f->index >= ps.nmods || ps.mods[f->index] != f->m || f->m->gone || module_of(f->m))
		return;		/* gone meanwhile (unpinned by a dlclose not through us) */
	old = old_module(f->m);
	err = got_add_caller(f->m, &f->info, &f->pre, old);
	if (err == -EAGAIN) {
		old = NULL;
		err = got_add_caller(f->m, &f->info, &f->pre, NULL);
	}
	g = err ? NULL : module_of(f->m);
	if (!g)
		return;
	err = ps_loader_adopt(g->m, old ? old->m : NULL);
	if (err)
		ps_log(PATCHSITE_LOG_WARNING, "%s: its library calls not traced: %s",
		       f->m->name, strerror(-err));
	if (old) {
		ps_sync_dispatchers();	/* no dispatcher still reads the old record */
		got_free(old);		/* its thunks are g's now (map_thunks took them) */
	}
}

void ps_got_dlopened(int flags)
{
	struct fresh f[MAX_FRESH];
	size_t n;

	if (got_boot.mode == PS_LIBCALL_OFF)
		return;
	pthread_mutex_lock(&ps.lock);
	n = note_fresh(f, flags);
	pthread_mutex_unlock(&ps.lock);
	for (size_t i = 0; i < n; i++) {
		bool ok = prepare(&f[i]);

		if (ok) {
			pthread_mutex_lock(&ps.lock);
			adopt(&f[i]);
			pthread_mutex_unlock(&ps.lock);
		}
		if (f[i].pin)
			ps_libc_dlclose(f[i].pin);
		free(f[i].pre.c);
		free(f[i].libs);
		free(f[i].path);
	}
}
