// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names in probe definitions (len, host->name, $arg:len) resolved from
 * DWARF, in the command: each becomes a fetch argument the runtime runs
 * (a saved register, a stack word, dereferences) with the type DWARF
 * gives, so that the runtime never reads debug information.  Only the
 * probed function's DIE is looked at (found by its symbol's address), and
 * its parameters' locations are evaluated at that address, the site:
 * location lists, clones (.isra, .constprop: their own DIE) and arguments
 * on the stack come out as the code has them.  What cannot be fetched
 * exactly (no location at the entry, a value in pieces, a struct passed by
 * value) is refused for that argument, naming it and why: never a guess.
 *
 * One exception, said in patchsite(7): a location that is a stack slot of
 * the frame (DW_OP_fbreg, unoptimised code) is filled by the prologue,
 * after the site; there a parameter of scalar type is taken from the
 * ABI's argument registers, in order, as uftrace and the kernel do.
 *
 * libdwfl finds separate debug files (.gnu_debuglink, the build-id under
 * /usr/lib/debug) as gdb does.  DWARF register numbers are the psABIs'
 * (x86-64 psABI 3.6.2, AAPCS64's DWARF for the Arm architecture 4.1).
 */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_dwarf.h"
#include "probe_dwarf_site.h"
#include "probe_dwarf_type.h"

struct regmap {
	uint16_t machine;
	const char *const *gpr;		/* DWARF number -> the runtime's name (NULL: not saved) */
	unsigned ngpr;
	unsigned vec0, nvec;		/* first DWARF number of the vector registers, how many saved */
	const char *vec_fmt;		/* their names */
	unsigned sp;			/* the stack pointer's DWARF number */
	unsigned cfa_from_sp;		/* the CFA at the entry is the entry sp + this */
	unsigned int_args, vec_args;	/* the ABI's argument registers */
	const char *const *int_arg;	/* ... by order */
};

static const char *const x86_gpr[] = { "rax", "rdx", "rcx", NULL, "rsi", "rdi", NULL, NULL,
				       "r8", "r9", "r10", "r11" };
static const char *const x86_args[] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
static const char *const a64_gpr[] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
				       NULL, "x10", "x11", "x12", "x13", "x14", "x15" };

static const struct regmap maps[] = {
	{ EM_X86_64, x86_gpr, 12, 17, 8, "xmm%u", 7, 8, 6, 8, x86_args },
	{ EM_AARCH64, a64_gpr, 16, 64, 8, "d%u", 31, 0, 8, 8, a64_gpr },
};

struct ctx {
	const struct regmap *rm;
	Dwfl_Module *mod;		/* for types only declared in the function's unit */
	unsigned skip;			/* __fentry__'s call or the NOPs at the entry, or 0 */
	Dwarf_Addr pc;			/* the function's entry, in DWARF's addresses */
	Dwarf_Die fn;
	char *err;
	size_t errlen;
	const char *what;		/* the argument's name as written */
	bool char_array;		/* type_of's last type: a char array (a string in place) */
};

