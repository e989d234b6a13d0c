// SPDX-License-Identifier: GPL-2.0-only
/* noplt.c -DTAKE_MALLOC's library: &malloc as this object sees it. */
#include <stdlib.h>

void *(*noplt_lib_malloc(void))(size_t)
{
	return malloc;
}
