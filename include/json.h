/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A JSON string, for every tool's --json and the runtime's Chrome output.
 * Header-only because libpatchsite does not link the core library.  Bytes
 * outside printable ASCII are escaped too: names come from the files we
 * read, and a hostile one is no valid UTF-8.
 */
#ifndef PS_JSON_H
#define PS_JSON_H

#include <stdio.h>

static inline void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

#endif