/* t (peeled) a 1-byte char type: DW_ATE_signed_char or unsigned_char. */
static bool is_char(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;

	return dwarf_tag(t) == DW_TAG_base_type && dwarf_bytesize(t) == 1 &&
	       !dwarf_formudata(dwarf_attr_integrate(t, DW_AT_encoding, &at), &enc) &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

__attribute__((format(printf, 2, 3)))
static int bad(struct ctx *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: %s", c->what, msg);
	return -EINVAL;
}

/* A register by DWARF number: its name in the runtime's map, or NULL. */
static const char *reg_name(const struct regmap *rm, unsigned n, char *buf, size_t len)
{
	if (n < rm->ngpr)
		return rm->gpr[n];
	if (n >= rm->vec0 && n < rm->vec0 + rm->nvec) {
		snprintf(buf, len, rm->vec_fmt, n - rm->vec0);
		return buf;
	}
	return NULL;
}

/* The type the runtime records for DWARF type t (peeled): 0, or refused. */
static int type_of(struct ctx *c, Dwarf_Die *t, struct ps_probe_arg *a, bool *is_float)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;
	Dwarf_Die to, peeled;
	int size = dwarf_bytesize(t), tag = dwarf_tag(t);

	*is_float = false;
	c->char_array = false;
	if (tag == DW_TAG_array_type &&
	    dwarf_formref_die(dwarf_attr_integrate(t, DW_AT_type, &at), &to) &&
	    !dwarf_peel_type(&to, &peeled) && is_char(&peeled)) {
		a->type = PT_STRING;	/* char name[16]: the string in place, as the kernel's BTF */
		a->size = 8;
		c->char_array = true;
		return 0;
	}
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	    tag == DW_TAG_rvalue_reference_type) {
		a->type = PT_X;
		a->size = 8;
		if (tag == DW_TAG_pointer_type &&
		    dwarf_formref_die(dwarf_attr_integrate(t, DW_AT_type, &at), &to) &&
		    !dwarf_peel_type(&to, &peeled) && is_char(&peeled))
			a->type = PT_STRING;	/* char *: the string, as gdb shows it */
		return 0;
	}
	if (tag == DW_TAG_enumeration_type) {
		a->type = PT_S;
	} else if (tag == DW_TAG_base_type) {
		if (dwarf_formudata(dwarf_attr_integrate(t, DW_AT_encoding, &at), &enc))
			return bad(c, "its base type has no encoding");
		switch (enc) {
		case DW_ATE_float:
			if (size != 4 && size != 8)
				return bad(c, "a %d-byte float is not recorded", size);
			a->type = size == 4 ? PT_FLOAT : PT_DOUBLE;
			*is_float = true;
			break;
		case DW_ATE_signed:
		case DW_ATE_signed_char:
			a->type = PT_S;
			break;
		case DW_ATE_unsigned:
		case DW_ATE_unsigned_char:
		case DW_ATE_boolean:
			a->type = PT_U;
			break;
		default:
			return bad(c, "a base type of encoding %#" PRIx64 " is not recorded", enc);
		}
	} else {
		return bad(c, "a %s passed by value is not recorded (name a member through a "
			   "pointer, or pass a pointer)", tag == DW_TAG_structure_type ? "struct" :
			   tag == DW_TAG_union_type ? "union" : tag == DW_TAG_array_type ?
			   "array" : "value of this type");
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return bad(c, "a %d-byte value is not recorded", size);
	a->size = (uint8_t)size;
	return 0;
}

static int peeled_type(struct ctx *c, Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &at), &t) ||
	    dwarf_peel_type(&t, out))
		return bad(c, "DWARF gives it no type");
	return 0;
}

/*
 * Where the ABI passes parameter param, by its order among the scalar
 * parameters: its register, or its slot in the caller's stack, 8 bytes a
 * slot from the entry sp + cfa_from_sp (x86-64 psABI 3.2.3, AAPCS64
 * 6.8.2).  For -O0's stack slots and clang's sp-based frame base, which
 * the prologue fills or moves after the site.  0, or refused.
 */
static int abi_order(struct ctx *c, Dwarf_Die *param, struct ps_probe_arg *a)
{
	unsigned ni = 0, nv = 0, ns = 0;
	Dwarf_Die kid, t;
	struct ps_probe_arg x;
	bool fl;

	if (dwarf_child(&c->fn, &kid))
		return bad(c, "no parameters");
	do {
		if (dwarf_tag(&kid) != DW_TAG_formal_parameter)
			continue;
		memset(&x, 0, sizeof(x));
		if (peeled_type(c, &kid, &t) || type_of(c, &t, &x, &fl))
			return bad(c, "its register is not known: a parameter before it is not a "
				   "scalar");
		if (kid.addr == param->addr) {
			char buf[16];

			if (fl ? nv >= c->rm->vec_args : ni >= c->rm->int_args) {
				a->base = PF_STACKADDR;
				a->nderef = 1;
				a->deref[0] = (int64_t)(c->rm->cfa_from_sp + 8 * ns);
				return 0;
			}
			a->base = PF_REG;
			snprintf(a->sym, sizeof(a->sym), "%s", fl ? reg_name(c->rm, c->rm->vec0 + nv,
				 buf, sizeof(buf)) : c->rm->int_arg[ni]);
			return 0;
		}
		/* An optimiser may drop an unused parameter from the calls (LLVM's dead
		 * argument elimination): then the order says nothing. */
		if (!dwarf_hasattr(&kid, DW_AT_location) && !dwarf_hasattr(&kid, DW_AT_const_value))
			return bad(c, "its register is not known: a parameter before it has no "
				   "location (dropped from the calls?)");
		if (fl ? nv >= c->rm->vec_args : ni >= c->rm->int_args)
			ns++;
		fl ? nv++ : ni++;
	} while (!dwarf_siblingof(&kid, &kid));
	return bad(c, "not found among the parameters");
}

