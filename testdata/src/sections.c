/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every section name the kernel's recordmcount treats specially.  Traced:
 * the prefix ".text" (so .text.hot and even .textfoo) and exactly
 * .init.text .ref.text .sched.text .spinlock.text .irqentry.text
 * .softirqentry.text .kprobes.text .cpuidle.text.  Untraced, although
 * executable: .meminit.text .head.text .entry.text .exit.text
 * .noinstr.text .cpuidle.textx (exact names only: a suffix is not traced).
 * Two functions share .spinlock.text, to have a second site at an offset.
 */
#define __section(s)	__attribute__((__section__(s)))

extern int ext(int);

#define FN(name, sec, op) __section(sec) int name(int x) { return ext(x) op; }

FN(t_text,      ".text",              + 1)
FN(t_hot,       ".text.hot",          + 2)
FN(t_textfoo,   ".textfoo",           + 3)
FN(t_init,      ".init.text",         + 4)
FN(t_ref,       ".ref.text",          + 5)
FN(t_sched,     ".sched.text",        + 6)
FN(t_spin1,     ".spinlock.text",     + 7)
FN(t_spin2,     ".spinlock.text",     + 8)
FN(t_irq,       ".irqentry.text",     + 9)
FN(t_softirq,   ".softirqentry.text", + 10)
FN(t_kprobes,   ".kprobes.text",      + 11)
FN(t_cpuidle,   ".cpuidle.text",      + 12)
FN(u_meminit,   ".meminit.text",      - 1)
FN(u_head,      ".head.text",         - 2)
FN(u_entry,     ".entry.text",        - 3)
FN(u_exit,      ".exit.text",         - 4)
FN(u_noinstr,   ".noinstr.text",      - 5)
FN(u_cpuidlex,  ".cpuidle.textx",     - 6)
