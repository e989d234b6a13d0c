// SPDX-License-Identifier: GPL-2.0-only
/*
 * .eh_frame, read for two facts per FDE: where its code starts (an entry
 * even in a stripped file) and whether it is a fragment.  A fragment is
 * code entered with a frame already set up (a .cold part), code with no
 * caller (_start: its return-address rule is undefined) or a signal
 * trampoline (its CIE has the 'S' augmentation): a jump written there would
 * run a hook on a stack it does not understand.  The test is the design's:
 * replay the FDE's instructions up to its first advance and compare the
 * rules with the CIE's initial ones.
 *
 * The layout is the LSB's "Exception Frame" chapter and DWARF 4 §6.4; only
 * what the two facts need is decoded, and anything this reader does not
 * know makes the FDE a fragment (never a site), never a guess.
 */
#include <errno.h>
#include <string.h>

#include "diag.h"
#include "noflag.h"

/* DW_EH_PE_* pointer encodings (LSB). */
enum {
	PE_ABSPTR = 0x00, PE_ULEB = 0x01, PE_U2 = 0x02, PE_U4 = 0x03, PE_U8 = 0x04,
	PE_SLEB = 0x09, PE_S2 = 0x0a, PE_S4 = 0x0b, PE_S8 = 0x0c,
	PE_PCREL = 0x10, PE_OMIT = 0xff,
};

#define NREGS 33	/* DWARF registers a rule is tracked for (x86-64: 0-16, xmm 17-32) */

/* A register's rule: kind and operand, compared as a pair. */
struct rule {
	uint8_t kind;	/* 0 same/unset, 1 undefined, 2 offset, 3 val_offset, 4 register, 5 expression */
	int64_t val;
};

struct state {
	uint64_t cfa_reg;
	int64_t cfa_off;
	bool cfa_expr;
	struct rule r[NREGS];
	bool unknown;	/* an instruction or register this reader does not track */
};

struct cur {
	const uint8_t *p, *end;
	bool be, bad;
};

struct cie {
	uint8_t fde_enc, lsda_enc;
	bool has_lsda;
	bool aug_z, signal, ok;
	uint64_t code_align, ra;
	int64_t data_align;
	struct state init;
};

static uint64_t rd(struct cur *c, unsigned n)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)c->p[c->be ? n - 1 - i : i] << (8 * i);
	c->p += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (c->p < c->end) {
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (c->p < c->end) {
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			return (int64_t)v;
		}
	}
	c->bad = true;
	return 0;
}

/* An encoded pointer; base is the address of the byte it starts at. Sets bad if unsupported. */
static uint64_t pointer(struct cur *c, uint8_t enc, uint64_t base, unsigned word)
{
	uint64_t v;

	switch (enc & 0x0f) {
	case PE_ABSPTR: v = rd(c, word); break;
	case PE_ULEB: v = uleb(c); break;
	case PE_U2: v = rd(c, 2); break;
	case PE_U4: v = rd(c, 4); break;
	case PE_U8: v = rd(c, 8); break;
	case PE_SLEB: v = (uint64_t)sleb(c); break;
	case PE_S2: v = (uint64_t)(int64_t)(int16_t)rd(c, 2); break;
	case PE_S4: v = (uint64_t)(int64_t)(int32_t)rd(c, 4); break;
	case PE_S8: v = rd(c, 8); break;
	default: c->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0: return v;
	case PE_PCREL: return v + base;
	default: c->bad = true; return 0;	/* textrel, datarel, funcrel: not in x86-64 .eh_frame */
	}
}

static void set_rule(struct state *s, uint64_t reg, uint8_t kind, int64_t val)
{
	if (reg >= NREGS) {
		s->unknown = true;
		return;
	}
	s->r[reg] = (struct rule){ kind, val };
}

static void skip_block(struct cur *c)
{
	uint64_t n = uleb(c);

	if (n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
		return;
	}
	c->p += n;
}

/*
 * Replay call frame instructions into s until the first advance (or the
 * end).  init is the CIE's state, for DW_CFA_restore.  Returns true when an
 * advance (or the end of the instructions).
 */
