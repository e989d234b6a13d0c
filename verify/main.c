// SPDX-License-Identifier: GPL-2.0-only
/*
 * patchverify: audit the patch-site tables (__mcount_loc,
 * __patchable_function_entries) of ELF objects, executables and shared
 * libraries.  This file reads the options and picks the exit status:
 *   0  every file audited, no finding at error level
 *   1  findings at error level
 *   2  usage error, or a file that could not be read or audited
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "noflag.h"
#include "verify.h"

#define VERSION "0.1"

/*
 * Messages about a file go to that file's output (printed whole, in input
 * order); the last error is kept for its JSON document.  Others (options,
 * expanding the inputs) go straight to stderr.
 */
static void sink(enum diag_level level, const char *file, const char *msg)
{
	struct output *o = run_current_output();
	FILE *f = o ? o->err : stderr;

	if (file)
		fprintf(f, "patchverify: %s: %s: %s\n", file, diag_level_name(level), msg);
	else
		fprintf(f, "patchverify: %s: %s\n", diag_level_name(level), msg);
	if (o && level == DIAG_ERROR)
		snprintf(o->last_error, sizeof(o->last_error), "%s", msg);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: patchverify [options] FILE|DIR|@LIST|-...\n"
		"Audit the ftrace patch-site tables of ELF objects, executables and libraries.\n"
		"Files may be xz, zstd or gzip compressed (.ko.xz ...) or ar archives (.a);\n"
		"a DIR is searched recursively for them, @LIST names one input per line,\n"
		"- is standard input.\n"
		"  --list               print every site, tab-separated (file, table, address,\n"
		"                       function, section, state, insn)\n"
		"  --json               one JSON document on stdout\n"
		"  --summary            counts per file, per check, and a grand total\n"
		"  --jobs N, -J N       audit N files at once (default 1; 0: one per CPU);\n"
		"                       the output is the same as with one\n"
		"  --files-from FILE    the same as @FILE\n"
		"  --system-map FILE    symbols of a stripped kernel image (its System.map):\n"
		"                       the table's bounds and the hooks' addresses\n"
		"  --disable=CHECK,...  do not run these checks\n"
		"  --error=CHECK,...    report these checks as errors (also --warning, --note)\n"
		"  --expect-sorted      tables must be sorted (check unsorted)\n"
		"  --sled=N[,M]         patchable entries have N NOPs, M of them before the entry\n"
		"  --noflag ...         prove sites in code built without flags (see --noflag --help)\n"
		"  --version, --help\n"
		"checks: site-not-exec site-not-call misaligned not-at-entry missing-site\n"
		"        untraced-call duplicate unsorted zero-entry orphan-site stale-weak\n"
		"        bad-reloc patchable-sled no-table\n");
}

static void version(void)
{
	const struct arch *const *a;

	printf("patchverify %s\n", VERSION);
	for (a = arch_all; *a; a++)
		printf("  %-8s instructions decoded with %s\n", (*a)->name, disasm_engine(*a));
}

static int set_levels(struct options *opt, const char *list, int level)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int c, err = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			for (c = 0; c < CHK_COUNT; c++)
				opt->level[c] = level;
			continue;
		}
		c = check_by_name(tok);
		if (c < 0) {
			diag_err(NULL, "unknown check '%s' (see --help)", tok);
			err = -1;
			continue;
		}
		opt->level[c] = level;
	}
	free(copy);
	return err;
}

static int parse_jobs(struct options *opt, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (end == arg || *end || n < 0 || n > 1024) {
		diag_err(NULL, "--jobs wants a number from 0 (one per CPU) to 1024");
		return -1;
	}
	if (!n) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		if (n < 1)
			n = 1;
	}
	opt->jobs = (unsigned)n;
	return 0;
}

