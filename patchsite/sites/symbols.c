// SPDX-License-Identifier: GPL-2.0-only
/*
 * Function symbols of loaded objects: read from the file's .symtab (else
 * .dynsym) on first need, sorted by address; the site's function; the
 * name a trace shows (C++ demangled); aliases at one address; and the
 * locator of messages about a site (ps_log_site).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/demangle.h"
#include "sites.h"

/*
 * Symbols by address, then by their order in the table (they come in table
 * order, so a stable sort by address is both).  Usually already sorted (a
 * linker may write the globals in its hash table's order, though: ld does).
 * Else an LSD radix sort, 11 bits a pass over the span of the addresses,
 * of one word per symbol, (address - lowest) above its index, then the
 * symbols moved into place by following the permutation's cycles: qsort
 * with a comparison call per step was most of the time a -pg build without
 * a table takes to start (100,000 functions: 25 ms of 45), and a sort of
 * (address, index) pairs into a second symbol array touched 7 MB of fresh
 * pages for 100,000 symbols where this touches 1.6 MB (the kernel zeroing
 * pages was the largest item of an attach's loader CPU in perf: issue #26).
 * A span and a count too wide for one word (not seen in real objects) go
 * to qsort.
 */
#define SORT_BITS	11
#define SORT_DIGITS	(1u << SORT_BITS)

