// SPDX-License-Identifier: GPL-2.0-only
/*
 * Sites in code no function symbol covers.  ld keeps the code and table
 * entry of a weak function that a strong one overrides (the final link, or
 * ld -r of a kernel module), but not its symbol.  Such a dead copy sits
 * where a function would start, and is one warning (stale-weak) for every
 * table kind in objects and linked files alike, with the bytes at the site
 * and, when -ffunction-sections left its name in the section's, where the
 * overriding function is.  Anything else uncovered is an orphan-site.
 */
#include <stdio.h>
#include <string.h>

#include "verify.h"

/* Past the NOPs of call padding (x86 16,16) at sec+s, where the function's code starts. */
static uint64_t past_padding(const struct audit *au, const struct site *st, uint64_t s)
{
	struct insn_view iv = calls_view(au, st->sec, s, st->thumb);
	unsigned n, l;

	for (n = 0; n < 64 && au->a->sled_nop && iv.off < st->off &&
		    (l = au->a->sled_nop(au->a, &iv)); n++)
		iv.off += l;
	return iv.off;
}

/* Does a call or sled at site belong at a function starting at sec+s? */
static bool starts_function(const struct audit *au, const struct site *st, enum entry_form form,
			    uint64_t s)
{
	struct insn_view iv;
	unsigned pad;
	uint64_t stop;

	if (form != FORM_SLED)
		s = past_padding(au, st, s);
	iv = calls_view(au, st->sec, s, st->thumb);
	pad = au->a->entry_pad ? au->a->entry_pad(au->a, &iv) : 0;
	/* A sled or fentry call may follow a landing pad (bti c, endbr64). */
	if (form != FORM_MCOUNT)
		return st->off == s || st->off == s + pad;
	if (st->off < s + pad)
		return false;
	iv.off += pad;
	iv.addr += pad;
	if (au->a->mcount_setup)
		return au->a->mcount_setup(au->a, &iv, st->off, &stop);
	return st->off - s <= au->a->mcount_window;
}

/* Do the assembler's alignment NOPs fill [from, to) exactly? */
static bool past_align_nops(const struct audit *au, const struct site *st, uint64_t from,
			    uint64_t to)
{
	unsigned (*nop)(const struct arch *, const struct insn_view *) =
		au->a->align_nop ? au->a->align_nop : au->a->sled_nop;
	struct insn_view iv = calls_view(au, st->sec, from, st->thumb);
	unsigned l;

	while (nop && iv.off < to && (l = nop(au->a, &iv)))
		iv.off += l;
	return nop && iv.off == to;
}

/*
 * The call padding (x86 16,16 beside __mcount_loc) of such a second dead
 * copy: 16-byte aligned NOPs, at least 8 bytes of them.
 */
static bool padding_of_dead_copy(const struct audit *au, const struct site *st, uint64_t *start)
{
	struct insn_view iv = calls_view(au, st->sec, st->off, st->thumb);
	unsigned n, l;

	if (!au->tables[st->table].padding || st->off % 16 || !au->a->sled_nop)
		return false;
	for (n = 0; n < 64 && iv.off < iv.size && (l = au->a->sled_nop(au->a, &iv)); n++)
		iv.off += l;
	*start = st->off;
	return iv.off - st->off >= 8;
}

/*
 * Two dead copies in a row (kvm.ko of Linux 6.1 and 6.12 has several): the
 * second starts after the first, whose end nothing records, but where the
 * compiler puts a function: at a 16-byte boundary right after NOPs (the
 * alignment after the first, or call padding).  Not for sleds (their NOPs
 * are the site's own) nor mcount calls (they follow a prologue of unknown
 * length).
 */
static bool after_padding(const struct audit *au, const struct site *st, enum entry_form form,
			  uint64_t *start)
{
	uint64_t s, k;

	if (form == FORM_SLED)
		return padding_of_dead_copy(au, st, start);
	if (form == FORM_MCOUNT)
		return false;
	for (s = st->off; s + 4 >= st->off && s >= 8; s -= 4) {
		if (s % 16 || !starts_function(au, st, form, s))
			continue;
		for (k = 1; k <= 64 && k <= s; k++)
			if (past_align_nops(au, st, s - k, s)) {
				*start = s;
				return true;
			}
	}
	return false;
}

