// SPDX-License-Identifier: GPL-2.0-only
/*
 * Findings and what is printed about a file.  Checks call report(); each
 * finding is kept with its level so that one file's output is complete
 * before it is printed, as gcc-style lines on stderr
 *   patchverify: FILE: error: func+0xoff (section+0xoff): CHECK: what, expected ..., found ...
 * or as one JSON document on stdout (--json).  --list prints every site, the
 * data behind ftrace's available_filter_functions; --summary the counts.
 * Everything about one file goes to its struct output (run.c prints it, in
 * input order); the run's totals are printed here at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "verify.h"

static void add_finding(struct audit *au, enum check c, const char *where, bool have_addr,
			uint64_t addr, bool note, const char *fmt, va_list ap)
{
	int level = au->opt->level[c];
	struct finding *f;
	char msg[1024];

	if (level == LEVEL_OFF)
		return;
	if (note)
		level = DIAG_NOTE;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	f = realloc(au->findings, (au->nfindings + 1) * sizeof(*f));
	if (!f)
		return;
	au->findings = f;
	f = &au->findings[au->nfindings];
	*f = (struct finding){ .check = c, .level = (enum diag_level)level,
			       .have_addr = have_addr, .addr = addr, .msg = strdup(msg) };
	if (!f->msg)
		return;
	snprintf(f->where, sizeof(f->where), "%s", where);
	au->nfindings++;
	au->count[level]++;
}

/*
 * A linked file's place also gets its absolute address, the number kernel
 * developers look up:  func+0x4 (.text+0x1234, 0xffffffff81001234)
 */
static void add_address(char *where, size_t len, uint64_t addr)
{
	size_t n = strlen(where);

	if (n && where[n - 1] == ')')
		snprintf(where + n - 1, len - (n - 1), ", 0x%llx)", (unsigned long long)addr);
	else
		snprintf(where + n, len - n, " (0x%llx)", (unsigned long long)addr);
}

void report(struct audit *au, enum check c, size_t sec, uint64_t off, const char *fmt, ...)
{
	char where[160];
	va_list ap;

	audit_where(au, sec, off, where, sizeof(where));
	if (au->linked)
		add_address(where, sizeof(where), audit_addr(au, sec, off));
	va_start(ap, fmt);
	add_finding(au, c, where, au->linked, audit_addr(au, sec, off), false, fmt, ap);
	va_end(ap);
}

void report_table(struct audit *au, enum check c, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_finding(au, c, where, false, 0, false, fmt, ap);
	va_end(ap);
}

void report_table_note(struct audit *au, enum check c, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	add_finding(au, c, where, false, 0, true, fmt, ap);
	va_end(ap);
}

