// SPDX-License-Identifier: GPL-2.0-only
/*
 * Library calls through GOT slots (got.h has the model).
 *
 * The slots are found in the loaded image's dynamic section: DT_JMPREL's
 * JUMP_SLOT relocations (PLT calls, lazy or BIND_NOW), and with
 * PATCHSITE_LIBCALL=got also DT_RELA's GLOB_DAT ones of functions (what
 * -fno-plt calls go through; on request only, because `&foo` reads that
 * slot too and would then be the thunk, not the function).
 *
 * Every binding mode is made the same before anything is switched: a slot
 * that still points into its own object (lazy binding, not called yet) is
 * resolved here with dlsym/dlvsym (resolve() says how), as the dynamic
 * linker would resolve it from the global scope; IFUNCs come back resolved.
 * The slot is bound to it there and then (uftrace's resolve-first), and a
 * thunk jumps to it, so the lazy resolver never writes a slot behind us.
 *
 * Switching is one aligned 8-byte store per slot, into a page that is
 * RELRO for BIND_NOW objects: those pages are made writable for the batch
 * and read-only again after it, as the dynamic linker left them.  A slot
 * found holding neither what we stored nor what the linker could have
 * stored is refused and left alone.  Thunks and targets are never freed:
 * a thread may still be between a slot and its function.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "got.h"
#include "got_families.h"
#include "sites.h"

struct got_slot {
	uintptr_t *slot;		/* the GOT word */
	uintptr_t orig;			/* what it held at start-up (lazy: its PLT entry) */
	uintptr_t first;		/* where its calls went at start-up (resolve()) */
	const char *lib;		/* basename of the object that defines the function */
	const char *why;		/* refused: why */
};

struct got_mod {
	struct ps_module *m;
	struct ps_module *caller;
	struct got_slot *slots;		/* parallel to m->sites */
	_Atomic uintptr_t *targets;	/* what each thunk jumps to (in the thunks' data page) */
	uintptr_t relro_lo, relro_hi;	/* the caller's PT_GNU_RELRO, page-aligned (0, 0: none) */
	char *pool;			/* names, copied: they outlive the image */
};

static struct got_mod *gmods[PS_MAX_MODULES];

/* The image's dynamic section, its pointers relocated (glibc adjusts them in place, or not). */
struct dyn {
	const Elf64_Sym *sym;
	const char *str;
	size_t strsz;
	const Elf64_Rela *jmprel, *rela;
	size_t jmpsz, relasz;
	bool plt_rela;
	const Elf64_Half *versym;
	const Elf64_Verneed *verneed;
	size_t nverneed;
};

/* PATCHSITE_LIBCALL: plt, got, nest (plt from every object), nest-got, or off. */
static enum ps_libcall_mode libcall_mode(bool *nest)
{
	const char *v = getenv("PATCHSITE_LIBCALL");

	*nest = v && !strncmp(v, "nest", 4);
	if (!v || !*v || !strcmp(v, "0") || !strcmp(v, "off"))
		return PS_LIBCALL_OFF;
	if (!strcmp(v, "1") || !strcmp(v, "plt") || !strcmp(v, "nest"))
		return PS_LIBCALL_PLT;
	if (!strcmp(v, "got") || !strcmp(v, "nest-got"))
		return PS_LIBCALL_GOT;
	ps_log(PATCHSITE_LOG_ERROR, "PATCHSITE_LIBCALL=%s: expected plt, got, nest, nest-got or "
	       "off: library calls not traced", v);
	return PS_LIBCALL_OFF;
}

/*
 * Objects whose own calls are never switched (nest): the ones the tracer
 * itself calls into, or that run under it, so that a call the runtime
 * makes never comes back to a trampoline (uftrace#744): the C library and
 * the dynamic linker (the runtime's own calls end there), the unwinder
 * and the C++ runtime (its unwinding and demangling), sanitizer runtimes.
 */