static int by_addr_order(const void *pa, const void *pb)
{
	const struct ps_sym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static unsigned bits_of(uint64_t v)
{
	return v ? 64u - (unsigned)__builtin_clzll(v) : 0;
}

/* Words of keys (bits above ibits) by key, stably: the sorted array (a or b). */
static uint64_t *radix_words(uint64_t *a, uint64_t *b, size_t n, unsigned ibits, unsigned kbits)
{
	size_t count[SORT_DIGITS];

	for (unsigned shift = 0; shift < kbits; shift += SORT_BITS) {
		unsigned at_bit = ibits + shift;
		uint64_t *t;
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[a[i] >> at_bit & (SORT_DIGITS - 1)]++;
		for (size_t d = 0; d < SORT_DIGITS; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[count[a[i] >> at_bit & (SORT_DIGITS - 1)]++] = a[i];
		t = a, a = b, b = t;
	}
	return a;
}

/* s[i] = old s[perm[i]] for every i, in place; perm is left the identity. */
static void permute(struct ps_sym *s, uint64_t *perm, size_t n, uint64_t imask)
{
	for (size_t i = 0; i < n; i++) {
		struct ps_sym first = s[i];
		size_t j = i;

		if ((perm[i] & imask) == i)
			continue;
		for (;;) {
			size_t from = perm[j] & imask;

			perm[j] = j;
			if (from == i) {
				s[j] = first;
				break;
			}
			s[j] = s[from];
			j = from;
		}
	}
}

static int sort_syms(struct ps_sym *s, size_t n)
{
	uint64_t *a, *sorted, lo = UINTPTR_MAX, hi = 0;
	unsigned ibits = bits_of(n), kbits;
	bool in_order = true;

	for (size_t i = 0; i < n; i++) {
		in_order &= !i || s[i - 1].addr <= s[i].addr;
		lo = s[i].addr < lo ? s[i].addr : lo;
		hi = s[i].addr > hi ? s[i].addr : hi;
	}
	if (in_order)
		return 0;
	kbits = bits_of(hi - lo);
	if (kbits + ibits > 64) {
		qsort(s, n, sizeof(*s), by_addr_order);
		return 0;
	}
	a = malloc(2 * n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		a[i] = (s[i].addr - lo) << ibits | i;
	sorted = radix_words(a, a + n, n, ibits, kbits);
	permute(s, sorted, n, ibits == 64 ? UINT64_MAX : (UINT64_C(1) << ibits) - 1);
	free(a);
	return 0;
}

/* Functions from .symtab, or .dynsym when the file is stripped. */
/* Find the function symbols (.symtab, else .dynsym); read them only when first needed. */
int ps_find_symbols(struct ps_module *m, const struct elf_file *f)
{
	const Elf64_Shdr *tab = NULL;

	for (unsigned i = 0; !tab && i < f->eh->e_shnum; i++)
		if (f->sh[i].sh_type == SHT_SYMTAB)
			tab = &f->sh[i];
	for (unsigned i = 0; !tab && i < f->eh->e_shnum; i++)
		if (f->sh[i].sh_type == SHT_DYNSYM)
			tab = &f->sh[i];
	if (!tab || tab->sh_link >= f->eh->e_shnum)
		return 0;
	m->symtab = ps_file_at(f, tab->sh_offset, tab->sh_size);
	m->strtab = ps_file_at(f, f->sh[tab->sh_link].sh_offset, f->sh[tab->sh_link].sh_size);
	if (!m->symtab || !m->strtab) {
		m->symtab = m->strtab = NULL;
		return -ENOEXEC;
	}
	m->nsymtab = tab->sh_size / sizeof(Elf64_Sym);
	m->strtab_size = f->sh[tab->sh_link].sh_size;
	return 0;
}

/*
 * The function at addr, given lo: the number of symbols at or below addr
 * (the first above it is syms[lo]).
 */
static const struct ps_sym *sym_below(const struct ps_module *m, size_t lo, uintptr_t addr)
{
	const struct ps_sym *best = NULL;

	if (!lo)
		return NULL;
	/*
	 * Aliases at one address (C1/C2 constructors, functions folded by
	 * -fipa-icf, alias attributes): the first in the symbol table that
	 * is sized and covers addr, which is the name the compiler gave the
	 * body first.
	 */
	for (size_t i = lo; i-- > 0 && m->syms[i].addr == m->syms[lo - 1].addr;)
		if (addr < m->syms[i].addr + m->syms[i].size)
			best = &m->syms[i];
	if (best)
		return best;
	return m->syms[lo - 1].size == 0 && addr == m->syms[lo - 1].addr ? &m->syms[lo - 1] : NULL;
}

/* The number of symbols at or below addr. */
static size_t syms_upto(const struct ps_module *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct ps_sym *ps_module_sym(const struct ps_module *m, uintptr_t addr)
{
	return sym_below(m, syms_upto(m, addr), addr);
}

const struct ps_sym *ps_module_sym_after(const struct ps_module *m, uintptr_t addr)
{
	size_t lo = syms_upto(m, addr);

	return lo < m->nsyms ? &m->syms[lo] : NULL;
}

/*
 * Each site's function.  Sites and symbols are both by address: one walk
 * over the two (a binary search per site was most of the CPU start-up
 * spent on symbols: 100,000 sites, 17 probes each, most missing the
 * cache).  A site below the last one (a table out of order) searches.
 */
static void sites_syms(struct ps_module *m)
{
	uintptr_t last = 0;
	size_t lo = 0;

	if (m->noflag)
		return;		/* named by its proof file (noflag.c): the sites are its stubs' slots */
	for (size_t i = 0; i < m->nsites; i++) {
		struct ps_site *s = &m->sites[i];

		if (s->addr < last)
			s->sym = ps_module_sym(m, s->addr);
		else {
			while (lo < m->nsyms && m->syms[lo].addr <= s->addr)
				lo++;
			s->sym = sym_below(m, lo, s->addr);
			last = s->addr;
		}
		if (!s->sym && s->addr >= 4)
			s->sym = ps_module_sym(m, s->addr - 4);	/* after endbr64 */
	}
}

/*
 * The module's functions by address, and each site's function.  Start-up
 * does without (sorting a large .symtab was most of its time); names are
 * read on the first filter, listing, message or trace output.  ps.lock held.
 */
int ps_module_syms(struct ps_module *m)
{
	const Elf64_Sym *syms = m->symtab;
	const char *str = m->strtab;
	size_t k = 0;

	if (m->syms_loaded)
		return 0;
	m->syms_loaded = true;
	if (!syms)
		return 0;
	m->syms = calloc(m->nsymtab ? m->nsymtab : 1, sizeof(*m->syms));
	if (!m->syms)
		return -ENOMEM;
	for (size_t i = 0; i < m->nsymtab; i++) {
		const Elf64_Sym *s = &syms[i];
		unsigned type = ELF64_ST_TYPE(s->st_info);

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_value || s->st_name >= m->strtab_size)
			continue;
		m->syms[k].addr = m->bias + s->st_value;
		m->syms[k].size = s->st_size;
		m->syms[k].name = str + s->st_name;
		m->syms[k].order = i;
		/* The first byte before strcmp: 100,000 names, a call each per hook, were 4% of an attach's loader. */
		for (unsigned h = 0; ps.arch->hooks[h] && m->nhook_addrs < 4; h++)
			if (m->syms[k].name[0] == ps.arch->hooks[h][0] &&
			    !strcmp(m->syms[k].name, ps.arch->hooks[h])) {
				m->hook_addr_hook[m->nhook_addrs] = (uint8_t)(h + 1);
				m->hook_addrs[m->nhook_addrs++] = m->syms[k].addr;
			}
		k++;
	}
	if (sort_syms(m->syms, k))
		return -ENOMEM;
	m->nsyms = k;
	sites_syms(m);
	return 0;
}

void ps_all_syms(void)
{
	for (unsigned i = 0; i < ps.nmods; i++)
		ps_module_syms(ps.mods[i]);
}

const char *ps_sym_shown(const struct ps_sym *sym)
{
	struct ps_sym *s = (struct ps_sym *)sym;

	if (!s->shown) {
		char *d = ps_demangle_simple(s->name);

		s->shown = d ? d : s->name;
	}
	return s->shown;
}

/* "name", or "0x..." without a symbol. */
const char *ps_site_name(const struct ps_site *s, char *buf, size_t len)
{
	ps_module_syms(s->mod);
	if (s->sym)
		return ps_sym_shown(s->sym);
	snprintf(buf, len, "0x%lx", (unsigned long)s->addr);
	return buf;
}

/*
 * The object was linked with -pg: gprof's start-up (gcrt1.o) calls
 * __monstartup and registers _mcleanup, which writes gmon.out at exit.
 */
bool ps_module_links_gprof(const struct ps_module *m)
{
	const Elf64_Sym *syms = m->symtab;
	const char *str = m->strtab;

	for (size_t i = 0; syms && i < m->nsymtab; i++) {
		const char *name = syms[i].st_name < m->strtab_size ? str + syms[i].st_name : "";

		if (!strncmp(name, "__monstartup", 12) && (name[12] == '\0' || name[12] == '@'))
			return true;
	}
	return false;
}

/* The symbols at sym's address (sym among them): *first and how many. */
size_t ps_sym_aliases(const struct ps_module *m, const struct ps_sym *sym,
		      const struct ps_sym **first)
{
	const struct ps_sym *lo = sym, *hi = sym + 1, *end = m->syms + m->nsyms;

	*first = sym;
	if (sym < m->syms || sym >= end)
		return 1;	/* not one of m's (a gone object's name) */
	while (lo > m->syms && lo[-1].addr == sym->addr)
		lo--;
	while (hi < end && hi->addr == sym->addr)
		hi++;
	*first = lo;
	return (size_t)(hi - lo);
}

/* "patchsite: prog: error: leaf+0x0 (0x401136): what" */
void ps_log_site(enum patchsite_log_level level, const struct ps_site *s, const char *fmt, ...)
{
	char what[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ps_module_syms(s->mod);	/* the locator needs the symbols: loaded here, not in the sink */
	if (s->sym)
		ps_log_in(level, s->mod->name, "%s+0x%lx (%#lx): %s", s->sym->name,
			  (unsigned long)(s->addr - s->sym->addr), (unsigned long)s->addr, what);
	else
		ps_log_in(level, s->mod->name, "%#lx: %s", (unsigned long)s->addr, what);
}
