// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ names as a trace shows them: the qualified name a reader would type
 * in a filter, `shapes::Square::perimeter`, `shapes::twice<int>`.
 *
 * __cxa_demangle gives the whole declaration: a template function's
 * return type before the name (the mangling encodes it only for template
 * functions), the parameter list, cv- and ref-qualifiers after it, and
 * gcc's clone suffixes last (`foo(int) [clone .constprop.0]`).  We keep
 * the qualified name with its template arguments, and write a clone as C
 * symbols have it (`foo.constprop.0`).  uftrace's --demangle=simple also
 * drops template arguments, which makes two instantiations one name; a
 * glob `shapes::twice*` still selects them all here.
 *
 * __cxa_demangle comes from libstdc++ when the program has it loaded (a
 * C++ program does); C programs never need it, and without it names stay
 * mangled in the trace directory, for the patchsite command to demangle
 * (it links libstdc++).  The name's shape is demangle_name.c's, which the
 * command shares.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "libc.h"

static char *(*demangle)(const char *, char *, size_t *, int *);

/*
 * Looked up outside ps.lock: dlsym takes the loader's lock, which a
 * constructor calling this library may hold while it waits for ps.lock.
 * handle: an object just dlopened, or NULL.  A C++ library dlopened
 * RTLD_LOCAL by a C program brings libstdc++ into its own scope only,
 * where RTLD_DEFAULT does not look: dlsym on its handle does.
 */
void ps_demangle_lookup(void *handle)
{
	void *f;

	if (__atomic_load_n(&demangle, __ATOMIC_ACQUIRE))
		return;
	f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f && handle) {
		Dl_info di;

		f = dlsym(handle, "__cxa_demangle");
		/* Keep its object loaded when the library that brought it is closed. */
		if (f && (!dladdr(f, &di) || !di.dli_fname ||
			  !ps_libc_dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE)))
			f = NULL;
	}
	if (!f)
		dlerror();	/* the failed lookup is not the program's error */
	__atomic_store_n(&demangle, (char *(*)(const char *, char *, size_t *, int *))f,
			 __ATOMIC_RELEASE);
}

char *ps_demangle_simple(const char *name)
{
	char *(*f)(const char *, char *, size_t *, int *) =
		__atomic_load_n(&demangle, __ATOMIC_ACQUIRE);

	return f ? ps_demangle_by(f, name) : NULL;
}