static const char *const own_callers[] = {
	"libc.so*", "ld-linux*", "ld64.so*", "libgcc_s.so*", "libstdc++.so*", "libasan.so*",
	"libubsan.so*", "libtsan.so*", "liblsan.so*", "libhwasan.so*", NULL
};

static bool never_caller(const struct ps_module *m)
{
	for (unsigned i = 0; own_callers[i]; i++)
		if (!fnmatch(own_callers[i], m->name, 0))
			return true;
	return false;
}

static const void *dyn_ptr(uintptr_t bias, uint64_t v)
{
	return (const void *)(uintptr_t)(v < bias ? v + bias : v);
}

static bool read_dyn(const struct dl_phdr_info *info, struct dyn *d)
{
	const Elf64_Dyn *dy = NULL;

	memset(d, 0, sizeof(*d));
	for (unsigned i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dy = (const Elf64_Dyn *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	for (; dy && dy->d_tag != DT_NULL; dy++) {
		uintptr_t b = info->dlpi_addr;

		switch (dy->d_tag) {
		case DT_SYMTAB: d->sym = dyn_ptr(b, dy->d_un.d_ptr); break;
		case DT_STRTAB: d->str = dyn_ptr(b, dy->d_un.d_ptr); break;
		case DT_STRSZ: d->strsz = dy->d_un.d_val; break;
		case DT_JMPREL: d->jmprel = dyn_ptr(b, dy->d_un.d_ptr); break;
		case DT_PLTRELSZ: d->jmpsz = dy->d_un.d_val; break;
		case DT_PLTREL: d->plt_rela = dy->d_un.d_val == DT_RELA; break;
		case DT_RELA: d->rela = dyn_ptr(b, dy->d_un.d_ptr); break;
		case DT_RELASZ: d->relasz = dy->d_un.d_val; break;
		case DT_VERSYM: d->versym = dyn_ptr(b, dy->d_un.d_ptr); break;
		case DT_VERNEED: d->verneed = dyn_ptr(b, dy->d_un.d_ptr); break;
		case DT_VERNEEDNUM: d->nverneed = dy->d_un.d_val; break;
		}
	}
	if (!d->plt_rela)
		d->jmprel = NULL;	/* DT_REL PLTs are not x86-64's or aarch64's */
	return d->sym && d->str;
}

/* The version a symbol is needed at ("GLIBC_2.2.5"), or NULL. */
static const char *needed_version(const struct dyn *d, size_t sym)
{
	const Elf64_Verneed *vn = d->verneed;
	unsigned v;

	if (!d->versym || !vn)
		return NULL;
	v = d->versym[sym] & 0x7fff;
	if (v < 2)
		return NULL;
	for (size_t i = 0; i < d->nverneed; i++) {
		const Elf64_Vernaux *a = (const Elf64_Vernaux *)((const char *)vn + vn->vn_aux);

		for (unsigned k = 0; k < vn->vn_cnt; k++) {
			if (a->vna_other == v && a->vna_name < d->strsz)
				return d->str + a->vna_name;
			a = (const Elf64_Vernaux *)((const char *)a + a->vna_next);
		}
		if (!vn->vn_next)
			break;
		vn = (const Elf64_Verneed *)((const char *)vn + vn->vn_next);
	}
	return NULL;
}

/* One slot a relocation binds: name, version, where. */
struct cand {
	const char *name, *version;
	uintptr_t *slot;
};

/* The slots of kind type in relocs (bytes of them); GLOB_DAT: functions only. */
static size_t collect(const struct dyn *d, uintptr_t bias, const Elf64_Rela *r, size_t bytes,
		      uint32_t type, bool funcs_only, struct cand *out, size_t n)
{
	for (size_t i = 0; r && i < bytes / sizeof(*r); i++) {
		size_t si = ELF64_R_SYM(r[i].r_info);
		const Elf64_Sym *s = &d->sym[si];
		unsigned st = ELF64_ST_TYPE(s->st_info);

		if (ELF64_R_TYPE(r[i].r_info) != type || !si || s->st_name >= d->strsz)
			continue;
		if (funcs_only && st != STT_FUNC && st != STT_GNU_IFUNC)
			continue;
		if (out) {
			out[n].name = d->str + s->st_name;
			out[n].version = needed_version(d, si);
			out[n].slot = (uintptr_t *)(bias + r[i].r_offset);
		}
		n++;
	}
	return n;
}

/*
 * Where a call through the slot goes: what it holds once bound; while it
 * still points into its own object (a lazy PLT entry) the symbol looked up
 * as the dynamic linker's global scope would.  0: nowhere (weak, unbound).
 */
static uintptr_t resolve(const struct ps_module *caller, const struct cand *c)
{
	uintptr_t cur = __atomic_load_n(c->slot, __ATOMIC_RELAXED);
	void *first, *exact;
	Dl_info a, b;

	if (!cur || !ps_module_has_code(caller, cur, 1))
		return cur;
	/*
	 * The first object in the scope that defines the name wins, as in the
	 * dynamic linker: an interposer without versions (a sanitizer's malloc)
	 * too, where dlvsym would skip it.  Within that object, the version the
	 * slot needs (an old memcpy@GLIBC_2.2.5, not the default).
	 */
	first = dlsym(RTLD_DEFAULT, c->name);
	exact = c->version ? dlvsym(RTLD_DEFAULT, c->name, c->version) : NULL;
	if (!first || !exact)
		return (uintptr_t)(first ? first : exact);
	if (dladdr(first, &a) && dladdr(exact, &b) && a.dli_fbase == b.dli_fbase)
		return (uintptr_t)exact;
	return (uintptr_t)first;
}

#define LIB_NAME_MAX	256		/* bytes kept of a library's basename */

static const char *lib_of(uintptr_t target, char **pool)
{
	Dl_info di;
	const char *base;
	size_t len;

	if (!dladdr((void *)target, &di) || !di.dli_fname)
		return NULL;
	base = strrchr(di.dli_fname, '/') ? strrchr(di.dli_fname, '/') + 1 : di.dli_fname;
	len = strnlen(base, LIB_NAME_MAX - 1);
	memcpy(*pool, base, len);
	(*pool)[len] = '\0';
	*pool += len + 1;
	return *pool - len - 1;
}

/* The thunks, then one data page: the trampoline slots by site kind, then the targets. */
static int map_thunks(struct got_mod *g, size_t n)
{
	struct ps_module *m = g->m;
	size_t code = ps_page_up(n * ps.arch->slot_thunk_size);
	size_t data = ps_page_up((SITE_KINDS + n) * sizeof(uintptr_t));
	uint8_t *p = mmap(NULL, code + data, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	m->stubs = p;
	m->stubs_size = code + data;
	m->tramp_slot = (_Atomic uintptr_t *)(p + code);
	for (unsigned k = 0; k < SITE_KINDS; k++)
		atomic_store(&m->tramp_slot[k], ps.tramp);
	g->targets = (_Atomic uintptr_t *)(p + code) + SITE_KINDS;
	for (size_t i = 0; i < n; i++) {
		uintptr_t at = (uintptr_t)p + i * ps.arch->slot_thunk_size;

		if (!ps.arch->write_slot_thunk((uint8_t *)at, at, m->sites[i].id,
					       (uintptr_t)&m->tramp_slot[m->sites[i].kind],
					       (uintptr_t)&g->targets[i]))
			return -ERANGE;
		m->sites[i].addr = at;
		m->syms[i].addr = at;
		atomic_store(&g->targets[i], g->slots[i].first);
	}
	ps.arch->sync_icache(p, code);
	if (mprotect(p, code, PROT_READ | PROT_EXEC) < 0)
		return -errno;
	m->segs[0] = (struct ps_seg){ (uintptr_t)p, (uintptr_t)p + code, PROT_READ | PROT_EXEC };
	m->nsegs = 1;
	m->text_lo = (uintptr_t)p;
	m->text_hi = (uintptr_t)p + code;
	return 0;
}

/* The sites of one slot each; names copied into one pool. */
static int fill_sites(struct got_mod *g, const struct cand *c, size_t n)
{
	struct ps_module *m = g->m;
	uintptr_t self = (uintptr_t)&ps_got_scan;
	size_t bytes = 0;
	char *at;

	for (size_t i = 0; i < n; i++)
		bytes += strlen(c[i].name) + 1 + LIB_NAME_MAX;
	g->pool = malloc(bytes + 1);
	m->sites = calloc(n, sizeof(*m->sites));
	m->syms = calloc(n, sizeof(*m->syms));
	g->slots = calloc(n, sizeof(*g->slots));
	if (!g->pool || !m->sites || !m->syms || !g->slots)
		return -ENOMEM;
	at = g->pool;
	m->nsites = m->nsyms = n;
	for (size_t i = 0; i < n; i++) {
		struct ps_site *s = &m->sites[i];
		struct got_slot *gs = &g->slots[i];
		size_t len = strlen(c[i].name) + 1;
		uintptr_t target = resolve(g->caller, &c[i]);

		m->syms[i] = (struct ps_sym){ .size = ps.arch->slot_thunk_size, .name = at,
					      .order = i };
		memcpy(at, c[i].name, len);
		at += len;
		*s = (struct ps_site){ .id = m->index << PS_ID_SHIFT | (uint32_t)i,
				       .kind = SITE_ENTRY_HOOK, .len = 0, .sym = &m->syms[i],
				       .mod = m, .state = SITE_NOP };
		gs->slot = c[i].slot;
		gs->orig = __atomic_load_n(c[i].slot, __ATOMIC_RELAXED);
		gs->first = target;
		gs->lib = target ? lib_of(target, &at) : NULL;
		gs->why = ps_got_family(c[i].name);
		if (!gs->why && !target)
			gs->why = "not bound (a weak symbol no object defines)";
		for (unsigned k = 0; !gs->why && k < ps.nmods; k++)
			if (ps_module_has_code(ps.mods[k], self, 1) &&
			    ps_module_has_code(ps.mods[k], target, 1))
				gs->why = "the tracer's own (an interposer of patchsite's)";
		if (gs->why) {
			s->state = SITE_REFUSED;
		} else if (target != gs->orig && ((uintptr_t)gs->slot < g->relro_lo ||
						  (uintptr_t)gs->slot >= g->relro_hi)) {
			/*
			 * Lazy: bound now, to what the resolver would bind, so that it
			 * never writes the slot later, between our check and our store.
			 */
			__atomic_store_n(gs->slot, target, __ATOMIC_RELEASE);
			gs->orig = target;
		}
	}
	return 0;
}

static void relro_of(struct got_mod *g, const struct dl_phdr_info *info)
{
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[i];

		if (q->p_type != PT_GNU_RELRO)
			continue;
		/* As the dynamic linker protects it: whole pages inside the segment. */
		g->relro_lo = ps_page_down(info->dlpi_addr + q->p_vaddr);
		g->relro_hi = ps_page_down(info->dlpi_addr + q->p_vaddr + q->p_memsz);
	}
}

static void got_free(struct got_mod *g)
{
	if (g->m) {
		if (g->m->stubs)
			munmap(g->m->stubs, g->m->stubs_size);
		free(g->m->sites);
		free(g->m->syms);
		free(g->m->path);
		free(g->m);
	}
	free(g->slots);
	free(g->pool);
	free(g);
}

/* The library-call module of the object info describes, called caller in ps.mods. */
static int add_caller(struct ps_module *caller, const struct dl_phdr_info *info,
		      enum ps_libcall_mode mode)
{
	unsigned idx = atomic_load(&ps.nmods);
	struct got_mod *g;
	struct cand *c = NULL;
	struct dyn d;
	size_t n;
	int err = -ENOMEM;

	if (!read_dyn(info, &d))
		return 0;
	n = collect(&d, info->dlpi_addr, d.jmprel, d.jmpsz, ps.arch->jump_slot_type, false,
		    NULL, 0);
	if (mode == PS_LIBCALL_GOT)
		n = collect(&d, info->dlpi_addr, d.rela, d.relasz, ps.arch->glob_dat_type, true,
			    NULL, n);
	if (!n)
		return 0;
	if (idx >= PS_MAX_MODULES) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: more than %d objects: library calls not "
		       "traced", caller->path, PS_MAX_MODULES);
		return -ENOSPC;
	}
	g = calloc(1, sizeof(*g));
	c = calloc(n, sizeof(*c));
	if (!g || !c || !(g->m = calloc(1, sizeof(*g->m))) ||
	    asprintf(&g->m->path, "%s (library calls)", caller->path) < 0) {
		if (g && g->m)
			g->m->path = NULL;
		goto out;
	}
	n = collect(&d, info->dlpi_addr, d.jmprel, d.jmpsz, ps.arch->jump_slot_type, false, c, 0);
	if (mode == PS_LIBCALL_GOT)
		n = collect(&d, info->dlpi_addr, d.rela, d.relasz, ps.arch->glob_dat_type, true,
			    c, n);
	g->caller = caller;
	/*
	 * Named as the caller (filters' :mod:, and the loader sync keeps it while an
	 * object of that name and bias is loaded); the path says what it is (info).
	 */
	g->m->name = caller->name;
	g->m->bias = caller->bias;	/* the loader sync keeps it while the caller is loaded */
	g->m->index = idx;
	g->m->syms_loaded = true;
	relro_of(g, info);
	err = fill_sites(g, c, n);
	if (!err)
		err = map_thunks(g, n);
	if (err)
		goto out;
	gmods[idx] = g;
	ps.mods[idx] = g->m;
	atomic_store_explicit(&ps.nmods, idx + 1, memory_order_release);
	ps_log(PATCHSITE_LOG_NOTE, "%s: %zu library-call slots", caller->name, n);
	for (size_t i = 0; i < n; i++)
		if (g->slots[i].why)
			ps_log(PATCHSITE_LOG_NOTE, "%s: %s: library calls not traced: %s",
			       caller->name, g->m->syms[i].name, g->slots[i].why);
	g = NULL;
out:
	if (err)
		ps_log(PATCHSITE_LOG_WARNING, "%s: library calls not traced: %s", caller->path,
		       strerror(-err));
	if (g)
		got_free(g);
	free(c);
	return err;
}

