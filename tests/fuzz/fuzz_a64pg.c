// SPDX-License-Identifier: GPL-2.0-only
/*
 * The aarch64 -pg prologue walk (lib/arch/aarch64.c a64_pg_site), which the
 * runtime runs over every function of an object without a table, on
 * arbitrary code: the input's first byte picks a site to ask about (0: find
 * one), the rest is the function.  A site found is a word inside it with
 * room for the bl after it; none found says why; no memory error, no
 * undefined behaviour, no hang.
 */
#include <stdint.h>
#include <stdlib.h>

#include "a64_insn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct a64_pg pg;
	size_t site, at;

	if (size < 1)
		return 0;
	site = (size_t)data[0] * 4;
	at = a64_pg_site(data + 1, size - 1, site, &pg);
	if (at) {
		if (at % 4 || at + 8 > size - 1 || (site && at != site) || pg.sign > 2)
			abort();
	} else if (!pg.why) {
		abort();	/* a refusal always says why */
	}
	return 0;
}
