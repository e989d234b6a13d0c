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
 *  switch2   push, a 5-byte `mov`, then a PIC switch (lea, movslq, add,
 *            jmp *%rdx) whose table is read: form b at depth 8; mutated, a
 *            table entry lands on the site: refused
 *  hoist     push, then the switch base set by a lea (the site: form b)
 *            before a jump, so the switch's own run has no lea: its tables
 *            are those of every lea of the base in the function; mutated,
 *            another write of the base: refused (table not read)
 *  hoistfar  the same hoisted base, written first with a pointer (mov), then
 *            by the table's lea (the site: form b), then a jump to the
 *            switch: only the lea reaches it, so its table is read;
 *            mutated, a jne from between the mov and the lea to the switch
 *            lets the pointer reach it: refused (table not read)
 *  ptrjump   a tail call through a pointer loaded from memory: no switch,
 *            form b; mutated, the pointer is a sum: refused (table-like)
 *  bounded   push, a 5-byte `mov` (the site), then a switch whose index is
 *            loaded from memory and compared (`cmp $1` + `ja`): its table's
 *            2 entries are read, not the word after it, which would land on
 *            the site: form b; mutated, no compare: the table is read to its
 *            extent, that word with it: refused (table-target-in-window)
 *  sched     a bounded switch with other instructions scheduled between
 *            its table load, the add of the base and the jump: its table is
 *            read, form b; mutated, the base changes between the load and
 *            the add: refused (no table)
 *  ptrcond   a pointer loaded, tested (`je` out of the run), then jumped
 *            through: no switch, form b; mutated, another path jumps into
 *            the run after the load with a sum in the register: refused
 *  devirt    a compiler's devirtualised call: a pointer loaded, compared,
 *            and jumped through after the function's return, by `jne` to a
 *            block of its own: no switch, form b; mutated, the pointer is
 *            a sum where the jne leaves: refused (table-like)
 *  nodom     the same switch, bounded; mutated, another path jumps to the
 *            lea with its own index, past the compare: the bound is not
 *            used, the word after the table is read: refused
 *  tiny      xor, ret: 3 bytes, then the assembler's nop padding to the
 *            next 16 bytes: form p over the padding; mutated, tiny2 follows
 *            at once (no padding): refused
 *  midpad    xor, jmp over the nop padding that aligns a loop head: form p
 *            over that padding, inside the function; mutated, jumper3
 *            jumps into the padding: refused
 *  window    xor, test, je: no instruction of 5 bytes before the je ends the
 *            block, so form c, a 6-byte window; mutated, jumper2 jumps to
 *            its test, inside the window: refused
 *  callwin   xor, mov, call *%rdx: form c, the call last; mutated, the call
 *            comes first, its return address inside the window: refused
 *  pointed   form a; mutated, a data word holds pointed+1 (in a shared
 *            object an R_X86_64_RELATIVE relocation's addend, in an ET_EXEC
 *            file the word itself): refused
 *  immed     form a; mutated with -DEXEC (an ET_EXEC file, where an
 *            immediate may be a code address), `mov $immed+1,%eax`: refused
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

	.globl switch2
	.type switch2, @function
switch2:
	pushq %rbx
3:	movl $5, %ebx
	leaq stable(%rip), %rax
	movslq (%rax,%rdi,4), %rdx
	addq %rax, %rdx
	jmp *%rdx
1:	popq %rbx
	ret
2:	movl %ebx, %eax
	popq %rbx
	ret
	.size switch2, .-switch2
	.section .rodata
	.p2align 2
stable:
	.long 1b - stable
#ifdef MUTATE
	.long 3b - stable
#else
	.long 2b - stable
#endif
	.text

	.globl hoist
	.type hoist, @function
hoist:
	pushq %rbx
	leaq htable(%rip), %rbx
#ifdef MUTATE
	testl %esi, %esi
	je 4f
	movq %rdx, %rbx
#endif
4:	jmp 5f
5:	movslq (%rbx,%rdi,4), %rax
	addq %rbx, %rax
	jmp *%rax
6:	popq %rbx
	ret
	.size hoist, .-hoist
	.section .rodata
	.p2align 2
htable:
	.long 6b - htable
	.text

	.globl hoistfar
	.type hoistfar, @function
hoistfar:
	pushq %rbx
	movq %rdx, %rbx
#ifdef MUTATE
	testl %esi, %esi
	jne 5f
#endif
	leaq hftable(%rip), %rbx
	jmp 5f
5:	movslq (%rbx,%rdi,4), %rax
	addq %rbx, %rax
	jmp *%rax
6:	popq %rbx
	ret
	.size hoistfar, .-hoistfar
	.section .rodata
	.p2align 2
hftable:
	.long 6b - hftable
	.text

	.globl ptrjump
	.type ptrjump, @function
ptrjump:
	pushq %rbx
	movl $5, %ebx
	movq 8(%rdi), %rax
#ifdef MUTATE
	addq %rdi, %rax
#endif
	popq %rbx
	jmp *%rax
	.size ptrjump, .-ptrjump

	.globl bounded
	.type bounded, @function
