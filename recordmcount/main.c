// SPDX-License-Identifier: GPL-2.0-only
/*
 * recordmcount: record the profiling-hook call sites of relocatable objects
 * in a __mcount_loc section, as the kernel's scripts/recordmcount does, with
 * its command line.  This file parses options, runs each file on its own
 * (nothing carries over from one file to the next) and picks the exit
 * status: 0 fine, 1 a file was rejected, 2 usage, I/O or system error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "bigalloc.h"
#include "diag.h"
#include "elfobj.h"
#include "record.h"
#include "symindex.h"

#ifndef VERSION
#define VERSION "0.1"
#endif

static const char usage_text[] =
	"usage: recordmcount [options] FILE.o...\n"
	"Record the calls to the profiling hook (mcount, _mcount, __fentry__,\n"
	"__gnu_mcount_nc) of each object in a __mcount_loc section, and turn the\n"
	"calls in sections ftrace does not trace into NOPs.  Each object is\n"
	"updated in place: the new sections and section header table are appended\n"
	"and the ELF header is written last, so an interrupted run leaves the old\n"
	"object.  A file with other hard links, a symlink, or one whose old header\n"
	"table and changed sections would leave over a quarter of it unused is\n"
	"replaced instead (a new file renamed over it).\n"
	"\n"
	"  -w, --warn        name the untraced sections that call the hook\n"
	"  -o, --output=OUT  write the result to OUT (one input file only)\n"
	"      --replace     always replace the object with a new file, as the\n"
	"                    kernel's tool does, never write into it\n"
	"  -n, --dry-run     find and check the sites, write nothing\n"
	"  -l, --list        print every site (implies --dry-run); the calls of\n"
	"                    -finstrument-functions code are shown as interposed\n"
	"  -j, --json        print every site as JSON (implies --dry-run)\n"
	"      --nop-all     also NOP the recorded sites (like gcc -mnop-mcount)\n"
	"      --pie-table   write " PCREL_TABLE " instead: 32-bit entries relative\n"
	"                    to themselves, which need no dynamic relocation, so PIEs\n"
	"                    and shared libraries link with -z text (x86_64, aarch64;\n"
	"                    read by libpatchsite and patchverify, not by the kernel)\n"
	"  -h, --help        show this help\n"
	"  -V, --version     show the version and the supported architectures\n"
	"\n"
	"An object holding only LTO bytecode (gcc -flto: .gnu.lto_* sections, no\n"
	"code) is rejected: its calls exist only after the link generates code.\n"
	"\n"
	"Exit status: 0 success, 1 an object was rejected, 2 usage or I/O error.\n";

static void version(void)
{
	const struct arch *const *a;

	printf("recordmcount %s\narchitectures:", VERSION);
	for (a = arch_all; *a; a++)
		printf(" %s", (*a)->name);
	putchar('\n');
}

static bool skipped(const char *path)
{
	size_t n = strlen(path);

	/* kbuild's rule: ftrace's own code is never recorded. */
	return n >= 9 && !strcmp(path + n - 9, "/ftrace.o");
}

static enum rmc_status check_object(struct record *r)
{
	const struct eo_hdr *h = elfobj_hdr(r->o);

	if (h->type != EO_ET_REL) {
		diag_err(r->path, "not a relocatable object (e_type %u): recordmcount takes .o files",
			 h->type);
		return RMC_REJECTED;
	}
	if (!r->a) {
		diag_err(r->path, "unsupported architecture: %s (e_machine %u, %u-bit)",
			 arch_machine_name(h->machine, h->elfclass), h->machine,
			 h->elfclass == 2 ? 64 : 32);
		return RMC_REJECTED;
	}
	return lto_bytecode_only(r) ? RMC_REJECTED : RMC_OK;
}

static enum rmc_status record_file(const char *path, const struct options *opt, bool first)
{
	struct record r = { .path = path, .pcrel = opt->pie_table };
	enum rmc_status st;
	int err;

	if (skipped(path))
		return RMC_OK;
	big_heap_for(path);
	err = elfobj_open(path, &r.o);
	if (err)
		return err == -EINVAL || err == -ENOTSUP ? RMC_REJECTED : RMC_SYSERR;
	r.a = elfobj_arch(r.o);
	st = check_object(&r);
	if (st == RMC_OK && scan_has_table(&r)) {
		diag_warn(path, "__mcount_loc already exists; left unchanged");
		if (opt->out && !opt->dry_run && elfobj_write(r.o, opt->out))
			st = RMC_SYSERR;
		goto out;
	}
	if (st == RMC_OK)
		st = scan_object(&r);
	if (st == RMC_OK && (opt->list || opt->json))
		st = cyg_scan(&r);
	if (st == RMC_OK && (opt->list || opt->json))
		list_object(stdout, &r, opt, first);
	if (st == RMC_OK && !opt->dry_run)
		st = emit_object(&r, opt);
out:
	symindex_free(r.si);
	free(r.sites);
	free(r.cyg);
	elfobj_close(r.o);
	return st;
}

static int parse(int argc, char **argv, struct options *opt)
{
	static const struct option longopts[] = {
		{ "warn", no_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "nop-all", no_argument, NULL, 'N' },
		{ "pie-table", no_argument, NULL, 'P' },
		{ "replace", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "wo:nljhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'w': opt->warn = true; break;
		case 'o': opt->out = optarg; break;
		case 'n': opt->dry_run = true; break;
		case 'l': opt->list = opt->dry_run = true; break;
		case 'j': opt->json = opt->dry_run = true; break;
		case 'N': opt->nop_all = true; break;
		case 'P': opt->pie_table = true; break;
		case 'R': opt->replace = true; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': version(); exit(0);
		default: return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "recordmcount: no input file\n");
		return -1;
	}
	if (opt->out && argc - optind != 1) {
		fprintf(stderr, "recordmcount: -o takes exactly one input file\n");
		return -1;
	}
	return optind;
}

int main(int argc, char **argv)
{
	struct options opt = { 0 };
	enum rmc_status worst = RMC_OK;
	int i, first;

	diag_set_prog("recordmcount");
	first = parse(argc, argv, &opt);
	if (first < 0) {
		fputs(usage_text, stderr);
		return 2;
	}
	list_begin(stdout, &opt);
	for (i = first; i < argc; i++) {
		enum rmc_status st = record_file(argv[i], &opt, i == first);

		worst = st > worst ? st : worst;
	}
	list_end(stdout, &opt);
	return (int)worst;
}
