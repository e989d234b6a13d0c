// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount's whole per-file path (record_file(): open, check, scan,
 * list, NOP, add the table, write) on arbitrary bytes, writing with -o to a
 * scratch directory.  main.c is compiled in with its main() renamed, so the
 * harness runs exactly the tool's code.  Whatever it writes must be an
 * object our own reader accepts and that a second run leaves alone.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

#define main recordmcount_main
#include "../../recordmcount/main.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null = -1;
	const char *in = fuzz_input(data, size);
	const char *out = fuzz_scratch("out.o");
	struct options opt = { .out = out, .warn = size & 1, .nop_all = size & 2 };
	enum rmc_status st;
	struct elfobj *o;

	if (null < 0) {
		/* record_file() lists to stdout: send it nowhere, keep libFuzzer's stderr. */
		fflush(stdout);
		null = dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO);
		if (null < 0)
			abort();
	}
	unlink(out);
	/* Listing on every third input; it is a read-only walk of the sites. */
	if (size % 3 == 0) {
		struct options lo = { .list = true, .json = size & 4, .dry_run = true };

		list_begin(stdout, &lo);
		if (record_file(in, &lo, true) == RMC_OK && fuzz_errors)
			abort();
		list_end(stdout, &lo);
		fuzz_input(data, size);
	}
	st = record_file(in, &opt, true);
	if (st != RMC_OK) {
		if (!fuzz_errors || access(out, F_OK) == 0)
			abort();	/* a failure says why and writes nothing */
		return 0;
	}
	if (fuzz_errors || access(out, F_OK))
		abort();
	/* The output must read back, and a second run must leave it alone. */
	if (elfobj_open(out, &o))
		abort();
	elfobj_close(o);
	opt = (struct options){ .dry_run = true };
	if (record_file(out, &opt, true) != RMC_OK)
		abort();
	return 0;
}
