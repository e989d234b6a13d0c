// SPDX-License-Identifier: GPL-2.0-only
/*
 * Static trace events (include/patchsite_event.h, patchsite_event(3)):
 * the table patchsite_event_sites holds 16-byte entries of three
 * pc-relative offsets (site, target, descriptor); the descriptors are in
 * patchsite_events.  In an object the offsets are relocations (PC32
 * against the code, PC64 against the descriptor); in a linked file they
 * are resolved.  Checked here:
 *   event-site  the site is the arch's NOP (x86-64: 0f 1f 44 00 00;
 *               aarch64: d503201f) or a jump to its own target (an image
 *               saved while enabled), the target is code of the function
 *               holding the site or of its .cold part, in an executable
 *               section
 *   event-desc  every descriptor is whole and well formed: magic, version,
 *               1 to 8 fields of known kinds and sizes, its text (subsys,
 *               name, format, then a name and a type per field) inside it,
 *               the runtime's words zero in the file; every entry names one
 */
#include <stdio.h>
#include <string.h>

#include "a64_insn.h"
#include "evfield.h"
#include "patchsite_event.h"
#include "verify.h"
#include "x86_insn.h"

#define EM_X86_64_	62
#define EM_AARCH64_	183

struct ref {
	size_t sec;
	uint64_t off;
	bool ok;
};

static size_t sec_by_name(const struct audit *au, const char *name)
{
	for (size_t i = 1; i < elfobj_shnum(au->o); i++)
		if (!strcmp(elfobj_sec(au->o, i)->name, name))
			return i;
	return 0;
}

