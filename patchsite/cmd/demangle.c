// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ names the command prints.  The runtime demangles with the traced
 * process's own __cxa_demangle and so leaves names mangled where the
 * process had no libstdc++ (g++ --as-needed dropped it, a C program's C++
 * plugin kept it in its own scope); the command links libstdc++ and
 * demangles those as the runtime would have (core/demangle_name.c).
 */
#include <stdlib.h>

#include "../core/demangle.h"
#include "../data/psread.h"
#include "cmd.h"

/* libstdc++'s, declared by <cxxabi.h> for C++ only. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static char *demangle(const char *mangled)
{
	return ps_demangle_by(__cxa_demangle, mangled);
}

void cmd_demangle_init(void)
{
	psr_set_demangler(demangle);
}
