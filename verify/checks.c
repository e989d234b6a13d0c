// SPDX-License-Identifier: GPL-2.0-only
/*
 * The checks on resolved sites, in the order in which one finding explains
 * the next away: a duplicate is reported once and not checked again; a site
 * inside a call is misaligned (and that call counts as recorded, so the
 * same defect is not also a missing-site); only a site that holds the call
 * or its NOP is then checked for its place in the function.  Completeness
 * comes last: every call to a hook that no entry claimed is missing-site in
 * a traced section and untraced-call elsewhere.
 *
 * What a site must hold mirrors the kernel's ftrace_make_nop() check
 * (a call to the hook, computed from the documented encoding) and what the
 * tools write there at build time (the arch's NOP).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

void checks_default_levels(int level[CHK_COUNT])
{
	int i;

	for (i = 0; i < CHK_COUNT; i++)
		level[i] = DIAG_ERROR;
	level[CHK_UNSORTED] = LEVEL_OFF;	/* only with --expect-sorted */
	level[CHK_ZERO_ENTRY] = DIAG_NOTE;	/* ftrace skips zeros */
	level[CHK_UNTRACED_CALL] = DIAG_WARNING;
	level[CHK_ORPHAN_SITE] = DIAG_WARNING;
	level[CHK_STALE_WEAK] = DIAG_WARNING;
	level[CHK_NO_TABLE] = DIAG_WARNING;	/* audit.c: hook calls, no table */
	level[CHK_TABLE_ALIGN] = LEVEL_OFF;	/* gcc's own tables: information, asked for */
}

/* The sections the kernel traces (scripts/recordmcount.c's list). */
static bool kernel_traced_name(const char *name)
{
	static const char *const exact[] = {
		".init.text", ".ref.text", ".sched.text", ".spinlock.text", ".irqentry.text",
		".softirqentry.text", ".kprobes.text", ".cpuidle.text", NULL,
	};
	const char *const *e;

	if (!strncmp(name, ".text", 5))
		return true;
	for (e = exact; *e; e++)
		if (!strcmp(*e, name))
			return true;
	return false;
}

static bool is_fentry(const char *hook)
{
	return hook && !strcmp(hook, "__fentry__");
}

static const char *expected_hook(const struct audit *au, const struct site *st)
{
	if (st->hook)
		return st->hook;
	return au->mode_hook ? au->mode_hook : au->a->hooks[0];
}

/* Where a linked call to hook goes (ARM: bit 0 set for Thumb code), or NULL. */
static const uint64_t *hook_address(const struct audit *au, const char *hook, uint64_t *addr)
{
	size_t i;

	for (i = 0; au->linked && i < au->ndirect; i++) {
		if (!strcmp(au->direct[i].hook, hook)) {
			*addr = au->direct[i].addr | au->direct[i].thumb;
			return addr;
		}
	}
	return NULL;
}

/* "expected call __fentry__ (e8 ...) or its NOP (0f 1f ...), found ..." */
static void report_not_call(struct audit *au, const struct site *st, const char *extra)
{
	const char *hook = expected_hook(au, st);
	struct insn_view iv = calls_view(au, st->sec, st->off, st->thumb);
	uint8_t call[16] = { 0 }, nop[16];
	char want[192], nopstr[192] = "", found[192];
	uint64_t to;
	unsigned len = au->a->make_call ? au->a->make_call(au->a, &iv, hook_address(au, hook, &to),
							    call) : 0;
	int (*mknop)(const struct arch *, uint8_t *, uint64_t, const struct call_site *, bool) =
		au->a->make_site_nop ? au->a->make_site_nop : au->a->make_nop;

	if (len) {
		size_t i, n = 0;

		for (i = 0; i < len; i++)
			n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%02x", i ? " " : "",
					      call[i]);
		snprintf(want + n, sizeof(want) - n, " (call %s)", hook);
		memcpy(nop, call, sizeof(nop));
		if (mknop) {
			struct call_site cs = { .site = 0, .len = len, .align = st->thumb ? 2 : 4 };

			if (!mknop(au->a, nop, len, &cs, au->h->big_endian))
				report_bytes(au, st->thumb, nop, len, len, iv.addr, nopstr,
					     sizeof(nopstr));
		}
	} else {
		snprintf(want, sizeof(want), "a call to %s", hook);
	}
	report_view_bytes(au, &iv, 0, len ? len : 4, found, sizeof(found));
	report(au, CHK_SITE_NOT_CALL, st->sec, st->off,
	       "%s entry %zu is neither a call to %s nor its NOP%s, expected %s%s%s, found %s",
	       au->tables[st->table].name, st->entry, hook, extra, want,
	       nopstr[0] ? " or NOP " : "", nopstr, found);
}