/*
 * The frame base at the entry, as the entry sp + *adj: the CFA (gcc).
 * False: another base, a register the prologue sets or moves after the
 * site (clang's sp, whose offsets are the body's: -O2 clang's
 * DW_OP_fbreg +64 of a stack argument is entry sp + 8 after 7 pushes).
 */
static bool frame_base_at_entry(struct ctx *c, int64_t *adj)
{
	Dwarf_Attribute at;
	Dwarf_Op *op;
	size_t n;

	if (!dwarf_attr_integrate(&c->fn, DW_AT_frame_base, &at) ||
	    dwarf_getlocation_addr(&at, c->pc, &op, &n, 1) != 1 || n != 1)
		return false;
	*adj = (int64_t)c->rm->cfa_from_sp;
	return op[0].atom == DW_OP_call_frame_cfa;
}

/*
 * clang's unsigned narrow parameters (a bool):  DW_OP_bregN 0, DW_OP_constu
 * 0xffffffff, DW_OP_and, DW_OP_convert <unsigned_1>, DW_OP_convert
 * <unsigned_8>, DW_OP_stack_value: the register's low bytes, which is what
 * reading register N at the unsigned type's size gives.  True if ops[0..n)
 * are that: masks keeping those bytes, conversions to unsigned types no
 * narrower than it.
 */
static bool masked_reg(Dwarf_Attribute *at, Dwarf_Op *op, size_t n, const struct ps_probe_arg *a)
{
	uint64_t keep = a->size >= 8 ? ~0ull : (1ull << (8 * a->size)) - 1;

	if (a->type != PT_U || n < 3 || op[0].atom < DW_OP_breg0 || op[0].atom > DW_OP_breg31 ||
	    op[0].number || op[n - 1].atom != DW_OP_stack_value)
		return false;
	for (size_t i = 1; i + 1 < n; i++) {
		Dwarf_Die t;
		Dwarf_Attribute enc;
		Dwarf_Word e;

		if (op[i].atom == DW_OP_constu && i + 2 < n && op[i + 1].atom == DW_OP_and &&
		    (op[i].number & keep) == keep) {
			i++;
			continue;
		}
		if ((op[i].atom != DW_OP_convert && op[i].atom != DW_OP_GNU_convert) ||
		    dwarf_getlocation_die(at, &op[i], &t) ||
		    dwarf_formudata(dwarf_attr(&t, DW_AT_encoding, &enc), &e) ||
		    (e != DW_ATE_unsigned && e != DW_ATE_unsigned_char && e != DW_ATE_boolean) ||
		    dwarf_bytesize(&t) < a->size)
			return false;
	}
	return true;
}

/* The location of param at the entry into a: 0, or refused. */
/*
 * gcc's location views: an entry of a location list whose range is empty, [A, A), holds at
 * A's first view, the state the code at A is entered in.  At a function's entry (after
 * aarch64's NOPs, where gcc's DWARF starts) that is where the argument came in: gdb reads
 * it there (readelf's read_and_display_attr_value, implicit_const in x2).  Used only where
 * no range holds A.
 */
static int location_at_first_view(Dwarf_Attribute *at, Dwarf_Addr pc, Dwarf_Op **op, size_t *n)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_getlocations(at, off, &base, &start, &end, op, n)) > 0)
		if (start == pc && end == pc)
			return 1;
	return 0;
}

