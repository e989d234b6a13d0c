// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86-64 and i386.
 *
 * Hook calls gcc emits for -pg [-mfentry]:
 *   e8 <rel32>              call __fentry__          R_X86_64_PLT32/PC32, R_386_PC32/PLT32
 *                                                    at site+1 (REL: rel32 holds -4)
 *   ff 15 <disp32>          call *__fentry__@GOTPCREL(%rip)   (x86-64 PIE, Debian's default)
 *                                                    R_X86_64_GOTPCRELX at site+2
 *   ff 93 <disp32>          call *__fentry__@GOT(%ebx)        (i386 PIC) R_386_GOT32X at site+2
 * Instructions have no alignment.  The NOPs are the ones the kernel's
 * ftrace writes, so that it recognises sites we NOP at build time.
 */
#include <elf.h>
#include <errno.h>
#include <string.h>

#include "arch_list.h"
#include "bytes.h"
#include "x86_insn.h"

#define nop5_64 x86_nop5_forms[0]	/* nopl 0x0(%rax,%rax,1) */
#define nop6_64 x86_nop6_64		/* nopw 0x0(%rax,%rax,1) */
static const uint8_t nop5_32[] = { 0x3e, 0x8d, 0x74, 0x26, 0x00 };	/* ds lea 0x0(%esi,%eiz,1),%esi */
static const uint8_t nop6_32[] = { 0x8d, 0xb6, 0x00, 0x00, 0x00, 0x00 };	/* lea 0x0(%esi),%esi */

enum x86_form { X86_REL32, X86_INDIRECT, X86_OTHER };

static enum x86_form x86_64_form(uint32_t type)
{
	switch (type) {
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
		return X86_REL32;
	case R_X86_64_GOTPCREL:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_REX_GOTPCRELX:
		return X86_INDIRECT;
	default:
		return X86_OTHER;
	}
}

static enum x86_form i386_form(uint32_t type)
{
	switch (type) {
	case R_386_PC32:
	case R_386_PLT32:
		return X86_REL32;
	case R_386_GOT32:
	case R_386_GOT32X:
		return X86_INDIRECT;
	default:
		return X86_OTHER;
	}
}

/* ff /2 with a 32-bit displacement: (%rip) on x86-64, (%reg) on i386. */
static bool is_indirect_call(const uint8_t *p, bool is64)
{
	if (p[0] != 0xff)
		return false;
	if (is64)
		return p[1] == 0x15;
	return (p[1] & 0xf8) == 0x90 && (p[1] & 7) != 4;
}

static enum reloc_role x86_site(enum x86_form form, bool is64, const struct reloc_view *rv,
				struct call_site *cs)
{
	unsigned back = form == X86_REL32 ? 1 : 2;
	const uint8_t *p;

	cs->align = 1;
	cs->len = 0;
	cs->why = "a relocation type that no call uses";
	if (form == X86_OTHER)
		return RELOC_BAD;
	cs->why = "no room for a call before the relocation";
	if (rv->offset < back || !in_bounds(rv->offset - back, back + 4, rv->code_size))
		return RELOC_BAD;
	cs->site = rv->offset - back;
	cs->len = back + 4;
	p = rv->code + cs->site;
	if (form == X86_REL32 && p[0] == X86_OP_CALL_REL32)
		return RELOC_CALL;
	if (form == X86_INDIRECT && is_indirect_call(p, is64))
		return RELOC_CALL;
	cs->why = p[0] == 0xe9 || (p[0] == 0xff && (p[1] & 0x38) == 0x20)
			  ? "a jump (tail call), not a call" : "not a call instruction";
	return RELOC_BAD;
}

static enum reloc_role x86_64_call_site(const struct arch *a, const struct reloc_view *rv,
					struct call_site *cs)
{
	(void)a;
	return x86_site(x86_64_form(rv->type), true, rv, cs);
}

static enum reloc_role i386_call_site(const struct arch *a, const struct reloc_view *rv,
				      struct call_site *cs)
{
	(void)a;
	return x86_site(i386_form(rv->type), false, rv, cs);
}

static int x86_nop(uint8_t *code, uint64_t size, const struct call_site *cs, bool is64)
{
	uint8_t *p = code + cs->site;
	bool call5 = cs->len == 5 && p[0] == X86_OP_CALL_REL32;
	bool call6 = cs->len == 6 && is_indirect_call(p, is64);

	if (!in_bounds(cs->site, cs->len, size) || !(call5 || call6))
		return -EINVAL;
	if (call5)
		memcpy(p, is64 ? nop5_64 : nop5_32, 5);
	else
		memcpy(p, is64 ? nop6_64 : nop6_32, 6);
	return 0;
}

static int x86_64_make_nop(const struct arch *a, uint8_t *code, uint64_t size,
			   const struct call_site *cs, bool big_endian)
{
	(void)a;
	(void)big_endian;
	return x86_nop(code, size, cs, true);
}

static int i386_make_nop(const struct arch *a, uint8_t *code, uint64_t size,
			 const struct call_site *cs, bool big_endian)
{
	(void)a;
	(void)big_endian;
	return x86_nop(code, size, cs, false);
}

static const struct reloc_name x86_64_relocs[] = {
	RELOC_NAME(R_X86_64_NONE), RELOC_NAME(R_X86_64_64), RELOC_NAME(R_X86_64_PC32),
	RELOC_NAME(R_X86_64_PLT32), RELOC_NAME(R_X86_64_GOTPCREL),
	RELOC_NAME(R_X86_64_GOTPCRELX), RELOC_NAME(R_X86_64_REX_GOTPCRELX),
	RELOC_NAME(R_X86_64_32), RELOC_NAME(R_X86_64_32S), RELOC_NAME(R_X86_64_RELATIVE),
	{ 0, NULL },
};

static const struct reloc_name i386_relocs[] = {
	RELOC_NAME(R_386_NONE), RELOC_NAME(R_386_32), RELOC_NAME(R_386_PC32),
	RELOC_NAME(R_386_PLT32), RELOC_NAME(R_386_GOT32), RELOC_NAME(R_386_GOT32X),
	RELOC_NAME(R_386_RELATIVE), { 0, NULL },
};

static const char *x86_64_reloc_name(uint32_t type)
{
	return reloc_name_lookup(x86_64_relocs, type);
}

static const char *i386_reloc_name(uint32_t type)
{
	return reloc_name_lookup(i386_relocs, type);
}

static const char *const x86_hooks[] = { "__fentry__", "mcount", NULL };

/* patchverify hooks, defined at the end of the file. */
static unsigned x86_64_site_nop(const struct arch *a, const struct insn_view *iv);
static unsigned i386_site_nop(const struct arch *a, const struct insn_view *iv);
static bool x86_64_decode_branch(const struct arch *a, const struct insn_view *iv,
				 struct branch *b);
static bool i386_decode_branch(const struct arch *a, const struct insn_view *iv, struct branch *b);
static unsigned x86_make_call(const struct arch *a, const struct insn_view *iv,
			      const uint64_t *target, uint8_t *buf);
static unsigned x86_64_entry_pad(const struct arch *a, const struct insn_view *iv);
static unsigned i386_entry_pad(const struct arch *a, const struct insn_view *iv);
static unsigned x86_sled_nop(const struct arch *a, const struct insn_view *iv);
static unsigned x86_align_nop(const struct arch *a, const struct insn_view *iv);
static bool x86_64_mcount_setup(const struct arch *a, const struct insn_view *iv, uint64_t site,
				uint64_t *stop);

const struct arch arch_x86_64 = {
	.name		= "x86_64",
	.machine	= EM_X86_64,
	.elfclass	= ELFCLASS64,
	.hooks		= x86_hooks,
	.abs_reloc	= R_X86_64_64,
	.none_reloc	= R_X86_64_NONE,
	.pcrel32_reloc	= R_X86_64_PC32,
	.call_site	= x86_64_call_site,
	.make_nop	= x86_64_make_nop,
	.reloc_name	= x86_64_reloc_name,
	.site_nop	= x86_64_site_nop,
	.decode_branch	= x86_64_decode_branch,
	.make_call	= x86_make_call,
	.entry_pad	= x86_64_entry_pad,
	.sled_nop	= x86_sled_nop,
	.align_nop	= x86_align_nop,
	.relative_reloc	= R_X86_64_RELATIVE,
	.decodes_linked	= true,
	.insn_align	= 1,
	.mcount_setup	= x86_64_mcount_setup,
	.mcount_window	= 16,
};

const struct arch arch_i386 = {
	.name		= "i386",
	.machine	= EM_386,
	.elfclass	= ELFCLASS32,
	.hooks		= x86_hooks,
	.abs_reloc	= R_386_32,
	.none_reloc	= R_386_NONE,
	.call_site	= i386_call_site,
	.make_nop	= i386_make_nop,
	.reloc_name	= i386_reloc_name,
	.site_nop	= i386_site_nop,
	.decode_branch	= i386_decode_branch,
	.make_call	= x86_make_call,
	.entry_pad	= i386_entry_pad,
	.sled_nop	= x86_sled_nop,
	.align_nop	= x86_align_nop,
	.relative_reloc	= R_386_RELATIVE,
	.decodes_linked	= true,
	.insn_align	= 1,
	.mcount_window	= 32,	/* PIC -pg: push %ebx; call the pc thunk; add GOT; sub %esp */
};

/*
 * For patchverify: the forms a site takes in built code.
 *   e8 <rel32>               call rel32 (a linked -pg/-mfentry site)
 *   67 e8 <rel32>            addr32 call (ld's relaxation of a GOTPCRELX call)
 *   ff 15 <disp32>           call *disp32(%rip) (PIE, through the GOT)
 *   ff 25 <disp32>           jmp *disp32(%rip) (a PLT entry), maybe after f2 (bnd)
 * i386 has no pc-relative memory operand: the same calls and jumps are
 *   ff 15 <abs32>            call *abs32            ff 25 <abs32>  jmp *abs32 (PLT)
 *   ff 93 <disp32>           call *disp32(%ebx)     ff a3 <disp32> jmp *disp32(%ebx)
 * where PIC code (a PIE, a shared library, and their PLT entries) keeps the
 * GOT's address in %ebx.
 * A site holds the call or the 5-/6-byte NOP above; an fentry site may
 * follow endbr64 (endbr32).  -fpatchable-function-entry sleds are 90 (nop).
 */
#define endbr64 x86_endbr64
#define endbr32 x86_endbr32

static bool x86_match(const struct insn_view *iv, const uint8_t *pat, unsigned len)
{
	return in_bounds(iv->off, len, iv->size) && !memcmp(iv->code + iv->off, pat, len);
}

static unsigned x86_64_site_nop(const struct arch *a, const struct insn_view *iv)
{
	(void)a;
	if (x86_match(iv, nop5_64, sizeof(nop5_64)))
		return sizeof(nop5_64);
	return x86_match(iv, nop6_64, sizeof(nop6_64)) ? sizeof(nop6_64) : 0;
}

/* The 32-bit kernel writes its own NOPs; gcc -mnop-mcount writes nopl. */
static unsigned i386_site_nop(const struct arch *a, const struct insn_view *iv)
{
	(void)a;
	if (x86_match(iv, nop5_32, sizeof(nop5_32)))
		return sizeof(nop5_32);
	if (x86_match(iv, nop6_32, sizeof(nop6_32)))
		return sizeof(nop6_32);
	return x86_match(iv, nop5_64, sizeof(nop5_64)) ? sizeof(nop5_64) : 0;
}

static bool x86_branch(const struct insn_view *iv, bool is64, struct branch *b)
{
	const uint8_t *p;
	uint64_t left = iv->off <= iv->size ? iv->size - iv->off : 0;
	uint64_t mask = is64 ? ~0ull : 0xffffffffull;
	unsigned pre = 0;
	int32_t disp;

	if (!iv->code || !left)		/* no bytes in the file here (NOBITS) */
		return false;
	p = iv->code + iv->off;
	if (left >= 1 && (p[0] == 0xf2 || p[0] == 0x67))	/* bnd / addr32 */
		pre = 1;
	if (left < pre + 5)
		return false;
	if (p[pre] == X86_OP_CALL_REL32 || p[pre] == X86_OP_JMP_REL32) {
		disp = (int32_t)get32(p + pre + 1, false);
		b->kind = p[pre] == X86_OP_CALL_REL32 ? BRANCH_CALL : BRANCH_JUMP;
		b->indirect = false;
		b->len = pre + 5;
	} else if (p[pre] == 0xff && left >= pre + 6 &&
		   (p[pre + 1] == 0x15 || p[pre + 1] == 0x25)) {
		disp = (int32_t)get32(p + pre + 2, false);
		b->kind = p[pre + 1] == 0x15 ? BRANCH_CALL : BRANCH_JUMP;
		b->indirect = true;
		b->len = pre + 6;
		if (!is64) {	/* an absolute address, not rip-relative */
			b->target = (uint32_t)disp;
			return true;
		}
	} else if (!is64 && iv->got && p[pre] == 0xff && left >= pre + 6 &&
		   (p[pre + 1] == 0x93 || p[pre + 1] == 0xa3)) {
		b->kind = p[pre + 1] == 0x93 ? BRANCH_CALL : BRANCH_JUMP;
		b->indirect = true;
		b->len = pre + 6;
		b->target = (iv->got + (uint64_t)(int64_t)(int32_t)get32(p + pre + 2, false)) & mask;
		return true;
	} else {
		return false;
	}
	b->target = (iv->addr + b->len + (uint64_t)(int64_t)disp) & mask;
	return true;
}

static bool x86_64_decode_branch(const struct arch *a, const struct insn_view *iv,
				 struct branch *b)
{
	(void)a;
	return x86_branch(iv, true, b);
}

static bool i386_decode_branch(const struct arch *a, const struct insn_view *iv, struct branch *b)
{
	(void)a;
	return x86_branch(iv, false, b);
}

static unsigned x86_make_call(const struct arch *a, const struct insn_view *iv,
			      const uint64_t *target, uint8_t *buf)
{
	(void)a;
	buf[0] = X86_OP_CALL_REL32;
	put32(buf + 1, target ? (uint32_t)(*target - (iv->addr + 5)) : 0, false);
	return 5;
}

static unsigned x86_64_entry_pad(const struct arch *a, const struct insn_view *iv)
{
	(void)a;
	return x86_match(iv, endbr64, sizeof(endbr64)) ? sizeof(endbr64) : 0;
}

static unsigned i386_entry_pad(const struct arch *a, const struct insn_view *iv)
{
	(void)a;
	return x86_match(iv, endbr32, sizeof(endbr32)) ? sizeof(endbr32) : 0;
}

/* gcc's sleds are 90s; clang's -fpatchable-function-entry=5 is one 5-byte NOP (x86_insn.h). */
static unsigned x86_sled_nop(const struct arch *a, const struct insn_view *iv)
{
	static const uint8_t nop1[] = { 0x90 };	/* nop */

	(void)a;
	if (in_bounds(iv->off, 5, iv->size) && x86_is_nop5(iv->code + iv->off))
		return 5;
	return x86_match(iv, nop1, 1);
}

/*
 * The NOPs gas and gcc align code with: 90 (nop), and 0f 1f /0 (nopl/nopw
 * r/m) after up to five 66 prefixes and an optional 2e (cs), with its
 * ModRM, SIB and displacement: 0f 1f 00, 0f 1f 40 00, 0f 1f 44 00 00,
 * 66 0f 1f 44 00 00, 0f 1f 80 00 00 00 00, 66 2e 0f 1f 84 00 00 00 00 00.
 */
static unsigned x86_align_nop(const struct arch *a, const struct insn_view *iv)
{
	const uint8_t *p = iv->code + iv->off;
	uint64_t room = iv->off < iv->size ? iv->size - iv->off : 0;
	unsigned n = 0, mod, rm, len;

	(void)a;
	while (n < room && n < 5 && p[n] == 0x66)
		n++;
	if (n < room && p[n] == 0x90)
		return n + 1;			/* nop, xchg %ax,%ax */
	if (n < room && p[n] == 0x2e)
		n++;
	if (n + 3 > room || p[n] != 0x0f || p[n + 1] != 0x1f || (p[n + 2] >> 3 & 7))
		return 0;
	mod = p[n + 2] >> 6;
	rm = p[n + 2] & 7;
	if (mod == 3)
		return 0;
	len = n + 3 + (rm == 4) + (mod == 1 ? 1 : mod == 2 || (mod == 0 && rm == 5) ? 4 : 0);
	return len <= room ? len : 0;
}

/* gcc -pg without -mfentry: the prologue before mcount (x86_insn.h x86_64_setup_len). */
static unsigned x86_64_setup_insn(const struct insn_view *iv, uint64_t at, bool *push_bp, bool *fp)
{
	return x86_64_setup_len(iv->code + at, at < iv->size ? iv->size - at : 0, push_bp, fp);
}

static bool x86_64_mcount_setup(const struct arch *a, const struct insn_view *iv, uint64_t site,
				uint64_t *stop)
{
	bool push_bp = false, fp = false;
	uint64_t at = iv->off;
	unsigned l;

	(void)a;
	while (at < site && iv->code && (l = x86_64_setup_insn(iv, at, &push_bp, &fp)))
		at += l;
	*stop = at;
	return at == site && fp;
}