static void replay(struct cur *c, struct state *s, const struct state *init, const struct cie *ci)
{
	while (c->p < c->end && !c->bad && !s->unknown) {
		uint8_t op = *c->p++, lo = op & 0x3f;
		uint64_t reg;

		switch (op >> 6) {
		case 1: return;					/* DW_CFA_advance_loc */
		case 2: set_rule(s, lo, 2, (int64_t)uleb(c) * ci->data_align); continue;
		case 3:						/* DW_CFA_restore */
			if (lo < NREGS && init)
				s->r[lo] = init->r[lo];
			else
				s->unknown = true;
			continue;
		}
		switch (op) {
		case 0x00: break;				/* nop */
		case 0x01: case 0x02: case 0x03: case 0x04: return;	/* set_loc, advance_loc1/2/4 */
		case 0x05: reg = uleb(c); set_rule(s, reg, 2, (int64_t)uleb(c) * ci->data_align); break;
		case 0x06:					/* restore_extended */
			reg = uleb(c);
			if (reg < NREGS && init)
				s->r[reg] = init->r[reg];
			else
				s->unknown = true;
			break;
		case 0x07: set_rule(s, uleb(c), 1, 0); break;	/* undefined */
		case 0x08: set_rule(s, uleb(c), 0, 0); break;	/* same_value */
		case 0x09: reg = uleb(c); set_rule(s, reg, 4, (int64_t)uleb(c)); break;
		case 0x0c: s->cfa_reg = uleb(c); s->cfa_off = (int64_t)uleb(c); s->cfa_expr = false; break;
		case 0x0d: s->cfa_reg = uleb(c); s->cfa_expr = false; break;
		case 0x0e: s->cfa_off = (int64_t)uleb(c); break;
		case 0x0f: skip_block(c); s->cfa_expr = true; break;
		case 0x10: reg = uleb(c); skip_block(c); set_rule(s, reg, 5, 0); break;
		case 0x11: reg = uleb(c); set_rule(s, reg, 2, sleb(c) * ci->data_align); break;
		case 0x12:
			s->cfa_reg = uleb(c);
			s->cfa_off = sleb(c) * ci->data_align;
			s->cfa_expr = false;
			break;
		case 0x13: s->cfa_off = sleb(c) * ci->data_align; break;
		case 0x14: reg = uleb(c); set_rule(s, reg, 3, (int64_t)uleb(c) * ci->data_align); break;
		case 0x15: reg = uleb(c); set_rule(s, reg, 3, sleb(c) * ci->data_align); break;
		case 0x16: reg = uleb(c); skip_block(c); set_rule(s, reg, 5, 1); break;
		case 0x2e: uleb(c); break;			/* GNU_args_size: no rule */
		default: s->unknown = true; break;		/* remember/restore_state too: rare here */
		}
	}
}

static bool same_state(const struct state *a, const struct state *b)
{
	if (a->cfa_reg != b->cfa_reg || a->cfa_off != b->cfa_off || a->cfa_expr || b->cfa_expr)
		return false;
	for (unsigned i = 0; i < NREGS; i++)
		if (a->r[i].kind != b->r[i].kind || a->r[i].val != b->r[i].val)
			return false;
	return true;
}

/* The CIE at c (after its id): augmentation, alignment factors, initial rules. */
static void read_cie(struct cur *c, struct cie *ci, uint64_t sec_addr, const uint8_t *sec, unsigned word)
{
	uint8_t version = (uint8_t)rd(c, 1);
	const char *aug = (const char *)c->p;
	const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));

	*ci = (struct cie){ .fde_enc = PE_ABSPTR, .lsda_enc = PE_OMIT };
	if (!nul || (version != 1 && version != 3)) {
		c->bad = true;
		return;
	}
	c->p = nul + 1;
	if (strstr(aug, "eh")) {	/* an old gcc's eh pointer: not on x86-64 */
		c->bad = true;
		return;
	}
	ci->code_align = uleb(c);
	ci->data_align = sleb(c);
	ci->ra = version == 1 ? rd(c, 1) : uleb(c);
	if (aug[0] == 'z') {
		uint64_t len = uleb(c);
		struct cur a = { c->p, c->p + len, c->be, false };

		if (len > (uint64_t)(c->end - c->p)) {
			c->bad = true;
			return;
		}
		ci->aug_z = true;
		for (const char *k = aug + 1; *k && !a.bad; k++) {
			uint8_t enc;
			switch (*k) {
			case 'L':
				ci->lsda_enc = (uint8_t)rd(&a, 1);
				ci->has_lsda = true;
				break;
			case 'R': ci->fde_enc = (uint8_t)rd(&a, 1); break;
			case 'P':
				enc = (uint8_t)rd(&a, 1);
				pointer(&a, enc, sec_addr + (uint64_t)(a.p - sec), word);
				break;
			case 'S': ci->signal = true; break;
			case 'B': break;	/* aarch64 B-key: no data */
			default: a.bad = true; break;
			}
		}
		if (a.bad) {
			c->bad = true;
			return;
		}
		c->p += len;
	}
	ci->init.cfa_reg = ~(uint64_t)0;
	replay(c, &ci->init, NULL, ci);
	/* The CIE's instructions never advance; a state they leave unknown taints each FDE. */
	ci->ok = !c->bad;
}

/* Why the FDE whose instructions are at c is a fragment, or NULL. */
static const char *fragment_of(struct cur *c, const struct cie *ci)
{
	struct state s = ci->init;

	if (ci->signal)
		return "signal-trampoline";
	if (ci->init.unknown)
		return "cfi-unknown";
	replay(c, &s, &ci->init, ci);
	if (c->bad || s.unknown)
		return "cfi-unknown";
	if (ci->ra < NREGS && s.r[ci->ra].kind == 1)
		return "no-return-address";
	if (!same_state(&s, &ci->init))
		return "frame-at-entry";
	return NULL;
}

/*
 * The landing pads of the LSDA at lsda (the function starts at func): the
 * call-site table of GCC's .gcc_except_table (LSB, "Exception Frame"; the
 * layout gcc's unwind-c.c and libstdc++'s eh_personality.cc read).  The
 * unwinder jumps to a pad, so each goes into H.  0, or -1 when the table
 * is damaged (bytes outside the file) or uses an encoding not read here.
 */
