// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event filter parser (patchsite/events/event_filter.c) on arbitrary text,
 * against fields of every kind; a filter it accepts is evaluated on a few
 * values.  Besides memory errors it checks the contract: a refusal says
 * why (a non-empty reason) and returns no filter, an acceptance returns one.
 */
#include <stdlib.h>
#include <string.h>

#include "events/event.h"

static const struct ps_evfield fields[] = {
	{ "len", "int", PATCHSITE_FIELD_SIGNED, 4, 8 },
	{ "n", "unsigned long", PATCHSITE_FIELD_UNSIGNED, 8, 16 },
	{ "ptr", "void *", PATCHSITE_FIELD_POINTER, 8, 24 },
	{ "x", "double", PATCHSITE_FIELD_FLOAT, 8, 32 },
	{ "host", "const char *", PATCHSITE_FIELD_STRING, 8, 40 },
	{ "mac", "u8[6]", PATCHSITE_FIELD_BYTES, 6, 44 },
};
#define NF (sizeof(fields) / sizeof(fields[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), why[256] = "";
	struct ps_evfilter *flt = (struct ps_evfilter *)1;
	struct ps_evval v[NF] = { { 0 } };
	volatile unsigned sink = 0;
	int err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	err = ps_evfilter_parse(text, fields, NF, &flt, why, sizeof(why));
	if (err ? flt || !why[0] : !flt)
		abort();
	for (int k = 0; flt && k < 3; k++) {
		v[0].u = (uint64_t)(int64_t)(k - 1) * 1500;
		v[1].u = k ? ~0ull : 0;
		v[2].u = 0x1000u * k;
		v[3].d = k == 2 ? -0.0 : 1.5 * k;
		v[4].s = k ? "a.b" : "";
		v[4].slen = k ? 3 : 0;
		sink += ps_evfilter_match(flt, v);
	}
	(void)sink;
	ps_evfilter_free(flt);
	free(text);
	return 0;
}
