/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the files resolving probe names from DWARF share: the context of one
 * resolution, and the helpers of probe_dwarf_ctx.c (the lowest of them),
 * probe_dwarf_loc.c (where a parameter is at the entry) and probe_dwarf_fn.c
 * (the probed function's DIE), which probe_dwarf.c calls.
 */
#ifndef PS_PROBE_DWARF_CTX_H
#define PS_PROBE_DWARF_CTX_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../events/probe.h"


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

/* The register map of ELF machine machine, or NULL: not resolved for that arch. */
const struct regmap *probe_dwarf_regmap(unsigned machine);
/* c->what: fmt's message into c->err; -EINVAL. */
__attribute__((format(printf, 2, 3)))
int probe_dwarf_bad(struct ctx *c, const char *fmt, ...);
/* A register by DWARF number: its name in the runtime's map, or NULL. */
const char *probe_dwarf_reg_name(const struct regmap *rm, unsigned n, char *buf, size_t len);
/* The type the runtime records for DWARF type t (peeled): 0, or refused. */
int probe_dwarf_type_of(struct ctx *c, Dwarf_Die *t, struct ps_probe_arg *a, bool *is_float);
/* die's type, peeled, into out: 0, or refused. */
int probe_dwarf_peeled_type(struct ctx *c, Dwarf_Die *die, Dwarf_Die *out);

/* The location of param at the entry into a: 0, or refused (probe_dwarf_loc.c). */
int probe_dwarf_location(struct ctx *c, Dwarf_Die *param, struct ps_probe_arg *a);

/*
 * The DIE of func (the outermost subprogram at its address) and the entry's
 * skip into c (c->rm set): 0, or refused (probe_dwarf_fn.c).
 */
int probe_dwarf_find_fn(struct ctx *c, Dwfl_Module *mod, const char *func);

#endif