static unsigned site_align(const struct audit *au, bool thumb)
{
	if (au->a->thumb_bit)
		return thumb ? 2 : 4;
	return au->a->insn_align ? au->a->insn_align : 1;
}

/* For arches without alignment: is the site where decoding the function puts an insn? */
static bool insn_start(const struct audit *au, const struct site *st)
{
	const struct si_func *f = symindex_func_at(au->si, st->sec, st->off);
	struct insn_view iv = calls_view(au, st->sec, st->off, st->thumb);

	if (!f || !iv.code)
		return true;	/* nothing to decode from: no accusation */
	return disasm_is_insn_start(au->a, au->h->big_endian, st->thumb, iv.code, iv.size,
				    audit_addr(au, st->sec, 0), f->off, st->off);
}

/* What the site holds: the call, its NOP, or something else. */
static void check_contents(struct audit *au, struct site *st)
{
	struct hookcall *c = calls_at(au, st->sec, st->off);
	struct insn_view iv = calls_view(au, st->sec, st->off, st->thumb);
	const struct badref *bad;
	char extra[160] = "";
	struct branch b;
	unsigned l;

	if (c) {
		st->state = SITE_CALL;
		st->hook = c->hook;
		st->len = c->len;
		c->claimed = true;
		return;
	}
	if (au->a->site_nop && (l = au->a->site_nop(au->a, &iv))) {
		st->state = SITE_NOP;
		st->len = l;
		return;
	}
	st->state = SITE_OTHER;
	c = calls_containing(au, st->sec, st->off);
	if (c) {
		char where[160];

		c->claimed = true;
		audit_where(au, c->sec, c->off, where, sizeof(where));
		report(au, CHK_MISALIGNED, st->sec, st->off,
		       "%s entry %zu is %llu byte%s into the call to %s at %s, not at its start",
		       au->tables[st->table].name, st->entry,
		       (unsigned long long)(st->off - c->off), st->off - c->off == 1 ? "" : "s",
		       c->hook, where);
		st->settled = true;
		return;
	}
	if (site_align(au, st->thumb) == 1 && !insn_start(au, st)) {
		report(au, CHK_MISALIGNED, st->sec, st->off,
		       "%s entry %zu is not at an instruction start", au->tables[st->table].name,
		       st->entry);
		st->settled = true;
		return;
	}
	bad = au->linked ? NULL : calls_badref_at(au, st->sec, st->off);
	if (bad)
		snprintf(extra, sizeof(extra), " (its relocation against %s is %s)", bad->hook,
			 bad->why);
	else if (au->linked && au->a->decode_branch && au->a->decode_branch(au->a, &iv, &b) &&
		 b.kind == BRANCH_CALL)
		snprintf(extra, sizeof(extra), " (a call to 0x%llx, which is not a hook)",
			 (unsigned long long)b.target);
	report_not_call(au, st, extra);
	st->settled = true;
}

/* An mcount-style call must follow the frame set-up, with no branch before it. */
static void check_setup(struct audit *au, const struct site *st, const struct si_func *f,
			struct insn_view *fv, unsigned pad, const char *hook)
{
	uint64_t stop;
	char found[192];
	unsigned len;

