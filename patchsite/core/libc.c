// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C library's own dlopen, dlmopen and dlclose, looked up once.
 *
 * The runtime exports wrappers of the same names (dl.c), which bring
 * the traced objects up to date after each call.  Its own loads (libgcc_s
 * for the unwinder hooks, libstdc++ kept for __cxa_demangle) are probes
 * with RTLD_NOLOAD and must not start that sync: one runs from inside the
 * unwinder, where taking ps.lock for a full object sync is wrong.  So they
 * call the C library directly, through these.  The wrappers' lock is
 * here too, below the wrappers and patchsite_init, which both use it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>

#include "libc.h"

static void *(*libc_dlopen)(const char *, int);
static void *(*libc_dlmopen)(Lmid_t, const char *, int);
static int (*libc_dlclose)(void *);
static pthread_mutex_t dl_mutex = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned dl_depth;

/*
 * The wrappers' lock (dl.c): one dlopen or dlclose at a time brings the
 * objects up to date; a thread's nested calls (a constructor dlopening)
 * take it once.  It is taken before ps.lock, never after.
 */
void ps_libc_dl_enter(void)
{
	if (dl_depth++ == 0)
		pthread_mutex_lock(&dl_mutex);
}

void ps_libc_dl_leave(void)
{
	if (--dl_depth == 0)
		pthread_mutex_unlock(&dl_mutex);
}

/* How deep this thread is in the wrappers: 1 in the outermost call. */
unsigned ps_libc_dl_depth(void)
{
	return dl_depth;
}

/*
 * A fork must not copy dl_mutex held by a thread the child will not have.
 * Registered by patchsite_init after its own fork handlers, so that the
 * fork takes dl_mutex before ps.lock, as a dlopen does.
 */
void ps_libc_fork_init(void)
{
	pthread_atfork(ps_libc_dl_enter, ps_libc_dl_leave, ps_libc_dl_leave);
}

/* The next definitions after ours (the C library's); false when one is missing. */
bool ps_libc_ready(void)
{
	if (!__atomic_load_n(&libc_dlopen, __ATOMIC_ACQUIRE)) {
		libc_dlmopen = (void *(*)(Lmid_t, const char *, int))dlsym(RTLD_NEXT, "dlmopen");
		libc_dlclose = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
		__atomic_store_n(&libc_dlopen, (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen"),
				 __ATOMIC_RELEASE);
	}
	return libc_dlopen && libc_dlclose && libc_dlmopen;
}

/* dlopen into namespace lmid (LM_ID_BASE: plain dlopen), as the C library does it. */
void *ps_libc_dlmopen(Lmid_t lmid, const char *name, int flags)
{
	if (!ps_libc_ready()) {
		errno = ENOSYS;
		return NULL;
	}
	return lmid == LM_ID_BASE ? libc_dlopen(name, flags) : libc_dlmopen(lmid, name, flags);
}

void *ps_libc_dlopen(const char *name, int flags)
{
	return ps_libc_dlmopen(LM_ID_BASE, name, flags);
}

int ps_libc_dlclose(void *h)
{
	if (!ps_libc_ready()) {
		errno = ENOSYS;
		return -1;
	}
	return libc_dlclose(h);
}

/* The namespace this copy of the runtime lives in: dlmopen can load a second copy elsewhere. */
long ps_libc_namespace(void)
{
	static long own = -2;	/* not known yet */
	long known = __atomic_load_n(&own, __ATOMIC_RELAXED);
	struct link_map *self = NULL;
	Dl_info di;
	Lmid_t lmid = LM_ID_BASE;

	if (known != -2)
		return known;
	if (dladdr1((void *)&ps_libc_namespace, &di, (void **)&self, RTLD_DL_LINKMAP) && self)
		dlinfo(self, RTLD_DI_LMID, &lmid);
	__atomic_store_n(&own, lmid, __ATOMIC_RELAXED);
	return lmid;
}
