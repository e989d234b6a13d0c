/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The basic golden input: three functions in .text (static, global, weak),
 * one in each of the traced sections .init.text, .text.unlikely and
 * .sched.text, one in each of the untraced executable sections .exit.text,
 * .noinstr.text and .mytext, and one that is not instrumented at all.
 * Every instrumented function also calls ext(), a non-hook call that the
 * tool must leave alone.
 */
#define __section(s)	__attribute__((__section__(s)))
#define noinline	__attribute__((__noinline__))
#define notrace		__attribute__((__no_instrument_function__))

extern int ext(int);

static noinline int sfun(int x) { return ext(x) + 1; }
int gfun(int x) { return sfun(x) * 3; }
int __attribute__((weak)) wfun(int x) { return ext(x + 2); }

__section(".init.text") int ifun(int x) { return ext(x) - 1; }
__section(".exit.text") int efun(int x) { return ext(x) ^ 5; }
__section(".text.unlikely") int ufun(int x) { return ext(x) | 1; }
__section(".sched.text") int schfun(int x) { return ext(x) & 7; }
__section(".noinstr.text") int nfun(int x) { return ext(x) << 1; }
__section(".mytext") int mfun(int x) { return ext(x) >> 1; }

notrace int nofun(int x) { return ext(x) + 9; }
