// SPDX-License-Identifier: GPL-2.0-only
/*
 * Keeping hooked returns right while something else walks or cuts the
 * stack: libgcc's unwinder (exceptions, pthread_exit, pthread_cancel,
 * backtraces), longjmp, and the calls still open when a thread ends.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/libc.h"
#include "graph.h"

/*
 * Unwinding.  Hooked slots stay hooked while an unwinder runs: it is shown
 * through them instead, on every arch.  Every unwinder walk of libgcc (exceptions thrown
 * and resumed, std::rethrow_exception, forced unwinding for pthread_exit
 * and pthread_cancel, _Unwind_Backtrace) asks _Unwind_Find_FDE for the
 * code at each return address minus one, through its PLT, with
 * &context->bases; a hooked slot makes that graph_return - 1.  The wrapper
 * then finds the frame whose slot it is, puts the real return address in
 * the walk's context, and asks for that address's FDE: the walk goes on
 * as if the slot held it.  Nothing is written to the stack, so nothing
 * has to be put back when a handler catches, however the walks nest (a
 * catch inside a destructor run by another exception's unwinding).
 * Where returns are hooked through a register (aarch64's x30, riscv64's
 * ra: ps_arch.ret_keyed_by_cfa), the hook is wherever the function saved
 * it, which the CFI names, not at the CFA; but the frame is keyed by its
 * sp at entry - 8, which is the CFA - 8 there too, and a hooked return is
 * the only way the unwinder's ra can be graph_return: the key alone finds
 * the frame, with or without frame pointers.
 *
 * A personality routine calls _Unwind_SetIP when the walk is about to
 * land in a frame (a catch or a cleanup): calls below that frame are left
 * for good, and are closed there, at the right depth.  What is still open
 * when the thread ends (a forced unwind ends past the thread's function)
 * is closed then (ps_graph_thread_end).
 *
 * The layout of libgcc's struct _Unwind_Context (unwind-dw2.c, unchanged
 * since gcc 4.x): void *reg[DWARF_FRAME_REGISTERS + 1], then cfa, ra,
 * lsda, then bases.  Both words read from it are checked against what
 * they must hold (ra is graph_return, the slot below the cfa holds it too)
 * before anything is changed; a program with its own copy of the unwinder
 * (-static-libgcc) cannot be reached this way, and is refused at start-up
 * (ps_graph_unwinder_check).
 */
struct unwind_bases { void *tbase, *dbase, *func; };
typedef const void *find_fde_fn(void *pc, struct unwind_bases *bases);
typedef void set_ip_fn(void *ctx, uintptr_t ip);
typedef uintptr_t get_cfa_fn(void *ctx);
static find_fde_fn *real_find_fde;
static set_ip_fn *real_set_ip;
static get_cfa_fn *real_get_cfa;

/* The unwinder's own function: the next definition, or libgcc_s's when glibc loaded it locally. */
static void *unwinder_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name), *h;

	if (p)
		return p;
	h = ps_libc_dlopen("libgcc_s.so.1", RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = dlsym(h, name);
	ps_libc_dlclose(h);
	return p;
}

/* Found at start-up (ps_record_init) when libgcc_s is loaded, else at the first unwinding. */
void ps_unwind_init(void)
{
	if (__atomic_load_n(&real_get_cfa, __ATOMIC_ACQUIRE))
		return;
	real_find_fde = (find_fde_fn *)unwinder_sym("_Unwind_Find_FDE");
	real_set_ip = (set_ip_fn *)unwinder_sym("_Unwind_SetIP");
	__atomic_store_n(&real_get_cfa, (get_cfa_fn *)unwinder_sym("_Unwind_GetCFA"),
			 __ATOMIC_RELEASE);
}

/*
 * The real return address of a hooked slot of this thread (or another's),
 * or 0.  A tail call hooks its caller's slot again: the frame below holds
 * the address the first hook saved.
 */
