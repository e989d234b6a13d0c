/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The branch profiler: patchsite_likely(x) and patchsite_unlikely(x) are
 * __builtin_expect(!!(x), 1) and (!!(x), 0), the same value and the same
 * hint to the compiler, and each one counts how often its prediction was
 * right and wrong (the kernel's annotated branch profiler, likely() and
 * unlikely() under CONFIG_TRACE_BRANCH_PROFILING).
 *
 * Each place in the source that uses one has a struct patchsite_branch of
 * its own in the section "patchsite_branches" of its object (executable or
 * shared library).  The counting is one increment in each arm of the
 * branch the compiler already makes: no call, no lock, no test of its own
 * (gcc puts the increment into the branch the program's own `if` takes; see
 * bench/events/ for the instructions it costs).  Without libpatchsite the
 * counters just count; with it they are written into the trace directory at
 * exit, before a library is unloaded, and on demand (patchsite_event(3),
 * patchsite-data(5), `patchsite report --branches`).
 *
 * Threads: the increments are plain read-modify-write instructions, as the
 * kernel's are: two threads that hit the same site at the same moment can
 * lose a count (an undercount, never an overcount; bench/events measures
 * it).  Define PATCHSITE_BRANCH_EXACT before including this header for
 * atomic increments: exact under any contention, still one instruction,
 * but a locked one, slower (bench/events measures both).
 *
 * This header needs nothing else from patchsite: C (GNU C) and C++ with
 * gcc or clang.  g++ 12 drops the section of a static inside a template:
 * on x86-64 the counter's address is listed in a second section (below);
 * elsewhere g++ warns of each such use, which then counts but is not found.
 */
#ifndef PATCHSITE_BRANCH_H
#define PATCHSITE_BRANCH_H

/* The layout version the runtime checks in every entry before it reads one. */
#define PATCHSITE_BRANCH_ABI	1

struct patchsite_branch {
	const char *func;		/* __func__ of the function it is in */
	const char *file;		/* __FILE__ */
	unsigned int line;
	unsigned short expect;		/* 1: likely, 0: unlikely */
	unsigned short abi;		/* PATCHSITE_BRANCH_ABI */
	unsigned long correct;		/* times the condition was as expected */
	unsigned long incorrect;
};

/*
 * An increment of the counter in memory, every time: a plain c++ would let
 * the compiler keep a counter in a register for a whole loop (what a
 * reader saw meanwhile would be stale, and two threads would lose a whole
 * loop's counts, not one).  x86-64: one `addq $1, mem` (in either asm
 * dialect); elsewhere a relaxed load and store.
 */
#if defined(PATCHSITE_BRANCH_EXACT)
#define __patchsite_branch_inc(c) ((void)__atomic_fetch_add(&(c), 1, __ATOMIC_RELAXED))
#elif defined(__x86_64__)
#define __patchsite_branch_inc(c) __asm__("{addq $1, %0|add %0, 1}" : "+m"(c))
#else
#define __patchsite_branch_inc(c) \
	__atomic_store_n(&(c), __atomic_load_n(&(c), __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED)
#endif

/*
 * C++: a type of this translation unit only (an unnamed namespace) gives
 * the counters of inline functions internal linkage, one per translation
 * unit as in C, instead of a comdat group: g++ refuses a section that holds
 * both kinds ("section type conflict").  The report sums a site's records.
 */
#ifdef __cplusplus
namespace {
struct __patchsite_branch_tu {
	struct patchsite_branch b;
};
}
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/*
 * g++ (12) drops the section of a static inside any template (a function
 * template, a member of a class template, a lambda in either): the counter
 * lands in .data.  So with g++ every use also lists its counter's address
 * in the section "patchsite_branch_refs" (data only: no instruction), and
 * the runtime reads the counters found there that are not in
 * patchsite_branches.  The counter has internal linkage (the type above),
 * so its address is a link-time constant even in PIC code.
 */
#define __PATCHSITE_BRANCH_REF(b) __asm__(".pushsection patchsite_branch_refs,\"aw\"\n\t"	\
	".balign 8\n\t.quad %c0\n\t.popsection" : : "i"(&(b)))
#define __PATCHSITE_BRANCH_CHECK()	((void)0)
#elif defined(__GNUC__) && !defined(__clang__)
/*
 * Other arches with g++: the same loss in templates, said at compile time
 * by a deprecation warning at each such use: g++ names a template
 * instance's function "... [with T = ...]".  The search halves the name
 * (constexpr recursion depth log n, as C++11 allows).
 */
