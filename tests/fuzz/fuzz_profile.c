// SPDX-License-Identifier: GPL-2.0-only
/*
 * The profile file reader (patchsite/data/read_profile.c) on arbitrary
 * bytes: the input is the whole file.  A bad file must be refused with a
 * reason, a good one shown as trace_stat/function and as each function's
 * histogram, with report's percentiles; no memory error, no undefined
 * behaviour, no hang.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../patchsite/render/profile_stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct psr_profile pf;
	char why[160];
	int err;

	if (!null && !(null = fopen("/dev/null", "w")))
		abort();
	err = psr_profile_parse((const char *)data, size, &pf, why, sizeof(why));
	if (err) {
		if (!why[0])
			abort();	/* a refusal always says why */
		return 0;
	}
	render_profile_stat(null, &pf);
	for (size_t i = 0; i < pf.n; i++) {
		if (render_profile_hist(null, &pf, pf.f[i].name))
			abort();	/* every function read has a histogram */
		if (hist_percentile(pf.f[i].h, 99.9) > pf.f[i].h->max)
			abort();
	}
	psr_profile_free(&pf);
	return 0;
}