static int location(struct ctx *c, Dwarf_Die *param, struct ps_probe_arg *a)
{
	Dwarf_Attribute at;
	Dwarf_Op *op, reg_op = { 0 };
	size_t n;
	char buf[16];
	const char *r;
	int k;

	if (!dwarf_attr(param, DW_AT_location, &at)) {
		Dwarf_Sword v;
		Dwarf_Word u;

		/*
		 * A clone for a constant argument (.constprop): the constant.  A
		 * DW_FORM_dataN one is N bytes with no sign of its own (g++'s
		 * __priority of 65535 is data2 0xffff): zero-extended, the
		 * type's size and sign then read it, as the runtime does at a hit.
		 */
		if (dwarf_attr(param, DW_AT_const_value, &at) &&
		    a->type != PT_STRING && a->type != PT_FLOAT && a->type != PT_DOUBLE) {
			unsigned form = dwarf_whatform(&at);
			bool data = form == DW_FORM_data1 || form == DW_FORM_data2 ||
				    form == DW_FORM_data4 || form == DW_FORM_data8;

			if (data ? !dwarf_formudata(&at, &u) : !dwarf_formsdata(&at, &v)) {
				a->base = PF_IMM;
				a->n = data ? (uint64_t)u : (uint64_t)v;
				return 0;
			}
		}
		return bad(c, "<optimized out> (no location)");
	}
	k = dwarf_getlocation_addr(&at, c->pc, &op, &n, 1);
	if ((k <= 0 || !n) && c->skip)	/* clang: from after __fentry__'s call or the NOPs */
		k = dwarf_getlocation_addr(&at, c->pc + c->skip, &op, &n, 1);
	if (k <= 0 || !n)
		k = location_at_first_view(&at, c->pc + c->skip, &op, &n);
	if (k <= 0 || !n)
		return bad(c, "<optimized out> at the function's entry");
	for (size_t i = 0; i < n; i++)
		if (op[i].atom == DW_OP_piece || op[i].atom == DW_OP_bit_piece)
			return bad(c, "passed in pieces: not recorded");
	if (n == 2 && op[1].atom == DW_OP_stack_value && op[0].atom == DW_OP_entry_value) {
		Dwarf_Attribute inner;
		Dwarf_Op *e;
		size_t en;

		/* DW_OP_entry_value(DW_OP_regN): the register as the function was entered. */
		if (dwarf_getlocation_attr(&at, &op[0], &inner) ||
		    dwarf_getlocation(&inner, &e, &en) || en != 1 ||
		    e[0].atom < DW_OP_reg0 || e[0].atom > DW_OP_reg31)
			return bad(c, "an entry value this does not read");
		op = e;
		n = 1;
	}
	if (masked_reg(&at, op, n, a)) {
		/* The register itself, read at the type's size (libdw's ops are not ours to change). */
		reg_op.atom = DW_OP_reg0 + (op[0].atom - DW_OP_breg0);
		op = &reg_op;
		n = 1;
	}
	if (op[0].atom == DW_OP_GNU_parameter_ref)	/* gcc's clones (.isra) */
		return bad(c, "its value is the caller's (DW_OP_GNU_parameter_ref: known at the call "
			   "site, not at the entry): not recorded");
	if (n == 1 && ((op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31) ||
		       op[0].atom == DW_OP_regx)) {
		unsigned reg = op[0].atom == DW_OP_regx ? (unsigned)op[0].number
							: (unsigned)(op[0].atom - DW_OP_reg0);

		r = reg_name(c->rm, reg, buf, sizeof(buf));
		if (!r)
			return bad(c, "in DWARF register %u, which the trampoline does not save", reg);
		a->base = PF_REG;
		snprintf(a->sym, sizeof(a->sym), "%s", r);
		return 0;
	}
	if (n == 1 && op[0].atom == DW_OP_fbreg) {
		/*
		 * A slot at or above the entry sp (the CFA is above it): the
		 * caller's, an argument passed on the stack, there at the entry.
		 * Below the CFA, or another frame base: the callee's own frame,
		 * which its prologue fills after the site, or clang's sp as the
		 * body has it; the ABI's order says where the value is then.
		 */
		int64_t adj;

		if (frame_base_at_entry(c, &adj) && (int64_t)op[0].number >= 0) {
			a->base = PF_STACKADDR;
			a->nderef = 1;
			a->deref[0] = (int64_t)op[0].number + adj;
			return 0;
		}
		return abi_order(c, param, a);
	}
	if (n == 1 && op[0].atom >= DW_OP_breg0 && op[0].atom <= DW_OP_breg31) {
		unsigned reg = op[0].atom - DW_OP_breg0;

		a->nderef = 1;
		a->deref[0] = (int64_t)op[0].number;
		if (reg == c->rm->sp) {
			a->base = PF_STACKADDR;
			return 0;
		}
		r = reg_name(c->rm, reg, buf, sizeof(buf));
		if (!r)
			return bad(c, "at DWARF register %u + %" PRId64 ", a register not saved", reg,
				   (int64_t)op[0].number);
		a->base = PF_REG;
		snprintf(a->sym, sizeof(a->sym), "%s", r);
		return 0;
	}
	if (n == 2 && op[1].atom == DW_OP_stack_value &&
	    ((op[0].atom >= DW_OP_lit0 && op[0].atom <= DW_OP_lit31) ||
	     (op[0].atom >= DW_OP_const1u && op[0].atom <= DW_OP_consts))) {
		a->base = PF_IMM;
		a->n = op[0].atom <= DW_OP_lit31 && op[0].atom >= DW_OP_lit0
			? (uint64_t)(op[0].atom - DW_OP_lit0) : op[0].number;
		return 0;
	}
	return bad(c, "a location (DW_OP %#x, %zu operations) this does not read", op[0].atom, n);
}