struct scan_arg {
	enum ps_libcall_mode mode;
	bool nest;
	bool done;
	struct dyn own;			/* the runtime's own object (it may be the program) */
	uintptr_t own_bias;
	bool own_found;
	/*
	 * The objects to scan, added once dl_iterate_phdr has returned: its
	 * callback holds the loader's list lock, and add_caller's dlsym takes
	 * dl_load_lock, which a dlopen holds while it waits for the list lock.
	 */
	struct found {
		struct ps_module *m;
		struct dl_phdr_info info;	/* its phdr stays valid while it is loaded */
	} found[PS_MAX_MODULES];
	unsigned n;
};

/* The object holding this code: its dynamic section, for our own slots. */
static int find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan_arg *a = arg;
	uintptr_t self = (uintptr_t)&ps_got_scan;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[i];

		if (q->p_type == PT_LOAD && self >= info->dlpi_addr + q->p_vaddr &&
		    self < info->dlpi_addr + q->p_vaddr + q->p_memsz) {
			a->own_found = read_dyn(info, &a->own);
			a->own_bias = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

/*
 * Why the calls m makes are patchsite's own, or NULL: the runtime lives in
 * m (linked in), or one of the runtime's own GOT slots leads into m's code
 * (a program or library that defines malloc: the runtime's malloc calls
 * run m's code, and its library calls would come back to a trampoline).
 */
static const char *ours(const struct scan_arg *a, const struct ps_module *m)
{
	const struct dyn *d = &a->own;
	const Elf64_Rela *rs[2] = { d->jmprel, d->rela };
	size_t bytes[2] = { d->jmpsz, d->relasz };

	if (ps_module_has_code(m, (uintptr_t)&ps_got_scan, 1))
		return "patchsite is linked into it";
	for (unsigned k = 0; a->own_found && k < 2; k++)
		for (size_t i = 0; rs[k] && i < bytes[k] / sizeof(Elf64_Rela); i++) {
			uint32_t t = ELF64_R_TYPE(rs[k][i].r_info);
			size_t si = ELF64_R_SYM(rs[k][i].r_info);
			const char *name = d->str + d->sym[si].st_name;
			uintptr_t v;

			if ((t != ps.arch->jump_slot_type && t != ps.arch->glob_dat_type) || !si ||
			    d->sym[si].st_name >= d->strsz)
				continue;
			/* The C runtime's start-up hooks: called by our _init, before any tracing. */
			if (!strcmp(name, "__gmon_start__") || !strncmp(name, "_ITM_", 5))
				continue;
			v = *(const uintptr_t *)(a->own_bias + rs[k][i].r_offset);
			if (ps_module_has_code(m, v, 1))
				return "it defines a function patchsite calls";
		}
	return NULL;
}

/*
 * The executable is the first object dl_iterate_phdr reports; with nest,
 * every other object loaded now too, but the never_caller ones.
 */
static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan_arg *a = arg;
	const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
	bool exe = !a->done;

	(void)size;
	if (a->done && !a->nest)
		return 1;
	a->done = true;
	for (unsigned i = 0; i < ps.nmods && a->n < PS_MAX_MODULES; i++) {
		struct ps_module *m = ps.mods[i];

		if (m->gone || gmods[i] || m->bias != info->dlpi_addr || !m->file_ok)
			continue;
		if (!exe && (!base || strcmp(base + 1, m->name)))
			continue;
		if (!exe && never_caller(m))
			ps_log(PATCHSITE_LOG_NOTE, "%s: its library calls not traced: patchsite "
			       "itself calls into it or runs under it", m->name);
		else if (ours(a, m))
			ps_log(PATCHSITE_LOG_WARNING, "%s: its library calls not traced: %s (they "
			       "would trace patchsite's own calls)", m->name, ours(a, m));
		else
			a->found[a->n++] = (struct found){ m, *info };
		break;
	}
	return 0;
}