namespace {
constexpr bool __patchsite_with_at(const char *s)
{
	return s[0] == ' ' && s[1] == '[' && s[2] == 'w' && s[3] == 'i' && s[4] == 't' &&
	       s[5] == 'h' && s[6] == ' ';
}
constexpr bool __patchsite_with(const char *s, unsigned long lo, unsigned long hi)
{
	return hi - lo < 7 ? false
	       : hi - lo < 16 ? __patchsite_with_at(s + lo) || __patchsite_with(s, lo + 1, hi)
	       : __patchsite_with(s, lo, lo + (hi - lo) / 2 + 6) ||
		 __patchsite_with(s, lo + (hi - lo) / 2, hi);
}
template <bool in_template> struct __patchsite_tpl {
	static constexpr int ok = 0;
};
template <> struct __patchsite_tpl<true> {
	__attribute__((deprecated("patchsite_likely/unlikely in a template: g++ puts its counter "
				  "outside the patchsite_branches section, so it counts but is "
				  "never written (clang++ keeps it)")))
	static constexpr int ok = 0;
};
}
#define __PATCHSITE_BRANCH_CHECK() ((void)sizeof(__patchsite_tpl<__patchsite_with(			\
	__PRETTY_FUNCTION__, 0, sizeof(__PRETTY_FUNCTION__) - 1)>::ok))
#define __PATCHSITE_BRANCH_REF(b)	((void)0)
#else
#define __PATCHSITE_BRANCH_CHECK()	((void)0)
#define __PATCHSITE_BRANCH_REF(b)	((void)0)
#endif
#define __PATCHSITE_BRANCH_T		__patchsite_branch_tu
#define __PATCHSITE_BRANCH_INIT(...)	{ { __VA_ARGS__ } }
#define __PATCHSITE_BRANCH_F(v)		(v).b
#else
#define __PATCHSITE_BRANCH_CHECK()	((void)0)
#define __PATCHSITE_BRANCH_REF(b)	((void)0)
#define __PATCHSITE_BRANCH_T		struct patchsite_branch
#define __PATCHSITE_BRANCH_INIT(...)	{ __VA_ARGS__ }
#define __PATCHSITE_BRANCH_F(v)		(v)
#endif

/*
 * aligned(8) is explicit so that the compiler does not align the entries
 * more (as it may a 32-byte static): the section is an array of them.
 * The branch on the condition carries the hint; the program's own test of
 * the value is then the same test, which gcc merges into it.  Names are
 * made unique with __COUNTER__, so that uses can nest (-Wshadow).
 */
#define __patchsite_cat(a, b)		a##b
#define __patchsite_name(a, n)		__patchsite_cat(a, n)
#define __patchsite_branch(x, e)	__patchsite_branch_n(x, e, __COUNTER__)
#define __patchsite_branch_n(x, e, n)	__patchsite_branch_v(x, e,			\
	__patchsite_name(__patchsite_b, n), __patchsite_name(__patchsite_v, n))
#define __patchsite_branch_v(x, e, b, v) __extension__ ({				\
	static __PATCHSITE_BRANCH_T b							\
		__attribute__((section("patchsite_branches"), aligned(8), used)) =	\
		__PATCHSITE_BRANCH_INIT(__func__, __FILE__, __LINE__, (e),		\
					PATCHSITE_BRANCH_ABI, 0, 0);			\
	long v = !!(x);									\
	__PATCHSITE_BRANCH_CHECK();							\
	__PATCHSITE_BRANCH_REF(b);							\
	if (__builtin_expect(v, (e))) {							\
		if (e)									\
			__patchsite_branch_inc(__PATCHSITE_BRANCH_F(b).correct);	\
		else									\
			__patchsite_branch_inc(__PATCHSITE_BRANCH_F(b).incorrect);	\
	} else {									\
		if (e)									\
			__patchsite_branch_inc(__PATCHSITE_BRANCH_F(b).incorrect);	\
		else									\
			__patchsite_branch_inc(__PATCHSITE_BRANCH_F(b).correct);	\
	}										\
	__builtin_expect(v, (e));							\
})

#define patchsite_likely(x)	__patchsite_branch(x, 1)
#define patchsite_unlikely(x)	__patchsite_branch(x, 0)

#endif
