// SPDX-License-Identifier: GPL-2.0-only
/*
 * The branches file reader (patchsite/data/read_branches.c) on arbitrary bytes:
 * the input is the whole file.  A bad file must be refused with a reason,
 * a good one shown in both formats; no memory error, no undefined
 * behaviour, no hang.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../patchsite/render/branch_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct psr_proc p = { .pid = 1, .exe = "fuzz" };
	struct psr_branches bs;
	char why[160];

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	for (int json = 0; json < 2; json++) {
		int err = psr_branches_parse((const char *)data, size, &bs, why, sizeof(why));

		if (err) {
			if (!why[0])
				abort();	/* a refusal always says why */
			return 0;
		}
		psr_branches_show(null, &p, &bs, json);
		psr_branches_free(&bs);
	}
	return 0;
}
