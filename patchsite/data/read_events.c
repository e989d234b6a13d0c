// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static trace events in a trace directory: the process's events file
 * (each event's format, as events/SUBSYS/NAME/format shows it) and the
 * PSD_EXT_EVENT records it decodes (patchsite-data(5)).  Nothing in either
 * is trusted: a field outside its record, a string outside the payload, a
 * conversion of the print format that does not fit its field is shown as
 * such, never read past.  The print format is applied one conversion at a
 * time, each rebuilt from its flags, width and precision with the length
 * the field's kind needs; %n and '*' are never passed on.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "patchsite_event.h"
#include "psread.h"
#include "reader.h"

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = 0;
	}
	return d;
}

static unsigned kind_of(const char *s)
{
	static const char *const names[] = { "?", "signed", "unsigned", "pointer", "float",
					     "string", "bytes" };

	for (unsigned k = 1; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(s, names[k]))
			return k;
	return 0;
}

static char *unescape(const char *s, size_t n)
{
	char *d = malloc(n + 1), *o = d;

	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n) {
			i++;
			*o++ = s[i] == 'n' ? '\n' : s[i];
		} else {
			*o++ = s[i];
		}
	}
	*o = 0;
	return d;
}

/* "\tfield:TYPE NAME;\toffset:O;\tsize:S;\tkind:K;" (NAME may end in [N]). */
static bool parse_field(const char *l, size_t n, struct psr_evfield *f)
{
	char line[512], *semi, *name, kind[16];
	unsigned off, size;

	if (n >= sizeof(line))
		return false;
	memcpy(line, l, n);
	line[n] = 0;
	semi = strchr(line, ';');
	if (strncmp(line, "\tfield:", 7) || !semi)
		return false;
	*semi = 0;
	name = strrchr(line + 7, ' ');
	if (!name || sscanf(semi + 1, "\toffset:%u;\tsize:%u;\tkind:%15[a-z];", &off, &size, kind) != 3)
		return false;
	*name++ = 0;
	if (strchr(name, '['))
		*strchr(name, '[') = 0;
	f->name = strdup(name);
	f->type = strdup(line + 7);
	f->off = off;
	f->size = size;
	f->kind = kind_of(kind);
	return f->name && f->type && f->kind && size && size <= 1024 && off <= 65536;
}

static void desc_free(struct psr_evdesc *d)
{
	for (unsigned i = 0; i < d->nfields; i++) {
		free(d->f[i].name);
		free(d->f[i].type);
	}
	free(d->f);
	free(d->name);
	free(d->fmt);
}

/* One line of a block into d: false when it is not what the format says. */
static bool desc_line(struct psr_evdesc *d, const char *l, size_t n)
{
	if (!strncmp(l, "name: ", 6))
		return (d->name = dup_n(l + 6, n - 6)) != NULL;
	if (!strncmp(l, "ID: ", 4))
		return sscanf(l + 4, "%u", &d->id) == 1;
	if (!strncmp(l, "fixed: ", 7))
		return sscanf(l + 7, "%u", &d->fixed) == 1;
	if (!strncmp(l, "print fmt: ", 11))
		return (d->fmt = unescape(l + 11, n - 11)) != NULL;
	if (!strncmp(l, "format:", 7))
		return true;
	if (!strncmp(l, "\tfield:", 7)) {
		struct psr_evfield f = { 0 }, *g;

		if (!parse_field(l, n, &f)) {
			free(f.name);
			free(f.type);
			return false;
		}
		if (f.off < 8) {	/* the id and flags words */
			free(f.name);
			free(f.type);
			return true;
		}
		g = realloc(d->f, (d->nfields + 1) * sizeof(*g));
		if (!g) {
			free(f.name);
			free(f.type);
			return false;
		}
		d->f = g;
		d->f[d->nfields++] = f;
		return d->nfields <= 8;
	}
	return false;
}

