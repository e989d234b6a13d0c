// SPDX-License-Identifier: GPL-2.0-only
/* A library with a branch counter (branches.c dlopens it, calls lib_loop(M), dlcloses it). */
#include "patchsite_branch.h"

#ifdef __cplusplus
extern "C"	/* built as C++ too (branches.sh): dlsym finds it by this name */
#endif
long lib_loop(long m)
{
	long s = 0;

	for (long i = 0; i < m; i++)
		if (patchsite_unlikely(i % 3 == 0))	/* LIB_LINE */
			s++;
	return s;
}
