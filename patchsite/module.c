// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loaded objects and their sites.
 *
 * dl_iterate_phdr gives every object's load bias and program headers; the
 * file on disk gives what the loaded image no longer has: section headers
 * (to find __mcount_loc and __patchable_function_entries), the symbol
 * tables and the dynamic relocations that bind a slot to __fentry__.  The
 * file is checked against the image (same PT_LOADs) before we trust it.
 *
 * Table entries are read from memory, not from the file: in a PIE or a
 * shared library they are R_X86_64_RELATIVE words the dynamic linker has
 * already relocated.  An entry that is not inside the module's code (an
 * unrelocated word, or 0 for code the linker discarded) is tried with the
 * bias added, then dropped.
 *
 * The runtime only ever reads files of its own machine, so ELF structures
 * are read in host order with <elf.h>'s Elf64 types (the ELF class and
 * e_machine are checked first).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "pcrel_table.h"

static const char *const table_names[] = { "__mcount_loc", "__patchable_function_entries",
					   "__return_loc", PCREL_TABLE, NULL };
#define TABLE_RETURN	2	/* table_names[]: exit sites */
#define TABLE_PCREL	3	/* 32-bit entries: the site less the entry's own address */

static uintptr_t page_size(void)
{
	static uintptr_t ps_page;

	if (!ps_page)
		ps_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	return ps_page;
}

static uintptr_t page_down(uintptr_t a)
{
	return a & ~(page_size() - 1);
}

static uintptr_t page_up(uintptr_t a)
{
	return page_down(a + page_size() - 1);
}

bool ps_module_has_code(const struct ps_module *m, uintptr_t addr, size_t len)
{
	for (unsigned i = 0; i < m->nsegs; i++)
		if (addr >= m->segs[i].lo && addr + len <= m->segs[i].hi && addr + len > addr)
			return true;
	return false;
}

/* A view of the file with bounds-checked access. */
struct elf_file {
	const uint8_t *data;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
	size_t shstr_size;
};

static const void *file_at(const struct elf_file *f, uint64_t off, uint64_t len)
{
	if (off > f->size || len > f->size - off)
		return NULL;
	return f->data + off;
}

static const char *section_name(const struct elf_file *f, const Elf64_Shdr *s)
{
	if (!f->shstr || s->sh_name >= f->shstr_size)
		return "";
	return f->shstr + s->sh_name;
}

static int file_open(struct ps_module *m, struct elf_file *f)
{
	struct stat st;
	void *p;
	int fd;

	memset(f, 0, sizeof(*f));
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -ENOEXEC;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	m->map = p;
	m->map_size = (size_t)st.st_size;
	f->data = p;
	f->size = m->map_size;
	f->eh = p;
	if (memcmp(f->eh->e_ident, ELFMAG, SELFMAG) || f->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    f->eh->e_machine != ps.arch->machine || f->eh->e_shentsize != sizeof(Elf64_Shdr))
		return -ENOEXEC;
	f->sh = file_at(f, f->eh->e_shoff, (uint64_t)f->eh->e_shnum * sizeof(Elf64_Shdr));
	if (!f->sh || f->eh->e_shnum == 0)
		return -ENOEXEC;
	if (f->eh->e_shstrndx < f->eh->e_shnum) {
		const Elf64_Shdr *s = &f->sh[f->eh->e_shstrndx];

		f->shstr = file_at(f, s->sh_offset, s->sh_size);
		f->shstr_size = f->shstr ? s->sh_size : 0;
	}
	return 0;
}

/* The file must describe the image we run: same loadable segments. */
static bool file_matches_image(const struct elf_file *f, const struct dl_phdr_info *info)
{
	const Elf64_Phdr *ph = file_at(f, f->eh->e_phoff, (uint64_t)f->eh->e_phnum * sizeof(*ph));
	unsigned nf = 0, ni = 0;

	if (!ph)
		return false;
	for (unsigned i = 0; i < f->eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		nf++;
		for (unsigned j = 0; j < info->dlpi_phnum; j++) {
			const Elf64_Phdr *q = &info->dlpi_phdr[j];

			if (q->p_type == PT_LOAD && q->p_vaddr == ph[i].p_vaddr &&
			    q->p_memsz == ph[i].p_memsz && q->p_flags == ph[i].p_flags)
				ni++;
		}
	}
	return nf && nf == ni;
}