int psr_events_parse(struct psr_proc *p, const char *text)
{
	struct psr_evdesc d = { 0 };
	int bad = 0;

	for (const char *l = text; *l;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);

		if (!n) {
			if (d.name && d.fmt && d.id) {
				struct psr_evdesc *g = realloc(p->events, (p->nevents + 1) * sizeof(*g));

				if (g) {
					p->events = g;
					p->events[p->nevents++] = d;
					memset(&d, 0, sizeof(d));
				}
			}
			desc_free(&d);
			memset(&d, 0, sizeof(d));
		} else if (!desc_line(&d, l, n)) {
			bad++;
		}
		l = e ? e + 1 : l + n;
	}
	desc_free(&d);
	return bad ? -1 : 0;
}

void psr_events_free(struct psr_proc *p)
{
	for (size_t i = 0; i < p->nevents; i++)
		desc_free(&p->events[i]);
	free(p->events);
}

const struct psr_evdesc *psr_evdesc(const struct psr_proc *p, const struct psr_event *ev,
				    const uint8_t **rec, size_t *bytes)
{
	uint32_t id;

	if (ev->type != PSR_EXT || ev->ext_kind != 5 /* PSD_EXT_EVENT */ || !ev->nwords)
		return NULL;
	id = (uint32_t)ev->payload[0];
	*rec = (const uint8_t *)ev->payload;
	*bytes = (size_t)ev->nwords * 8;
	if (ev->packed) {
		/*
		 * No flags word: a field at offset off lies at off - 4.  Offsets
		 * below 8 are never a field's (desc_line), so the 4 bytes before
		 * the payload (the record's mark word, in the same mapping) are
		 * never read.
		 */
		*rec -= 4;
		*bytes += 4;
	}
	for (size_t i = 0; i < p->nevents; i++)
		if (p->events[i].id == id)
			return &p->events[i];
	return NULL;
}

/* A field's value, checked against the record: false when it is not inside. */
struct val {
	uint64_t u;
	double d;
	const uint8_t *s;
	size_t slen;
	bool cut;
	bool null;	/* a NULL string */
};

static bool value(const struct psr_evfield *f, const uint8_t *rec, size_t bytes, struct val *v)
{
	size_t sz = f->kind == PATCHSITE_FIELD_STRING ? 4 : f->size;

	memset(v, 0, sizeof(*v));
	if (f->off > bytes || sz > bytes - f->off)
		return false;
	switch (f->kind) {
	case PATCHSITE_FIELD_STRING: {
		uint32_t loc;

		memcpy(&loc, rec + f->off, 4);
		v->null = !loc;	/* no string's bytes are at offset 0: the recorder's NULL */
		v->slen = (loc >> 16) & 0x7fff;
		v->cut = loc >> 31;
		if ((loc & 0xffff) > bytes || v->slen > bytes - (loc & 0xffff))
			return false;
		v->s = rec + (loc & 0xffff);
		return true;
	}
	case PATCHSITE_FIELD_BYTES:
		v->s = rec + f->off;
		v->slen = f->size;
		return true;
	case PATCHSITE_FIELD_FLOAT:
		if (f->size == 4) {
			float x;

			memcpy(&x, rec + f->off, 4);
			v->d = x;
		} else if (f->size == 8) {
			memcpy(&v->d, rec + f->off, 8);
		} else {
			return false;
		}
		return true;
	default:
		if (sz > 8)
			return false;
		memcpy(&v->u, rec + f->off, sz);	/* little-endian */
		if (f->kind == PATCHSITE_FIELD_SIGNED && sz < 8 && (v->u >> (8 * sz - 1)) & 1)
			v->u |= ~0ull << (8 * sz);
		return true;
	}
}

/* A field's value for renderers that keep types (dump --perfetto): value() made public. */
bool psr_event_field(const struct psr_evfield *f, const uint8_t *rec, size_t bytes,
		     struct psr_value *v)
{
	struct val x;

	memset(v, 0, sizeof(*v));
	if (!value(f, rec, bytes, &x))
		return false;
	*v = (struct psr_value){ .u = x.u, .d = x.d, .s = x.s, .slen = x.slen, .cut = x.cut,
				 .null = x.null };
	return true;
}

