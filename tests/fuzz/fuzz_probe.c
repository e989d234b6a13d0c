// SPDX-License-Identifier: GPL-2.0-only
/*
 * The dynamic_events parser (patchsite/events/probe_parse.c) on arbitrary
 * text.  Besides memory errors it checks the contract: a refusal says why
 * and an acceptance is well formed (at most PS_PROBE_MAX_ARGS arguments,
 * each with a name and a known type, names NUL-ended), and the kernel form
 * it lists (ps_probe_text) parses back to the same definition.
 */
#include <stdlib.h>
#include <string.h>

#include "events/probe.h"

static void check(const struct ps_probe_def *d)
{
	if (d->nargs > PS_PROBE_MAX_ARGS || !memchr(d->group, 0, sizeof(d->group)) ||
	    !memchr(d->event, 0, sizeof(d->event)) || !memchr(d->func, 0, sizeof(d->func)) ||
	    !d->event[0])
		abort();
	for (unsigned i = 0; i < d->nargs; i++)
		if (!d->a[i].name[0] || d->a[i].type > PT_DOUBLE || !d->a[i].size ||
		    d->a[i].nderef > PS_PROBE_MAX_DEREF ||
		    d->a[i].bw + d->a[i].bo > 8 * d->a[i].size ||
		    strlen(d->a[i].name) > PS_PROBE_ARG_NAME_MAX)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_probe_def d, again;
	char *line = malloc(size + 1), why[300] = "", text[8192], why2[300] = "";

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = 0;
	if (ps_probe_parse(line, &d, why, sizeof(why))) {
		if (!why[0])
			abort();
		free(line);
		return 0;
	}
	check(&d);
	if (!d.remove) {
		ps_probe_text(&d, text, sizeof(text));
		if (ps_probe_parse(text, &again, why2, sizeof(why2)) ||
		    memcmp(&d, &again, sizeof(d)))
			abort();	/* the listing is not what was defined */
	}
	free(line);
	return 0;
}
