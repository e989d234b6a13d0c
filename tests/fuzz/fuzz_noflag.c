// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchverify --noflag on arbitrary bytes, twice: as an ELF file (entries,
 * .eh_frame, the sweep, the site forms, the report as text, --list or
 * --json by turns, and a proof file), whose proof the runtime's reader must
 * then accept whole; and as a proof file itself, which the reader must
 * accept or refuse with a line number, never overrun.  And the sweep's
 * quick decoder on the bytes at each of the input's first offsets: where it
 * answers, Capstone must answer the same (tests/verify/nfquick_agree.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include "nfquick_agree.h"
#include "noflag.h"

/* Read a proof file to its end: 0 when every line was accepted. */
static int read_all(FILE *f)
{
	static struct nf_object o;
	static struct nf_record r;
	unsigned line = 0;
	char err[200];
	int got;

	if (nf_read_object(f, &o, &line, err, sizeof(err)))
		return -1;
	while ((got = nf_read_record(f, &r, &line, err, sizeof(err))) == 1)
		;
	return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null = -1;
	const char *in = fuzz_input(data, size);
	const char *proof = fuzz_scratch("noflag.proof");
	struct nf_opts opt = { .summary = true, .list = size % 3 == 1, .json = size % 3 == 2,
			       .proof = proof };
	FILE *f;

	if (null < 0) {
		/* The report goes to stdout: send it nowhere, keep libFuzzer's stderr. */
		fflush(stdout);
		null = dup2(open("/dev/null", O_WRONLY), STDOUT_FILENO);
		if (null < 0)
			abort();
	}
	unlink(proof);
	nf_report_begin(&opt);
	int rc = nf_prove_path(&opt, in);
	nf_report_end(&opt);
	if (rc && !fuzz_errors)
		abort();	/* a failure says why */
	if (!rc) {
		f = fopen(proof, "r");
		if (!f || read_all(f))
			abort();	/* what the prover wrote, the runtime must read */
		fclose(f);
	}
	for (size_t i = 0; i < size && i < 64; i++) {
		char why[200];
		if (nfq_agree(data + i, size - i, 0x1000 + i, why, sizeof(why)) < 0) {
			fprintf(stderr, "quick decoder at offset %zu: %s\n", i, why);
			abort();
		}
	}
	f = fmemopen((void *)data, size ? size : 1, "r");
	if (f) {
		read_all(f);
		fclose(f);
	}
	return 0;
}
