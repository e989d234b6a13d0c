// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loaded objects and their sites (the file behind an object is image.c's,
 * its symbols symbols.c's, its stubs stubs.c's).
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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sites.h"
#include "sites/got.h"
#include "pcrel_table.h"

static const char *const table_names[] = { "__mcount_loc", "__patchable_function_entries",
					   "__return_loc", PCREL_TABLE, NULL };
#define TABLE_RETURN	2	/* table_names[]: exit sites */
#define TABLE_PCREL	3	/* 32-bit entries: the site less the entry's own address */

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
		r = ps_file_at(f, rs->sh_offset, rs->sh_size);
		syms = ps_file_at(f, ss->sh_offset, ss->sh_size);
		str = ps_file_at(f, st->sh_offset, st->sh_size);
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

/*
 * Entries of one table, as runtime addresses inside the module's code.  A
 * pcrel table (recordmcount --pie-table) is read where it is loaded: each
 * entry is relative to its own runtime address.  back: bytes the site
 * starts before the call the table names (ps_arch.late_back).
 */
static int read_table(struct ps_module *m, const struct elf_file *f, const Elf64_Shdr *s,
		      const struct dl_phdr_info *info, enum site_kind kind, bool pcrel,
		      unsigned back)
{
	size_t ent = pcrel ? sizeof(int32_t) : sizeof(uint64_t);
	size_t n = s->sh_size / ent, base = m->nsites, k = 0;
	const uint8_t *words;
	struct ps_site *grown;

	if (s->sh_flags & SHF_ALLOC) {
		uintptr_t at = m->bias + s->sh_addr;

		if (!ps_image_readable(info, at, s->sh_size)) {
			ps_log(PATCHSITE_LOG_WARNING, "%s: %s is not in a loaded segment", m->name,
			       ps_section_name(f, s));
			return -ENOEXEC;
		}
		words = (const uint8_t *)at;
	} else if (pcrel) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: %s is not loaded: its entries have no place",
		       m->name, ps_section_name(f, s));
		return -ENOEXEC;
	} else {
		words = ps_file_at(f, s->sh_offset, s->sh_size);
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
		if (!pcrel && !ps_module_has_code(m, w - back, ps.arch->max_site_len + 4))
			w += m->bias;
		w -= back;
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

/* Any site table at all (an empty one too: the object chose its sites). */
static bool has_table(const struct elf_file *f)
{
	for (unsigned i = 0; i < f->eh->e_shnum; i++)
		for (unsigned t = 0; table_names[t]; t++)
			if (!strcmp(ps_section_name(f, &f->sh[i]), table_names[t]))
				return true;
	return false;
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
		sg->lo = ps_page_down(m->bias + q->p_vaddr);
		sg->hi = ps_page_up(m->bias + q->p_vaddr + q->p_memsz);
		sg->prot = PROT_EXEC | (q->p_flags & PF_R ? PROT_READ : 0) |
			   (q->p_flags & PF_W ? PROT_WRITE : 0);
		if (sg->lo < m->text_lo)
			m->text_lo = sg->lo;
		if (sg->hi > m->text_hi)
			m->text_hi = sg->hi;
	}
	m->index = ctx->index < 0 ? atomic_load(&ps.nmods) : (unsigned)ctx->index;
	err = ps_file_open(m, &f);
	if (err) {
		ps_log(PATCHSITE_LOG_NOTE, "%s: cannot read the file: %s", m->path, strerror(-err));
		goto keep;	/* still known, for addresses; no symbols, no sites */
	}
	if (!ps_file_matches_image(&f, info)) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: file on disk differs from the loaded image: "
		       "not traced", m->path);
		goto keep;
	}
	m->file_ok = true;
	err = ps_find_symbols(m, &f);
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
				if (!strcmp(ps_section_name(&f, &f.sh[i]), table_names[t]))
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
			if (!strcmp(ps_section_name(&f, &f.sh[i]), table_names[t]) && !err) {
				if (t == 0 && ps.arch->mcount_refused) {
					ps_log(PATCHSITE_LOG_WARNING, "%s: %s: its __mcount_loc "
					       "sites not traced", m->name, ps.arch->mcount_refused);
					continue;
				}
				m->mcount_table |= t == 0;
				err = read_table(m, &f, &f.sh[i], info,
						 t == TABLE_RETURN ? SITE_EXIT : SITE_ENTRY_HOOK,
						 t == TABLE_PCREL, t == 0 || t == TABLE_PCREL ?
						 ps.arch->late_back : 0);
			}
	if (!err && !m->nsites && !has_table(&f))
		err = ps_scan_late_sites(m, ps_module_calls_hook);
	if (!err && !m->nsites && !has_table(&f) && !m->sites_map)
		err = ps_noflag_sites(m, info);
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
	/* The executable's library calls: modules of their own, after the objects (got.c). */
	if (ps_got_scan() == -ENOMEM && !ctx.err)
		ctx.err = -ENOMEM;
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

		if ((addr < m->text_lo || addr >= m->text_hi) &&
		    (addr < m->ool_lo || addr >= m->ool_hi))
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