/*
 * Code no function symbol covers, where a function would start: right
 * after the previous function (or at the section's start), or at the next
 * boundary of an alignment up to 64 bytes, after any call padding.  That is what ld leaves of a
 * weak function a strong one overrides: the code and its table entry, not
 * its symbol.  The kernel skips such entries (FTRACE_MCOUNT_MAX_OFFSET,
 * commit b39181f7c6907).  True with the start in *start, or false.
 */
static bool dead_copy_start(const struct audit *au, const struct site *st, enum entry_form form,
			    uint64_t *start)
{
	const struct si_func *prev = symindex_func_prev(au->si, st->sec, st->off);
	uint64_t end = prev ? prev->off + prev->size : 0, s;
	unsigned align;

	if (!symindex_nfuncs(au->si) || end > st->off)
		return false;
	for (align = 1; align <= 64; align *= 2) {
		s = (end + align - 1) & ~(uint64_t)(align - 1);
		if (s <= st->off && starts_function(au, st, form, s)) {
			*start = s;
			return true;
		}
	}
	return after_padding(au, st, form, start);
}

/* -ffunction-sections puts f in .text.f (or .text.unlikely.f, ...): f's name. */
static const char *section_func_name(const char *sec)
{
	static const char *const prefixes[] = {
		".text.unlikely.", ".text.hot.", ".text.startup.", ".text.", NULL,
	};
	const char *const *p;

	for (p = prefixes; *p; p++)
		if (!strncmp(sec, *p, strlen(*p)) && sec[strlen(*p)])
			return sec + strlen(*p);
	return NULL;
}

/* The function named name defined in the file, as "func (section+0xoff)". */
static bool function_named(const struct audit *au, const char *name, char *where, size_t len)
{
	size_t i;

	for (i = 1; i < elfobj_nsyms(au->o); i++) {
		const struct eo_sym *s = elfobj_sym(au->o, i);
		const struct eo_sec *sec;
		uint64_t off;

		if (s->type != EO_STT_FUNC || !s->defined || strcmp(s->name, name))
			continue;
		sec = elfobj_sec(au->o, s->shndx);
		if (!sec)
			continue;
		off = (au->linked ? s->value - sec->addr : s->value) &
		      ~(uint64_t)(au->a->thumb_bit ? 1 : 0);
		audit_where(au, s->shndx, off, where, len);
		return true;
	}
	return false;
}

/* One warning for a dead copy, the same for every table kind and file type. */
static void report_dead_copy(struct audit *au, const struct site *st, uint64_t start)
{
	struct insn_view iv = calls_view(au, st->sec, st->off, st->thumb);
	const struct si_func *prev = symindex_func_prev(au->si, st->sec, st->off);
	const char *name = section_func_name(elfobj_sec(au->o, st->sec)->name);
	char bytes[192], strong[160], whose[320];

	report_view_bytes(au, &iv, 0, 8, bytes, sizeof(bytes));
	if (name && function_named(au, name, strong, sizeof(strong)))
		snprintf(whose, sizeof(whose), "dead copy of weak `%s`, overridden at %s", name,
			 strong);
	else if (prev && start == prev->off + prev->size)
		snprintf(whose, sizeof(whose), "dead copy of an overridden weak function? It "
			 "starts right after %s", prev->name);
	else if (prev && start - (prev->off + prev->size) >= 64)
		snprintf(whose, sizeof(whose), "dead copy of an overridden weak function? It "
			 "starts after call padding, past more code no symbol covers after %s",
			 prev->name);
	else if (prev)
		snprintf(whose, sizeof(whose), "dead copy of an overridden weak function? It "
			 "starts %llu byte%s after the end of %s (alignment)",
			 (unsigned long long)(start - (prev->off + prev->size)),
			 start - (prev->off + prev->size) == 1 ? "" : "s", prev->name);
	else
		snprintf(whose, sizeof(whose), "dead copy of an overridden weak function? It "
			 "starts at %s+0x%llx, before any function", elfobj_sec(au->o, st->sec)->name,
			 (unsigned long long)start);
	report(au, CHK_STALE_WEAK, st->sec, st->off,
	       "%s entry %zu: %s; no function symbol covers it; it holds %s",
	       au->tables[st->table].name, st->entry, whose, bytes);
}

void deadcopy_check(struct audit *au, const struct site *st, enum entry_form form)
{
	uint64_t start;

	if (dead_copy_start(au, st, form, &start))
		report_dead_copy(au, st, start);
	else
		report(au, CHK_ORPHAN_SITE, st->sec, st->off,
		       "%s entry %zu: no function symbol covers the site, and no function "
		       "would start there", au->tables[st->table].name, st->entry);
}
