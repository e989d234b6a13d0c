/* SPDX-License-Identifier: GPL-2.0-only */
/* C++ names as a trace shows them (demangle.c). */
#ifndef PATCHSITE_DEMANGLE_H
#define PATCHSITE_DEMANGLE_H

/* Find __cxa_demangle, also in the scope of handle (an object just dlopened, or NULL). */
void ps_demangle_lookup(void *handle);

/* A mangled C++ name as shown, malloc'd; NULL when not C++ or not demangled. */
char *ps_demangle_simple(const char *name);

/* The shown form of a demangled declaration, malloc'd (NULL: no memory); demangle_name.c. */
char *ps_name_simple(const char *demangled);

/* name demangled by f (a __cxa_demangle) and shown, malloc'd; NULL as ps_demangle_simple. */
char *ps_demangle_by(char *(*f)(const char *, char *, size_t *, int *), const char *name);

#endif