static uintptr_t hooked_ret(uintptr_t slot, uintptr_t hook)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uintptr_t key = slot - PS_FRAME_KEY_BIAS;

	if (t && f->fp) {
		for (struct ps_frame *fr = f->fp; fr-- > t->frames + 1;)
			if (PS_FRAME_KEY(fr) == key && fr->ret != hook)
				return fr->ret;
		for (unsigned i = 0; i < 16 && i < t->ngrave; i++)
			if (PS_FRAME_KEY(&t->grave[i]) == key)
				return t->grave[i].ret;
	}
	return ps_graph_other_thread_ret(t, key);
}

static void *next_sym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define EXPORT __attribute__((visibility("default")))

EXPORT const void *_Unwind_Find_FDE(void *pc, struct unwind_bases *bases)
{
	const struct ps_arch *arch = __atomic_load_n(&ps.arch, __ATOMIC_ACQUIRE);	/* NULL before init */
	uintptr_t hook = arch ? (uintptr_t)arch->graph_return : 0, ret;
	void **ctx_end = (void **)bases;	/* ctx_end[-3] cfa, ctx_end[-2] ra */

	ps_unwind_init();
	if (!real_find_fde)
		return NULL;
	if (hook && (uintptr_t)pc + 1 == hook && (uintptr_t)ctx_end[-2] == hook) {
		uintptr_t *slot = (uintptr_t *)((uintptr_t)ctx_end[-3] - sizeof(void *));

		ret = *slot == hook || arch->ret_keyed_by_cfa ? hooked_ret((uintptr_t)slot, hook) : 0;
		if (ret) {
			ctx_end[-2] = (void *)ret;
			pc = (void *)(ret - 1);
		}
	}
	return real_find_fde(pc, bases);
}

/*
 * A landing in a frame: the context's CFA there is what the frame's %rsp
 * was at the call it is left from (libgcc keeps the callee's CFA), so
 * every slot below it belongs to a call that was left.
 */
static void close_below(uintptr_t cfa)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uint64_t tsc = ps_clock();

	if (!t || !f->fp || !own_stack(f, cfa - 1))
		return;
	mark(t, f, tsc);
	while (f->fp > t->frames + 1 && frame_slot(f->fp - 1) < cfa) {
		ps_graph_close_frame(t, f, tsc, f->fp - 1);
		f->fp--;
	}
}

EXPORT void _Unwind_SetIP(void *ctx, uintptr_t ip)
{
	ps_unwind_init();
	if (real_get_cfa)
		close_below(real_get_cfa(ctx));
	if (real_set_ip)
		real_set_ip(ctx, ip);
}

/*
 * The module has a private copy of the unwinder: it defines its entry as
 * a local symbol (libgcc_eh's are hidden, hence local once linked).  An
 * exported definition is libgcc_s's or an interposer that forwards to it
 * (ASan's).  A stripped file cannot tell.
 */
static bool own_unwinder(const struct ps_module *m)
{
	const Elf64_Sym *syms = m->symtab;
	const char *str = m->strtab;

	if (!syms)
		return false;
	for (size_t i = 0; i < m->nsymtab; i++)
		if (syms[i].st_shndx != SHN_UNDEF && syms[i].st_name < m->strtab_size &&
		    ELF64_ST_TYPE(syms[i].st_info) == STT_FUNC &&
		    (ELF64_ST_BIND(syms[i].st_info) == STB_LOCAL ||
		     ELF64_ST_VISIBILITY(syms[i].st_other) == STV_HIDDEN) &&
		    !strcmp(str + syms[i].st_name, "_Unwind_RaiseException"))
			return true;
	return false;
}

/*
 * function_graph hooks returns only if every unwinder in the process is
 * libgcc_s's, which the wrappers above reach.  A private copy (linked
 * -static-libgcc, or the whole program static but for libc) would abort
 * the program on its first exception through a hooked frame: refused,
 * naming the object.  Sites with exit sites do without return hooks.
 */
