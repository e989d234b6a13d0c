// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names and types for the arguments of library calls.  A library call is a
 * site on the executable's GOT slot (sites/got.c): its thunk enters the
 * same trampolines as a function's entry, so $argN and $retval read the
 * right registers there, but the function's DWARF is its library's, not
 * the program's.  What libc_protos.c lists is used instead, for record -a
 * and for names in --probe ('f malloc size'); anything else of a library
 * call is refused by name, never guessed.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../events/probe.h"
#include "../cmd.h"
#include "auto_args.h"
#include "libc_protos.h"
#include "libcall_args.h"

/* The slot types a site is made of (--libcall=got adds GLOB_DAT). */
static bool slot_reloc(GElf_Half machine, unsigned type, bool got)
{
	if (machine == EM_X86_64)
		return type == R_X86_64_JUMP_SLOT || (got && type == R_X86_64_GLOB_DAT);
	if (machine == EM_AARCH64)
		return type == R_AARCH64_JUMP_SLOT || (got && type == R_AARCH64_GLOB_DAT);
	if (machine == EM_RISCV)
		return type == R_RISCV_JUMP_SLOT || (got && type == R_RISCV_64);
	return false;
}

/*
 * A function symbol exe imports, with a slot site: undefined, and (in a
 * non-PIE executable) without the canonical PLT address &foo gives it,
 * whose slot the runtime refuses to switch.
 */
static bool slot_sym(const GElf_Ehdr *eh, const GElf_Sym *s)
{
	unsigned t = GELF_ST_TYPE(s->st_info);

	return s->st_shndx == SHN_UNDEF && (t == STT_FUNC || t == STT_GNU_IFUNC) &&
	       !(eh->e_type == ET_EXEC && s->st_value);
}

/* Each relocation section of elf whose slots are sites: the names with a prototype, added. */
/* sel: the globs of the functions whose arguments, and return value, are wanted. */
static void rel_section(Elf *elf, const GElf_Ehdr *eh, Elf_Scn *scn, bool got,
			const char *const sel[2], char **seen, char **probes, char **retvals)
{
	GElf_Shdr sh, symsh;
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Scn *symscn;
	Elf_Data *syms;
	char line[700];

	if (!gelf_getshdr(scn, &sh) || !data || !(symscn = elf_getscn(elf, sh.sh_link)) ||
	    !gelf_getshdr(symscn, &symsh) || !(syms = elf_getdata(symscn, NULL)))
		return;
	for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym s;
		const struct libc_proto *p;
		const char *name;

		if (!gelf_getrela(data, (int)i, &r) || !slot_reloc(eh->e_machine,
		    GELF_R_TYPE(r.r_info), got) || !gelf_getsym(syms, GELF_R_SYM(r.r_info), &s) ||
		    !slot_sym(eh, &s) || !(name = elf_strptr(elf, symsh.sh_link, s.st_name)) ||
		    !(p = libc_proto_find(name)))
			continue;
		snprintf(line, sizeof(line), " %s ", name);
		if (strstr(*seen ? *seen : "", line))
			continue;	/* both a GLOB_DAT and a JUMP_SLOT */
		*seen = list_add(*seen, line, ' ');
		if (*p->args && auto_wanted(sel[0], name, NULL)) {
			snprintf(line, sizeof(line), "f:auto/%s %s %s", name, name, p->args);
			*probes = list_add(*probes, line, '\n');
		}
		snprintf(line, sizeof(line), "%s@retval", name);
		if (p->ret && auto_wanted(sel[1], name, NULL))
			*retvals = list_add(*retvals, line, ' ');
	}
}

int libcall_args_auto(const char *exe, bool got, const char *args_of, const char *rets_of,
		      char **probes, char **retvals)
{
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	char *seen = NULL;

	if (fd < 0) {
		fprintf(stderr, "patchsite: record -a: %s: cannot open it\n", exe);
		return -1;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		fprintf(stderr, "patchsite: record -a: %s: not an ELF file\n", exe);
		elf_end(elf);
		close(fd);
		return -1;
	}
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));)
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_RELA)
			rel_section(elf, &eh, scn, got, (const char *const[2]){ args_of, rets_of },
				    &seen, probes, retvals);
	free(seen);
	elf_end(elf);
	close(fd);
	return 0;
}