bounded:
	pushq %rbx
3:	movl $5, %ebx
	movl (%rsi), %eax
#ifndef MUTATE
	cmpl $1, %eax
	ja 1f
#endif
	leaq btable(%rip), %rdx
	movslq (%rdx,%rax,4), %rax
	addq %rdx, %rax
	jmp *%rax
1:	popq %rbx
	ret
2:	movl %ebx, %eax
	popq %rbx
	ret
	.size bounded, .-bounded
	.section .rodata
	.p2align 2
btable:
	.long 1b - btable
	.long 2b - btable
	.long 3b - btable	/* not the switch's: a word that happens to follow */
	.text

	.globl sched
	.type sched, @function
sched:
	pushq %rbx
	movl $5, %ebx
	movl %edi, %eax
	cmpl $1, %eax
	ja 1f
	leaq sctable(%rip), %rcx
	movslq (%rcx,%rax,4), %rdx
	movl %esi, %eax
#ifdef MUTATE
	addq $8, %rcx
#endif
	addq %rcx, %rdx
	movq %rsi, %r8
	jmp *%rdx
1:	popq %rbx
	ret
2:	movl %ebx, %eax
	popq %rbx
	ret
	.size sched, .-sched
	.section .rodata
	.p2align 2
sctable:
	.long 1b - sctable
	.long 2b - sctable
	.text

	.globl ptrcond
	.type ptrcond, @function
ptrcond:
	pushq %rbx
	movl $5, %ebx
	movq 8(%rdi), %rax
	testq %rax, %rax
	je 1f
3:	popq %rbx
	jmp *%rax
1:
#ifdef MUTATE
	leaq 8(%rdi), %rax
	jmp 3b
#endif
	popq %rbx
	ret
	.size ptrcond, .-ptrcond

	.globl devirt
	.type devirt, @function
devirt:
	pushq %rbx
	movl $5, %ebx
	movq 8(%rdi), %rax
#ifdef MUTATE
	addq %rdi, %rax
#endif
	cmpq %rsi, %rax
	jne 1f
	popq %rbx
	ret
1:	popq %rbx
	jmp *%rax
	.size devirt, .-devirt

	.globl nodom
	.type nodom, @function
nodom:
	pushq %rbx
3:	movl $5, %ebx
	movl (%rsi), %eax
	cmpl $1, %eax
	ja 1f
4:	leaq ntable(%rip), %rdx
	movslq (%rdx,%rax,4), %rax
	addq %rdx, %rax
	jmp *%rax
1:
#ifdef MUTATE
	movl %edi, %eax
	testl %esi, %esi
	jne 4b
#endif
	popq %rbx
	ret
2:	movl %ebx, %eax
	popq %rbx
	ret
	.size nodom, .-nodom
	.section .rodata
	.p2align 2
ntable:
	.long 1b - ntable
	.long 2b - ntable
	.long 3b - ntable	/* not the switch's: a word that happens to follow */
	.text

	.p2align 4
	.globl tiny
	.type tiny, @function
tiny:
	xorl %eax, %eax
	ret
	.size tiny, .-tiny
#ifndef MUTATE
	.p2align 4
#endif
	.globl tiny2
	.type tiny2, @function
tiny2:
	movl $0x90909090, %eax
	ret
	.size tiny2, .-tiny2

	.p2align 4
	.globl midpad
	.type midpad, @function
midpad:
	xorl %eax, %eax
	jmp 2f
	.p2align 3	/* 4 bytes of nop: nothing falls into them */
1:	addl $1, %eax
2:	cmpl %edi, %eax
	jne 1b
	ret
	.size midpad, .-midpad

	.globl jumper3
	.type jumper3, @function
jumper3:
#ifdef MUTATE
	jmp midpad+5
#else
	jmp midpad
#endif
	.size jumper3, .-jumper3

	.globl window
	.type window, @function
window:
	xorl %eax, %eax
	testl %edi, %edi
	je 1f
	movl $1, %eax
1:	ret
	.size window, .-window

	.globl jumper2
	.type jumper2, @function
jumper2:
#ifdef MUTATE
	jmp window+2
#else
	jmp window
#endif
	.size jumper2, .-jumper2

	.globl callwin
	.type callwin, @function
callwin:
#ifdef MUTATE
	call *%rdx
	xorl %eax, %eax
	movl %eax, %ecx
#else
	xorl %eax, %eax
	movl %eax, %ecx
	call *%rdx
#endif
	ret
	.size callwin, .-callwin

	.globl pointed
	.type pointed, @function
pointed:
	movl $0x90909090, %eax
	ret
	.size pointed, .-pointed

	.globl immed
	.type immed, @function
immed:
	movl $0x90909090, %eax
#if defined(MUTATE) && defined(EXEC)
	movl $immed+1, %eax
#endif
	ret
	.size immed, .-immed

	.section .rodata
table:
	.long 0, 0
	.data
	.p2align 3
#ifdef MUTATE
	.quad pointed+1
#else
	.quad pointed
#endif
	.section .note.GNU-stack,"",@progbits