static int landing_pads(struct nf_file *f, uint64_t lsda, uint64_t func, unsigned word)
{
	size_t idx = elfquery_sec_by_addr(f->q, lsda);
	const struct eo_sec *s = idx ? elfobj_sec(f->o, idx) : NULL;
	const uint8_t *base = idx ? elfobj_sec_bytes(f->o, idx) : NULL;

	if (!base)
		return -1;
	struct cur c = { base + (lsda - s->addr), base + s->size, f->h->big_endian, false };
	uint8_t enc = (uint8_t)rd(&c, 1);
	uint64_t lpstart = func;
	if (enc != PE_OMIT)
		lpstart = pointer(&c, enc, s->addr + (uint64_t)(c.p - base), word);
	if ((uint8_t)rd(&c, 1) != PE_OMIT)
		uleb(&c);			/* the type table's offset: not needed */
	enc = (uint8_t)rd(&c, 1);		/* the call-site entries' encoding */
	uint64_t len = uleb(&c);
	if (c.bad || len > (uint64_t)(c.end - c.p) || (enc & 0x70))
		return -1;
	c.end = c.p + len;
	while (c.p < c.end && !c.bad) {
		pointer(&c, enc, 0, word);	/* start and length of the call range */
		pointer(&c, enc, 0, word);
		uint64_t lp = pointer(&c, enc, 0, word);
		uleb(&c);			/* action */
		if (!c.bad && lp && nf_hazard_add(f, lpstart + lp, HZ_LANDING))
			return -1;
	}
	return c.bad ? -1 : 0;
}

/* Every FDE of .eh_frame, in order: its start, size and whether it is a fragment. */
int nf_ehframe(struct nf_file *f, nf_fde_fn fde, void *arg, size_t *nfdes)
{
	size_t idx = elfobj_find_sec(f->o, ".eh_frame");
	const struct eo_sec *s = idx ? elfobj_sec(f->o, idx) : NULL;
	const uint8_t *sec = idx ? elfobj_sec_bytes(f->o, idx) : NULL;
	unsigned word = f->h->word;
	struct cie ci = { 0 };
	const uint8_t *last_cie = NULL;
	uint64_t off = 0;

	*nfdes = 0;
	if (!sec)
		return 0;	/* no .eh_frame: entries come from symbols only */
	while (off + 4 <= s->size) {
		struct cur c = { sec + off, sec + s->size, f->h->big_endian, false };
		uint64_t len = rd(&c, 4), id_at, id;

		if (len == 0)
			break;		/* the terminator */
		if (len == 0xffffffffu)
			len = rd(&c, 8);
		if (len > (uint64_t)(c.end - c.p) || len < 4)
			goto corrupt;
		c.end = c.p + len;
		id_at = (uint64_t)(c.p - sec);
		id = rd(&c, 4);
		off = (uint64_t)(c.end - sec);
		if (id == 0)
			continue;	/* a CIE: read when an FDE names it */
		if (id > id_at)
			goto corrupt;
		const uint8_t *cie_p = sec + id_at - id;
		if (cie_p != last_cie) {
			struct cur cc = { cie_p, sec + s->size, c.be, false };
			uint64_t clen = rd(&cc, 4);
			if (clen == 0xffffffffu || clen > (uint64_t)(cc.end - cc.p) || rd(&cc, 4) != 0)
				goto corrupt;
			cc.end = cie_p + 4 + clen;
			read_cie(&cc, &ci, s->addr, sec, word);
			last_cie = cie_p;
		}
		if (!ci.ok)
			goto corrupt;
		uint64_t start = pointer(&c, ci.fde_enc, s->addr + (uint64_t)(c.p - sec), word);
		uint64_t size = pointer(&c, ci.fde_enc & 0x0f, 0, word);
		uint64_t lsda = 0;
		if (ci.aug_z) {
			struct cur a = c;
			uint64_t alen = uleb(&a);
			a.end = a.p + alen;
			if (ci.has_lsda && ci.lsda_enc != PE_OMIT && !a.bad && a.end <= c.end)
				lsda = pointer(&a, ci.lsda_enc, s->addr + (uint64_t)(a.p - sec), word);
			c.bad |= a.bad;
			skip_block(&c);
		}
		if (c.bad)
			goto corrupt;
		if (lsda && landing_pads(f, lsda, start, word)) {
			diag_err(f->path, ".gcc_except_table: a damaged or unsupported LSDA at 0x%llx "
				 "(of the FDE at .eh_frame+0x%llx)", (unsigned long long)lsda,
				 (unsigned long long)(id_at - 4));
			return -EINVAL;
		}
		++*nfdes;
		const char *why = fragment_of(&c, &ci);
		if (fde(arg, start, size, why))
			return -ENOMEM;
	}
	return 0;
corrupt:
	diag_err(f->path, ".eh_frame: a damaged or unsupported record at offset 0x%llx",
		 (unsigned long long)off);
	return -EINVAL;
}