/* Whether exe's symbol tables have func undefined and nowhere defined: a library's function. */
static bool imports(const char *exe, const char *func)
{
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	GElf_Shdr sh;
	bool undef = false, def = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn));) {
		Elf_Data *data = elf_getdata(scn, NULL);

		if (!gelf_getshdr(scn, &sh) || !data || !sh.sh_entsize ||
		    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (!gelf_getsym(data, (int)i, &s) || !(n = elf_strptr(elf, sh.sh_link,
			    s.st_name)) || strcmp(n, func))
				continue;
			undef |= s.st_shndx == SHN_UNDEF;
			def |= s.st_shndx != SHN_UNDEF;
		}
	}
	elf_end(elf);
	close(fd);
	return undef && !def;
}

/*
 * The type a user gave a prototype's parameter, on its fetch f, as the
 * kernel's BTF arguments take one: a char * listed as a string
 * (+0($argN):string) read as the pointer itself for another type; a string
 * asked of a pointer (x64) read at it; of anything else, refused.
 */
static int user_type_apply(const char *func, const struct ps_probe_arg *a, struct ps_probe_arg *f,
			   char *why, size_t len)
{
	if (f->type == PT_STRING && a->type != PT_STRING)
		f->nderef--;
	else if (a->type == PT_STRING && f->type == PT_X && f->size == 8)
		f->deref[f->nderef++] = 0;
	else if (a->type == PT_STRING && f->type != PT_STRING) {
		snprintf(why, len, "%s: '%s' is not a pointer: no string is read from it", func,
			 a->sym);
		return -1;
	}
	f->type = a->type;
	f->size = a->size;
	f->bw = a->bw;
	f->bo = a->bo;
	return 0;
}

/* A name of proto's parameters as the argument's fetch, its type kept when one was given. */
static int named(const char *func, const struct libc_proto *p, struct ps_probe_arg *a, char *why,
		 size_t len)
{
	char line[400];
	struct ps_probe_def one;
	bool user_type = !(a->type == PT_X && a->size == 8);

	if (strpbrk(a->sym, ".-[")) {
		snprintf(why, len, "%s: a library function: its arguments' members are not known "
			 "(its DWARF is not the program's); use +OFF($argN)", func);
		return -1;
	}
	snprintf(line, sizeof(line), "f %s %.60s=", func, a->name);
	if (libc_proto_param(p, a->sym, line + strlen(line), sizeof(line) - strlen(line))) {
		char names[300] = "";

		for (const char *q = p->args; *q; q += strcspn(q, " "), q += *q == ' ')
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%.*s",
				 *names ? ", " : "", (int)strcspn(q, "="), q);
		snprintf(why, len, "%s: a library function: its prototype (%s) has no '%s'", func,
			 *names ? names : "no arguments", a->sym);
		return -1;
	}
	if (ps_probe_parse(line, &one, why, len))
		return -1;
	if (user_type && user_type_apply(func, a, &one.a[0], why, len))
		return -1;
	*a = one.a[0];
	return 0;
}

/* An untyped $retval as the prototype's return type; a void one refused. */
static int retval(const char *func, const struct libc_proto *p, struct ps_probe_arg *a, char *why,
		  size_t len)
{
	char line[400];
	struct ps_probe_def one;

	if (!p->ret) {
		snprintf(why, len, "%s: a library function returning void: no $retval", func);
		return -1;
	}
	snprintf(line, sizeof(line), "f %s%%return %.60s=$retval:%s", func, a->name, p->ret);
	if (ps_probe_parse(line, &one, why, len))
		return -1;
	*a = one.a[0];
	return 0;
}

int libcall_proto_resolve(const char *exe, struct ps_probe_def *d, char *why, size_t len)
{
	const struct libc_proto *p = libc_proto_find(d->func);
	bool any = false;

	for (unsigned i = 0; i < d->nargs; i++)
		any |= d->a[i].base == PF_NAME || (d->ret && d->a[i].base == PF_RETVAL &&
						   !d->a[i].nderef && d->a[i].type == PT_X &&
						   d->a[i].size == 8);
	if (!any || !p || !imports(exe, d->func))
		return 1;
	for (unsigned i = 0; i < d->nargs; i++) {
		struct ps_probe_arg *a = &d->a[i];

		if (a->base == PF_NAME && named(d->func, p, a, why, len))
			return -1;
		if (d->ret && a->base == PF_RETVAL && !a->nderef && a->type == PT_X &&
		    a->size == 8 && retval(d->func, p, a, why, len))
			return -1;
	}
	return 0;
}
