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
 *
 * Here: names with their members, $retval, the entry points.  The
 * function's DIE is found in probe_dwarf_fn.c, a parameter's location read
 * in probe_dwarf_loc.c; the registers, the refusal and a type as the
 * runtime records it are in probe_dwarf_ctx.c, below them all.
 */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe_dwarf.h"
#include "probe_dwarf_ctx.h"
#include "probe_dwarf_type.h"

/*
 * One "->m" of a name: *t (a pointer to a struct) becomes m's type, and m's
 * offset one more dereference of a; the last member's type is a's.  0, or
 * refused.
 */
static int member_step(struct ctx *c, Dwarf_Die *t, const char *m, bool last,
		       struct ps_probe_arg *a)
{
	Dwarf_Die st, mem;
	Dwarf_Attribute at;
	Dwarf_Word off;
	bool hit = false, fl;
	int err;

	/* A C++ reference is a pointer in the ABI: h->port for const Host &h too. */
	if ((dwarf_tag(t) != DW_TAG_pointer_type && dwarf_tag(t) != DW_TAG_reference_type &&
	     dwarf_tag(t) != DW_TAG_rvalue_reference_type) || probe_dwarf_peeled_type(c, t, &st))
		return probe_dwarf_bad(c, "'->%s': not a pointer to a struct", m);
	probe_dwarf_complete_type(c->mod, &st, &st);	/* opaque here: defined elsewhere */
	if (dwarf_tag(&st) != DW_TAG_structure_type && dwarf_tag(&st) != DW_TAG_union_type &&
	    dwarf_tag(&st) != DW_TAG_class_type)
		return probe_dwarf_bad(c, "'->%s': not a pointer to a struct", m);
	if (!dwarf_child(&st, &mem))
		do {
			const char *nm = dwarf_diename(&mem);

			hit = dwarf_tag(&mem) == DW_TAG_member && nm && !strcmp(nm, m);
		} while (!hit && !dwarf_siblingof(&mem, &mem));
	if (!hit)
		return probe_dwarf_bad(c, "no member '%s'", m);
	/* A union's members may have no location: all are at its start. */
	if (dwarf_tag(&st) == DW_TAG_union_type &&
	    !dwarf_hasattr(&mem, DW_AT_data_member_location) &&
	    !dwarf_hasattr(&mem, DW_AT_bit_size) && !dwarf_hasattr(&mem, DW_AT_data_bit_offset))
		off = 0;
	else if (dwarf_formudata(dwarf_attr(&mem, DW_AT_data_member_location, &at), &off))
		return probe_dwarf_bad(c, "member '%s': its offset is not a constant (a bit field?)", m);
	if (a->nderef == PS_PROBE_MAX_DEREF)
		return probe_dwarf_bad(c, "more than %d dereferences", PS_PROBE_MAX_DEREF);
	a->deref[a->nderef++] = (int64_t)off;
	err = probe_dwarf_peeled_type(c, &mem, t);
	if (!err && last)
		err = probe_dwarf_type_of(c, t, a, &fl);
	return err;
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
		return probe_dwarf_bad(c, "'.' (a member of a struct held by value) is not read; use ->");
	if (rest)
		*rest = '\0';
	if (!dwarf_child(&c->fn, &kid))
		do {
			const char *nm = dwarf_diename(&kid);

			found = dwarf_tag(&kid) == DW_TAG_formal_parameter && nm && !strcmp(nm, path);
		} while (!found && !dwarf_siblingof(&kid, &kid));
	if (!found)
		return probe_dwarf_bad(c, "no parameter '%s' in DWARF", path);
	err = probe_dwarf_peeled_type(c, &kid, &t);
	if (!err && !rest)
		err = probe_dwarf_type_of(c, &t, a, &fl);
	if (!err)
		err = probe_dwarf_location(c, &kid, a);
	for (char *m = rest ? rest + 2 : NULL; m && !err;) {
		char *next = strstr(m, "->");

		if (next)
			*next = '\0';
		err = member_step(c, &t, m, !next, a);
		m = next ? next + 2 : NULL;
	}
	return err;
}