/*
 * The file's bytes at a code address of the module, or NULL.  Only a
 * prediction of what the image holds (text relocations or an earlier
 * patcher may have changed it): start-up reads it to decide, before it
 * touches the text, whether the text will be written.
 */
const uint8_t *ps_module_file_code(const struct ps_module *m, uintptr_t addr, size_t len)
{
	struct elf_file f = { .data = m->map, .size = m->map_size, .eh = m->map };
	const Elf64_Phdr *ph;
	uint64_t va = addr - m->bias;

	if (!m->map || m->map_size < sizeof(Elf64_Ehdr))
		return NULL;
	ph = file_at(&f, f.eh->e_phoff, (uint64_t)f.eh->e_phnum * sizeof(*ph));
	for (unsigned i = 0; ph && i < f.eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va + len > va &&
		    va + len <= ph[i].p_vaddr + ph[i].p_filesz)
			return file_at(&f, ph[i].p_offset + (va - ph[i].p_vaddr), len);
	return NULL;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ps_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Functions from .symtab, or .dynsym when the file is stripped. */
/* Find the function symbols (.symtab, else .dynsym); read them only when first needed. */
static int find_symbols(struct ps_module *m, const struct elf_file *f)
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
	m->symtab = file_at(f, tab->sh_offset, tab->sh_size);
	m->strtab = file_at(f, f->sh[tab->sh_link].sh_offset, f->sh[tab->sh_link].sh_size);
	if (!m->symtab || !m->strtab) {
		m->symtab = m->strtab = NULL;
		return -ENOEXEC;
	}
	m->nsymtab = tab->sh_size / sizeof(Elf64_Sym);
	m->strtab_size = f->sh[tab->sh_link].sh_size;
	return 0;
}

static const struct ps_sym *module_sym(const struct ps_module *m, uintptr_t addr);

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
		for (unsigned h = 0; ps.arch->hooks[h] && m->nhook_addrs < 4; h++)
			if (!strcmp(m->syms[k].name, ps.arch->hooks[h])) {
				m->hook_addr_hook[m->nhook_addrs] = (uint8_t)(h + 1);
				m->hook_addrs[m->nhook_addrs++] = m->syms[k].addr;
			}
		k++;
	}
	qsort(m->syms, k, sizeof(*m->syms), cmp_sym);
	m->nsyms = k;
	for (size_t i = 0; i < m->nsites; i++) {
		m->sites[i].sym = module_sym(m, m->sites[i].addr);
		if (!m->sites[i].sym && m->sites[i].addr >= 4)
			m->sites[i].sym = module_sym(m, m->sites[i].addr - 4);	/* after endbr64 */
	}
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

/* 1 + the index of name in the arch's hooks, or 0. */
static unsigned hook_of_name(const char *name)
{
	const char *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);

	for (unsigned h = 0; ps.arch->hooks[h]; h++)
		if (strlen(ps.arch->hooks[h]) == len && !strncmp(name, ps.arch->hooks[h], len))
			return h + 1;
	return 0;
}

/* Slots (GOT entries) that dynamic relocations bind to a hook symbol. */
static int read_hook_slots(struct ps_module *m, const struct elf_file *f)
{
	for (unsigned i = 0; i < f->eh->e_shnum; i++) {
		const Elf64_Shdr *rs = &f->sh[i], *ss, *st;
		const Elf64_Rela *r;
		const Elf64_Sym *syms;
		const char *str;
		size_t nsyms;

		if (rs->sh_type != SHT_RELA || rs->sh_link == 0 || rs->sh_link >= f->eh->e_shnum ||
		    !(rs->sh_flags & SHF_ALLOC))
			continue;
		ss = &f->sh[rs->sh_link];
		if (ss->sh_link >= f->eh->e_shnum)
			continue;
		st = &f->sh[ss->sh_link];
		r = file_at(f, rs->sh_offset, rs->sh_size);
		syms = file_at(f, ss->sh_offset, ss->sh_size);
		str = file_at(f, st->sh_offset, st->sh_size);
		if (!r || !syms || !str)
			continue;
		nsyms = ss->sh_size / sizeof(Elf64_Sym);
		for (size_t j = 0; j < rs->sh_size / sizeof(*r); j++) {
			size_t sym = ELF64_R_SYM(r[j].r_info);
			unsigned hook;
			uintptr_t *grown;
			uint8_t *which;

			if (!sym || sym >= nsyms || syms[sym].st_name >= st->sh_size ||
			    !(hook = hook_of_name(str + syms[sym].st_name)))
				continue;
			grown = realloc(m->hook_slots, (m->nhook_slots + 1) * sizeof(*grown));
			if (grown)
				m->hook_slots = grown;
			which = realloc(m->hook_slot_hook, m->nhook_slots + 1);
			if (which)
				m->hook_slot_hook = which;
			if (!grown || !which)
				return -ENOMEM;
			m->hook_slot_hook[m->nhook_slots] = (uint8_t)hook;
			m->hook_slots[m->nhook_slots++] = m->bias + r[j].r_offset;
		}
	}
	return 0;
}