/* "name" or "name->m1->m2": the parameter, then each member through its pointer. */
static int resolve_name(struct ctx *c, struct ps_probe_arg *a)
{
	char path[128], *rest;
	Dwarf_Die kid, t;
	bool fl, found = false;
	int err;

	snprintf(path, sizeof(path), "%s", a->sym);
	rest = strstr(path, "->");
	if (strchr(path, '.'))
		return bad(c, "'.' (a member of a struct held by value) is not read; use ->");
	if (rest)
		*rest = '\0';
	if (!dwarf_child(&c->fn, &kid))
		do {
			const char *nm = dwarf_diename(&kid);

			found = dwarf_tag(&kid) == DW_TAG_formal_parameter && nm && !strcmp(nm, path);
		} while (!found && !dwarf_siblingof(&kid, &kid));
	if (!found)
		return bad(c, "no parameter '%s' in DWARF", path);
	err = peeled_type(c, &kid, &t);
	if (!err && !rest)
		err = type_of(c, &t, a, &fl);
	if (!err)
		err = location(c, &kid, a);
	for (char *m = rest ? rest + 2 : NULL; m && !err;) {
		char *next = strstr(m, "->");
		Dwarf_Die st, mem;
		Dwarf_Attribute at;
		Dwarf_Word off;
		bool hit = false;

		if (next)
			*next = '\0';
		/* A C++ reference is a pointer in the ABI: h->port for const Host &h too. */
		if ((dwarf_tag(&t) != DW_TAG_pointer_type && dwarf_tag(&t) != DW_TAG_reference_type &&
		     dwarf_tag(&t) != DW_TAG_rvalue_reference_type) || peeled_type(c, &t, &st))
			return bad(c, "'->%s': not a pointer to a struct", m);
		probe_dwarf_complete_type(c->mod, &st, &st);	/* opaque here: defined elsewhere */
		if (dwarf_tag(&st) != DW_TAG_structure_type && dwarf_tag(&st) != DW_TAG_union_type &&
		    dwarf_tag(&st) != DW_TAG_class_type)
			return bad(c, "'->%s': not a pointer to a struct", m);
		if (!dwarf_child(&st, &mem))
			do {
				const char *nm = dwarf_diename(&mem);

				hit = dwarf_tag(&mem) == DW_TAG_member && nm && !strcmp(nm, m);
			} while (!hit && !dwarf_siblingof(&mem, &mem));
		if (!hit)
			return bad(c, "no member '%s'", m);
		/* A union's members may have no location: all are at its start. */
		if (dwarf_tag(&st) == DW_TAG_union_type &&
		    !dwarf_hasattr(&mem, DW_AT_data_member_location) &&
		    !dwarf_hasattr(&mem, DW_AT_bit_size) && !dwarf_hasattr(&mem, DW_AT_data_bit_offset))
			off = 0;
		else if (dwarf_formudata(dwarf_attr(&mem, DW_AT_data_member_location, &at), &off))
			return bad(c, "member '%s': its offset is not a constant (a bit field?)", m);
		if (a->nderef == PS_PROBE_MAX_DEREF)
			return bad(c, "more than %d dereferences", PS_PROBE_MAX_DEREF);
		a->deref[a->nderef++] = (int64_t)off;
		err = peeled_type(c, &mem, &t);
		if (!err && !next)
			err = type_of(c, &t, a, &fl);
		m = next ? next + 2 : NULL;
	}
	return err;
}