int ps_got_scan(void)
{
	static struct scan_arg a;	/* start-up only, under ps.lock: too large for a stack */
	int err = 0;

	memset(&a, 0, sizeof(a));
	a.mode = libcall_mode(&a.nest);

	if (a.mode == PS_LIBCALL_OFF)
		return 0;
	if (!ps.arch->write_slot_thunk) {
		ps_log(PATCHSITE_LOG_ERROR, "PATCHSITE_LIBCALL: library calls are not traced on "
		       "%s yet (x86-64 only)", ps.arch->name);
		return 0;
	}
	dl_iterate_phdr(find_own, &a);
	dl_iterate_phdr(scan_one, &a);
	for (unsigned i = 0; i < a.n && err != -ENOMEM; i++)
		err = add_caller(a.found[i].m, &a.found[i].info, a.mode);
	return err == -ENOMEM ? err : 0;
}

bool ps_got_module(const struct ps_module *m)
{
	return m->index < PS_MAX_MODULES && gmods[m->index] && gmods[m->index]->m == m;
}

static struct got_slot *slot_of(const struct ps_site *s)
{
	return ps_got_module(s->mod) ? &gmods[s->mod->index]->slots[s->id & PS_ID_MASK] : NULL;
}

const char *ps_got_library(const struct ps_site *s)
{
	struct got_slot *gs = slot_of(s);

	return gs ? gs->lib : NULL;
}