/* 1 + the index in the arch's hooks of what the site calls, or 0 when it calls none. */
unsigned ps_module_calls_hook(const struct ps_module *m, const struct site_insn *in)
{
	uintptr_t slot = in->slot;

	/* The common case first: a PLT entry or a GOT slot bound to the hook. */
	if (in->form == FORM_CALL && ps_module_has_code(m, in->target, 16)) {
		uintptr_t plt = ps.arch->plt_slot((const uint8_t *)in->target, in->target);

		for (size_t i = 0; plt && i < m->nhook_slots; i++)
			if (m->hook_slots[i] == plt)
				return m->hook_slot_hook[i];
	}

	if (in->form == FORM_CALL) {
		ps_module_syms((struct ps_module *)m);
		for (unsigned i = 0; i < m->nhook_addrs; i++)
			if (in->target == m->hook_addrs[i])
				return m->hook_addr_hook[i];
		if (!ps_module_has_code(m, in->target, 16))
			return 0;
		slot = ps.arch->plt_slot((const uint8_t *)in->target, in->target);
	} else if (in->form != FORM_CALL_SLOT) {
		return 0;
	}
	for (size_t i = 0; slot && i < m->nhook_slots; i++)
		if (m->hook_slots[i] == slot)
			return m->hook_slot_hook[i];
	return 0;
}

static bool image_readable(const struct dl_phdr_info *info, uintptr_t addr, size_t len)
{
	for (unsigned j = 0; j < info->dlpi_phnum; j++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[j];
		uintptr_t lo = info->dlpi_addr + q->p_vaddr;

		if (q->p_type == PT_LOAD && (q->p_flags & PF_R) && addr >= lo &&
		    addr + len <= lo + q->p_memsz)
			return true;
	}
	return false;
}

