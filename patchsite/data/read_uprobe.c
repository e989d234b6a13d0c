// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probes record makes for uftrace's spellings of arguments and return
 * values (cmd/dwarf/argspec.c, auto_args.c, libcall_args.c, cmd/record_cmd.c):
 * group "args" (-A) or "auto" (-a) at a function's entry, print format
 * "TARGET(...)"; group "retval" (-R, -a) at its return, "(%pS <- TARGET) ...".
 * The readers give their values with the call they belong to, in uftrace's
 * forms; a probe of any other group (--probe, dynamic_events: the kernel's
 * syntax) stays an event line, as the kernel's trace shows it.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "patchsite_event.h"
#include "psread.h"
#include "reader.h"

/* fnmatch of TARGET, the text of fmt from from up to the first of end. */
static bool target_is(const char *from, const char *end, const char *func)
{
	char t[256];
	size_t n = strcspn(from, end);

	if (!from[n] || n >= sizeof(t))
		return false;
	memcpy(t, from, n);
	t[n] = 0;
	return !func || !fnmatch(t, func, 0);
}

int psr_uprobe(const struct psr_proc *p, const struct psr_event *ev, const char *func)
{
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, ev, &rec, &bytes);
	const char *colon, *ret;

	if (!d || !d->name || !d->fmt || !(colon = strchr(d->name, ':')))
		return PSR_UPROBE_NONE;
	if ((colon - d->name == 4 && (!strncmp(d->name, "args", 4) || !strncmp(d->name, "auto", 4))))
		return target_is(d->fmt, "(", func) ? PSR_UPROBE_ARGS : PSR_UPROBE_NONE;
	if (colon - d->name == 6 && !strncmp(d->name, "retval", 6) &&
	    (ret = strstr(d->fmt, "<- ")))
		return target_is(ret + 3, ")", func) ? PSR_UPROBE_RET : PSR_UPROBE_NONE;
	return PSR_UPROBE_NONE;
}

/*
 * uftrace's default integer form (its "d"): the register, an int when its
 * upper half is zero, in decimal within +-100000, else the register in hex.
 * A narrower signed field is the register as an int's return leaves it.
 */
static void put_auto(struct read_out *o, uint64_t reg)
{
	int64_t v = reg >> 32 ? (int64_t)reg : (int64_t)(int32_t)reg;

	if (v >= -100000 && v <= 100000)
		read_put(o, "%lld", (long long)v);
	else
		read_put(o, "%#llx", (unsigned long long)reg);
}

int psr_uprobe_auto_text(char *b, size_t n, uint64_t reg)
{
	struct read_out o = { b, n, 0 };

	b[0] = 0;
	put_auto(&o, reg);
	return (int)o.at;
}

static void put_char(struct read_out *o, unsigned c)
{
	if (!c)
		read_put(o, "'\\0'");
	else
		read_put(o, "'%c'", c);
}

static void put_string(struct read_out *o, const struct psr_value *v)
{
	if (v->null) {	/* uftrace's form of a NULL string */
		read_put(o, "\"NULL\"");
		return;
	}
	read_put(o, "\"");
	for (size_t i = 0; i < v->slen; i++)
		if (v->s[i] == '\n')
			read_put(o, "\\n");
		else if (v->s[i])
			read_put(o, "%c", v->s[i]);
	read_put(o, v->cut ? "...\"" : "\"");	/* cut when recorded: uftrace's mark */
}

/*
 * One field as uftrace shows a value of that format: a signed one of -A's /i8../i32 (and
 * -R's) in decimal; -A's default (and /d, /i, /i64: s64 all) and a type DWARF gave (-a,
 * group auto: from_dwarf) as uftrace's default, DWARF's signed char as a char.
 */
static void put_value(struct read_out *o, const struct psr_evfield *f, const struct psr_value *v,
		      bool from_dwarf)
{
	uint64_t mask = f->size >= 8 ? ~0ull : (1ull << (8 * f->size)) - 1;

	if (!strcmp(f->type, "char") || (from_dwarf && !strcmp(f->type, "s8"))) {
		put_char(o, (unsigned)(v->u & 0xff));
		return;
	}
	if (f->type[0] == 'x' || f->kind == PATCHSITE_FIELD_POINTER) {	/* x, p */
		read_put(o, (v->u & mask) ? "%#llx" : "%llu", (unsigned long long)(v->u & mask));
		return;
	}
	switch (f->kind) {
	case PATCHSITE_FIELD_SIGNED:	/* the register: int-wide as a call leaves it */
		if (f->size < 8 && !from_dwarf)
			read_put(o, "%lld", (long long)v->u);
		else
			put_auto(o, f->size >= 8 ? v->u : (uint64_t)(uint32_t)v->u);
		return;
	case PATCHSITE_FIELD_UNSIGNED:	/* uftrace's u */
		if ((v->u & mask) <= 100000)
			read_put(o, "%llu", (unsigned long long)(v->u & mask));
		else
			read_put(o, "%#llx", (unsigned long long)(v->u & mask));
		return;
	case PATCHSITE_FIELD_FLOAT:
		read_put(o, "%f", v->d);
		return;
	default:
		put_string(o, v);
	}
}

size_t psr_uprobe_values(const struct psr_proc *p, const struct psr_event *ev, char *b, size_t n)
{
	struct read_out o = { b, n, 0 };
	const uint8_t *rec;
	size_t bytes;
	const struct psr_evdesc *d = psr_evdesc(p, ev, &rec, &bytes);
	bool first = true;

	b[0] = 0;
	for (unsigned i = 0; d && i < d->nfields; i++) {
		struct psr_value v;

		if (d->f[i].off < 8 || !strncmp(d->f[i].name, "__", 2))
			continue;	/* the record's id and flags, the return probe's caller */
		read_put(&o, "%s", first ? "" : ", ");
		first = false;
		if (psr_event_field(&d->f[i], rec, bytes, &v))
			put_value(&o, &d->f[i], &v, !strncmp(d->name, "auto:", 5));
		else
			read_put(&o, "<damaged>");
	}
	return o.at;
}