static void put_text(struct read_out *o, const struct val *v, bool hex)
{
	if (v->null) {
		read_put(o, "NULL");
		return;
	}
	for (size_t i = 0; i < v->slen; i++) {
		if (hex)
			read_put(o, "%s%02x", i ? ":" : "", v->s[i]);
		else
			read_put(o, "%c", isprint(v->s[i]) ? v->s[i] : '.');
	}
	if (v->cut)
		read_put(o, "[cut]");
}

/* One conversion spec (without its conversion character) applied to a field, or false. */
static bool convert(struct read_out *o, const char *spec, size_t slen, char conv,
		    const struct psr_evfield *f, const struct val *v)
{
	char fmt[48];
	bool num = f->kind == PATCHSITE_FIELD_SIGNED || f->kind == PATCHSITE_FIELD_UNSIGNED;

	if (slen > 32)
		return false;
	if (conv == 's') {
		if (f->kind != PATCHSITE_FIELD_STRING && f->kind != PATCHSITE_FIELD_BYTES)
			return false;
		put_text(o, v, f->kind == PATCHSITE_FIELD_BYTES);
		return true;
	}
	snprintf(fmt, sizeof(fmt), "%%%.*s%s%c", (int)slen, spec,
		 strchr("diuxXoc", conv) ? "ll" : "", conv == 'c' ? 'c' : conv);
	if (strchr("di", conv) && num)
		read_put(o, fmt, (long long)v->u);
	else if (strchr("uxXo", conv) && (num || f->kind == PATCHSITE_FIELD_POINTER))
		read_put(o, fmt, (unsigned long long)v->u);
	else if (conv == 'c' && num)
		read_put(o, "%c", isprint((int)(v->u & 0xff)) ? (int)(v->u & 0xff) : '.');
	else if (conv == 'p' && (f->kind == PATCHSITE_FIELD_POINTER || num))
		read_put(o, "0x%llx", (unsigned long long)v->u);
	else if (strchr("fFeEgGaA", conv) && f->kind == PATCHSITE_FIELD_FLOAT)
		read_put(o, fmt, v->d);
	else
		return false;
	return true;
}

/* A field as the format would show it, when the format has no conversion for it. */
static void plain(struct read_out *o, const struct psr_evfield *f, const struct val *v)
{
	switch (f->kind) {
	case PATCHSITE_FIELD_SIGNED: read_put(o, "%lld", (long long)v->u); break;
	case PATCHSITE_FIELD_UNSIGNED: read_put(o, "%llu", (unsigned long long)v->u); break;
	case PATCHSITE_FIELD_POINTER: read_put(o, "0x%llx", (unsigned long long)v->u); break;
	case PATCHSITE_FIELD_FLOAT: read_put(o, "%g", v->d); break;
	default: put_text(o, v, f->kind == PATCHSITE_FIELD_BYTES); break;
	}
}

/*
 * A NULL string where the format quotes it ("%s", as probes' formats do):
 * NULL without the quotes, so that it differs from a string "NULL" or
 * "(null)" (gdb prints 0x0; the kernel's probes an unquoted (fault)).
 * True when done: the opening quote taken back, *s past the closing one.
 */
static bool null_unquoted(struct read_out *o, const char *fmt, const char *pct, const char **s,
			  const struct val *v)
{
	if (!v->null || pct == fmt || pct[-1] != '"' || (*s)[1] != '"' || !o->at || o->b[o->at - 1] != '"')
		return false;
	o->b[--o->at] = 0;
	read_put(o, "NULL");
	++*s;
	return true;
}

/*
 * %pS (the kernel's printk symbol form, as its return probes show their
 * caller): the address as function+0xoff/0xsize, or in hex when no
 * function of the process holds it; *s past the S.
 */