static int cmp_site(const void *a, const void *b)
{
	const struct ps_site *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

/* Tables come in link order, which is nearly always address order: skip the sort then. */
static bool sites_sorted(const struct ps_module *m)
{
	for (size_t i = 1; i < m->nsites; i++)
		if (m->sites[i].addr < m->sites[i - 1].addr)
			return false;
	return true;
}

static const struct ps_sym *module_sym(const struct ps_module *m, uintptr_t addr)
{
	size_t lo = 0, hi = m->nsyms;
	const struct ps_sym *best = NULL;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
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

/*
 * Entries of one table, as runtime addresses inside the module's code.  A
 * pcrel table (recordmcount --pie-table) is read where it is loaded: each
 * entry is relative to its own runtime address.
 */
static int read_table(struct ps_module *m, const struct elf_file *f, const Elf64_Shdr *s,
		      const struct dl_phdr_info *info, enum site_kind kind, bool pcrel)
{
	size_t ent = pcrel ? sizeof(int32_t) : sizeof(uint64_t);
	size_t n = s->sh_size / ent, base = m->nsites, k = 0;
	const uint8_t *words;
	struct ps_site *grown;

	if (s->sh_flags & SHF_ALLOC) {
		uintptr_t at = m->bias + s->sh_addr;

		if (!image_readable(info, at, s->sh_size)) {
			ps_log(PATCHSITE_LOG_WARNING, "%s: %s is not in a loaded segment", m->name,
			       section_name(f, s));
			return -ENOEXEC;
		}
		words = (const uint8_t *)at;
	} else if (pcrel) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: %s is not loaded: its entries have no place",
		       m->name, section_name(f, s));
		return -ENOEXEC;
	} else {
		words = file_at(f, s->sh_offset, s->sh_size);
		if (!words)
			return -ENOEXEC;
	}
	if (!m->sites_map) {
		grown = realloc(m->sites, (base + n + 1) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		m->sites = grown;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t w;

		if (pcrel) {
			int32_t d;

			memcpy(&d, words + i * ent, sizeof(d));
			w = (uint64_t)(uintptr_t)(words + i * ent) + (uint64_t)(int64_t)d;
		} else {
			memcpy(&w, words + i * ent, sizeof(w));
		}
		if (!pcrel && !ps_module_has_code(m, w, ps.arch->max_site_len + 4))
			w += m->bias;
		if (!ps_module_has_code(m, w, ps.arch->max_site_len + 4))
			continue;	/* discarded code, or not ours */
		m->sites[base + k++] = (struct ps_site){ .addr = w, .kind = (uint8_t)kind };
	}
	m->nsites = base + k;
	return 0;
}

/*
 * Give each exit site its function's entry site, by symbol (a foo.cold
 * part belongs to foo).  A module where any exit site has no owner uses
 * none of them (its functions' returns are hooked instead): an exit we
 * could not attribute would leave a call open forever.
 */
static void link_exits(struct ps_module *m)
{
	size_t nexit = 0, k = 0;
	bool ok = true;

	for (size_t i = 0; i < m->nsites; i++)
		nexit += m->sites[i].kind == SITE_EXIT;
	if (!nexit)
		return;
	ps_module_syms(m);
	for (size_t i = 0; i < m->nsites && ok; i++) {
		struct ps_site *x = &m->sites[i];
		const char *name;
		size_t len;

		if (x->kind != SITE_EXIT)
			continue;
		if (!x->sym) {
			ok = false;
			break;
		}
		name = x->sym->name;
		len = strcspn(name, ".");
		ok = false;
		/* Usually the nearest entry site before it, in the same symbol. */
		for (size_t j = i; j-- > 0;) {
			if (m->sites[j].kind == SITE_EXIT)
				continue;
			if (m->sites[j].sym == x->sym) {
				x->owner = (uint32_t)j;
				m->sites[j].kind = SITE_ENTRY_EXITS;
				ok = true;
			}
			break;
		}
		for (size_t j = 0; !ok && name[len] == '.' && j < m->nsites; j++) {
			struct ps_site *e = &m->sites[j];

			if (e->kind == SITE_EXIT || !e->sym)
				continue;
			if (e->sym == x->sym || (name[len] == '.' && !strncmp(e->sym->name, name, len) &&
						 e->sym->name[len] == '\0')) {
				x->owner = (uint32_t)j;
				e->kind = SITE_ENTRY_EXITS;
				ok = true;
				break;
			}
		}
	}
	if (!ok) {
		ps_log(PATCHSITE_LOG_NOTE, "%s: an exit site outside any traced function: "
		       "returns are hooked instead", m->name);
		for (size_t i = 0; i < m->nsites; i++)
			m->sites[i].kind = SITE_ENTRY_HOOK;
		nexit = 0;
	}
	/* Drop the unused exit sites (owners are indices: compact and renumber). */
	if (!ok) {
		for (size_t i = 0; i < m->nsites; i++)
			if (m->sites[i].kind != SITE_EXIT)
				m->sites[k++] = m->sites[i];
		m->nsites = k;
	}
}

struct scan_ctx {
	int err;
	uintptr_t self;		/* an address inside this library */
	int index;		/* slot in ps.mods for the next object, -1: after the last */
	struct ps_module *added;
};

/*
 * Once per process: every later sync meets the same objects again.  (256
 * is what a stub's push of a sign-extended imm32 leaves for the module
 * index beside 21 bits of site index.)
 */
void ps_warn_full(const char *path)
{
	static atomic_bool said;

	if (!atomic_exchange(&said, true))
		ps_log(PATCHSITE_LOG_WARNING, "%s: more than %d objects: this one and any "
		       "further ones not traced", path, PS_MAX_MODULES);
}

static int module_add(struct dl_phdr_info *info, struct scan_ctx *ctx)
{
	uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	struct ps_module *m;
	struct elf_file f;
	char buf[4096];
	const char *path = info->dlpi_name;
	int err;

	if (path && path[0] == '\0') {
		ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

		if (n < 0)
			return 0;
		buf[n] = '\0';
		path = buf;
	}
	if (path && path[0] != '/' && strchr(path, '/') && realpath(path, buf))
		path = buf;	/* dlopen("./libfoo.so"): relative to the directory we are in */
	if (!path || path[0] != '/')
		return 0;	/* the vDSO and other objects without a file */
	for (unsigned j = 0; j < info->dlpi_phnum; j++)
		if (info->dlpi_phdr[j].p_type == PT_LOAD &&
		    info->dlpi_addr + info->dlpi_phdr[j].p_vaddr == vdso)
			return 0;
	if (ctx->index < 0 && atomic_load(&ps.nmods) >= PS_MAX_MODULES) {
		ps_warn_full(path);
		return 0;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->path = strdup(path);
	if (!m->path) {
		free(m);
		return -ENOMEM;
	}
	m->name = strrchr(m->path, '/') + 1;
	m->bias = info->dlpi_addr;
	m->text_lo = UINTPTR_MAX;
	for (unsigned j = 0; j < info->dlpi_phnum; j++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[j];
		struct ps_seg *sg;

		if (q->p_type != PT_LOAD || !(q->p_flags & PF_X) || m->nsegs == 8)
			continue;
		sg = &m->segs[m->nsegs++];
		sg->lo = page_down(m->bias + q->p_vaddr);
		sg->hi = page_up(m->bias + q->p_vaddr + q->p_memsz);
		sg->prot = PROT_EXEC | (q->p_flags & PF_R ? PROT_READ : 0) |
			   (q->p_flags & PF_W ? PROT_WRITE : 0);
		if (sg->lo < m->text_lo)
			m->text_lo = sg->lo;
		if (sg->hi > m->text_hi)
			m->text_hi = sg->hi;
	}
	m->index = ctx->index < 0 ? atomic_load(&ps.nmods) : (unsigned)ctx->index;
	err = file_open(m, &f);
	if (err) {
		ps_log(PATCHSITE_LOG_NOTE, "%s: cannot read the file: %s", m->path, strerror(-err));
		goto keep;	/* still known, for addresses; no symbols, no sites */
	}
	if (!file_matches_image(&f, info)) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: file on disk differs from the loaded image: "
		       "not traced", m->path);
		goto keep;
	}
	m->file_ok = true;
	err = find_symbols(m, &f);
	if (!err)
		err = read_hook_slots(m, &f);
	/*
	 * Large tables: one mapping, filled in by the kernel at once, costs far
	 * less than a page fault per page of a growing heap array.
	 */
	{
		size_t total = 0;

		for (unsigned i = 0; i < f.eh->e_shnum; i++)
			for (unsigned t = 0; table_names[t]; t++)
				if (!strcmp(section_name(&f, &f.sh[i]), table_names[t]))
					total += f.sh[i].sh_size /
						 (t == TABLE_PCREL ? sizeof(int32_t) : sizeof(uint64_t));
		if (total >= 4096) {
			size_t bytes = (total + 1) * sizeof(struct ps_site);
			void *p = ps_map_zero(&bytes, true, 0);

			if (p) {
				m->sites = p;
				m->sites_map = bytes;
			}
		}
	}
	for (unsigned i = 0; !err && i < f.eh->e_shnum; i++)
		for (unsigned t = 0; table_names[t]; t++)
			if (!strcmp(section_name(&f, &f.sh[i]), table_names[t]) && !err) {
				if (t == 0 && ps.arch->mcount_refused) {
					ps_log(PATCHSITE_LOG_WARNING, "%s: %s: its __mcount_loc "
					       "sites not traced", m->name, ps.arch->mcount_refused);
					continue;
				}
				err = read_table(m, &f, &f.sh[i], info,
						 t == TABLE_RETURN ? SITE_EXIT : SITE_ENTRY_HOOK,
						 t == TABLE_PCREL);
			}
	if (err)
		goto fail;
	if (ps_module_has_code(m, ctx->self, 1) && m->nsites)
		ps_log(PATCHSITE_LOG_NOTE, "%s: sites in the object that holds patchsite itself",
		       m->name);
	if (!sites_sorted(m))
		qsort(m->sites, m->nsites, sizeof(*m->sites), cmp_site);
	/* Both tables may list a site; keep one. */
	if (m->nsites) {
		size_t k = 1;

		for (size_t i = 1; i < m->nsites; i++)
			if (m->sites[i].addr != m->sites[k - 1].addr && k++ != i)
				m->sites[k - 1] = m->sites[i];
		m->nsites = k;
	}
	link_exits(m);
	if (m->nsites >= PS_ID_MASK) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: %zu sites, more than %u: not traced", m->name,
		       m->nsites, PS_ID_MASK);
		m->nsites = 0;
	}
	for (size_t i = 0; i < m->nsites; i++) {
		m->sites[i].id = m->index << PS_ID_SHIFT | (uint32_t)i;
		m->sites[i].mod = m;
	}