/* The program whose DWARF was opened last, kept for its next probes. */
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
		return probe_dwarf_bad(c, "its type is not char *: no string is read from it (a string at an "
			   "address of your own: +OFF(FETCHARG):string)");
	if (a->nderef == PS_PROBE_MAX_DEREF)
		return probe_dwarf_bad(c, "more than %d dereferences", PS_PROBE_MAX_DEREF);
	a->deref[a->nderef++] = 0;
	return 0;
}

/* The function's return type, peeled, into t: 0, or refused (void, none). */
static int retval_die(struct ctx *c, Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Die d;

	if (!dwarf_formref_die(dwarf_attr_integrate(&c->fn, DW_AT_type, &at), &d))
		return probe_dwarf_bad(c, "the function returns void: no $retval");
	if (dwarf_peel_type(&d, t))
		return probe_dwarf_bad(c, "DWARF gives its return value no type");
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
	if (probe_dwarf_type_of(c, &t, &r, &is_float) && r.type != PT_STRING)
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
	if (probe_dwarf_type_of(c, &t, &r, &is_float))
		return -EINVAL;
	a->type = r.type;
	a->size = r.size;
	return 0;
}

/* Name argument a (PF_NAME) made the fetch argument and type DWARF gives: 0, or refused. */
static int resolve_arg(struct ctx *c, struct ps_probe_arg *a)
{
	struct ps_probe_arg r = { .type = a->type, .size = a->size };
	bool user_type = !(a->type == PT_X && a->size == 8);	/* given: it wins */
	bool char_ptr;
	int rc;

	c->what = a->name;
	memcpy(r.name, a->name, sizeof(r.name));
	memcpy(r.sym, a->sym, sizeof(r.sym));
	rc = resolve_name(c, &r);
	char_ptr = r.type == PT_STRING && !c->char_array;	/* type_of's: a char * */
	if (!rc && user_type) {
		r.type = a->type;
		r.size = a->size;
		r.bw = a->bw;
		r.bo = a->bo;
	}
	if (!rc && r.type == PT_STRING && !c->char_array)
		rc = string_through(c, &r, char_ptr);
	else if (!rc && c->char_array && r.type != PT_STRING)
		rc = probe_dwarf_bad(c, "a char array is read as a string (:string) only");
	if (!rc)
		*a = r;
	return rc;
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
	if (elf && gelf_getehdr(elf, &eh) && probe_dwarf_regmap(eh.e_machine))
		fmt = probe_dwarf_regmap(eh.e_machine)->vec_fmt;
	elf_end(elf);
	close(fd);
	return fmt;
}

/* The register map of elf's arch into c->rm: 0, or refused. */
static int choose_regs(struct ctx *c, Elf *elf)
{
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh))
		return probe_dwarf_bad(c, "not an ELF file");
	c->rm = probe_dwarf_regmap(eh.e_machine);
	if (!c->rm)
		return probe_dwarf_bad(c, "names are resolved for x86-64 and aarch64 programs only");
	return 0;
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
	rc = choose_regs(&c, elf);
	if (!rc)
		rc = probe_dwarf_find_fn(&c, mod, d->func);
	if (rc && !any) {	/* $retval alone: typed where DWARF is, x64 elsewhere */
		rc = 0;
		goto cache_it;
	}
	for (unsigned i = 0; !rc && i < d->nargs; i++) {
		struct ps_probe_arg *a = &d->a[i];

		if (retval_untyped(d, a) || retval_string(d, a)) {
			c.what = a->name;
			rc = retval_untyped(d, a) ? retval_type(&c, a) : retval_string_type(&c, a);
		} else if (a->base == PF_NAME) {
			rc = resolve_arg(&c, a);
		}
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