	fv->off += pad;
	fv->addr += pad;
	if (st->off >= fv->off && au->a->mcount_setup(au->a, fv, st->off, &stop))
		return;
	if (st->off < fv->off || stop >= st->off) {
		report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
		       "%s entry %zu: the %s call is %llu bytes into %s, before its frame is set "
		       "up", au->tables[st->table].name, st->entry, hook,
		       (unsigned long long)(st->off - f->off), f->name);
		return;
	}
	/* The whole instruction that stopped the walk (x86: its decoded length). */
	len = fv->code && stop < fv->size ?
		      disasm_one(au->a, au->h->big_endian, fv->thumb, fv->code + stop,
				 fv->size - stop, audit_addr(au, st->sec, stop), found, sizeof(found)) : 0;
	if (!len && au->a->insn_len && fv->code) {	/* no disassembler: the ISA's length */
		struct insn_view sv = *fv;

		sv.off = stop;
		len = au->a->insn_len(au->a, &sv);
	}
	report_view_bytes(au, fv, stop - fv->off, len ? len : 4, found, sizeof(found));
	report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
	       "%s entry %zu: the %s call is %llu bytes into %s, after %s at %s+0x%llx: only "
	       "frame set-up, and no branch, may come before it", au->tables[st->table].name,
	       st->entry, hook,
	       (unsigned long long)(st->off - f->off), f->name, found, f->name,
	       (unsigned long long)(stop - f->off));
}

/* An entry site, or a call after the arch's frame set-up. */
static void check_place(struct audit *au, struct site *st)
{
	const struct si_func *f = symindex_func_at(au->si, st->sec, st->off);
	const char *hook = st->hook ? st->hook : au->mode_hook;
	struct insn_view fv;
	unsigned pad;

	if (!f) {
		if (symindex_nfuncs(au->si))
			deadcopy_check(au, st, is_fentry(hook) ? FORM_FENTRY : FORM_MCOUNT);
		return;
	}
	fv = calls_view(au, st->sec, f->off, st->thumb);
	pad = au->a->entry_pad ? au->a->entry_pad(au->a, &fv) : 0;
	if (is_fentry(hook)) {
		if (st->off == f->off || st->off == f->off + pad)
			return;
		report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
		       "%s entry %zu: the %s call is %llu bytes into %s, expected at its entry%s",
		       au->tables[st->table].name, st->entry, hook,
		       (unsigned long long)(st->off - f->off), f->name,
		       pad ? " (after its landing pad)" : "");
		return;
	}
	/* Only NOPs and no call anywhere (gcc -mnop-mcount): an entry site is fine. */
	if (!hook && (st->off == f->off || st->off == f->off + pad))
		return;
	if (au->a->mcount_setup) {
		check_setup(au, st, f, &fv, pad, hook ? hook : "mcount");
		return;
	}
	if (au->a->mcount_window && st->off - f->off > au->a->mcount_window)
		report(au, CHK_NOT_AT_ENTRY, st->sec, st->off,
		       "%s entry %zu: the %s call is %llu bytes into %s, beyond the %u-byte "
		       "prologue an %s call may follow", au->tables[st->table].name, st->entry,
		       hook ? hook : "hook", (unsigned long long)(st->off - f->off), f->name,
		       au->a->mcount_window, hook ? hook : "mcount");
}