keep:
	ctx->added = m;
	ps.mods[m->index] = m;
	if (m->index >= atomic_load(&ps.nmods))
		atomic_store_explicit(&ps.nmods, m->index + 1, memory_order_release);
	return 0;
fail:
	ctx->err = err;
	ps_log(PATCHSITE_LOG_WARNING, "%s: cannot read its site tables: %s", m->path, strerror(-err));
	if (m->sites_map)
		munmap(m->sites, m->sites_map);
	else
		free(m->sites);
	m->sites = NULL;
	m->sites_map = 0;
	m->nsites = 0;
	goto keep;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	return module_add(info, arg) == -ENOMEM ? 1 : 0;
}

/* One object loaded after start-up, into slot index (-1: a new one).  ps.lock held. */
int ps_module_add(struct dl_phdr_info *info, int index, struct ps_module **out)
{
	struct scan_ctx ctx = { .self = (uintptr_t)&ps_modules_scan, .index = index };
	int err = module_add(info, &ctx);

	*out = ctx.added;
	return err ? err : ctx.err;
}

/* Free an unloaded object's record; no reader may still hold it (a grace period has passed). */
void ps_module_free(struct ps_module *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nsyms; i++)
		if (m->syms[i].shown && m->syms[i].shown != m->syms[i].name)
			free((char *)m->syms[i].shown);
	free(m->syms);
	if (m->sites_map)
		munmap(m->sites, m->sites_map);
	else
		free(m->sites);
	if (m->stubs)
		munmap(m->stubs, m->stubs_size);
	if (m->map)
		munmap(m->map, m->map_size);
	free(m->hook_slots);
	free(m->hook_slot_hook);
	free(m->path);
	free(m);
}

