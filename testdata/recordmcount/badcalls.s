# Relocations against the hook that are not calls (x86-64).  recordmcount
# must reject the object naming each place, and leave it untouched.
	.text
	.globl	tail
tail:
	jmp	__fentry__		# a tail jump, not a call
	.globl	addr
addr:
	movq	$__fentry__, %rax	# the hook's address, not a call
	ret
