// SPDX-License-Identifier: GPL-2.0-only
/*
 * nfproof-read PROOF: read a no-flag proof file with the runtime's reader
 * (nf_read_object, nf_read_record) and write every record back with the
 * writer, so that tests/verify/noflag.sh can compare the two byte for byte:
 * what patchverify --noflag --proof writes, the runtime reads whole.  A
 * damaged line: one line naming the file and line, exit 1.
 */
#include <stdio.h>

#include "noflag_proof.h"

int main(int argc, char **argv)
{
	static struct nf_record r;
	static struct nf_object o;
	unsigned line = 0;
	char err[200];
	FILE *f;
	int got;

	if (argc != 2 || !(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "usage: nfproof-read PROOF (a readable file)\n");
		return 2;
	}
	if (nf_read_object(f, &o, &line, err, sizeof(err)) || nf_write_object(stdout, &o))
		goto bad;
	while ((got = nf_read_record(f, &r, &line, err, sizeof(err))) == 1)
		if (nf_write_record(stdout, &r))
			goto bad;
	if (got < 0)
		goto bad;
	fclose(f);
	return 0;
bad:
	fprintf(stderr, "nfproof-read: %s: %s\n", argv[1], line ? err : "cannot write");
	fclose(f);
	return 1;
}
