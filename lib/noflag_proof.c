// SPDX-License-Identifier: GPL-2.0-only
/*
 * The proof file of no-flag sites: its reader and writer (the format is
 * described once, in include/noflag_proof.h).  Used by patchverify, which
 * writes it, and by the runtime, which reads it: no allocation, no libelf.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "noflag_proof.h"

#define LINE_MAX_LEN (NF_NAME_MAX + 4096 + 512)

static const char *const kind_name[] = {
	[NF_PLAIN] = "", [NF_RIP] = "rip", [NF_CALL] = "call", [NF_JMP] = "jmp",
	[NF_JCC] = "jcc", [NF_JMP8] = "jmp8", [NF_JCC8] = "jcc8",
};

static int bad(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "line %u: ", line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

/* The next line that is not a comment, without its newline: 1, 0 at the end, -1 too long. */
static int next_line(FILE *f, char *buf, size_t size, unsigned *line)
{
	for (;;) {
		if (!fgets(buf, (int)size, f))
			return 0;
		++*line;
		size_t n = strlen(buf);
		if (n == 0 || buf[n - 1] != '\n') {
			if (!feof(f))
				return -1;	/* longer than the buffer */
		} else {
			buf[n - 1] = '\0';
		}
		if (buf[0] != '#')
			return 1;
	}
}

/* Split s at single spaces into at most max fields; the count. */
static unsigned split(char *s, char **field, unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		field[n++] = s;
		char *sp = strchr(s, ' ');
		if (!sp)
			break;
		*sp = '\0';
		s = sp + 1;
	}
	return n;
}

static bool hex64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || s[0] == '-' || s[0] == '+' || s[0] == ' ' || strlen(s) > 16)
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 16);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool copy_name(char *dst, size_t size, const char *s)
{
	if (!*s || strlen(s) >= size)
		return false;
	strcpy(dst, strcmp(s, "-") ? s : "");
	return true;
}

static bool parse_bytes(struct nf_record *r, const char *s)
{
	size_t n = strlen(s);

	if (n % 2 || n / 2 < 5 || n / 2 > NF_MAX_BYTES)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		char two[3] = { s[2 * i], s[2 * i + 1], 0 };
		char *end;
		if (!strchr("0123456789abcdefABCDEF", two[0]) || !strchr("0123456789abcdefABCDEF", two[1]))
			return false;
		r->bytes[i] = (uint8_t)strtoul(two, &end, 16);
	}
	r->nbytes = (uint8_t)(n / 2);
	return true;
}

static bool parse_insn(struct nf_insn *in, char *s)
{
	char *colon = strchr(s, ':'), *end;

	if (colon)
		*colon = '\0';
	unsigned long len = strtoul(s, &end, 10);
	if (!*s || *end || len == 0 || len > 15)
		return false;
	in->len = (uint8_t)len;
	in->kind = NF_PLAIN;
	in->off = 0;
	if (!colon)
		return true;
	char *at = strchr(colon + 1, '@');
	if (!at)
		return false;
	*at = '\0';
	for (unsigned k = NF_RIP; k <= NF_JCC8; k++)
		if (!strcmp(colon + 1, kind_name[k]))
			in->kind = (uint8_t)k;
	unsigned long off = strtoul(at + 1, &end, 10);
	if (in->kind == NF_PLAIN || !at[1] || *end || off >= len)
		return false;
	in->off = (uint8_t)off;
	return true;
}

static bool parse_insns(struct nf_record *r, char *s)
{
	r->ninsns = 0;
	for (char *tok = s; tok; ) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		if (r->ninsns == NF_MAX_INSNS || !parse_insn(&r->insns[r->ninsns++], tok))
			return false;
		tok = comma ? comma + 1 : NULL;
	}
	return true;
}

int nf_record_check(const struct nf_record *r, char *err, size_t errlen)
{
	unsigned sum = 0;

	for (unsigned i = 0; i < r->ninsns; i++) {
		const struct nf_insn *in = &r->insns[i];
		unsigned width = in->kind == NF_JMP8 || in->kind == NF_JCC8 ? 1 : 4;
		if (in->kind != NF_PLAIN && in->off + width > in->len) {
			snprintf(err, errlen, "instruction %u: a displacement past its end", i + 1);
			return -1;
		}
		sum += in->len;
	}
	if (sum != r->nbytes) {
		snprintf(err, errlen, "the instructions' %u bytes are not the %u displaced bytes",
			 sum, r->nbytes);
		return -1;
	}
	return 0;
}