static void put_sym(struct read_out *o, const struct psr_proc *p, const struct psr_event *ev,
		    const struct psr_evfield *f, const struct val *v, const char **s)
{
	uint64_t off, size;
	const char *name = f->kind == PATCHSITE_FIELD_POINTER ?
			   psr_addr_sym(p, v->u, ev->tsc, &off, &size) : NULL;

	if (name)
		read_put(o, "%s+0x%llx/0x%llx", name, (unsigned long long)off, (unsigned long long)size);
	else
		read_put(o, "0x%llx", (unsigned long long)v->u);
	++*s;
}

size_t psr_event_text(const struct psr_proc *p, const struct psr_event *ev, char *buf, size_t len)
{
	struct read_out o = { buf, len, 0 };
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, ev, &rec, &bytes);
	unsigned next = 0;

	buf[0] = 0;
	if (!d) {
		read_put(&o, "event#%u: (no format in the events file)",
		    ev->nwords ? (unsigned)(uint32_t)ev->payload[0] : 0);
		return o.at;
	}
	read_put(&o, "%s: ", d->name);
	for (const char *s = d->fmt; *s; s++) {
		const char *spec;
		struct val v;

		if (*s != '%') {
			read_put(&o, "%c", *s == '\n' ? ' ' : *s);
			continue;
		}
		if (s[1] == '%') {
			read_put(&o, "%%");
			s++;
			continue;
		}
		spec = ++s;
		while (*s && strchr("-+ #0123456789.", *s))
			s++;
		while (*s && strchr("hlLqjzt", *s))
			s++;
		if (!*s)
			break;
		if (next >= d->nfields) {
			read_put(&o, "<no field>");
			continue;
		}
		if (!value(&d->f[next], rec, bytes, &v))
			read_put(&o, "<damaged>");
		else if (*s == 'p' && s[1] == 'S')
			put_sym(&o, p, ev, &d->f[next], &v, &s);
		else if (!null_unquoted(&o, d->fmt, spec - 1, &s, &v) &&
			 !convert(&o, spec, (size_t)(strcspn(spec, "hlLqjzt") < (size_t)(s - spec)
						     ? strcspn(spec, "hlLqjzt") : (size_t)(s - spec)),
				  *s, &d->f[next], &v))
			plain(&o, &d->f[next], &v);
		next++;
	}
	return o.at;
}

static void json_val(FILE *f, const struct psr_evfield *fd, const struct val *v)
{
	char buf[3 * 1024 + 16];
	struct read_out o = { buf, sizeof(buf), 0 };

	switch (fd->kind) {
	case PATCHSITE_FIELD_SIGNED: fprintf(f, "%lld", (long long)v->u); return;
	case PATCHSITE_FIELD_UNSIGNED: fprintf(f, "%llu", (unsigned long long)v->u); return;
	case PATCHSITE_FIELD_FLOAT:
		if (v->d == v->d && v->d - v->d == 0)
			fprintf(f, "%.17g", v->d);
		else
			fprintf(f, "\"%g\"", v->d);
		return;
	case PATCHSITE_FIELD_POINTER:
		fprintf(f, "\"0x%llx\"", (unsigned long long)v->u);
		return;
	default:
		if (v->null) {
			fprintf(f, "null");
			return;
		}
		buf[0] = 0;
		put_text(&o, v, fd->kind == PATCHSITE_FIELD_BYTES);
		json_str(f, buf);
	}
}

void psr_event_json_args(FILE *f, const struct psr_proc *p, const struct psr_event *ev)
{
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, ev, &rec, &bytes);

	fputc('{', f);
	for (unsigned i = 0; d && i < d->nfields; i++) {
		struct val v;

		fprintf(f, "%s", i ? "," : "");
		json_str(f, d->f[i].name);
		fputc(':', f);
		if (value(&d->f[i], rec, bytes, &v))
			json_val(f, &d->f[i], &v);
		else
			fprintf(f, "null");
	}
	fputc('}', f);
}

const char *psr_event_name(const struct psr_proc *p, const struct psr_event *ev)
{
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, ev, &rec, &bytes);

	return d ? d->name : "event#?";
}