static int cmp_site_place(const void *a, const void *b)
{
	const struct site *x = *(const struct site *const *)a, *y = *(const struct site *const *)b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->table != y->table)
		return x->table < y->table ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static int check_duplicates(struct audit *au)
{
	struct site **v = malloc((au->nsites + 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < au->nsites; i++)
		if (!au->sites[i].settled)
			v[n++] = &au->sites[i];
	qsort(v, n, sizeof(*v), cmp_site_place);
	for (i = 1; i < n; i++) {
		if (v[i]->sec != v[i - 1]->sec || v[i]->off != v[i - 1]->off)
			continue;
		report(au, CHK_DUPLICATE, v[i]->sec, v[i]->off,
		       "%s entry %zu repeats %s entry %zu: ftrace would patch the site twice",
		       au->tables[v[i]->table].name, v[i]->entry, au->tables[v[i - 1]->table].name,
		       v[i - 1]->entry);
		v[i]->settled = true;
	}
	free(v);
	return 0;
}

static void check_order(struct audit *au)
{
	size_t i;

	/* Only linked addresses have an order; an object's are per section. */
	if (au->opt->level[CHK_UNSORTED] == LEVEL_OFF || !au->linked)
		return;
	for (i = 1; i < au->nsites; i++) {
		const struct site *p = &au->sites[i - 1], *s = &au->sites[i];
		char where[160];

		if (p->table != s->table || s->value >= p->value || !s->value || !p->value)
			continue;
		snprintf(where, sizeof(where), "%s+0x%zx (entry %zu)", au->tables[s->table].name,
			 s->entry * au->tables[s->table].entsize, s->entry);
		report_table(au, CHK_UNSORTED, where, "entry 0x%llx is below entry %zu's 0x%llx",
			     (unsigned long long)s->value, p->entry, (unsigned long long)p->value);
	}
}

static int check_complete(struct audit *au)
{
	bool *traced = calloc(elfobj_shnum(au->o) + 1, sizeof(*traced));
	size_t i;

	if (!traced)
		return -ENOMEM;
	for (i = 0; i < au->nsites; i++)
		if (au->sites[i].sec && au->tables[au->sites[i].table].kind == TABLE_MCOUNT)
			traced[au->sites[i].sec] = true;
	for (i = 1; i < elfobj_shnum(au->o); i++)
		if (kernel_traced_name(elfobj_sec(au->o, i)->name))
			traced[i] = true;
	for (i = 0; i < au->ncalls; i++) {
		const struct hookcall *c = &au->calls[i];
		struct site st = { .sec = c->sec, .off = c->off, .thumb = c->thumb };

		if (c->claimed)
			continue;
		/* A decoded linked call with no alignment to trust: confirm it. */
		if (au->linked && site_align(au, c->thumb) == 1 &&
		    (!symindex_func_at(au->si, c->sec, c->off) || !insn_start(au, &st)))
			continue;
		if (traced[c->sec])
			report(au, CHK_MISSING_SITE, c->sec, c->off,
			       "call to %s is not recorded in any table", c->hook);
		else
			report(au, CHK_UNTRACED_CALL, c->sec, c->off,
			       "live call to %s in untraced section %s", c->hook,
			       elfobj_sec(au->o, c->sec)->name);
	}
	free(traced);
	return 0;
}

int checks_run(struct audit *au)
{
	unsigned sled = 0;
	size_t i;
	int err;

	for (i = 0; i < au->nsites; i++) {
		struct site *st = &au->sites[i];

		if (st->settled)
			continue;
		st->thumb = symindex_thumb_at(au->si, st->sec, st->off);
		if (st->lsb && !st->thumb) {
			struct hookcall *c = calls_at(au, st->sec, st->off);

			if (c)	/* ftrace clears bit 0 and finds the call */
				c->claimed = true;
			report(au, CHK_MISALIGNED, st->sec, st->off | 1,
			       "%s entry %zu has bit 0 set (a Thumb site) but the code there is ARM",
			       au->tables[st->table].name, st->entry);
			st->settled = true;
			continue;
		}
		if (st->off % site_align(au, st->thumb)) {
			struct hookcall *c = calls_containing(au, st->sec, st->off);

			if (c)
				c->claimed = true;
			report(au, CHK_MISALIGNED, st->sec, st->off,
			       "%s entry %zu breaks the %u-byte instruction alignment",
			       au->tables[st->table].name, st->entry, site_align(au, st->thumb));
			st->settled = true;
		}
	}
	if ((err = check_duplicates(au)))
		return err;
	for (i = 0; i < au->nsites; i++)
		if (!au->sites[i].settled && au->tables[au->sites[i].table].kind == TABLE_PATCHABLE) {
			sled = sleds_expected(au);
			break;
		}
	for (i = 0; i < au->nsites; i++) {
		struct site *st = &au->sites[i];

		if (st->settled)
			continue;
		if (au->tables[st->table].kind == TABLE_PATCHABLE) {
			sleds_check(au, st, sled);
			continue;
		}
		check_contents(au, st);
		if (!st->settled)
			check_place(au, st);
	}
	check_order(au);
	if ((err = sleds_complete(au)))
		return err;
	return check_complete(au);
}