int ps_graph_unwinder_check(void)
{
	bool hooks = false;
	const struct ps_module *own = NULL;

	pthread_mutex_lock(&ps.lock);
	for (unsigned i = 0; i < ps.nmods; i++) {
		const struct ps_module *m = ps.mods[i];

		if (m->gone)
			continue;
		if (!own && own_unwinder(m))
			own = m;
		for (size_t j = 0; !hooks && j < m->nsites; j++)
			hooks = m->sites[j].kind == SITE_ENTRY_HOOK ||
				m->sites[j].kind == SITE_ENTRY_LATE ||
				m->sites[j].kind == SITE_ENTRY_NOFLAG ||
				m->sites[j].kind == SITE_NOFLAG_DEEP;
	}
	pthread_mutex_unlock(&ps.lock);
	if (!own || !hooks)
		return 0;
	ps_log(PATCHSITE_LOG_ERROR, "function_graph: %s has its own copy of the unwinder "
	       "(_Unwind_RaiseException; linked -static-libgcc?): an exception through a hooked "
	       "return would abort it; link it with the shared libgcc_s, or build with exit sites "
	       "(-minstrument-return=nop5 -mrecord-return), or use the function tracer", own->name);
	return -ENOTSUP;
}

/*
 * Close every frame of the thread: it ends without returning through them
 * (dispatch.c).  A frame of a function with exit sites may be left over
 * from function_graph's last turn (the tracer changed between its entry and
 * its exit): it is only dropped unless function_graph is the tracer now,
 * so that the function tracer's rings get no exits.
 */
void ps_graph_thread_end(void)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uint64_t tsc = ps_clock();
	struct patchsite_ops_state *g = __atomic_load_n(&ps_graph_ops.state, __ATOMIC_ACQUIRE);
	bool graph = g && __atomic_load_n(&g->s.registered, __ATOMIC_RELAXED);

	ps_read_thread_end();
	if (!t || !f->fp)
		return;
	mark(t, f, tsc);
	while (f->fp > t->frames + 1) {
		if (graph || !(f->fp[-1].key & 1))
			ps_graph_close_frame(t, f, tsc, f->fp - 1);
		f->fp--;
	}
}

/*
 * longjmp: the frames of the calls it leaves are closed before it jumps.
 * The target stack pointer comes from the jmp_buf (ps_longjmp_sp, the
 * arch's host.h: glibc mangles it with its pointer guard).  A target that does
 * not look like a stack address further up is ignored: the exit path
 * would then close the frames later (same result, later time stamps).
 */
static void before_longjmp(const void *env)
{
	struct ps_fast *f = &ps_fast;
	struct ps_thread *t = f->t;
	uintptr_t sp = ps_longjmp_sp(env), here = (uintptr_t)&sp;
	uint64_t tsc = ps_clock();

	if (!t || !f->fp)
		return;
	if (sp <= here || sp - here > (64u << 20))
		return;
	mark(t, f, tsc);
	while (f->fp > t->frames + 1 && frame_slot(f->fp - 1) < sp) {
		struct ps_frame *top = f->fp - 1;
		uintptr_t *slot = (uintptr_t *)frame_slot(top);

		if (!(top->key & 1) && *slot == (uintptr_t)ps.arch->graph_return)
			*slot = top->ret;
		ps_graph_close_frame(t, f, tsc, top);
		f->fp--;
	}
}

#define LONGJMP_WRAPPER(name)							\
	EXPORT void name(void *env, int val)					\
	{									\
		static void (*real)(void *, int) __attribute__((noreturn));	\
										\
		if (!real)							\
			real = next_sym(#name);					\
		before_longjmp(env);						\
		real(env, val);							\
	}
LONGJMP_WRAPPER(longjmp)
LONGJMP_WRAPPER(_longjmp)
LONGJMP_WRAPPER(siglongjmp)
LONGJMP_WRAPPER(__longjmp_chk)