/* The symbol func's address, in DWARF's addresses: 0, or -ENOENT. */
static int func_addr(Dwfl_Module *mod, const char *func, Dwarf_Addr *addr)
{
	int n = dwfl_module_getsymtab(mod);

	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *nm = dwfl_module_getsym_info(mod, i, &sym, &a, NULL, NULL, NULL);

		if (nm && GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_value &&
		    !strcmp(nm, func)) {
			*addr = a;
			return 0;
		}
	}
	return -ENOENT;
}

static struct {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	char exe[4096];
} cache;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* A top-level DWARF function of one name (C++'s symbols are mangled): how many, the last's pc. */
struct by_name {
	const char *name;
	Dwfl_Module *mod;
	Dwarf_Addr bias, pc;
	unsigned n;
};

/*
 * Where fn is entered: its low pc, or (gcc's hot and cold parts, in
 * DW_AT_ranges) the start of the range a function symbol begins at,
 * not the .cold one.
 */
static bool entry_pc(struct by_name *b, Dwarf_Die *fn, Dwarf_Addr *pc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	if (!dwarf_lowpc(fn, pc))
		return true;
	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0) {
		GElf_Sym sym;
		GElf_Off at;
		const char *nm = dwfl_module_addrinfo(b->mod, start + b->bias, &at, &sym, NULL,
						      NULL, NULL);

		if (nm && !at && !strstr(nm, ".cold")) {
			*pc = start;
			return true;
		}
	}
	return false;
}

static int by_name_cb(Dwarf_Die *fn, void *arg)
{
	struct by_name *b = arg;
	const char *nm = dwarf_diename(fn);
	Dwarf_Addr pc;

	if (nm && !strcmp(nm, b->name) && entry_pc(b, fn, &pc)) {
		b->pc = pc;
		b->n++;
	}
	return DWARF_CB_OK;
}

/* func by its DWARF name, where no symbol has it (a C++ function): one definition only. */
static int func_addr_dwarf(Dwfl_Module *mod, const char *func, Dwarf_Addr *addr)
{
	struct by_name b = { func, mod, 0, 0, 0 };

	for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(mod, cu, &b.bias));)
		dwarf_getfuncs(cu, by_name_cb, &b, 0);
	if (b.n != 1)
		return -ENOENT;	/* none, or overloads: the mangled name says which */
	*addr = b.pc + b.bias;
	return 0;
}

/* The function's DIE (the outermost subprogram at its address) and what the runtime maps. */
/*
 * A subprogram holding pc among the children of die, looking into
 * namespaces and classes: clang++ defines a namespace's functions inside
 * its DW_TAG_namespace, where libdw 0.188's dwarf_getscopes does not look.
 */
static bool fn_nested(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *fn, int depth)
{
	Dwarf_Die kid;

	if (depth > 8 || dwarf_child(die, &kid))
		return false;
	do {
		int tag = dwarf_tag(&kid);

		if (tag == DW_TAG_subprogram && dwarf_haspc(&kid, pc) > 0) {
			*fn = kid;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
		     tag == DW_TAG_structure_type) && fn_nested(&kid, pc, fn, depth + 1))
			return true;
	} while (!dwarf_siblingof(&kid, &kid));
	return false;
}

/* The outermost subprogram of unit cu at pc, into fn. */
static bool fn_in_cu(Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, pc, &scopes);
	bool found = false;

	for (int i = n - 1; i >= 0 && !found; i--)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*fn = scopes[i];
			found = true;
		}
	free(scopes);
	return found || fn_nested(cu, pc, fn, 0);
}

/* The function's DIE at module address addr, into c: 0, or -ENOENT. */
static int fn_at(struct ctx *c, Dwarf_Addr addr)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(c->mod, addr, &bias);

	if (cu && fn_in_cu(cu, addr - bias, &c->fn)) {
		c->pc = addr - bias;
		return 0;
	}
	/* No .debug_aranges (clang's default): the unit whose ranges hold the address. */
	for (Dwarf_Die *u = NULL; (u = dwfl_module_nextcu(c->mod, u, &bias));)
		if (dwarf_haspc(u, addr - bias) > 0 && fn_in_cu(u, addr - bias, &c->fn)) {
			c->pc = addr - bias;
			return 0;
		}
	return -ENOENT;
}

