/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Hand-written hazards for patchverify --noflag, one function each; the
 * test builds this twice, with and without -DMUTATE, and only the mutated
 * build may refuse (the plain build proves each function, the mutation
 * adds one hazard):
 *  victim    `mov $imm32,%eax`, 5 bytes: form a; mutated, jumper jumps to
 *            victim+1, into that instruction: refused
 *  backin    the same, the back-edge is its own (overlapping code)
 *  loophead  `xor` (2 bytes) then `add` then a 5-byte `cmp`: form b at the
 *            cmp; mutated, a loop's back-edge lands on the `add`, between
 *            the entry and the site: refused (the site would run per loop)
 *  switcher  push, then a 5-byte `mov`: form b at depth 8; mutated, the
 *            function ends in a table jump `jmp *%rdx`: refused (no switch
 *            table recovery yet)
 */
	.text

	.globl victim
	.type victim, @function
victim:
	movl $0x90909090, %eax
	ret
	.size victim, .-victim

	.globl jumper
	.type jumper, @function
jumper:
#ifdef MUTATE
	jmp victim+1
#else
	jmp victim
#endif
	.size jumper, .-jumper

	.globl backin
	.type backin, @function
backin:
	movl $0x90909090, %eax
	decl %edi
#ifdef MUTATE
	jnz backin+2
#else
	jnz backin
#endif
	ret
	.size backin, .-backin

	.globl loophead
	.type loophead, @function
loophead:
	xorl %eax, %eax
1:	addl $1, %eax
	cmpl $1000, %eax
#ifdef MUTATE
	jne 1b
#endif
	ret
	.size loophead, .-loophead

	.globl switcher
	.type switcher, @function
switcher:
	pushq %rbx
	movl $5, %ebx
	leaq table(%rip), %rax
	movslq (%rax,%rdi,4), %rdx
	addq %rax, %rdx
#ifdef MUTATE
	jmp *%rdx
#endif
	popq %rbx
	ret
	.size switcher, .-switcher

	.section .rodata
table:
	.long 0, 0
	.section .note.GNU-stack,"",@progbits