int nf_read_object(FILE *f, struct nf_object *o, unsigned *line, char *err, size_t errlen)
{
	char buf[LINE_MAX_LEN], *fld[4];
	int got = next_line(f, buf, sizeof(buf), line);

	if (got <= 0 || strcmp(buf, NF_PROOF_MAGIC))
		return bad(err, errlen, *line, "not a proof file of this version (want \"%s\")",
			   NF_PROOF_MAGIC);
	got = next_line(f, buf, sizeof(buf), line);
	if (got <= 0 || split(buf, fld, 4) != 4 || strcmp(fld[0], "object"))
		return bad(err, errlen, *line, "no \"object BUILDID SIZE PATH\" line");
	if (strlen(fld[1]) >= sizeof(o->buildid) || strspn(fld[1], "0123456789abcdef-") != strlen(fld[1]) ||
	    !copy_name(o->buildid, sizeof(o->buildid), fld[1]) || !hex64(fld[2], &o->size) ||
	    !copy_name(o->path, sizeof(o->path), fld[3]))
		return bad(err, errlen, *line, "bad object line");
	return 0;
}

int nf_read_record(FILE *f, struct nf_record *r, unsigned *line, char *err, size_t errlen)
{
	char buf[LINE_MAX_LEN], *fld[9], why[128];
	int got = next_line(f, buf, sizeof(buf), line);

	if (got == 0)
		return 0;
	if (got < 0)
		return bad(err, errlen, *line, "line too long");
	unsigned n = split(buf, fld, 9);
	memset(r, 0, offsetof(struct nf_record, name) + 1);
	if (!strcmp(fld[0], "site") && n == 8) {
		uint64_t depth;
		r->rec = NF_SITE;
		if (!hex64(fld[1], &r->entry) || strlen(fld[2]) != 1 || !strchr("abcp", fld[2][0]) ||
		    !hex64(fld[3], &r->site) || !hex64(fld[4], &depth) || depth > UINT32_MAX ||
		    !parse_bytes(r, fld[5]) || !parse_insns(r, fld[6]) ||
		    !copy_name(r->name, sizeof(r->name), fld[7]))
			return bad(err, errlen, *line, "bad site record");
		r->form = fld[2][0];
		r->depth = (uint32_t)depth;
		if (r->site < r->entry)
			return bad(err, errlen, *line, "site before its entry");
		if (nf_record_check(r, why, sizeof(why)))
			return bad(err, errlen, *line, "%s", why);
		return 1;
	}
	if (!strcmp(fld[0], "refused") && n == 4) {
		r->rec = NF_REFUSED;
		if (!hex64(fld[1], &r->entry) || !copy_name(r->check, sizeof(r->check), fld[2]) ||
		    !r->check[0] || !copy_name(r->name, sizeof(r->name), fld[3]))
			return bad(err, errlen, *line, "bad refused record");
		return 1;
	}
	if (!strcmp(fld[0], "fragment") && n == 3) {
		r->rec = NF_FRAGMENT;
		if (!hex64(fld[1], &r->entry) || !copy_name(r->name, sizeof(r->name), fld[2]))
			return bad(err, errlen, *line, "bad fragment record");
		return 1;
	}
	return bad(err, errlen, *line, "unknown record \"%.32s\"", fld[0]);
}

static bool has_space(const char *s)
{
	return strpbrk(s, " \n") != NULL;
}

int nf_write_object(FILE *f, const struct nf_object *o)
{
	if (has_space(o->path) || has_space(o->buildid)) {
		errno = EINVAL;
		return -1;
	}
	if (fprintf(f, "%s\nobject %s %" PRIx64 " %s\n", NF_PROOF_MAGIC,
		    o->buildid[0] ? o->buildid : "-", o->size, o->path[0] ? o->path : "-") < 0)
		return -1;
	return 0;
}

static int write_insns(FILE *f, const struct nf_record *r)
{
	for (unsigned i = 0; i < r->ninsns; i++) {
		const struct nf_insn *in = &r->insns[i];
		if (fprintf(f, "%s%u", i ? "," : "", in->len) < 0)
			return -1;
		if (in->kind != NF_PLAIN && fprintf(f, ":%s@%u", kind_name[in->kind], in->off) < 0)
			return -1;
	}
	return 0;
}

int nf_write_record(FILE *f, const struct nf_record *r)
{
	const char *name = r->name[0] ? r->name : "-";
	char why[128];

	if (has_space(r->name) || has_space(r->check)) {
		errno = EINVAL;
		return -1;
	}
	switch (r->rec) {
	case NF_SITE:
		if (nf_record_check(r, why, sizeof(why)) || !strchr("abcp", r->form) || !r->form) {
			errno = EINVAL;
			return -1;
		}
		if (fprintf(f, "site %" PRIx64 " %c %" PRIx64 " %" PRIx32 " ", r->entry, r->form,
			    r->site, r->depth) < 0)
			return -1;
		for (unsigned i = 0; i < r->nbytes; i++)
			if (fprintf(f, "%02x", r->bytes[i]) < 0)
				return -1;
		if (fputc(' ', f) == EOF || write_insns(f, r) || fprintf(f, " %s\n", name) < 0)
			return -1;
		return 0;
	case NF_REFUSED:
		return fprintf(f, "refused %" PRIx64 " %s %s\n", r->entry, r->check, name) < 0 ? -1 : 0;
	case NF_FRAGMENT:
		return fprintf(f, "fragment %" PRIx64 " %s\n", r->entry, name) < 0 ? -1 : 0;
	}
	errno = EINVAL;
	return -1;
}
