// SPDX-License-Identifier: GPL-2.0-only
/*
 * Findings and what is printed about a file.  Checks call report(); each
 * finding is kept with its level so that one file's output is complete
 * before it is printed, as gcc-style lines on stderr
 *   patchverify: FILE: error: func+0xoff (section+0xoff): CHECK: what, expected ..., found ...
 * or as one JSON document on stdout (--json).  --list prints every site, the
 * data behind ftrace's available_filter_functions; --summary the counts.
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

void report(struct audit *au, enum check c, size_t sec, uint64_t off, const char *fmt, ...)
{
	char where[160];
	va_list ap;

	audit_where(au, sec, off, where, sizeof(where));
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

static void list_text(const struct audit *au)
{
	char func[160], sec[160], text[192];
	size_t i;

	for (i = 0; i < au->nsites; i++) {
		const struct site *st = &au->sites[i];

		site_where(au, st, func, sizeof(func), sec, sizeof(sec));
		site_text(au, st, text, sizeof(text));
		printf("%s: 0x%016llx %-32s %-28s %-9s %s\n", au->path,
		       (unsigned long long)st->value, func, sec,
		       st->settled && st->state == SITE_UNCHECKED ? "bad" : state_names[st->state],
		       text);
	}
}

static void count_states(const struct audit *au, size_t n[4])
{
	size_t i;

	memset(n, 0, 4 * sizeof(*n));
	for (i = 0; i < au->nsites; i++)
		n[au->sites[i].state]++;
}

static void json_file(const struct audit *au, bool first)
{
	size_t i, n[4];

	count_states(au, n);
	printf("%s\n    {\"file\": ", first ? "" : ",");
	json_str(stdout, au->path);
	printf(", \"arch\": \"%s\", \"type\": \"%s\", \"disassembler\": ", au->a->name,
	       file_type(au));
	json_str(stdout, disasm_engine(au->a));
	printf(",\n     \"tables\": [");
	for (i = 0; i < au->ntables; i++) {
		printf("%s{\"section\": ", i ? ", " : "");
		json_str(stdout, au->tables[i].name);
		printf(", \"kind\": \"%s\", \"entries\": %zu}",
		       au->tables[i].kind == TABLE_MCOUNT ? "mcount" :
		       au->tables[i].padding ? "padding" : "patchable",
		       au->tables[i].nentries);
	}
	printf("],\n     \"findings\": [");
	for (i = 0; i < au->nfindings; i++) {
		const struct finding *f = &au->findings[i];

		printf("%s\n       {\"check\": \"%s\", \"level\": \"%s\", \"where\": ", i ? "," : "",
		       check_name(f->check), diag_level_name(f->level));
		json_str(stdout, f->where);
		if (f->have_addr)
			printf(", \"address\": \"0x%llx\"", (unsigned long long)f->addr);
		printf(", \"message\": ");
		json_str(stdout, f->msg);
		putchar('}');
	}
	printf("%s]", au->nfindings ? "\n     " : "");
	if (au->opt->list) {
		char func[160], sec[160], text[192];

		printf(",\n     \"sites\": [");
		for (i = 0; i < au->nsites; i++) {
			const struct site *st = &au->sites[i];

			site_where(au, st, func, sizeof(func), sec, sizeof(sec));
			site_text(au, st, text, sizeof(text));
			printf("%s\n       {\"table\": ", i ? "," : "");
			json_str(stdout, au->tables[st->table].name);
			printf(", \"entry\": %zu, \"value\": \"0x%llx\", \"function\": ", st->entry,
			       (unsigned long long)st->value);
			json_str(stdout, func);
			printf(", \"section\": ");
			json_str(stdout, sec);
			printf(", \"state\": \"%s\", \"insn\": ",
			       st->settled && st->state == SITE_UNCHECKED ? "bad"
									 : state_names[st->state]);
			json_str(stdout, text);
			putchar('}');
		}
		printf("%s]", au->nsites ? "\n     " : "");
	}
	printf(",\n     \"summary\": {\"sites\": %zu, \"call\": %zu, \"nop\": %zu, \"other\": %zu, "
	       "\"hook_calls\": %zu, \"errors\": %u, \"warnings\": %u, \"notes\": %u}}",
	       au->nsites, n[SITE_CALL], n[SITE_NOP], n[SITE_OTHER], au->ncalls,
	       au->count[DIAG_ERROR], au->count[DIAG_WARNING], au->count[DIAG_NOTE]);
}

void report_file(struct audit *au, bool first)
{
	size_t i, n[4];

	if (au->opt->json) {
		json_file(au, first);
		return;
	}
	if (au->opt->list)
		list_text(au);
	for (i = 0; i < au->nfindings; i++) {
		const struct finding *f = &au->findings[i];

		diag(f->level, au->path, "%s: %s: %s", f->where, check_name(f->check), f->msg);
	}
	if (au->opt->summary) {
		count_states(au, n);
		printf("%s: %s %s: %zu table%s, %zu site%s (%zu call, %zu nop, %zu other), "
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

void report_file_error(const char *path, const char *msg, bool first)
{
	printf("%s\n    {\"file\": ", first ? "" : ",");
	json_str(stdout, path);
	printf(", \"error\": ");
	json_str(stdout, msg);
	putchar('}');
}

void report_begin(const struct options *opt)
{
	if (opt->json)
		printf("{\"patchverify\": 1,\n  \"files\": [");
}

void report_end(const struct options *opt, unsigned files, unsigned errors, unsigned failed)
{
	if (opt->json)
		printf("\n  ],\n  \"errors\": %u, \"unreadable\": %u}\n", errors, failed);
	else if (opt->summary && files > 1)
		printf("total: %u file%s, %u error%s, %u file%s not audited\n", files,
		       files == 1 ? "" : "s", errors, errors == 1 ? "" : "s", failed,
		       failed == 1 ? "" : "s");
}

void report_free(struct audit *au)
{
	size_t i;

	for (i = 0; i < au->nfindings; i++)
		free(au->findings[i].msg);
	free(au->findings);
}
