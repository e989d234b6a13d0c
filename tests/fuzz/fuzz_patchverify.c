// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchverify's audit of one input (magic, decompression, archive members;
 * then tables, symbols, hook calls, resolution, checks, report; the
 * disassembler for linked files) on arbitrary bytes, reporting as text,
 * --list or --json to /dev/null by turns.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null = -1;
	const char *in = fuzz_input(data, size);
	struct options opt = { .sled_total = -1, .sled_before = -1, .jobs = 1 };
	struct inputs inputs = { 0 };
	struct totals t = { 0 };

	if (null < 0) {
		/* The report goes to stdout: send it nowhere, keep libFuzzer's stderr. */
		fflush(stdout);
		null = dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO);
		if (null < 0)
			abort();
	}
	checks_default_levels(opt.level);
	opt.json = size % 3 == 1;
	opt.list = size % 3 == 2;
	report_begin(&opt);
	if (inputs_add(&inputs, in) || run_all(&opt, &inputs, &t))
		abort();
	if (t.failed && !fuzz_errors)
		abort();	/* a failure says why */
	report_end(&opt, &t);
	inputs_free(&inputs);
	return 0;
}
