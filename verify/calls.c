// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every call to a profiling hook in a file's code: the truth the table is
 * compared with (missing-site, untraced-call) and what a site must hold.
 *
 * In an object a call is a relocation against a hook symbol, which the
 * arch's call_site() maps to the call instruction.  In a linked file the
 * relocations are gone: each instruction position is decoded and a call
 * counts when it reaches a hook, directly, through a PLT entry, or through
 * a GOT word that a dynamic relocation fills with the hook's address.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

struct insn_view calls_view(const struct audit *au, size_t sec, uint64_t off, bool thumb)
{
	const struct eo_sec *s = elfobj_sec(au->o, sec);
	const uint8_t *code = elfobj_sec_bytes(au->o, sec);

	return (struct insn_view){
		.code = code, .size = code ? s->size : 0, .off = off,
		.addr = audit_addr(au, sec, off), .big_endian = au->h->big_endian,
		.thumb = thumb, .got = au->got,
	};
}

static int push_call(struct audit *au, size_t *cap, const struct hookcall *c)
{
	if (au->ncalls == *cap) {
		size_t n = *cap ? *cap * 2 : 64;
		struct hookcall *p = realloc(au->calls, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		au->calls = p;
		*cap = n;
	}
	au->calls[au->ncalls++] = *c;
	return 0;
}

static void note_mode(struct audit *au, const char *hook)
{
	if (!au->mode_hook || !strcmp(hook, "__fentry__"))
		au->mode_hook = hook;
}

static int object_calls_in(struct audit *au, size_t sec, size_t rsec, size_t *cap)
{
	const uint8_t *code = elfobj_sec_bytes(au->o, sec);
	struct reloc_view rv = {
		.code = code, .code_size = code ? elfobj_sec(au->o, sec)->size : 0,
		.big_endian = au->h->big_endian,
	};
	const struct eo_rel *r;
	size_t k, n;
	int err;

	if ((err = elfobj_rels(au->o, rsec, &r, &n)))
		return err;
	for (k = 0; k < n; k++) {
		const struct eo_sym *sym = elfobj_sym(au->o, r[k].sym);
		struct call_site cs = { 0 };
		enum reloc_role role;

		if (!r[k].sym || !sym || !arch_is_hook(au->a, sym->name))
			continue;
		note_mode(au, sym->name);
		if (r[k].type == au->a->none_reloc)	/* a call made a NOP at build time */
			continue;
		rv.offset = r[k].offset;
		rv.type = r[k].type;
		role = au->a->call_site(au->a, &rv, &cs);
		rv.have_prev = true;
		rv.prev_offset = r[k].offset;
		if (role == RELOC_CALL) {
			struct hookcall c = {
				.sec = sec, .off = cs.site, .len = cs.len, .hook = sym->name,
				.thumb = au->a->thumb_bit && cs.align == 2,
			};

			if ((err = push_call(au, cap, &c)))
				return err;
		} else if (role == RELOC_BAD) {
			struct badref *b = realloc(au->badrefs, (au->nbadrefs + 1) * sizeof(*b));

			if (!b)
				return -ENOMEM;
			au->badrefs = b;
			au->badrefs[au->nbadrefs++] = (struct badref){
				.sec = sec, .off = cs.site, .hook = sym->name, .why = cs.why,
			};
		}
	}
	return 0;
}

static int object_calls(struct audit *au)
{
	size_t i, cap = 0;
	int err;

	for (i = 1; i < elfobj_shnum(au->o); i++) {
		const struct eo_sec *rs = elfobj_sec(au->o, i);
		const struct eo_sec *ts;

		if (!elfobj_is_rel_sec(au->o, i) || rs->link != elfobj_symtab_index(au->o))
			continue;
		ts = elfobj_sec(au->o, rs->info);
		if (!ts || !(ts->flags & EO_SHF_EXECINSTR) || ts->type != EO_SHT_PROGBITS)
			continue;
		if ((err = object_calls_in(au, rs->info, i, &cap)))
			return err;
	}
	return 0;
}

static int cmp_target(const void *a, const void *b)
{
	const struct target *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static const struct target *find_target(const struct target *t, size_t n, uint64_t addr)
{
	struct target key = { .addr = addr };

	return n ? bsearch(&key, t, n, sizeof(*t), cmp_target) : NULL;
}

/* addr as a symbol value has it: on ARM bit 0 is the target's Thumb state. */
static int push_target(const struct audit *au, struct target **t, size_t *n, uint64_t addr,
		       const char *hook)
{
	struct target *p = realloc(*t, (*n + 1) * sizeof(*p));
	bool thumb = au->a->thumb_bit && (addr & 1);

	if (!p)
		return -ENOMEM;
	*t = p;
	p[(*n)++] = (struct target){ thumb ? addr & ~1ull : addr, hook, thumb };
	return 0;
}

/*
 * The view of an instruction at sec+p in the state of the code there; false
 * when no instruction of that state starts at p (ARM code is word-aligned).
 */
static bool view_at(const struct audit *au, size_t sec, uint64_t p, struct insn_view *iv)
{
	*iv = calls_view(au, sec, p, false);
	if (au->a->thumb_bit)
		iv->thumb = symindex_thumb_at(au->si, sec, p);
	return iv->thumb || p % (au->a->thumb_bit ? 4 : 1) == 0;
}

static bool is_plt(const struct eo_sec *s)
{
	return !strncmp(s->name, ".plt", 4) || !strcmp(s->name, ".iplt");
}

/* PLT entries that jump through a hook's GOT word are hook addresses too. */
static int plt_targets(struct audit *au, size_t sec)
{
	const struct eo_sec *s = elfobj_sec(au->o, sec);
	unsigned step = au->a->insn_align ? au->a->insn_align : 4;
	uint64_t p;
	int err;

	if (!elfobj_sec_bytes(au->o, sec))
		return 0;
	for (p = 0; p < s->size; p += step) {
		struct insn_view iv;
		unsigned pad;
		const struct target *t;
		struct branch b;

		if (!view_at(au, sec, p, &iv))
			continue;
		pad = au->a->entry_pad ? au->a->entry_pad(au->a, &iv) : 0;
		iv.off += pad;
		iv.addr += pad;
		if (!au->a->decode_branch(au->a, &iv, &b) || b.kind != BRANCH_JUMP || !b.indirect)
			continue;
		t = find_target(au->slots, au->nslots, b.target);
		if (t && (err = push_target(au, &au->direct, &au->ndirect,
					    audit_addr(au, sec, p) | iv.thumb, t->hook)))
			return err;
	}
	return 0;
}

static int linked_targets(struct audit *au)
{
	size_t i;
	int err;

	au->got = elfquery_got_addr(au->q);
	for (i = 1; i < elfobj_nsyms(au->o); i++) {
		const struct eo_sym *s = elfobj_sym(au->o, i);

		if (s->defined && s->value && arch_is_hook(au->a, s->name) &&
		    (err = push_target(au, &au->direct, &au->ndirect, s->value, s->name)))
			return err;
	}
	for (i = 1; i < elfquery_ndynsyms(au->q); i++) {
		const struct eo_sym *s = elfquery_dynsym(au->q, i);

		if (s->defined && s->value && arch_is_hook(au->a, s->name) &&
		    (err = push_target(au, &au->direct, &au->ndirect, s->value, s->name)))
			return err;
	}
	for (i = 0; i < sysmap_count(au->sysmap); i++) {	/* a stripped image's hooks */
		uint64_t addr;
		const char *name = sysmap_sym(au->sysmap, i, &addr);

		if (addr && arch_is_hook(au->a, name) &&
		    (err = push_target(au, &au->direct, &au->ndirect, addr, name)))
			return err;
	}
	for (i = 0; i < elfquery_ndynrels(au->q); i++) {
		const struct eq_dynrel *r = elfquery_dynrel(au->q, i);
		const struct eo_sym *s = r->sym ? elfquery_dynsym(au->q, r->sym) : NULL;

		if (s && arch_is_hook(au->a, s->name) &&
		    (err = push_target(au, &au->slots, &au->nslots, r->addr, s->name)))
			return err;
	}
	if (au->nslots)
		qsort(au->slots, au->nslots, sizeof(*au->slots), cmp_target);
	for (i = 1; i < elfobj_shnum(au->o); i++) {
		const struct eo_sec *s = elfobj_sec(au->o, i);

		if ((s->flags & EO_SHF_EXECINSTR) && is_plt(s) && (err = plt_targets(au, i)))
			return err;
	}
	if (au->ndirect)
		qsort(au->direct, au->ndirect, sizeof(*au->direct), cmp_target);
	return 0;
}

/* The hook a linked call goes to (through a PLT entry or GOT word), or NULL. */
static const char *calls_linked_hook(const struct audit *au, const struct branch *b)
{
	const struct target *t = b->indirect ? find_target(au->slots, au->nslots, b->target)
					     : find_target(au->direct, au->ndirect, b->target);

	return t ? t->hook : NULL;
}

/*
 * A call decoded at p that ends where the last one found does, which began
 * before p, is one instruction read two ways: with a prefix byte (x86 f2
 * or 67) or without it, where that byte may belong to the instruction
 * before.  Decoding from the function's start says which (a function that
 * starts at p: p); without a function, the longer reading stays.  True when the call at p replaces it.
 */
static bool same_call(const struct audit *au, size_t sec, uint64_t p, const struct branch *b,
		      bool *replace)
{
	const struct hookcall *prev = au->ncalls ? &au->calls[au->ncalls - 1] : NULL;
	const struct si_func *f;
	struct insn_view iv;

	*replace = false;
	if (!prev || prev->sec != sec || prev->off >= p || prev->off + prev->len != p + b->len)
		return false;
	f = symindex_func_at(au->si, sec, p);
	iv = calls_view(au, sec, p, prev->thumb);
	/* A function starting between the two readings: the longer one straddles it. */
	*replace = f && (f->off > prev->off ||
			 (iv.code && disasm_is_insn_start(au->a, au->h->big_endian, iv.thumb,
							  iv.code, iv.size, audit_addr(au, sec, 0),
							  f->off, p)));
	return true;
}

/*
 * Where the next instruction starts: for an arch whose instructions say
 * their length (insn_len), after this one, or at a function that starts
 * inside it (the walk resynchronises there); else the next step.
 */
static uint64_t next_insn(const struct audit *au, size_t sec, uint64_t p, unsigned step)
{
	struct insn_view iv = calls_view(au, sec, p, false);
	unsigned len = au->a->insn_len && iv.code ? au->a->insn_len(au->a, &iv) : 0;
	const struct si_func *f;

	if (!len || len <= step)
		return p + step;
	f = symindex_func_next(au->si, sec, p + 1);
	return f && f->off < p + len ? f->off : p + len;
}

static int linked_calls_in(struct audit *au, size_t sec, size_t *cap)
{
	const struct eo_sec *s = elfobj_sec(au->o, sec);
	const uint8_t *code = elfobj_sec_bytes(au->o, sec);
	unsigned step = au->a->insn_align ? au->a->insn_align : 4;
	struct insn_view iv;
	bool replace;
	uint64_t p, next;
	int err;

	if (!code)
		return 0;
	for (p = 0; p < s->size; p = next) {
		struct branch b;
		const char *hook;

		next = next_insn(au, sec, p, step);
		if (!view_at(au, sec, p, &iv) || !au->a->decode_branch(au->a, &iv, &b) ||
		    b.kind != BRANCH_CALL)
			continue;
		hook = calls_linked_hook(au, &b);
		if (!hook)
			continue;
		note_mode(au, hook);
		struct hookcall c = { .sec = sec, .off = p, .len = b.len, .thumb = iv.thumb,
				      .hook = hook };
		if (same_call(au, sec, p, &b, &replace)) {
			if (replace)
				au->calls[au->ncalls - 1] = c;
			continue;
		}
		if ((err = push_call(au, cap, &c)))
			return err;
	}
	return 0;
}

static int linked_calls(struct audit *au)
{
	size_t i, cap = 0;
	int err;

	if (!au->a->decode_branch)
		return 0;
	if ((err = linked_targets(au)))
		return err;
	if (!au->ndirect && !au->nslots)
		return 0;
	for (i = 1; i < elfobj_shnum(au->o); i++) {
		const struct eo_sec *s = elfobj_sec(au->o, i);

		if (!(s->flags & EO_SHF_EXECINSTR) || s->type != EO_SHT_PROGBITS || is_plt(s))
			continue;
		if ((err = linked_calls_in(au, i, &cap)))
			return err;
	}
	return 0;
}

static int cmp_call(const void *a, const void *b)
{
	const struct hookcall *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

int calls_find(struct audit *au)
{
	int err = au->linked ? linked_calls(au) : object_calls(au);

	if (!err && au->ncalls)
		qsort(au->calls, au->ncalls, sizeof(*au->calls), cmp_call);
	return err;
}

/* Index of the first call at or after (sec, off). */
static size_t call_bound(const struct audit *au, size_t sec, uint64_t off)
{
	size_t lo = 0, hi = au->ncalls;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hookcall *c = &au->calls[mid];

		if (c->sec < sec || (c->sec == sec && c->off < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct hookcall *calls_at(struct audit *au, size_t sec, uint64_t off)
{
	size_t i = call_bound(au, sec, off);

	return i < au->ncalls && au->calls[i].sec == sec && au->calls[i].off == off
		       ? &au->calls[i] : NULL;
}

struct hookcall *calls_containing(struct audit *au, size_t sec, uint64_t off)
{
	size_t i = call_bound(au, sec, off);
	struct hookcall *c;

	if (!i)
		return NULL;
	c = &au->calls[i - 1];
	return c->sec == sec && off > c->off && off < c->off + c->len ? c : NULL;
}

const struct badref *calls_badref_at(const struct audit *au, size_t sec, uint64_t off)
{
	size_t i;

	for (i = 0; i < au->nbadrefs; i++)
		if (au->badrefs[i].sec == sec && au->badrefs[i].off == off)
			return &au->badrefs[i];
	return NULL;
}
