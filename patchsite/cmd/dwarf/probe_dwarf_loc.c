// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where a probed function's parameter is at its entry, from its DWARF
 * location (probe_dwarf.c has the design): a register the trampoline
 * saves, a slot of the caller's stack, a constant, or, for a slot the
 * prologue fills after the site, the ABI's argument order.  Apart from
 * probe_dwarf.c because it is the one part that reads DWARF expressions
 * (DW_OP_*), each form refused by name when it is not one of these.
 */
#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "probe_dwarf_ctx.h"

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
		return probe_dwarf_bad(c, "no parameters");
	do {
		if (dwarf_tag(&kid) != DW_TAG_formal_parameter)
			continue;
		memset(&x, 0, sizeof(x));
		if (probe_dwarf_peeled_type(c, &kid, &t) || probe_dwarf_type_of(c, &t, &x, &fl))
			return probe_dwarf_bad(c, "its register is not known: a parameter before it is not a "
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
			snprintf(a->sym, sizeof(a->sym), "%s", fl ? probe_dwarf_reg_name(c->rm, c->rm->vec0 + nv,
				 buf, sizeof(buf)) : c->rm->int_arg[ni]);
			return 0;
		}
		/* An optimiser may drop an unused parameter from the calls (LLVM's dead
		 * argument elimination): then the order says nothing. */
		if (!dwarf_hasattr(&kid, DW_AT_location) && !dwarf_hasattr(&kid, DW_AT_const_value))
			return probe_dwarf_bad(c, "its register is not known: a parameter before it has no "
				   "location (dropped from the calls?)");
		if (fl ? nv >= c->rm->vec_args : ni >= c->rm->int_args)
			ns++;
		fl ? nv++ : ni++;
	} while (!dwarf_siblingof(&kid, &kid));
	return probe_dwarf_bad(c, "not found among the parameters");
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

/*
 * A parameter with no location: a clone for a constant argument
 * (.constprop) has the constant.  A DW_FORM_dataN one is N bytes with no
 * sign of its own (g++'s __priority of 65535 is data2 0xffff):
 * zero-extended, the type's size and sign then read it, as the runtime does
 * at a hit.  0, or refused.
 */
static int constant(struct ctx *c, Dwarf_Die *param, struct ps_probe_arg *a)
{
	Dwarf_Attribute at;
	Dwarf_Sword v;
	Dwarf_Word u;

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
	return probe_dwarf_bad(c, "<optimized out> (no location)");
}

/*
 * The operations of at that hold at the entry into *op, *n, made plain:
 * an entry value of a register is that register, a masked register
 * (masked_reg) the register itself in *reg_op.  0, or refused.
 */
static int entry_ops(struct ctx *c, Dwarf_Attribute *at, struct ps_probe_arg *a, Dwarf_Op **op,
		     size_t *n, Dwarf_Op *reg_op)
{
	int k = dwarf_getlocation_addr(at, c->pc, op, n, 1);

	if ((k <= 0 || !*n) && c->skip)	/* clang: from after __fentry__'s call or the NOPs */
		k = dwarf_getlocation_addr(at, c->pc + c->skip, op, n, 1);
	if (k <= 0 || !*n)
		k = location_at_first_view(at, c->pc + c->skip, op, n);
	if (k <= 0 || !*n)
		return probe_dwarf_bad(c, "<optimized out> at the function's entry");
	for (size_t i = 0; i < *n; i++)
		if ((*op)[i].atom == DW_OP_piece || (*op)[i].atom == DW_OP_bit_piece)
			return probe_dwarf_bad(c, "passed in pieces: not recorded");
	if (*n == 2 && (*op)[1].atom == DW_OP_stack_value && (*op)[0].atom == DW_OP_entry_value) {
		Dwarf_Attribute inner;
		Dwarf_Op *e;
		size_t en;

		/* DW_OP_entry_value(DW_OP_regN): the register as the function was entered. */
		if (dwarf_getlocation_attr(at, &(*op)[0], &inner) ||
		    dwarf_getlocation(&inner, &e, &en) || en != 1 ||
		    e[0].atom < DW_OP_reg0 || e[0].atom > DW_OP_reg31)
			return probe_dwarf_bad(c, "an entry value this does not read");
		*op = e;
		*n = 1;
	}
	if (masked_reg(at, *op, *n, a)) {
		/* The register itself, read at the type's size (libdw's ops are not ours to change). */
		reg_op->atom = DW_OP_reg0 + ((*op)[0].atom - DW_OP_breg0);
		*op = reg_op;
		*n = 1;
	}
	return 0;
}

