// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every step of resolving a probe name from DWARF uses (probe_dwarf.c
 * has the design): the arch's registers as the runtime names them, the
 * refusal naming the argument, and a DWARF type as the runtime records it.
 * Apart, below probe_dwarf.c, probe_dwarf_fn.c and probe_dwarf_loc.c, so
 * that they call down into one file and never into each other.
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "probe_dwarf_ctx.h"

static const char *const x86_gpr[] = { "rax", "rdx", "rcx", NULL, "rsi", "rdi", NULL, NULL,
				       "r8", "r9", "r10", "r11" };
static const char *const x86_args[] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
static const char *const a64_gpr[] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8",
				       NULL, "x10", "x11", "x12", "x13", "x14", "x15" };

static const struct regmap maps[] = {
	{ EM_X86_64, x86_gpr, 12, 17, 8, "xmm%u", 7, 8, 6, 8, x86_args },
	{ EM_AARCH64, a64_gpr, 16, 64, 8, "d%u", 31, 0, 8, 8, a64_gpr },
};

const struct regmap *probe_dwarf_regmap(unsigned machine)
{
	const struct regmap *rm = NULL;

	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
		if (maps[i].machine == machine)
			rm = &maps[i];
	return rm;
}


/* t (peeled) a 1-byte char type: DW_ATE_signed_char or unsigned_char. */
static bool is_char(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;

	return dwarf_tag(t) == DW_TAG_base_type && dwarf_bytesize(t) == 1 &&
	       !dwarf_formudata(dwarf_attr_integrate(t, DW_AT_encoding, &at), &enc) &&
	       (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char);
}

int probe_dwarf_bad(struct ctx *c, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(c->err, c->errlen, "%s: %s", c->what, msg);
	return -EINVAL;
}

const char *probe_dwarf_reg_name(const struct regmap *rm, unsigned n, char *buf, size_t len)
{
	if (n < rm->ngpr)
		return rm->gpr[n];
	if (n >= rm->vec0 && n < rm->vec0 + rm->nvec) {
		snprintf(buf, len, rm->vec_fmt, n - rm->vec0);
		return buf;
	}
	return NULL;
}

int probe_dwarf_type_of(struct ctx *c, Dwarf_Die *t, struct ps_probe_arg *a, bool *is_float)
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
			return probe_dwarf_bad(c, "its base type has no encoding");
		switch (enc) {
		case DW_ATE_float:
			if (size != 4 && size != 8)
				return probe_dwarf_bad(c, "a %d-byte float is not recorded", size);
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
			return probe_dwarf_bad(c, "a base type of encoding %#" PRIx64 " is not recorded", enc);
		}
	} else {
		return probe_dwarf_bad(c, "a %s passed by value is not recorded (name a member through a "
			   "pointer, or pass a pointer)", tag == DW_TAG_structure_type ? "struct" :
			   tag == DW_TAG_union_type ? "union" : tag == DW_TAG_array_type ?
			   "array" : "value of this type");
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return probe_dwarf_bad(c, "a %d-byte value is not recorded", size);
	a->size = (uint8_t)size;
	return 0;
}

int probe_dwarf_peeled_type(struct ctx *c, Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &at), &t) ||
	    dwarf_peel_type(&t, out))
		return probe_dwarf_bad(c, "DWARF gives it no type");
	return 0;
}

