// SPDX-License-Identifier: GPL-2.0-only
/*
 * What patchverify --noflag says about a file: --list (one line per entry:
 * file, address, name, result, detail), --summary (counts per form and per
 * refusing check, and the share proven), --json (the same as one document
 * on stdout), --proof (the file the runtime loads, include/noflag_proof.h).
 * Without any of them, the summary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "noflag.h"

#define MAX_CHECKS 16

/* Counts of one file, or of the run. */
struct tally {
	size_t entries, fragments, fdes, a, b, c, p, refused, undecodable;
	const char *check[MAX_CHECKS];
	size_t per_check[MAX_CHECKS];
};

static struct tally total;
static unsigned nfiles, json_docs;

const char *nf_name(const struct nf_file *f, const struct nf_ent *e, char *buf, size_t len)
{
	const char *base = strrchr(f->path, '/');

	if (e->name)
		return e->name;
	snprintf(buf, len, "%s+0x%" PRIx64, base ? base + 1 : f->path, e->addr);
	return buf;
}

static void count_check(struct tally *t, const char *check, size_t n)
{
	unsigned i;

	for (i = 0; i < MAX_CHECKS && t->check[i]; i++)
		if (!strcmp(t->check[i], check))
			break;
	if (i == MAX_CHECKS)
		return;		/* the checks are a fixed set far smaller than this */
	t->check[i] = check;
	t->per_check[i] += n;
}

static void tally_file(const struct nf_file *f, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	t->fdes = f->nfdes;
	t->undecodable = f->undecodable;
	for (size_t i = 0; i < f->nents; i++) {
		const struct nf_ent *e = &f->ents[i];
		if (e->fragment) {
			t->fragments++;
			continue;
		}
		t->entries++;
		if (e->form == 'a')
			t->a++;
		else if (e->form == 'b')
			t->b++;
		else if (e->form == 'c')
			t->c++;
		else if (e->form == 'p')
			t->p++;
		else {
			t->refused++;
			count_check(t, e->check, 1);
		}
	}
}

static void add_tally(struct tally *to, const struct tally *t)
{
	to->entries += t->entries;
	to->fragments += t->fragments;
	to->fdes += t->fdes;
	to->a += t->a;
	to->b += t->b;
	to->c += t->c;
	to->p += t->p;
	to->refused += t->refused;
	to->undecodable += t->undecodable;
	for (unsigned i = 0; i < MAX_CHECKS && t->check[i]; i++)
		count_check(to, t->check[i], t->per_check[i]);
}

static double proven(const struct tally *t)
{
	return t->entries ? 100.0 * (double)(t->a + t->b + t->c + t->p) / (double)t->entries : 100.0;
}

static void summary_text(const char *what, const struct tally *t)
{
	printf("%s: %zu entries, %zu fragments, %zu FDEs; form a %zu, form b %zu, form c %zu, "
	       "form p %zu, refused %zu", what, t->entries, t->fragments, t->fdes, t->a, t->b, t->c,
	       t->p, t->refused);
	for (unsigned i = 0; i < MAX_CHECKS && t->check[i]; i++)
		printf("%s%s %zu", i ? ", " : " (", t->check[i], t->per_check[i]);
	printf("%s; proven %.2f%%", t->check[0] ? ")" : "", proven(t));
	if (t->undecodable)
		printf("; %zu bytes the sweep could not decode", t->undecodable);
	putchar('\n');
}

static void list_text(const struct nf_file *f)
{
	char buf[600];

	for (size_t i = 0; i < f->nents; i++) {
		const struct nf_ent *e = &f->ents[i];
		printf("%s\t0x%" PRIx64 "\t%s\t", f->path, e->addr, nf_name(f, e, buf, sizeof(buf)));
		if (e->fragment)
			printf("fragment\t%s\n", e->fragment);
		else if (e->form)
			printf("%c\tsite=0x%" PRIx64 " depth=%" PRIu32 " bytes=%u\n", e->form, e->site,
			       e->depth, e->nbytes);
		else
			printf("refused\t%s\n", e->check);
	}
}

static void json_tally(const struct tally *t)
{
	printf("\"entries\":%zu,\"fragments\":%zu,\"fdes\":%zu,\"a\":%zu,\"b\":%zu,\"c\":%zu,"
	       "\"p\":%zu,\"refused\":%zu,\"undecodable_bytes\":%zu,\"proven\":%.2f,\"checks\":{",
	       t->entries, t->fragments, t->fdes, t->a, t->b, t->c, t->p, t->refused, t->undecodable,
	       proven(t));
	for (unsigned i = 0; i < MAX_CHECKS && t->check[i]; i++) {
		printf("%s", i ? "," : "");
		json_str(stdout, t->check[i]);
		printf(":%zu", t->per_check[i]);
	}
	putchar('}');
}