static int parse_sled(struct options *opt, const char *arg)
{
	char *end;
	long n = strtol(arg, &end, 10), m = 0;

	if (end != arg && *end == ',')
		m = strtol(end + 1, &end, 10);
	if (*end || n < 1 || n > 64 || m < 0 || m > n) {
		diag_err(NULL, "--sled wants N[,M] with 1 <= N <= 64 and M <= N");
		return -1;
	}
	opt->sled_total = (int)n;
	opt->sled_before = (int)m;
	return 0;
}

enum {
	OPT_DISABLE = 256, OPT_ERROR, OPT_WARNING, OPT_NOTE, OPT_SORTED, OPT_SLED, OPT_VERSION,
	OPT_FILES_FROM, OPT_SYSTEM_MAP,
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "summary", no_argument, NULL, 's' },
		{ "disable", required_argument, NULL, OPT_DISABLE },
		{ "error", required_argument, NULL, OPT_ERROR },
		{ "warning", required_argument, NULL, OPT_WARNING },
		{ "note", required_argument, NULL, OPT_NOTE },
		{ "expect-sorted", no_argument, NULL, OPT_SORTED },
		{ "sled", required_argument, NULL, OPT_SLED },
		{ "jobs", required_argument, NULL, 'J' },
		{ "files-from", required_argument, NULL, OPT_FILES_FROM },
		{ "system-map", required_argument, NULL, OPT_SYSTEM_MAP },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .sled_total = -1, .sled_before = -1, .jobs = 1 };
	struct inputs in = { 0 };
	struct totals t = { 0 };
	struct sysmap *map = NULL;
	int c, i, bad = 0;

	diag_set_prog("patchverify");
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--noflag"))
			return noflag_main(argc, argv);	/* its own options: noflag_main.c */
	diag_set_sink(sink);
	checks_default_levels(opt.level);
	while ((c = getopt_long(argc, argv, "ljshJ:", longopts, NULL)) != -1) {
		switch (c) {
		case 'l': opt.list = true; break;
		case 'j': opt.json = true; break;
		case 's': opt.summary = true; break;
		case 'J': bad |= parse_jobs(&opt, optarg); break;
		case OPT_SYSTEM_MAP:
			sysmap_free(map);
			bad |= sysmap_read(optarg, &map) ? -1 : 0;
			opt.sysmap = map;
			break;
		case OPT_FILES_FROM: bad |= inputs_add_list(&in, optarg) ? -1 : 0; break;
		case OPT_DISABLE: bad |= set_levels(&opt, optarg, LEVEL_OFF); break;
		case OPT_ERROR: bad |= set_levels(&opt, optarg, DIAG_ERROR); break;
		case OPT_WARNING: bad |= set_levels(&opt, optarg, DIAG_WARNING); break;
		case OPT_NOTE: bad |= set_levels(&opt, optarg, DIAG_NOTE); break;
		case OPT_SORTED:
			if (opt.level[CHK_UNSORTED] == LEVEL_OFF)
				opt.level[CHK_UNSORTED] = DIAG_ERROR;
			break;
		case OPT_SLED: bad |= parse_sled(&opt, optarg); break;
		case OPT_VERSION: version(); return 0;
		case 'h': usage(stdout); return 0;
		default: bad = -1; break;
		}
	}
	if (bad || (optind >= argc && !in.n && !in.empty_dirs && !in.stdin_read)) {
		if (!bad)
			diag_err(NULL, "no input files");
		usage(stderr);
		inputs_free(&in);
		sysmap_free(map);
		return 2;
	}
	for (i = optind; i < argc; i++)
		if (inputs_add(&in, argv[i]))
			t.failed++;	/* said on stderr; the other inputs are still audited */
	if (!in.n && !t.failed)
		diag_warn(NULL, "no files found to audit");
	report_begin(&opt);
	if (run_all(&opt, &in, &t)) {
		diag_err(NULL, "out of memory");
		t.failed++;
	}
	report_end(&opt, &t);
	inputs_free(&in);
	sysmap_free(map);
	disasm_cleanup();
	if (t.failed)
		return 2;
	return t.level[DIAG_ERROR] ? 1 : 0;
}
