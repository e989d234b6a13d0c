// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchverify --noflag [--list] [--summary] [--json] [--proof OUT] FILE...
 * (issue 37): prove a site, or name the refusing check, for every function
 * entry of linked files built without any tracing flag.  This file reads
 * the options, runs the steps of noflag.h on each file and picks the exit
 * status: 0 when every file was proven (whatever its refusals: each is
 * named), 2 on a usage error or a file that could not be read or is not
 * supported (x86-64 only for now; other machines are refused by name).
 * --proof writes one object, so it takes exactly one FILE.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arch.h"
#include "diag.h"
#include "noflag.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: patchverify --noflag [--list] [--summary] [--json] [--proof OUT] FILE...\n"
		"Prove, for every function entry of x86-64 executables and shared objects built\n"
		"without tracing flags, where a jump may be written, or name the check refusing it.\n"
		"  --list         one line per entry: file, address, name, result, detail\n"
		"  --summary      counts per file: entries, fragments, FDEs, forms, refusals\n"
		"  --json         the same as one JSON document on stdout\n"
		"  --proof OUT    write the proof file of the one FILE to OUT\n");
}

/* Only linked x86-64 files: say by name why another is not proven. */
static int supported(struct nf_file *f)
{
	const struct arch *a = elfobj_arch(f->o);

	if (!a || strcmp(a->name, "x86_64")) {
		if (a)
			diag_err(f->path, "%s: not yet (patchverify --noflag proves x86-64 files only)",
				 a->name);
		else
			diag_err(f->path, "machine %u: not supported", f->h->machine);
		return -1;
	}
	if (f->h->type != EO_ET_EXEC && f->h->type != EO_ET_DYN) {
		diag_err(f->path, "not an executable or shared object (ELF type %u)", f->h->type);
		return -1;
	}
	return 0;
}

static void release(struct nf_file *f)
{
	free(f->ents);
	free(f->hz);
	free(f->tablejmp);
	free(f->fragref);
	free(f->pictable);
	free(f->ptrjump);
	nf_hoisted_free(f);
	free(f->hoisted);
	free(f->text);
	if (f->q)
		elfquery_close(f->q);
	if (f->o)
		elfobj_close(f->o);
}

int nf_prove_path(const struct nf_opts *opt, const char *path)
{
	struct nf_file f = { .path = path };
	struct stat st;
	int err = -1;

	if (elfobj_open(path, &f.o))
		return -1;	/* elfobj named the file and the reason */
	f.h = elfobj_hdr(f.o);
	if (stat(path, &st) == 0)
		f.size = (uint64_t)st.st_size;
	if (!supported(&f) && !elfquery_open(f.o, &f.q) && !nf_entries(&f) && !nf_hazards(&f) &&
	    !nf_sites(&f)) {
		nf_report_file(opt, &f);
		err = opt->proof ? nf_write_proof(&f, opt->proof) : 0;
	}
	release(&f);
	return err;
}

int noflag_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "noflag", no_argument, NULL, 'n' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "summary", no_argument, NULL, 's' },
		{ "proof", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nf_opts opt = { 0 };
	int c, failed = 0;

	while ((c = getopt_long(argc, argv, "ljsh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': break;
		case 'l': opt.list = true; break;
		case 'j': opt.json = true; break;
		case 's': opt.summary = true; break;
		case 'p': opt.proof = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		diag_err(NULL, "--noflag: no input files");
		usage(stderr);
		return 2;
	}
	if (opt.proof && argc - optind != 1) {
		diag_err(NULL, "--proof writes one object: give exactly one FILE");
		return 2;
	}
	nf_report_begin(&opt);
	for (int i = optind; i < argc; i++)
		if (nf_prove_path(&opt, argv[i]))
			failed++;
	nf_report_end(&opt);
	nf_decoder_close();
	return failed ? 2 : 0;
}