static void json_list(const struct nf_file *f)
{
	char buf[600];

	printf(",\"list\":[");
	for (size_t i = 0; i < f->nents; i++) {
		const struct nf_ent *e = &f->ents[i];
		printf("%s{\"addr\":%" PRIu64 ",\"name\":", i ? "," : "", e->addr);
		json_str(stdout, nf_name(f, e, buf, sizeof(buf)));
		if (e->fragment) {
			printf(",\"result\":\"fragment\",\"why\":");
			json_str(stdout, e->fragment);
		} else if (e->form) {
			printf(",\"result\":\"%c\",\"site\":%" PRIu64 ",\"depth\":%" PRIu32
			       ",\"bytes\":%u", e->form, e->site, e->depth, e->nbytes);
		} else {
			printf(",\"result\":\"refused\",\"check\":");
			json_str(stdout, e->check);
		}
		putchar('}');
	}
	putchar(']');
}

void nf_report_begin(const struct nf_opts *opt)
{
	memset(&total, 0, sizeof(total));
	nfiles = json_docs = 0;
	if (opt->json)
		printf("{\"files\":[");
}

void nf_report_file(const struct nf_opts *opt, const struct nf_file *f)
{
	struct tally t;

	tally_file(f, &t);
	add_tally(&total, &t);
	nfiles++;
	if (opt->json) {
		printf("%s{\"file\":", json_docs++ ? "," : "");
		json_str(stdout, f->path);
		printf(",\"buildid\":");
		json_str(stdout, f->buildid);
		putchar(',');
		json_tally(&t);
		if (opt->list)
			json_list(f);
		putchar('}');
		return;
	}
	if (opt->list)
		list_text(f);
	if (opt->summary || (!opt->list && !opt->proof))
		summary_text(f->path, &t);
}

void nf_report_end(const struct nf_opts *opt)
{
	if (opt->json) {
		printf("],\"total\":{");
		json_tally(&total);
		printf("}}\n");
		return;
	}
	if (nfiles > 1 && (opt->summary || (!opt->list && !opt->proof)))
		summary_text("total", &total);
}

/* The proof record of one entry. */
static void record_of(const struct nf_file *f, const struct nf_ent *e, struct nf_record *r)
{
	uint64_t avail;
	const uint8_t *p;

	memset(r, 0, offsetof(struct nf_record, name));
	r->entry = e->addr;
	/* A name the format cannot hold (longer than NF_NAME_MAX) is written as -: the address keys it. */
	if (e->name && strlen(e->name) < sizeof(r->name) && !strpbrk(e->name, " \n"))
		strcpy(r->name, e->name);
	else
		r->name[0] = '\0';
	if (e->fragment) {
		r->rec = NF_FRAGMENT;
		return;
	}
	if (!e->form) {
		r->rec = NF_REFUSED;
		snprintf(r->check, sizeof(r->check), "%s", e->check);
		return;
	}
	r->rec = NF_SITE;
	r->form = e->form;
	r->site = e->site;
	r->depth = e->depth;
	r->nbytes = e->nbytes;
	r->ninsns = e->ninsns;
	memcpy(r->insns, e->insns, sizeof(r->insns));
	p = nf_code_at(f, e->site, &avail);
	memcpy(r->bytes, p, e->nbytes);	/* the site is in the text: nf_sites() decoded it there */
}

/* Write OUT whole, or not at all: a temporary file renamed into place. */
int nf_write_proof(const struct nf_file *f, const char *out)
{
	static struct nf_record r;	/* 1 KiB of name: not on the stack */
	struct nf_object o = { 0 };
	char tmp[4200];
	FILE *fp;
	int err = 0;

	snprintf(o.buildid, sizeof(o.buildid), "%s", f->buildid);
	o.size = f->size;
	/* The object's absolute path: the proof is read from elsewhere than where it was made. */
	char *abs = realpath(f->path, NULL);
	const char *path = abs ? abs : f->path;
	if (strlen(path) >= sizeof(o.path) || strpbrk(path, " \n")) {
		diag_err(f->path, "--proof: the path has a space or is too long for the proof file");
		free(abs);
		return -1;
	}
	strcpy(o.path, path);
	free(abs);
	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	fp = fopen(tmp, "w");
	if (!fp) {
		diag_err(f->path, "--proof: cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	err = nf_write_object(fp, &o);
	for (size_t i = 0; i < f->nents && !err; i++) {
		record_of(f, &f->ents[i], &r);
		err = nf_write_record(fp, &r);
	}
	if (fclose(fp) || err || rename(tmp, out)) {
		diag_err(f->path, "--proof: cannot write %s: %s", out, strerror(errno ? errno : EIO));
		remove(tmp);
		return -1;
	}
	return 0;
}
