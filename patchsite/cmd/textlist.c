// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lists the command builds as text for the runtime's settings: repeated
 * options, probe definitions (one a line: they hold blanks), the names a
 * walk has seen.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

char *list_add(char *list, const char *s, char sep)
{
	size_t a = list ? strlen(list) : 0, b = strlen(s);
	char *o = realloc(list, a + b + 2);

	if (!o) {
		free(list);
		return NULL;
	}
	if (a)
		o[a++] = sep;
	memcpy(o + a, s, b + 1);
	return o;
}