int ps_modules_scan(void)
{
	struct scan_ctx ctx = { .self = (uintptr_t)&ps_modules_scan, .index = -1 };
	size_t total = 0, k = 0;

	dl_iterate_phdr(scan_one, &ctx);
	for (unsigned i = 0; i < ps.nmods; i++)
		total += ps.mods[i]->nsites;
	ps.site_index = ps_calloc_large(total ? total : 1, sizeof(*ps.site_index));
	if (!ps.site_index)
		return -ENOMEM;
	for (unsigned i = 0; i < ps.nmods; i++) {
		ps.mods[i]->gbase = k;
		for (size_t j = 0; j < ps.mods[i]->nsites; j++) {
			ps.mods[i]->sites[j].gindex = (uint32_t)k;
			ps.site_index[k++] = &ps.mods[i]->sites[j];
		}
	}
	ps.nsites = total;
	return ctx.err;
}

struct ps_module *ps_module_of_id(uint32_t id)
{
	unsigned i = id >> PS_ID_SHIFT;

	return i < atomic_load_explicit(&ps.nmods, memory_order_acquire) ? ps.mods[i] : NULL;
}

struct ps_site *ps_site_by_id(uint32_t id)
{
	struct ps_module *m = ps.mods[id >> PS_ID_SHIFT];

	return &m->sites[id & PS_ID_MASK];
}

/* Async-signal-safe: modules and their site arrays never change once published. */
struct ps_site *ps_site_by_addr(uintptr_t addr)
{
	unsigned n = atomic_load_explicit(&ps.nmods, memory_order_acquire);

