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
 * resolved here with dlsym/dlvsym (got_got_resolve() says how), as the dynamic
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
#include "got_dyn.h"
#include "got_families.h"
#include "got_mod.h"
#include "got_uses.h"
#include "sites.h"

struct got_mod *got_mods[PS_MAX_MODULES];
struct got_boot got_boot;

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

bool got_never_caller(const struct ps_module *m)
{
	for (unsigned i = 0; own_callers[i]; i++)
		if (!fnmatch(own_callers[i], m->name, 0))
			return true;
	return false;
}

/* The thunks, then one data page: the trampoline slots by site kind, then the targets. */
static int map_thunks(struct got_mod *g, size_t n, struct got_mod *reuse)
{
	struct ps_module *m = g->m;
	size_t code = ps_page_up(n * ps.arch->slot_thunk_size);
	size_t data = ps_page_up((SITE_KINDS + n) * sizeof(uintptr_t));
	uint8_t *p = reuse ? reuse->m->stubs : mmap(NULL, code + data, PROT_READ | PROT_WRITE,
						    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	if (reuse)
		reuse->m->stubs = NULL;		/* taken over: its record never unmaps it */
	m->stubs = p;
	m->stubs_size = code + data;
	m->tramp_slot = (_Atomic uintptr_t *)(p + code);
	for (unsigned k = 0; k < SITE_KINDS; k++)
		atomic_store(&m->tramp_slot[k], ps.tramp);
	g->targets = (_Atomic uintptr_t *)(p + code) + SITE_KINDS;
	for (size_t i = 0; i < n; i++) {
		uintptr_t at = (uintptr_t)p + i * ps.arch->slot_thunk_size;

		/* The same index and slots: the same code, only the targets are new. */
		if (reuse) {
			m->sites[i].addr = m->syms[i].addr = at;
			atomic_store(&g->targets[i], g->slots[i].first);
			continue;
		}
		if (!ps.arch->write_slot_thunk((uint8_t *)at, at, m->sites[i].id,
					       (uintptr_t)&m->tramp_slot[m->sites[i].kind],
					       (uintptr_t)&g->targets[i]))
			return -ERANGE;
		m->sites[i].addr = at;
		m->syms[i].addr = at;
		atomic_store(&g->targets[i], g->slots[i].first);
	}
	if (!reuse) {
		ps.arch->sync_icache(p, code);
		if (mprotect(p, code, PROT_READ | PROT_EXEC) < 0)
			return -errno;
	}
	m->segs[0] = (struct ps_seg){ (uintptr_t)p, (uintptr_t)p + code, PROT_READ | PROT_EXEC };
	m->nsegs = 1;
	m->text_lo = (uintptr_t)p;
	m->text_hi = (uintptr_t)p + code;
	return 0;
}

/*
 * Whether the function at target has an entry site of its own (a library
 * built with -pg, a plugin): then its library traces it, and a thunk on
 * the slot would show every call twice, the callee inside itself.
 */
static bool traced_by_its_object(uintptr_t target)
{
	unsigned n = atomic_load_explicit(&ps.nmods, memory_order_acquire);

	for (unsigned i = 0; i < n; i++) {
		struct ps_module *m = ps.mods[i];
		size_t lo = 0, hi = m->nsites;

		if (target < m->text_lo || target >= m->text_hi || !m->nsites)
			continue;
		ps_module_syms(m);	/* sites learn their function (loaded lazily) */
		while (lo < hi) {	/* the first site at or after target */
			size_t mid = lo + (hi - lo) / 2;

			if (m->sites[mid].addr < target)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < m->nsites && m->sites[lo].sym && m->sites[lo].sym->addr == target; lo++)
			if (m->sites[lo].kind != SITE_EXIT && m->sites[lo].state != SITE_REFUSED)
				return true;
		return false;
	}
	return false;
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
		uintptr_t target = c[i].known ? c[i].target : got_resolve(g->caller, &c[i], NULL);

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
		gs->lib = !target ? NULL : c[i].known ? got_lib_copy(c[i].lib, &at)
			  : got_lib_of(target, &at);
		gs->why = ps_got_family(c[i].name);
		if (!gs->why)
			gs->why = c[i].why;
		if (!gs->why && (c[i].other & ps.arch->variant_pcs))
			gs->why = ps.arch->variant_pcs_why;
		if (!gs->why && c[i].canonical)
			gs->why = "its PLT entry is the function's address in every object (a non-PIE "
				  "executable's): their calls, patchsite's own too, come through the slot";
		if (!gs->why && !target)
			gs->why = "not bound (a weak symbol no object defines)";
		if (!gs->why && traced_by_its_object(target))
			gs->why = "traced by its own object's patch site (shown once)";
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

/* The thunks of reuse serve g only if every slot has the same name (ids are by order). */
static bool same_names(const struct got_mod *g, const struct got_mod *reuse)
{
	for (size_t i = 0; i < g->m->nsites; i++)
		if (strcmp(g->m->syms[i].name, reuse->m->syms[i].name))
			return false;
	return true;
}

void got_free(struct got_mod *g)
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

/*
 * The GLOB_DAT function slots of d that are sites in mode, into out[n...]:
 * every one (got), or the ones got_find_uses kept (plt).
 */
static size_t glob_dat(const struct dyn *d, uintptr_t bias, enum ps_libcall_mode mode,
		       const struct got_uses *u, struct cand *out, size_t n)
{
	if (mode == PS_LIBCALL_GOT)
		return got_collect(d, bias, d->rela, d->relasz, ps.arch->glob_dat_type, true, out, n);
	for (size_t i = 0; u && i < u->ncalls; i++, n++)
		if (out)
			out[n] = u->calls[i];
	return n;
}

/* How many slots of the object d describes are library-call sites in mode: its PLT's, then glob_dat's. */
size_t got_count(const struct dyn *d, uintptr_t bias, enum ps_libcall_mode mode,
		 const struct got_uses *u)
{
	size_t n = got_collect(d, bias, d->jmprel, d->jmpsz, ps.arch->jump_slot_type, false,
			       NULL, 0);

	return glob_dat(d, bias, mode, u, NULL, n);
}

/* ... and those slots, into c (got_count() of them). */
void got_gather(const struct dyn *d, uintptr_t bias, enum ps_libcall_mode mode,
		const struct got_uses *u, struct cand *c)
{
	size_t n = got_collect(d, bias, d->jmprel, d->jmpsz, ps.arch->jump_slot_type, false, c, 0);

	glob_dat(d, bias, mode, u, c, n);
}

/*
 * In plt mode, the uses of caller's GLOB_DAT slots (got_uses.c), and the
 * slots calls go through (u->calls), a slot whose value is also used as
 * data among them refused (got_left_alone).  Where no proof is made on
 * this arch, said once for the object (a note: most objects have such
 * slots, for `&func` alone).
 */
void got_find_uses(const struct ps_module *caller, const struct dl_phdr_info *info,
		   const struct dyn *d, struct got_uses *u)
{
	uint32_t type = ps.arch->glob_dat_type;
	size_t all;

	memset(u, 0, sizeof(*u));
	if (got_boot.mode != PS_LIBCALL_PLT)
		return;
	got_uses_find(caller, info, d, u);
	if (u->why)
		ps_log(PATCHSITE_LOG_NOTE, "%s: calls through its GLOB_DAT slots (-fno-plt) not "
		       "traced: %s (--libcall=got traces them)", caller->name, u->why);
	if (!u->use)
		return;
	all = got_collect(d, info->dlpi_addr, d->rela, d->relasz, type, true, NULL, 0);
	u->calls = calloc(all ? all : 1, sizeof(*u->calls));
	if (!u->calls)
		return;
	got_collect(d, info->dlpi_addr, d->rela, d->relasz, type, true, u->calls, 0);
	for (size_t i = 0; i < all; i++) {
		unsigned use = got_uses_of(u, (uintptr_t)u->calls[i].slot);

		if (!(use & SLOT_USE_CALL))
			continue;	/* no call goes through it: an address taken, no library call */
		u->calls[u->ncalls] = u->calls[i];
		u->calls[u->ncalls++].why = use & SLOT_USE_DATA ? got_left_alone : NULL;
	}
}

/* The slots left alone as data (got_left_alone), said once on stderr: how many, and which. */
static void say_left_alone(const struct got_mod *g)
{
	char names[400];
	size_t n = 0, at = 0;

	names[0] = '\0';
	for (size_t i = 0; i < g->m->nsites; i++) {
		if (g->slots[i].why != got_left_alone)
			continue;
		if (at + 2 < sizeof(names))
			at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s", n ? ", " : "",
					       g->m->syms[i].name);
		n++;
	}
	if (n)
		ps_log(PATCHSITE_LOG_WARNING, "%s: %zu library-call slot%s left alone (patchsite "
		       "info names them; --libcall=got traces them): %s: %s%s",
		       g->caller->name, n, n == 1 ? "" : "s", got_left_alone, names,
		       at + 2 < sizeof(names) ? "" : ", ...");
}

/*
 * The library-call module of the object info describes, called caller in
 * ps.mods: appended, or in reuse's index with reuse's thunks (the same
 * file again, got_dlopen.c).  pre: its slots, found and resolved before
 * (NULL: read and resolved here, at start-up).
 */
int got_add_caller(struct ps_module *caller, const struct dl_phdr_info *info,
		   const struct got_pre *pre, struct got_mod *reuse)
{
	enum ps_libcall_mode mode = got_boot.mode;
	unsigned idx = reuse ? reuse->m->index : atomic_load(&ps.nmods);
	struct got_mod *g = NULL;
	struct cand *c = NULL;
	struct dyn d;
	struct got_uses uses = { 0 };
	size_t n;
	int err = -ENOMEM;

	if (pre) {
		n = pre->n;
	} else if (!got_read_dyn(info, &d)) {
		return 0;
	} else {
		got_find_uses(caller, info, &d, &uses);
		n = got_count(&d, info->dlpi_addr, mode, &uses);
	}
	if (!n) {
		got_uses_free(&uses);
		return 0;
	}
	if (reuse && reuse->m->nsites != n)
		return -EAGAIN;		/* another file under that name: thunks of its own (pre) */
	if (idx >= PS_MAX_MODULES) {
		ps_log(PATCHSITE_LOG_WARNING, "%s: more than %d objects: library calls not "
		       "traced", caller->path, PS_MAX_MODULES);
		got_uses_free(&uses);
		return -ENOSPC;
	}
	g = calloc(1, sizeof(*g));
	c = pre ? NULL : calloc(n, sizeof(*c));
	if (!g || (!pre && !c) || !(g->m = calloc(1, sizeof(*g->m))) ||
	    asprintf(&g->m->path, "%s (library calls)", caller->path) < 0) {
		if (g && g->m)
			g->m->path = NULL;
		goto out;
	}
	if (!pre)
		got_gather(&d, info->dlpi_addr, mode, &uses, c);
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
	err = fill_sites(g, pre ? pre->c : c, n);
	if (!err && reuse && !same_names(g, reuse))
		err = -EAGAIN;
	if (!err)
		err = map_thunks(g, n, reuse);
	if (err)
		goto out;
	got_mods[idx] = g;
	ps.mods[idx] = g->m;
	if (!reuse)
		atomic_store_explicit(&ps.nmods, idx + 1, memory_order_release);
	ps_log(PATCHSITE_LOG_NOTE, "%s: %zu library-call slots", caller->name, n);
	for (size_t i = 0; i < n; i++)
		if (g->slots[i].why)
			ps_log(PATCHSITE_LOG_NOTE, "%s: %s: library calls not traced: %s",
			       caller->name, g->m->syms[i].name, g->slots[i].why);
	say_left_alone(g);
	g = NULL;
	err = 0;
out:
	if (err && err != -EAGAIN)
		ps_log(PATCHSITE_LOG_WARNING, "%s: library calls not traced: %s", caller->path,
		       strerror(-err));
	if (g)
		got_free(g);
	free(c);
	got_uses_free(&uses);
	return err;
}

struct scan_arg {
	bool done;
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
	struct got_boot *a = arg;
	uintptr_t self = (uintptr_t)&ps_got_scan;

	(void)size;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const Elf64_Phdr *q = &info->dlpi_phdr[i];

		if (q->p_type == PT_LOAD && self >= info->dlpi_addr + q->p_vaddr &&
		    self < info->dlpi_addr + q->p_vaddr + q->p_memsz) {
			a->own_found = got_read_dyn(info, &a->own);
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
const char *got_ours(const struct ps_module *m)
{
	const struct got_boot *a = &got_boot;
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
	if (a->done && !got_boot.nest)
		return 1;
	a->done = true;
	for (unsigned i = 0; i < ps.nmods && a->n < PS_MAX_MODULES; i++) {
		struct ps_module *m = ps.mods[i];

		if (m->gone || got_mods[i] || m->bias != info->dlpi_addr || !m->file_ok)
			continue;
		if (!exe && (!base || strcmp(base + 1, m->name)))
			continue;
		if (!exe && got_never_caller(m))
			ps_log(PATCHSITE_LOG_NOTE, "%s: its library calls not traced: patchsite "
			       "itself calls into it or runs under it", m->name);
		else if (got_ours(m))
			ps_log(PATCHSITE_LOG_WARNING, "%s: its library calls not traced: %s (they "
			       "would trace patchsite's own calls)", m->name, got_ours(m));
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
	got_boot.mode = libcall_mode(&got_boot.nest);

	if (got_boot.mode == PS_LIBCALL_OFF)
		return 0;
	if (!ps.arch->write_slot_thunk) {
		ps_log(PATCHSITE_LOG_ERROR, "PATCHSITE_LIBCALL: library calls are not traced on "
		       "%s yet", ps.arch->name);
		got_boot.mode = PS_LIBCALL_OFF;
		return 0;
	}
	dl_iterate_phdr(find_own, &got_boot);
	dl_iterate_phdr(scan_one, &a);
	/* Objects here now are start-up's: a dlopen later never scans them (got_dlopen.c). */
	for (unsigned i = 0; i < ps.nmods; i++)
		got_boot.startup[i] = ps.mods[i];
	for (unsigned i = 0; i < a.n && err != -ENOMEM; i++)
		err = got_add_caller(a.found[i].m, &a.found[i].info, NULL, NULL);
	return err == -ENOMEM ? err : 0;
}