void report_bytes(const struct audit *au, bool thumb, const uint8_t *p, uint64_t avail,
		  unsigned len, uint64_t addr, char *buf, size_t size)
{
	char text[128];
	size_t n = 0;
	unsigned i;

	if (len > avail)
		len = (unsigned)avail;
	for (i = 0; i < len && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%02x", i ? " " : "", p[i]);
	if (!len)
		n += (size_t)snprintf(buf + n, size - n, "nothing (end of section)");
	if (n >= size)
		return;
	if (disasm_one(au->a, au->h->big_endian, thumb, p, avail, addr, text, sizeof(text)))
		snprintf(buf + n, size - n, " (%s)", text);
	else if (len && !strncmp(disasm_engine(au->a), "Capstone", 8))
		snprintf(buf + n, size - n, " (undecodable)");
}

void report_view_bytes(const struct audit *au, const struct insn_view *iv, uint64_t skip,
		       unsigned len, char *buf, size_t size)
{
	uint64_t at = iv->off + skip;

	if (!iv->code || at >= iv->size || at < iv->off)
		snprintf(buf, size, "no bytes in the file at the site");
	else
		report_bytes(au, iv->thumb, iv->code + at, iv->size - at, len, iv->addr + skip,
			     buf, size);
}

static const char *const state_names[] = { "call", "nop", "other", "unchecked" };

static const char *file_type(const struct audit *au)
{
	switch (au->h->type) {
	case EO_ET_REL:
		return "rel";
	case EO_ET_EXEC:
		return "exec";
	default:
		return "dyn";
	}
}

/* Describe what a site holds, for --list. */
static void site_text(const struct audit *au, const struct site *st, char *buf, size_t len)
{
	struct insn_view iv;
	char text[128] = "";

	buf[0] = 0;
	if (st->state == SITE_UNCHECKED || !st->sec)
		return;
	iv = calls_view(au, st->sec, st->off, st->thumb);
	if (!iv.code || st->off >= iv.size)
		return;
	if (!disasm_one(au->a, au->h->big_endian, st->thumb, iv.code + st->off, iv.size - st->off,
			iv.addr, text, sizeof(text)))
		snprintf(text, sizeof(text), "%s", st->state == SITE_CALL ? "call" :
					       st->state == SITE_NOP ? "nop" : "?");
	if (st->state == SITE_CALL && st->hook) {
		char *sp = strchr(text, ' ');

		if (sp)
			*sp = 0;
		snprintf(buf, len, "%s %s", text, st->hook);
	} else {
		snprintf(buf, len, "%s", text);
	}
}

static void site_where(const struct audit *au, const struct site *st, char *func, size_t flen,
		       char *sec, size_t slen)
{
	const struct si_func *f = st->sec ? symindex_func_at(au->si, st->sec, st->off) : NULL;

	if (f)
		snprintf(func, flen, "%s+0x%llx", f->name, (unsigned long long)(st->off - f->off));
	else
		snprintf(func, flen, "-");
	if (st->sec)
		snprintf(sec, slen, "%s+0x%llx", elfobj_sec(au->o, st->sec)->name,
			 (unsigned long long)st->off);
	else
		snprintf(sec, slen, "-");
}

/* Tab-separated, one line per site, like recordmcount --list:
 *   FILE  TABLE  ADDRESS  FUNC+0xOFF  SECTION+0xOFF  STATE  INSN */
static void list_text(const struct audit *au)
{
	char func[160], sec[160], text[192];
	FILE *f = au->out->out;
	size_t i;

	for (i = 0; i < au->nsites; i++) {
		const struct site *st = &au->sites[i];

		site_where(au, st, func, sizeof(func), sec, sizeof(sec));
		site_text(au, st, text, sizeof(text));
		fprintf(f, "%s\t%s\t0x%016llx\t%s\t%s\t%s\t%s\n", au->path,
			au->tables[st->table].name, (unsigned long long)st->value, func, sec,
			st->settled && st->state == SITE_UNCHECKED ? "bad" : state_names[st->state],
			text[0] ? text : "-");
	}
}

static void count_states(const struct audit *au, size_t n[4])
{
	size_t i;

	memset(n, 0, 4 * sizeof(*n));
	for (i = 0; i < au->nsites; i++)
		n[au->sites[i].state]++;
}

static void json_file(const struct audit *au)
{
	FILE *f = au->out->out;
	size_t i, n[4];

	count_states(au, n);
	fprintf(f, "%s\n    {\"file\": ", au->out->docs ? "," : "");
	json_str(f, au->path);
	fprintf(f, ", \"arch\": \"%s\", \"type\": \"%s\", \"disassembler\": ", au->a->name,
	       file_type(au));
	json_str(f, disasm_engine(au->a));
	fprintf(f, ",\n     \"tables\": [");
	for (i = 0; i < au->ntables; i++) {
		fprintf(f, "%s{\"section\": ", i ? ", " : "");
		json_str(f, au->tables[i].name);
		fprintf(f, ", \"kind\": \"%s\", \"entries\": %zu}",
		       au->tables[i].kind == TABLE_MCOUNT ? "mcount" :
		       au->tables[i].padding ? "padding" : "patchable",
		       au->tables[i].nentries);
	}
	fprintf(f, "],\n     \"findings\": [");
	for (i = 0; i < au->nfindings; i++) {
		const struct finding *fd = &au->findings[i];

		fprintf(f, "%s\n       {\"check\": \"%s\", \"level\": \"%s\", \"where\": ", i ? "," : "",
		       check_name(fd->check), diag_level_name(fd->level));
		json_str(f, fd->where);
		if (fd->have_addr)
			fprintf(f, ", \"address\": \"0x%llx\"", (unsigned long long)fd->addr);
		fprintf(f, ", \"message\": ");
		json_str(f, fd->msg);
		fputc('}', f);
	}
	fprintf(f, "%s]", au->nfindings ? "\n     " : "");
	if (au->opt->list) {
		char func[160], sec[160], text[192];

		fprintf(f, ",\n     \"sites\": [");
		for (i = 0; i < au->nsites; i++) {
			const struct site *st = &au->sites[i];

			site_where(au, st, func, sizeof(func), sec, sizeof(sec));
			site_text(au, st, text, sizeof(text));
			fprintf(f, "%s\n       {\"table\": ", i ? "," : "");
			json_str(f, au->tables[st->table].name);
			fprintf(f, ", \"entry\": %zu, \"value\": \"0x%llx\", \"function\": ", st->entry,
			       (unsigned long long)st->value);
			json_str(f, func);
			fprintf(f, ", \"section\": ");
			json_str(f, sec);
			fprintf(f, ", \"state\": \"%s\", \"insn\": ",
			       st->settled && st->state == SITE_UNCHECKED ? "bad"
									 : state_names[st->state]);
			json_str(f, text);
			fputc('}', f);
		}
		fprintf(f, "%s]", au->nsites ? "\n     " : "");
	}
	fprintf(f, ",\n     \"summary\": {\"sites\": %zu, \"call\": %zu, \"nop\": %zu, \"other\": %zu, "
	       "\"hook_calls\": %zu, \"errors\": %u, \"warnings\": %u, \"notes\": %u}}",
	       au->nsites, n[SITE_CALL], n[SITE_NOP], n[SITE_OTHER], au->ncalls,
	       au->count[DIAG_ERROR], au->count[DIAG_WARNING], au->count[DIAG_NOTE]);
	au->out->docs++;
}

/* What this file adds to the run's totals. */
static void count_file(const struct audit *au)
{
	struct totals *t = &au->out->t;
	size_t i;

	t->files++;
	t->tables += au->ntables;
	t->sites += au->nsites;
	t->hook_calls += au->ncalls;
	for (i = 0; i < au->nfindings; i++) {
		t->level[au->findings[i].level]++;
		t->check[au->findings[i].check][au->findings[i].level]++;
	}
}

void totals_add(struct totals *sum, const struct totals *t)
{
	size_t c, l;

	sum->files += t->files;
	sum->failed += t->failed;
	sum->skipped += t->skipped;
	sum->tables += t->tables;
	sum->sites += t->sites;
	sum->hook_calls += t->hook_calls;
	for (l = 0; l < 3; l++) {
		sum->level[l] += t->level[l];
		for (c = 0; c < CHK_COUNT; c++)
			sum->check[c][l] += t->check[c][l];
	}
}

void report_file(struct audit *au)
{
	FILE *f = au->out->out;
	size_t i, n[4];

	count_file(au);
	if (au->opt->json) {
		json_file(au);
		return;
	}
	if (au->opt->list)
		list_text(au);
	for (i = 0; i < au->nfindings; i++) {
		const struct finding *fd = &au->findings[i];

		diag(fd->level, au->path, "%s: %s: %s", fd->where, check_name(fd->check), fd->msg);
	}
	if (au->opt->summary) {
		count_states(au, n);
		fprintf(f, "%s: %s %s: %zu table%s, %zu site%s (%zu call, %zu nop, %zu other), "
			"%zu hook call%s; %u error%s, %u warning%s, %u note%s\n",
			au->path, au->a->name, file_type(au), au->ntables,
			au->ntables == 1 ? "" : "s", au->nsites, au->nsites == 1 ? "" : "s",
			n[SITE_CALL], n[SITE_NOP], n[SITE_OTHER], au->ncalls,
			au->ncalls == 1 ? "" : "s", au->count[DIAG_ERROR],
			au->count[DIAG_ERROR] == 1 ? "" : "s", au->count[DIAG_WARNING],
			au->count[DIAG_WARNING] == 1 ? "" : "s", au->count[DIAG_NOTE],
			au->count[DIAG_NOTE] == 1 ? "" : "s");
	}
}

void report_file_error(const struct options *opt, struct output *out, const char *path)
{
	out->t.failed++;
	if (!opt->json)
		return;
	fprintf(out->out, "%s\n    {\"file\": ", out->docs ? "," : "");
	json_str(out->out, path);
	fprintf(out->out, ", \"error\": ");
	json_str(out->out, out->last_error);
	fputc('}', out->out);
	out->docs++;
}

void report_begin(const struct options *opt)
{
	if (opt->json)
		printf("{\"patchverify\": 1,\n  \"files\": [");
}

static const char *plural(size_t n)
{
	return n == 1 ? "" : "s";
}

static void json_totals(const struct totals *t)
{
	bool first = true;
	int c;

	printf("\n  ],\n  \"summary\": {\"files\": %u, \"unreadable\": %u, \"skipped\": %u, "
	       "\"tables\": %zu, \"sites\": %zu, \"hook_calls\": %zu, \"errors\": %u, "
	       "\"warnings\": %u, \"notes\": %u,\n    \"checks\": {", t->files, t->failed,
	       t->skipped, t->tables, t->sites, t->hook_calls, t->level[DIAG_ERROR],
	       t->level[DIAG_WARNING], t->level[DIAG_NOTE]);
	for (c = 0; c < CHK_COUNT; c++) {
		const unsigned *n = t->check[c];

		if (!n[DIAG_ERROR] && !n[DIAG_WARNING] && !n[DIAG_NOTE])
			continue;
		printf("%s\"%s\": {\"errors\": %u, \"warnings\": %u, \"notes\": %u}",
		       first ? "" : ", ", check_name((enum check)c), n[DIAG_ERROR],
		       n[DIAG_WARNING], n[DIAG_NOTE]);
		first = false;
	}
	/* "errors" and "unreadable" at the top stay for older readers. */
	printf("}},\n  \"errors\": %u, \"unreadable\": %u}\n", t->level[DIAG_ERROR],
	       t->failed);
}

/*
 * --summary: a line per check that found anything, then the grand total
 * (the last line, for scripts):
 *   total: not-at-entry: 3 errors, 0 warnings, 0 notes
 *   total: 9 files (1 not audited, 2 skipped: not ELF), 12 tables, ...
 */
static void text_totals(const struct totals *t)
{
	int c;

	for (c = 0; c < CHK_COUNT; c++) {
		const unsigned *n = t->check[c];

		if (!n[DIAG_ERROR] && !n[DIAG_WARNING] && !n[DIAG_NOTE])
			continue;
		printf("total: %s: %u error%s, %u warning%s, %u note%s\n", check_name((enum check)c),
		       n[DIAG_ERROR], plural(n[DIAG_ERROR]), n[DIAG_WARNING],
		       plural(n[DIAG_WARNING]), n[DIAG_NOTE], plural(n[DIAG_NOTE]));
	}
	printf("total: %u file%s audited (%u not audited, %u skipped: not ELF), %zu table%s, "
	       "%zu site%s, %zu hook call%s; %u error%s, %u warning%s, %u note%s\n",
	       t->files, plural(t->files), t->failed, t->skipped, t->tables, plural(t->tables),
	       t->sites, plural(t->sites), t->hook_calls, plural(t->hook_calls),
	       t->level[DIAG_ERROR], plural(t->level[DIAG_ERROR]), t->level[DIAG_WARNING],
	       plural(t->level[DIAG_WARNING]), t->level[DIAG_NOTE], plural(t->level[DIAG_NOTE]));
}

void report_end(const struct options *opt, const struct totals *t)
{
	if (opt->json)
		json_totals(t);
	else if (opt->summary)
		text_totals(t);
}

void report_free(struct audit *au)
{
	size_t i;

	for (i = 0; i < au->nfindings; i++)
		free(au->findings[i].msg);
	free(au->findings);
}