/*
 * Register reg into a (based: an address, + a->deref[0]), if the trampoline
 * saves it: 0, or refused.
 */
static int saved_reg(struct ctx *c, unsigned reg, bool based, struct ps_probe_arg *a)
{
	char buf[16];
	const char *r = probe_dwarf_reg_name(c->rm, reg, buf, sizeof(buf));

	if (!r)
		return based ?
			probe_dwarf_bad(c, "at DWARF register %u + %" PRId64 ", a register not saved",
					reg, a->deref[0]) :
			probe_dwarf_bad(c, "in DWARF register %u, which the trampoline does not save",
					reg);
	a->base = PF_REG;
	snprintf(a->sym, sizeof(a->sym), "%s", r);
	return 0;
}

/*
 * A slot at or above the entry sp (the CFA is above it): the caller's, an
 * argument passed on the stack, there at the entry.  Below the CFA, or
 * another frame base: the callee's own frame, which its prologue fills
 * after the site, or clang's sp as the body has it; the ABI's order says
 * where the value is then.
 */
static int frame_slot(struct ctx *c, Dwarf_Die *param, int64_t off, struct ps_probe_arg *a)
{
	int64_t adj;

	if (frame_base_at_entry(c, &adj) && off >= 0) {
		a->base = PF_STACKADDR;
		a->nderef = 1;
		a->deref[0] = off + adj;
		return 0;
	}
	return abi_order(c, param, a);
}

/* The location of param at the entry into a: 0, or refused. */
int probe_dwarf_location(struct ctx *c, Dwarf_Die *param, struct ps_probe_arg *a)
{
	Dwarf_Attribute at;
	Dwarf_Op *op, reg_op = { 0 };
	size_t n;
	int err;

	if (!dwarf_attr(param, DW_AT_location, &at))
		return constant(c, param, a);
	err = entry_ops(c, &at, a, &op, &n, &reg_op);
	if (err)
		return err;
	if (op[0].atom == DW_OP_GNU_parameter_ref)	/* gcc's clones (.isra) */
		return probe_dwarf_bad(c, "its value is the caller's (DW_OP_GNU_parameter_ref: known at the call "
			   "site, not at the entry): not recorded");
	if (n == 1 && ((op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31) ||
		       op[0].atom == DW_OP_regx))
		return saved_reg(c, op[0].atom == DW_OP_regx ? (unsigned)op[0].number
							     : (unsigned)(op[0].atom - DW_OP_reg0), false, a);
	if (n == 1 && op[0].atom == DW_OP_fbreg)
		return frame_slot(c, param, (int64_t)op[0].number, a);
	if (n == 1 && op[0].atom >= DW_OP_breg0 && op[0].atom <= DW_OP_breg31) {
		unsigned reg = op[0].atom - DW_OP_breg0;

		a->nderef = 1;
		a->deref[0] = (int64_t)op[0].number;
		if (reg == c->rm->sp) {
			a->base = PF_STACKADDR;
			return 0;
		}
		return saved_reg(c, reg, true, a);
	}
	if (n == 2 && op[1].atom == DW_OP_stack_value &&
	    ((op[0].atom >= DW_OP_lit0 && op[0].atom <= DW_OP_lit31) ||
	     (op[0].atom >= DW_OP_const1u && op[0].atom <= DW_OP_consts))) {
		a->base = PF_IMM;
		a->n = op[0].atom <= DW_OP_lit31 && op[0].atom >= DW_OP_lit0
			? (uint64_t)(op[0].atom - DW_OP_lit0) : op[0].number;
		return 0;
	}
	return probe_dwarf_bad(c, "a location (DW_OP %#x, %zu operations) this does not read", op[0].atom, n);
}
