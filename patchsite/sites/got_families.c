// SPDX-License-Identifier: GPL-2.0-only
/*
 * Library functions whose calls are never switched to a thunk, by name,
 * with the reason (got.c marks their sites refused and says why).  Hooking
 * the return of these would change what the program does: they return
 * twice or never, they look at their caller's return address, they are
 * the unwinder or the exception machinery that walks hooked returns, or
 * they are hooks and runtimes of their own (uftrace's plthook.c keeps
 * similar lists; these are ours, from the glibc, libgcc and libstdc++ ABIs).
 */
#include <fnmatch.h>
#include <stddef.h>

#include "got_families.h"

static const struct {
	const char *glob, *why;
} families[] = {
	{ "setjmp", "returns twice" }, { "_setjmp", "returns twice" },
	{ "__sigsetjmp", "returns twice" }, { "sigsetjmp", "returns twice" },
	{ "vfork", "returns twice" }, { "__vfork", "returns twice" },
	{ "clone", "returns twice" }, { "clone3", "returns twice" },
	{ "getcontext", "returns twice" }, { "swapcontext", "returns twice" },
	{ "setcontext", "never returns" },
	{ "longjmp", "never returns" }, { "_longjmp", "never returns" },
	{ "siglongjmp", "never returns" }, { "__longjmp_chk", "never returns" },
	{ "exit", "never returns" }, { "_exit", "never returns" }, { "_Exit", "never returns" },
	{ "quick_exit", "never returns" }, { "abort", "never returns" },
	{ "pthread_exit", "never returns" }, { "__libc_start_main", "never returns" },
	{ "__stack_chk_fail", "never returns" }, { "__assert_fail", "never returns" },
	{ "__fortify_fail", "never returns" }, { "__chk_fail", "never returns" },
	{ "err", "never returns" }, { "errx", "never returns" },
	{ "verr", "never returns" }, { "verrx", "never returns" },
	{ "exec*", "does not return when it works (the process image is replaced)" },
	{ "fexecve", "does not return when it works (the process image is replaced)" },
	{ "dlsym", "caller-sensitive (RTLD_NEXT is relative to the caller)" },
	{ "dlvsym", "caller-sensitive (RTLD_NEXT is relative to the caller)" },
	{ "dlopen", "caller-sensitive (the caller's RUNPATH and namespace)" },
	{ "dlmopen", "caller-sensitive (the caller's RUNPATH and namespace)" },
	{ "dladdr", "caller-sensitive" }, { "dladdr1", "caller-sensitive" },
	{ "dlinfo", "caller-sensitive" }, { "dlclose", "caller-sensitive" },
	{ "backtrace", "walks the stack (hooked returns)" },
	{ "_Unwind_*", "the unwinder (walks hooked returns)" },
	{ "__cxa_throw", "exception machinery (never returns)" },
	{ "__cxa_rethrow", "exception machinery (never returns)" },
	{ "__cxa_begin_catch", "exception machinery" }, { "__cxa_end_catch", "exception machinery" },
	{ "__cxa_call_unexpected", "exception machinery (never returns)" },
	{ "__cxa_bad_*", "exception machinery (never returns)" },
	{ "__cxa_throw_bad_array*", "exception machinery (never returns)" },
	{ "_ZSt*__throw_*", "throws (never returns)" }, { "_ZSt9terminatev", "never returns" },
	{ "__gxx_personality_*", "exception machinery" },
	{ "mcount", "a tracing hook" }, { "_mcount", "a tracing hook" },
	{ "__fentry__", "a tracing hook" }, { "__cyg_profile_func_*", "a tracing hook" },
	{ "__gmon_start__", "gprof's start-up" }, { "__monstartup", "gprof's start-up" },
	{ "_mcleanup", "gprof's start-up" },
	{ "__tls_get_addr", "the dynamic linker's TLS access" },
	{ "__asan_*", "a sanitizer's runtime" }, { "__ubsan_*", "a sanitizer's runtime" },
	{ "__tsan_*", "a sanitizer's runtime" }, { "__lsan_*", "a sanitizer's runtime" },
	{ "__msan_*", "a sanitizer's runtime" }, { "__sanitizer_*", "a sanitizer's runtime" },
};

const char *ps_got_family(const char *name)
{
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!fnmatch(families[i].glob, name, 0))
			return families[i].why;
	return NULL;
}