static int64_t sext(const uint8_t *p, unsigned n)
{
	if (n == 4) {
		int32_t v;

		memcpy(&v, p, 4);
		return v;
	}
	int64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The relocations of the table, in an object (NULL, 0 when none). */
static void table_rels(struct audit *au, size_t tab, const struct eo_rel **r, size_t *n)
{
	*r = NULL;
	*n = 0;
	for (size_t i = 1; i < elfobj_shnum(au->o); i++) {
		const struct eo_sec *s = elfobj_sec(au->o, i);

		if ((s->type == EO_SHT_RELA || s->type == EO_SHT_REL) && s->info == tab &&
		    !elfobj_rels(au->o, i, r, n))
			return;
	}
}

/* Where the field at byte `at` of the table points. */
static struct ref resolve(struct audit *au, size_t tab, const uint8_t *bytes, uint64_t at,
			  unsigned width, const struct eo_rel *r, size_t nr)
{
	const struct eo_sec *t = elfobj_sec(au->o, tab);
	struct ref ref = { 0 };

	if (au->linked) {
		uint64_t v = t->addr + at + (uint64_t)sext(bytes + at, width);
		const struct eo_sec *s;

		ref.sec = elfquery_sec_by_addr(au->q, v);
		s = ref.sec ? elfobj_sec(au->o, ref.sec) : NULL;
		ref.off = s ? v - s->addr : 0;
		ref.ok = s != NULL;
		return ref;
	}
	for (size_t k = 0; k < nr; k++) {
		const struct eo_sym *sym;

		if (r[k].offset != at || r[k].sym >= elfobj_nsyms(au->o))
			continue;
		sym = elfobj_sym(au->o, r[k].sym);
		if (!sym->defined)
			return ref;
		ref.sec = sym->shndx;
		ref.off = sym->value + (uint64_t)r[k].addend +
			  (r[k].addend == 0 && elfobj_sec(au->o, tab)->type != EO_SHT_RELA ?
			   (uint64_t)sext(bytes + at, width) : 0);
		ref.ok = ref.sec < elfobj_shnum(au->o);
		return ref;
	}
	return ref;
}

static bool is_code(const struct audit *au, size_t sec)
{
	const struct eo_sec *s = sec ? elfobj_sec(au->o, sec) : NULL;

	return s && (s->flags & EO_SHF_EXECINSTR) && s->type != EO_SHT_NOBITS;
}

/* "f" holds both, or the target's function is f.cold[.N]. */
static bool same_function(const struct audit *au, const struct ref *site, const struct ref *tgt,
			  const char **fname)
{
	const struct si_func *f = symindex_func_at(au->si, site->sec, site->off);
	const struct si_func *g = symindex_func_at(au->si, tgt->sec, tgt->off);
	size_t n;

	*fname = f ? f->name : NULL;
	if (!f || !g)
		return false;
	if (f == g)
		return true;
	n = strlen(f->name);
	return !strncmp(g->name, f->name, n) && !strncmp(g->name + n, ".cold", 5);
}

/*
 * What the site holds: the NOP the header writes (1), a direct jump of the
 * NOP's length to the target in the same section, as the arch decodes it
 * (2), or anything else (0).
 */
static int site_form(const struct audit *au, const struct ref *site, const struct ref *tgt,
		     char *found, size_t len)
{
	const struct eo_sec *s = elfobj_sec(au->o, site->sec);
	const uint8_t *p = elfobj_sec_bytes(au->o, site->sec);
	uint64_t at = audit_addr(au, site->sec, site->off);
	bool a64 = au->h->machine == EM_AARCH64_;
	unsigned n = a64 ? 4 : 5;
	struct insn_view iv;
	struct branch b;
	uint32_t w;

	found[0] = 0;
	if (!p || site->off > s->size || s->size - site->off < n)
		return 0;
	p += site->off;
	report_bytes(au, false, p, s->size - site->off, n, at, found, len);
	memcpy(&w, p, 4);
	if (a64 ? w == a64_nop() : !memcmp(p, x86_nop5_forms[0], 5))
		return 1;
	iv = calls_view(au, site->sec, site->off, false);
	return au->a->decode_branch(au->a, &iv, &b) && b.kind == BRANCH_JUMP && !b.indirect &&
	       b.len == n && site->sec == tgt->sec && b.target == audit_addr(au, tgt->sec, tgt->off)
	       ? 2 : 0;
}

static void check_site(struct audit *au, size_t k, const struct ref *site, const struct ref *tgt)
{
	const char *fname;
	char found[96];

	if (!site->ok || !is_code(au, site->sec)) {
		report_table(au, CHK_EVENT_SITE, "patchsite_event_sites", "entry %zu: its site is "
			     "not in an executable section", k);
		return;
	}
	if (!site_form(au, site, tgt, found, sizeof(found))) {
		report(au, CHK_EVENT_SITE, site->sec, site->off, "event entry %zu is neither the "
		       "%s NOP (%s) nor a jump to its target, found %s", k,
		       au->h->machine == EM_AARCH64_ ? "aarch64" : "x86-64 5-byte",
		       au->h->machine == EM_AARCH64_ ? "1f 20 03 d5" : "0f 1f 44 00 00", found);
		return;
	}
	if (!tgt->ok || !is_code(au, tgt->sec))
		report(au, CHK_EVENT_SITE, site->sec, site->off, "event entry %zu: its target is "
		       "not in an executable section", k);
	else if (!same_function(au, site, tgt, &fname))
		report(au, CHK_EVENT_SITE, site->sec, site->off, "event entry %zu: its target "
		       "(0x%llx) is not in %s%s", k,
		       (unsigned long long)audit_addr(au, tgt->sec, tgt->off),
		       fname ? fname : "a function", fname ? " or its .cold part" : " (no function "
		       "holds the site)");
}

/* The descriptor at off of the descriptors' section: NULL when well formed, else why. */
static const char *desc_why(const uint8_t *p, uint64_t size, uint64_t off, uint64_t *len)
{
	struct patchsite_event h;
	const uint8_t *text, *end;

	*len = 8;
	if (off % 8)
		return "not 8-byte aligned";
	if (!p || off > size || size - off < sizeof(h))
		return "cut short by the section's end";
	memcpy(&h, p + off, sizeof(h));
	if (h.magic != PATCHSITE_EVENT_MAGIC)
		return "no PSEV magic";
	*len = (h.size + 7) & ~7u;
	if (h.size < sizeof(h) || h.size > size - off)
		return "its size runs past the section";
	if (h.version != PATCHSITE_EVENT_VERSION)
		return "an unknown version";
	if (h.nfields < 1 || h.nfields > 8)
		return "not 1 to 8 fields";
	if (h.text_off < sizeof(h) + h.nfields * sizeof(struct patchsite_event_field) ||
	    h.text_off >= h.size)
		return "its text is not after its fields";
	for (unsigned i = 0; i < h.nfields; i++) {
		struct patchsite_event_field f;

		memcpy(&f, p + off + sizeof(h) + i * sizeof(f), sizeof(f));
		if (!ps_event_field_ok(&f, 8))
			return "a field of an unknown kind or size";
	}
	if (h.fire || h.rt)
		return "the runtime's words are not zero in the file";
	text = p + off + h.text_off;
	end = p + off + h.size;
	for (unsigned i = 0; i < 3u + 2u * h.nfields; i++) {
		const uint8_t *z = memchr(text, 0, (size_t)(end - text));

		if (!z || (z == text && i != 2))
			return "its text (subsys, name, format, field names and types) is incomplete";
		text = z + 1;
	}
	return NULL;
}

/* Walk the descriptors' section: each one well formed (padding between them is zero). */
static void check_descs(struct audit *au, size_t dsec)
{
	const struct eo_sec *s = elfobj_sec(au->o, dsec);
	const uint8_t *p = elfobj_sec_bytes(au->o, dsec);
	uint64_t off = 0, len;

	while (p && off + 8 <= s->size) {
		const char *why;
		uint32_t magic;

		memcpy(&magic, p + off, 4);
		if (!magic) {
			off += 8;
			continue;
		}
		why = desc_why(p, s->size, off, &len);
		if (why) {
			report_table(au, CHK_EVENT_DESC, "patchsite_events", "the descriptor at "
				     "+0x%llx: %s", (unsigned long long)off, why);
			return;		/* its size cannot be trusted to find the next */
		}
		off += len;
	}
}

int events_check(struct audit *au)
{
	size_t tab = sec_by_name(au, "patchsite_event_sites"), dsec;
	const struct eo_sec *t;
	const uint8_t *bytes;
	const struct eo_rel *r;
	size_t nr;

	if (!tab)
		return 0;
	if (au->h->machine != EM_X86_64_ && au->h->machine != EM_AARCH64_) {
		report_table(au, CHK_EVENT_SITE, "patchsite_event_sites", "event sites on %s: "
			     "patchsite_event.h supports x86-64 and aarch64 only", au->a->name);
		return 0;
	}
	t = elfobj_sec(au->o, tab);
	bytes = elfobj_sec_bytes(au->o, tab);
	dsec = sec_by_name(au, "patchsite_events");
	if (!dsec)
		report_table(au, CHK_EVENT_DESC, "patchsite_events", "event sites but no "
			     "patchsite_events section");
	else
		check_descs(au, dsec);
	if (t->size % 16)
		report_table(au, CHK_EVENT_SITE, "patchsite_event_sites", "%llu bytes: not whole "
			     "16-byte entries", (unsigned long long)t->size);
	table_rels(au, tab, &r, &nr);
	for (size_t k = 0; bytes && (k + 1) * 16 <= t->size; k++) {
		struct ref site = resolve(au, tab, bytes, 16 * k, 4, r, nr);
		struct ref tgt = resolve(au, tab, bytes, 16 * k + 4, 4, r, nr);
		struct ref desc = resolve(au, tab, bytes, 16 * k + 8, 8, r, nr);
		uint64_t len;

		check_site(au, k, &site, &tgt);
		if (!desc.ok || !dsec || desc.sec != dsec)
			report_table(au, CHK_EVENT_DESC, "patchsite_event_sites", "entry %zu: its "
				     "descriptor is not in patchsite_events", k);
		else if (desc_why(elfobj_sec_bytes(au->o, dsec), elfobj_sec(au->o, dsec)->size,
				  desc.off, &len))
			report_table(au, CHK_EVENT_DESC, "patchsite_event_sites", "entry %zu: its "
				     "descriptor at patchsite_events+0x%llx is not well formed", k,
				     (unsigned long long)desc.off);
	}
	return 0;
}
