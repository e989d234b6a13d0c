// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace's trace_options that mean something here, one table for every place
 * that takes their names: the runtime's trace_options control file and
 * PATCHSITE_OPTIONS (record/options.c), the process directory's options file
 * (read.c), and replay's and pipe's --options (cmd/).  The names are the
 * kernel's (Documentation/trace/ftrace.rst, "trace_options"); noNAME clears.
 */
#include <stdio.h>
#include <string.h>

#include "psread.h"

const struct psr_option psr_options[] = {
	{ "print-parent", PSR_OPT_PRINT_PARENT },
	{ "sym-offset", PSR_OPT_SYM_OFFSET },
	{ "funcgraph-proc", PSR_OPT_FUNCGRAPH_PROC },
	{ "funcgraph-abstime", PSR_OPT_FUNCGRAPH_ABSTIME },
	{ "sleep-time", PSR_OPT_SLEEP_TIME },
	{ "funcgraph-cpu", PSR_OPT_FUNCGRAPH_CPU },
	{ "funcgraph-duration", PSR_OPT_FUNCGRAPH_DURATION },
	{ "funcgraph-overhead", PSR_OPT_FUNCGRAPH_OVERHEAD },
	{ "funcgraph-tail", PSR_OPT_FUNCGRAPH_TAIL },
	{ NULL, 0 }
};

unsigned psr_option_bit(const char *name, size_t len)
{
	for (const struct psr_option *o = psr_options; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o->bit;
	return 0;
}

const char *psr_option_names(void)
{
	static char list[256];

	if (!list[0])
		for (const struct psr_option *o = psr_options; o->name; o++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 o == psr_options ? "" : ", ", o->name);
	return list;
}

int psr_options_parse(const char *list, unsigned *set, unsigned *clear, const char **bad)
{
	static char word[64];

	*set = *clear = 0;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ", \n");
		bool no = n > 2 && !strncmp(p, "no", 2);
		unsigned bit = n ? psr_option_bit(no ? p + 2 : p, no ? n - 2 : n) : 0;

		if (n && !bit) {
			snprintf(word, sizeof(word), "%.*s", (int)(n < 60 ? n : 60), p);
			*bad = word;
			return -1;
		}
		*(no ? clear : set) |= bit;
		*(no ? set : clear) &= ~bit;	/* the last word on an option wins */
		p += n + (p[n] != 0);
	}
	return 0;
}

unsigned psr_options_apply(unsigned recorded, unsigned set, unsigned clear)
{
	return (recorded & ~clear) | set;
}