const char *ps_got_refused(const struct ps_site *s)
{
	struct got_slot *gs = slot_of(s);

	return gs ? gs->why : NULL;
}

/*
 * Whether site i changes, after checking its slot: switching on, the slot
 * must hold its start-up value or a bound function (the lazy resolver may
 * have bound it since: that is then the target); switching off, our thunk.
 */
static bool slot_pending(struct got_mod *g, size_t i, enum site_state *to)
{
	struct ps_site *s = &g->m->sites[i];
	struct got_slot *gs = &g->slots[i];
	uintptr_t cur;

	if (s->state == SITE_REFUSED)
		return false;
	*to = atomic_load_explicit(&s->want, memory_order_relaxed) ? SITE_CALL : SITE_NOP;
	if (*to == s->state)
		return false;
	cur = __atomic_load_n(gs->slot, __ATOMIC_RELAXED);
	if (*to == SITE_CALL && cur != gs->orig && cur != atomic_load(&g->targets[i])) {
		if (ps_module_has_code(g->caller, cur, 1) || !cur) {
			ps_log_site(PATCHSITE_LOG_WARNING, s, "GOT slot holds %#lx, not its function "
				    "or PLT entry: changed behind our back, refused", (unsigned long)cur);
			s->state = SITE_REFUSED;
			return false;
		}
		atomic_store(&g->targets[i], cur);	/* bound since, by the dynamic linker */
	}
	if (*to == SITE_NOP && cur != s->addr) {
		ps_log_site(PATCHSITE_LOG_WARNING, s, "GOT slot holds %#lx, not our thunk: changed "
			    "behind our back, left alone", (unsigned long)cur);
		s->state = SITE_REFUSED;
		return false;
	}
	if (*to == SITE_CALL && !atomic_load(&g->targets[i]))
		atomic_store(&g->targets[i], cur);	/* never 0: resolve() said where it goes */
	return true;
}