static int find_fn(struct ctx *c, Dwfl_Module *mod, const char *func, Elf *elf)
{
	Dwarf_Addr addr, bias;
	Dwarf_Die *cu;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return bad(c, "not an ELF file");
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (maps[i].machine == eh.e_machine)
			c->rm = &maps[i];
	if (!c->rm)
		return bad(c, "names are resolved for x86-64 and aarch64 programs only");
	if (func_addr(mod, func, &addr) && func_addr_dwarf(mod, func, &addr))
		return bad(c, "no function symbol '%s' in the executable (names are resolved in "
			   "the program itself, not its libraries; a glob needs $argN)", func);
	c->mod = mod;
	c->skip = probe_dwarf_entry_skip(mod, addr);
	if (!fn_at(c, addr))
		return 0;
	/*
	 * gcc's aarch64 patchable NOPs are before the function's DWARF start:
	 * it is after them, where the registers are still the entry's.
	 */
	if (c->skip && !fn_at(c, addr + c->skip)) {
		c->skip = 0;
		return 0;
	}
	cu = dwfl_module_addrdie(mod, addr, &bias);
	return bad(c, cu ? "no DWARF subprogram at %s's address" :
		   "%s has no DWARF (build with -g, or install its debug file)", func);
}

/* $retval with no type given, of a %return probe: typed from the function's return type. */
static bool retval_untyped(const struct ps_probe_def *d, const struct ps_probe_arg *a)
{
	return d->ret && a->base == PF_RETVAL && !a->nderef && a->type == PT_X && a->size == 8;
}

/* $retval:string as written: a string read through the char * returned, once DWARF says it is one. */
static bool retval_string(const struct ps_probe_def *d, const struct ps_probe_arg *a)
{
	return d->ret && a->base == PF_RETVAL && !a->nderef && a->type == PT_STRING;
}

/*
 * A string asked of a name or $retval: read at the char * DWARF gives it
 * (+0(...), which the kernel adds from BTF); refused for another type
 * (the kernel's BAD_TYPE4STR).  char_ptr: DWARF's type is char *.
 */
static int string_through(struct ctx *c, struct ps_probe_arg *a, bool char_ptr)
{
	if (!char_ptr)
		return bad(c, "its type is not char *: no string is read from it (a string at an "
			   "address of your own: +OFF(FETCHARG):string)");
	if (a->nderef == PS_PROBE_MAX_DEREF)
		return bad(c, "more than %d dereferences", PS_PROBE_MAX_DEREF);
	a->deref[a->nderef++] = 0;
	return 0;
}

/* The function's return type, peeled, into t: 0, or refused (void, none). */
static int retval_die(struct ctx *c, Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Die d;

	if (!dwarf_formref_die(dwarf_attr_integrate(&c->fn, DW_AT_type, &at), &d))
		return bad(c, "the function returns void: no $retval");
	if (dwarf_peel_type(&d, t))
		return bad(c, "DWARF gives its return value no type");
	return 0;
}

/* $retval:string: read through the char * the function returns (DWARF's). */
static int retval_string_type(struct ctx *c, struct ps_probe_arg *a)
{
	Dwarf_Die t;
	struct ps_probe_arg r = *a;
	bool is_float;

	if (retval_die(c, &t))
		return -EINVAL;
	r.type = PT_X;
	if (type_of(c, &t, &r, &is_float) && r.type != PT_STRING)
		return -EINVAL;
	return string_through(c, a, r.type == PT_STRING && !c->char_array);
}

/*
 * The type DWARF gives the function's return value, as an argument's
 * (ints by signedness and size, enums signed, float and double from the
 * vector register); a pointer stays x64, a char * too: a string is read
 * only when asked ($retval:string), as the kernel's probes do.
 */
static int retval_type(struct ctx *c, struct ps_probe_arg *a)
{
	Dwarf_Die t;
	struct ps_probe_arg r = *a;
	bool is_float;

	if (retval_die(c, &t))
		return -EINVAL;
	if (dwarf_tag(&t) == DW_TAG_pointer_type || dwarf_tag(&t) == DW_TAG_reference_type ||
	    dwarf_tag(&t) == DW_TAG_rvalue_reference_type)
		return 0;
	if (type_of(c, &t, &r, &is_float))
		return -EINVAL;
	a->type = r.type;
	a->size = r.size;
	return 0;
}

