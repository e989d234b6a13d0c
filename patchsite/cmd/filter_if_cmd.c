// SPDX-License-Identifier: GPL-2.0-only
/*
 * record -F 'FUNC if COND' and uftrace's -F FUNC@if:COND: the condition's
 * names are the function's parameters, typed and located by DWARF here
 * (probe_dwarf.c), so that the runtime gets fetch arguments it can run
 * (events/filter_if.c); argN stays the Nth integer argument register, as
 * uftrace's arg1.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../events/probe.h"
#include "filter_if_cmd.h"
#include "dwarf/libcall_args.h"
#include "dwarf/probe_dwarf.h"

/* Is w (n bytes) argN? */
static bool is_argn(const char *w, size_t n)
{
	if (n < 4 || strncmp(w, "arg", 3))
		return false;
	for (size_t i = 3; i < n; i++)
		if (!isdigit((unsigned char)w[i]))
			return false;
	return true;
}

/* The fields cond names, each once, as fetch arguments of "f FUNC ..." appended to def. */
static void cond_fields(const char *cond, char *def, size_t len)
{
	const char *s = cond;

	while (*s) {
		size_t n;

		if (*s == '"' || *s == '\'') {		/* a string constant: no names in it */
			const char *e = strchr(s + 1, *s);

			s = e ? e + 1 : s + strlen(s);
			continue;
		}
		if (!isalpha((unsigned char)*s) && *s != '_') {
			s += isalnum((unsigned char)*s) ? strspn(s, "0123456789abcdefABCDEFxX.") : 1;
			continue;
		}
		n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		char word[80];
		snprintf(word, sizeof(word), " %.*s%s", (int)(n < 60 ? n : 60), s,
			 is_argn(s, n) ? "=$" : "");
		if (is_argn(s, n))
			snprintf(word + strlen(word), sizeof(word) - strlen(word), "%.*s:s64",
				 (int)(n < 60 ? n : 60), s);
		if (!strstr(def, word))
			snprintf(def + strlen(def), len - strlen(def), "%s", word);
		s += n;
	}
}

/* One line into out ("FUNC FETCHARG... if COND"): 0, or said. */
static int one(const char *line, const char *exe, char *out, size_t len)
{
	char func[300], def[4096], text[4096], why[300];
	const char *cond = strstr(line, "@if:"), *sp;
	struct ps_probe_def d;
	int rc;
	size_t fl;

	if (cond) {
		fl = (size_t)(cond - line);
		cond += 4;
	} else if ((sp = strstr(line, " if ")) && !strpbrk(line, "\t")) {
		fl = strcspn(line, " ");
		if (line + fl != sp) {	/* FUNC FETCHARG... if COND: already the runtime's */
			snprintf(out, len, "%s", line);
			return 0;
		}
		cond = sp + 4;
	} else {
		snprintf(out, len, "%s", line);
		return 0;
	}
	snprintf(func, sizeof(func), "%.*s", (int)(fl < 299 ? fl : 299), line);
	snprintf(def, sizeof(def), "f %s", func);
	cond_fields(cond, def, sizeof(def));
	snprintf(def + strlen(def), sizeof(def) - strlen(def), " if %s", cond);
	/* A library call's names from the prototype list (libcall_args.c), else DWARF's. */
	if (ps_probe_parse(def, &d, why, sizeof(why)) ||
	    ((rc = libcall_proto_resolve(exe, &d, why, sizeof(why))) &&
	     (rc < 0 || probe_dwarf_resolve(exe, &d, why, sizeof(why))))) {
		fprintf(stderr, "patchsite: record: -F '%s': %s\n", line, why);
		return -1;
	}
	ps_probe_text(&d, text, sizeof(text));
	/* "f:GRP/EV FUNC ..." without its head: the filter line's form. */
	snprintf(out, len, "%s", strchr(text, ' ') + 1);
	return 0;
}

char *filter_if_resolve(const char *lines, const char *exe)
{
	char *copy = strdup(lines), *save = NULL, *out = NULL, buf[4200];
	size_t used = 0;

	for (char *l = copy ? strtok_r(copy, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		size_t n;
		char *o;

		if (one(l, exe, buf, sizeof(buf))) {
			free(out);
			out = NULL;
			break;
		}
		n = strlen(buf);
		o = realloc(out, used + n + 2);
		if (!o) {
			perror("patchsite");
			free(out);
			out = NULL;
			break;
		}
		out = o;
		memcpy(out + used, buf, n);
		used += n;
		out[used++] = '\n';
		out[used] = '\0';
	}
	free(copy);
	return out;
}