static bool in_relro(const struct got_mod *g, const uintptr_t *slot)
{
	return (uintptr_t)slot >= g->relro_lo && (uintptr_t)slot < g->relro_hi;
}

/* The pending slots of one module; RELRO writable once for all of them. */
static size_t update_one(struct got_mod *g)
{
	size_t n = 0, relro = 0;
	enum site_state to;

	for (size_t i = 0; i < g->m->nsites; i++)
		if (slot_pending(g, i, &to))
			n++, relro += in_relro(g, g->slots[i].slot);
	if (relro && mprotect((void *)g->relro_lo, g->relro_hi - g->relro_lo,
			      PROT_READ | PROT_WRITE) < 0) {
		ps_log(PATCHSITE_LOG_ERROR, "%s: cannot make its RELRO GOT writable: %s",
		       g->caller->name, strerror(errno));
		return 0;
	}
	for (size_t i = 0; n && i < g->m->nsites; i++) {
		struct ps_site *s = &g->m->sites[i];

		if (s->state == SITE_REFUSED)
			continue;
		to = atomic_load_explicit(&s->want, memory_order_relaxed) ? SITE_CALL : SITE_NOP;
		if (to == s->state)
			continue;
		/* The target was stored before: a thread that reads the thunk finds it. */
		__atomic_store_n(g->slots[i].slot, to == SITE_CALL ? s->addr
				 : atomic_load(&g->targets[i]), __ATOMIC_RELEASE);
		s->state = to;
	}
	if (relro && mprotect((void *)g->relro_lo, g->relro_hi - g->relro_lo, PROT_READ) < 0)
		ps_log(PATCHSITE_LOG_ERROR, "%s: cannot make its RELRO GOT read-only again: %s",
		       g->caller->name, strerror(errno));
	return n;
}

size_t ps_got_update(void)
{
	size_t n = 0;

	for (unsigned k = 0; k < ps.nmods; k++)
		if (gmods[k] && gmods[k]->m == ps.mods[k] && !ps.mods[k]->gone)
			n += update_one(gmods[k]);
	return n;
}