const char *probe_dwarf_fpreg(const char *exe)
{
	const char *fmt = NULL;
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	GElf_Ehdr eh;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (size_t i = 0; elf && gelf_getehdr(elf, &eh) && i < sizeof(maps) / sizeof(maps[0]); i++)
		if (maps[i].machine == eh.e_machine)
			fmt = maps[i].vec_fmt;
	elf_end(elf);
	close(fd);
	return fmt;
}

int probe_dwarf_resolve(const char *exe, struct ps_probe_def *d, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	Dwfl *dwfl = NULL;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Elf *elf;
	int rc = 0;
	bool any = false, ret = false;

	for (unsigned i = 0; i < d->nargs; i++) {
		any |= d->a[i].base == PF_NAME;
		ret |= retval_untyped(d, &d->a[i]) || retval_string(d, &d->a[i]);
	}
	if (!any && !ret)
		return 0;
	c.what = d->func;
	/* One program's DWARF for all its probes: opened once (a record's probes name one). */
	if (cache.dwfl && !strcmp(cache.exe, exe)) {
		dwfl = cache.dwfl;
		mod = cache.mod;
	} else {
		dwfl = dwfl_begin(&callbacks);
		mod = dwfl ? dwfl_report_offline(dwfl, "", exe, -1) : NULL;
		if (!mod) {
			snprintf(err, errlen, "%s: %s", exe, dwfl_errmsg(-1));
			rc = any ? -EINVAL : 0;	/* $retval alone stays x64 */
			goto out;
		}
		dwfl_report_end(dwfl, NULL, NULL);
	}
	elf = dwfl_module_getelf(mod, &bias);
	if (!any && (!elf || !dwfl_module_getdwarf(mod, &bias)))
		goto out;	/* no DWARF: $retval stays x64, the kernel's default */
	if (!elf || !dwfl_module_getdwarf(mod, &bias)) {
		snprintf(err, errlen, "%s: no DWARF (build with -g, or install its debug file)", exe);
		rc = -EINVAL;
		goto out;
	}
	rc = find_fn(&c, mod, d->func, elf);
	if (rc && !any) {	/* $retval alone: typed where DWARF is, x64 elsewhere */
		rc = 0;
		goto cache_it;
	}
	for (unsigned i = 0; !rc && i < d->nargs; i++) {
		if (retval_untyped(d, &d->a[i]) || retval_string(d, &d->a[i])) {
			c.what = d->a[i].name;
			rc = retval_untyped(d, &d->a[i]) ? retval_type(&c, &d->a[i]) :
							   retval_string_type(&c, &d->a[i]);
			continue;
		}
		struct ps_probe_arg *a = &d->a[i];
		struct ps_probe_arg r = { .type = a->type, .size = a->size };
		bool user_type = !(a->type == PT_X && a->size == 8);	/* given: it wins */
		bool char_ptr;

		if (a->base != PF_NAME)
			continue;
		c.what = a->name;
		memcpy(r.name, a->name, sizeof(r.name));
		memcpy(r.sym, a->sym, sizeof(r.sym));
		rc = resolve_name(&c, &r);
		char_ptr = r.type == PT_STRING && !c.char_array;	/* type_of's: a char * */
		if (!rc && user_type) {
			r.type = a->type;
			r.size = a->size;
			r.bw = a->bw;
			r.bo = a->bo;
		}
		if (!rc && r.type == PT_STRING && !c.char_array)
			rc = string_through(&c, &r, char_ptr);
		else if (!rc && c.char_array && r.type != PT_STRING)
			rc = bad(&c, "a char array is read as a string (:string) only");
		if (!rc)
			*a = r;
	}
cache_it:
	if (dwfl != cache.dwfl && strlen(exe) < sizeof(cache.exe)) {
		dwfl_end(cache.dwfl);
		cache.dwfl = dwfl;
		cache.mod = mod;
		snprintf(cache.exe, sizeof(cache.exe), "%s", exe);
	}
out:
	if (dwfl != cache.dwfl)
		dwfl_end(dwfl);
	return rc;
}