	for (unsigned i = 0; i < n; i++) {
		struct ps_module *m = ps.mods[i];
		size_t lo = 0, hi = m->nsites;

		if (addr < m->text_lo || addr >= m->text_hi)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (m->sites[mid].addr == addr)
				return &m->sites[mid];
			if (m->sites[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}

const struct ps_sym *ps_sym_by_addr(uintptr_t addr, const struct ps_module **mod)
{
	unsigned n = atomic_load_explicit(&ps.nmods, memory_order_acquire);

	for (unsigned i = 0; i < n; i++) {
		struct ps_module *m = ps.mods[i];

		if (addr < m->text_lo || addr >= m->text_hi)
			continue;
		if (mod)
			*mod = m;
		ps_module_syms(m);
		return module_sym(m, addr);
	}
	return NULL;
}

/*
 * The function at addr when an event stamped tsc was recorded, for a
 * caller's address that may lie in an object unloaded since.  Of the
 * unloaded objects whose code held addr, the first to leave after tsc
 * was the one mapped then (another one at that place came after it
 * left); if there is none, it is the object there now.
 */
const struct ps_sym *ps_sym_at(uintptr_t addr, uint64_t tsc)
{
	unsigned n = atomic_load_explicit(&ps.nmods, memory_order_acquire);
	const struct ps_module *then = NULL;

	for (unsigned i = 0; i < n; i++) {
		const struct ps_module *m = ps.mods[i];

		if (!m->gone || addr < m->was_lo || addr >= m->was_hi || tsc >= m->gone_tsc)
			continue;
		if (!then || m->gone_tsc < then->gone_tsc)
			then = m;
	}
	if (!then)
		return ps_sym_by_addr(addr, NULL);
	ps_module_syms((struct ps_module *)then);	/* from the file, which stays mapped */
	return module_sym(then, addr);
}

/* Mapped ranges from /proc/self/maps, in address order. */
struct range {
	uintptr_t lo, hi;
};

/* Room for /proc/self/maps at vm.max_map_count (65530) lines of up to 128 bytes. */
#define MAPS_BYTES	(8ul << 20)

/*
 * Every mapping, at r[1..n], with room for a sentinel on each side; *mem
 * is the mapping to munmap (MAPS_BYTES).  NULL on failure.  Nothing is
 * allocated once the list is read: a mapping made then (by malloc, or
 * ASan's allocator) would be missing from it, in the very gap we choose.
 * So the buffer is mapped first, and the ranges overwrite the text they
 * are read from (a line is longer than a range).
 */
static struct range *read_maps(size_t *np, void **mem)
{
	char *buf = mmap(NULL, MAPS_BYTES, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0), *line, *nl;
	struct range *r = (struct range *)buf;
	size_t n = 0, have = 0;
	ssize_t got = 0;
	int fd;

	if (buf == MAP_FAILED)
		return NULL;
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	while (fd >= 0 && have < MAPS_BYTES - 1 &&
	       (got = read(fd, buf + have, MAPS_BYTES - 1 - have)) > 0)
		have += (size_t)got;
	if (fd >= 0)
		close(fd);
	if (fd < 0 || got < 0 || have >= MAPS_BYTES - 1)
		goto fail;
	buf[have] = '\0';
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		unsigned long lo, hi;

		*nl = '\0';
		if (sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		if ((char *)&r[n + 2] > nl + 1)
			goto fail;	/* cannot be: a line shorter than a range */
		r[1 + n++] = (struct range){ lo, hi };
	}
	*np = n;
	*mem = buf;
	return r;
fail:
	munmap(buf, MAPS_BYTES);
	return NULL;
}

/*
 * Where the stubs of m go: in a gap of the address space within the call reach of
 * every site, as close to the text as we can get; 0 if there is none.
 */
static uintptr_t stub_place(const struct ps_module *m, size_t size, uintptr_t align)
{
	const uintptr_t reach = ps.arch->reach;
	uintptr_t lo_bound, hi_bound, best = 0, best_dist = UINTPTR_MAX;
	struct range *maps;
	void *mem;
	size_t n;

	lo_bound = m->text_hi > reach ? m->text_hi - reach : page_size() * 16;
	if (lo_bound < 0x10000)
		lo_bound = 0x10000;
	hi_bound = m->text_lo + reach;
	maps = read_maps(&n, &mem);
	if (!maps)
		return 0;
	/* Sentinels: the gaps before the first and after the last mapping. */
	maps[0] = (struct range){ 0, 0x10000 };
	maps[n + 1] = (struct range){ 0x7ffffffff000ul, 0x7ffffffff000ul };
	n += 2;
	for (size_t i = 0; i + 1 < n; i++) {
		uintptr_t glo = maps[i].hi, ghi = maps[i + 1].lo, a, dist;

		if (glo < lo_bound)
			glo = page_up(lo_bound);
		if (ghi > hi_bound)
			ghi = page_down(hi_bound);
		if (ghi <= glo || ghi - glo < size)
			continue;
		if (ghi <= m->text_lo) {
			/* Below the text: right under it, away from brk and the stack. */
			a = (ghi - size) & ~(align - 1);
			if (a < glo)
				continue;
			dist = m->text_lo - a;
		} else if (glo >= m->text_hi) {
			/* Above: leave room for the heap to grow if this gap follows it. */
			uintptr_t margin = (ghi - glo - size) / 2;

			if (margin > (256ul << 20))
				margin = 256ul << 20;
			a = (glo + margin + align - 1) & ~(align - 1);
			if (a + size > ghi || a + size < a)
				continue;
			dist = (a - m->text_hi) + (1ul << 40);	/* prefer below */
		} else {
			continue;
		}
		if (dist < best_dist) {
			best = a;
			best_dist = dist;
		}
	}
	munmap(mem, MAPS_BYTES);
	return best;
}

/*
 * The stub page of m, mapped where stub_place says.  The gap may be taken
 * between reading the maps and mapping (another thread's malloc, ASan's
 * allocator): then we look again, a few times.
 */
int ps_stubs_map(struct ps_module *m)
{
	size_t size, stub_bytes, mapped;
	uintptr_t best = 0, align = page_size();
	uint8_t *p = NULL;
	int err = 0;

	/* Mapped already: by patch.c first, where the idle site aims at its stub (make_idle). */
	if (!m->nsites || m->stubs)
		return 0;
	/* The stubs, then one data page for the trampoline slot. */
	stub_bytes = page_up(m->nsites * ps.arch->stub_size);
	if (stub_bytes >= (512ul << 10)) {
		/* Whole 2 MB pages of stubs (see mem.c): far fewer first-touch faults. */
		align = 2ul << 20;
		stub_bytes = (stub_bytes + align - 1) & ~(align - 1);
	}
	size = stub_bytes + page_size();
	for (int tries = 0; !p && tries < 8; tries++) {
		best = stub_place(m, size, align);
		if (!best) {
			ps_log(PATCHSITE_LOG_WARNING, "%s: no free address within %lu MB of its code "
			       "for %zu stubs: not traced", m->name, (unsigned long)(ps.arch->reach >> 20),
			       m->nsites);
			return -ENOMEM;
		}
		mapped = size;
		p = ps_map_zero(&mapped, false, best);
		err = p ? 0 : errno;
		if (err != EEXIST)
			break;
	}
	if (!p) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: cannot map stubs at %#lx: %s: not traced",
		       m->name, (unsigned long)best, strerror(err));
		return -err;
	}
	m->tramp_slot = (_Atomic uintptr_t *)(p + size - page_size());
	for (unsigned k = 0; k < SITE_KINDS; k++)
		atomic_store(&m->tramp_slot[k], (uintptr_t)ps.arch->tramp);
	for (size_t i = 0; i < m->nsites; i++) {
		uintptr_t at = (uintptr_t)p + i * ps.arch->stub_size;
		const struct ps_site *s = &m->sites[i];

		if (!ps.arch->write_stub((uint8_t *)at, at, s->id, s->kind == SITE_EXIT,
					 (uintptr_t)&m->tramp_slot[s->kind])) {
			munmap(p, size);
			m->tramp_slot = NULL;
			return -ERANGE;
		}
	}
	/* The stubs are new code: make them coherent before any site can reach them. */
	ps.arch->sync_icache(p, size - page_size());
	if (mprotect(p, size - page_size(), PROT_READ | PROT_EXEC) < 0) {
		int err = errno;

		munmap(p, size);
		m->tramp_slot = NULL;
		ps_log(PATCHSITE_LOG_ERROR, "%s: cannot make the stub page executable: %s%s",
		       m->name, strerror(err), err == EACCES || err == EPERM
		       ? " (a W^X policy: SELinux execmem, MemoryDenyWriteExecute or PR_SET_MDWE)"
		       : "");
		if (err == EACCES || err == EPERM)
			ps.can_write = false;
		return -err;
	}
	m->stubs = p;
	m->stubs_size = size;
	return 0;
}
