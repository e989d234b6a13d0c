// SPDX-License-Identifier: GPL-2.0-only
/*
 * --list and --json: every hook call found, whether it is recorded, and the
 * function it is in.  Text is one tab-separated line per site, for scripts:
 *   FILE  SECTION+0xOFF  FUNC+0xOFF  HOOK  recorded|untraced|interposed
 * (interposed: a -finstrument-functions call, cyg.c; never recorded).
 */
#include <inttypes.h>

#include "arch.h"
#include "elfobj.h"
#include "json.h"
#include "record.h"
#include "symindex.h"

void list_begin(FILE *f, const struct options *opt)
{
	if (opt->json)
		fputs("{\"files\": [", f);
}

void list_end(FILE *f, const struct options *opt)
{
	if (opt->json)
		fputs("]}\n", f);
}

static void list_site_text(FILE *f, struct record *r, const struct site *s)
{
	const struct eo_sym *fn;
	uint64_t delta = 0;

	fn = symindex_covering(record_symindex(r), s->sec, s->off, &delta);
	fprintf(f, "%s\t%s+0x%" PRIx64 "\t", r->path, elfobj_sec(r->o, s->sec)->name, s->off);
	if (fn)
		fprintf(f, "%s+0x%" PRIx64, fn->name, delta);
	else
		fputc('-', f);
	fprintf(f, "\t%s\t%s\n", s->hook, s->traced ? "recorded" : "untraced");
}

static void list_cyg_text(FILE *f, struct record *r, const struct site *s)
{
	const struct eo_sym *fn;
	uint64_t delta = 0;

	fn = symindex_covering(record_symindex(r), s->sec, s->off, &delta);
	fprintf(f, "%s\t%s+0x%" PRIx64 "\t", r->path, elfobj_sec(r->o, s->sec)->name, s->off);
	if (fn)
		fprintf(f, "%s+0x%" PRIx64, fn->name, delta);
	else
		fputc('-', f);
	fprintf(f, "\t%s\tinterposed\n", s->hook);
}

static void list_site_json(FILE *f, struct record *r, const struct site *s, bool first,
			   bool interposed)
{
	const struct eo_sym *fn;
	uint64_t delta = 0;

	fn = symindex_covering(record_symindex(r), s->sec, s->off, &delta);
	fputs(first ? "\n    {" : ",\n    {", f);
	fputs("\"section\": ", f);
	json_str(f, elfobj_sec(r->o, s->sec)->name);
	fprintf(f, ", \"offset\": %" PRIu64 ", \"length\": %u, \"function\": ", s->off, s->len);
	if (fn)
		json_str(f, fn->name);
	else
		fputs("null", f);
	fprintf(f, ", \"function_offset\": %" PRIu64 ", \"hook\": ", delta);
	json_str(f, s->hook);
	fprintf(f, ", \"recorded\": %s%s}", s->traced ? "true" : "false",
		interposed ? ", \"interposed\": true" : "");
}

void list_object(FILE *f, struct record *r, const struct options *opt, bool first)
{
	size_t i;

	if (!opt->json) {
		for (i = 0; i < r->nsites; i++)
			list_site_text(f, r, &r->sites[i]);
		for (i = 0; i < r->ncyg; i++)
			list_cyg_text(f, r, &r->cyg[i]);
		return;
	}
	fputs(first ? "\n  {\"file\": " : ",\n  {\"file\": ", f);
	json_str(f, r->path);
	fputs(", \"arch\": ", f);
	json_str(f, r->a->name);
	fprintf(f, ", \"recorded\": %zu, \"untraced\": %zu, \"interposed\": %zu, \"sites\": [",
		r->ntraced, r->nsites - r->ntraced, r->ncyg);
	for (i = 0; i < r->nsites; i++)
		list_site_json(f, r, &r->sites[i], i == 0, false);
	for (i = 0; i < r->ncyg; i++)
		list_site_json(f, r, &r->cyg[i], i + r->nsites == 0, true);
	fputs(r->nsites + r->ncyg ? "\n  ]}" : "]}", f);
}
