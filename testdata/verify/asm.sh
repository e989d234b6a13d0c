#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Hand-written objects for the checks no compiler output shows:
#   sh testdata/verify/asm.sh OUT   (build.sh runs it; prints its commands)
# For each arch, OUT/<arch>-late.o (an entry site that is not at the entry,
# or an mcount call after a branch: not-at-entry), <arch>-orphan.o (a
# recorded call outside every function, 40 returns past the last one, where
# no function would start: orphan-site) and <arch>-zero.o (a zero word in the
# table: zero-entry).  Each has one good site besides, so the file has a
# table and a function; SETUP is the frame set-up an mcount call follows.
# x86_64-mlate.o: an x86_64 mcount call after code that is not frame set-up;
# x86_64-f2 (linked, at the end) counts its hook calls.
set -eu
OUT=$1
mkdir -p "$OUT"
cd "$OUT"

# gen ARCH CC WORD CALL PAD FUNCTYPE [SETUP]: PAD is what goes before the late call.
gen() {
	arch=$1 cc=$2 word=$3 call=$4 pad=$5 ft=$6 setup=${7:-}
	for kind in late orphan zero; do
		{
			printf '\t.text\n\t.globl good\n\t.type good, %s\ngood:\n%s0:\t%s\n\t%s\n' \
				"$ft" "$setup" "$call" "$(ret_of "$arch")"
			printf '\t.size good, .-good\n\t.globl other\n\t.type other, %s\nother:\n' "$ft"
			case $kind in
			late) printf '%s\n1:\t%s\n\t%s\n\t.size other, .-other\n' "$pad" "$call" \
					"$(ret_of "$arch")" ;;
			orphan) printf '\t%s\n\t.size other, .-other\n%s\n1:\t%s\n\t%s\n' \
					"$(ret_of "$arch")" "$(rets 40 "$arch")" "$call" \
					"$(ret_of "$arch")" ;;
			zero) printf '\t%s\n\t.size other, .-other\n' "$(ret_of "$arch")" ;;
			esac
			printf '\t.section __mcount_loc, "a"\n\t%s 0b\n' "$word"
			if [ $kind = zero ]; then
				printf '\t%s 0\n' "$word"
			else
				printf '\t%s 1b\n' "$word"
			fi
		} > "$arch-$kind.s"
		echo "asm/: $cc -c $arch-$kind.s -o $arch-$kind.o  # source: asm.sh gen $arch"
		$cc -c "$arch-$kind.s" -o "$arch-$kind.o"
	done
}

ret_of() {
	case $1 in
	x86_64|i386) echo ret ;;
	aarch64) echo ret ;;
	arm) echo 'bx lr' ;;
	riscv64) echo ret ;;
	esac
}

rets() { n=$1; s=''; while [ "$n" -gt 0 ]; do s="$s	$(ret_of "$2")
"; n=$((n - 1)); done; printf '%s' "$s"; }
nops() { n=$1; s=''; while [ "$n" -gt 0 ]; do s="$s	nop
"; n=$((n - 1)); done; printf '%s' "$s"; }

gen x86_64 gcc .quad 'call __fentry__' '	push %rbp
	mov %rsp, %rbp' @function
gen i386 i686-linux-gnu-gcc .long 'call __fentry__' '	push %ebp
	mov %esp, %ebp' @function
# aarch64: _mcount follows the frame record (stp x29, x30; mov x29, sp) with
# no branch before it; late: a branch (cbz) between the two.
A64SETUP='	stp x29, x30, [sp, #-16]!
	mov x29, sp
'
gen aarch64 aarch64-linux-gnu-gcc .quad 'bl _mcount' \
	"${A64SETUP}	cbz x0, 2f
2:" %function "$A64SETUP"
# arm: an mcount call may follow a prologue of up to 32 bytes; late: beyond it.
gen arm "arm-linux-gnueabihf-gcc -marm" .long \
	'bl __gnu_mcount_nc' "$(nops 9)" %function

# riscv64: _mcount follows "sd ra" and "mv a0, ra" with no branch before it
# (gcc -pg's prologue); late: a branch (beqz) between them and the call.
RVSETUP='	addi sp, sp, -16
	sd ra, 8(sp)
	mv a0, ra
'
gen riscv64 riscv64-linux-gnu-gcc .quad 'call _mcount' \
	"${RVSETUP}	beqz a1, 2f
2:" @function "$RVSETUP"

# x86_64-mlate.o: gcc -pg without -mfentry calls mcount after the frame
# set-up; "good" does (push %rbp; mov %rsp,%rbp; push %rbx; sub $8,%rsp),
# "other" has an argument move before the call: not-at-entry there only.
cat > x86_64-mlate.s <<'EOF'
	.text
	.globl good
	.type good, @function
good:
	push %rbp
	mov %rsp, %rbp
	push %rbx
	sub $8, %rsp
0:	call mcount
	add $8, %rsp
	pop %rbx
	pop %rbp
	ret
	.size good, .-good
	.globl other
	.type other, @function
other:
	push %rbp
	mov %rsp, %rbp
	mov %edi, %eax
1:	call mcount
	pop %rbp
	ret
	.size other, .-other
	.section __mcount_loc, "a"
	.quad 0b
	.quad 1b
EOF
echo "asm/: gcc -c x86_64-mlate.s -o x86_64-mlate.o  # source: asm.sh"
gcc -c x86_64-mlate.s -o x86_64-mlate.o

# x86_64-f2: a linked file where work's fentry call follows _start's last
# instruction, "mov $0xf2,%al" (b0 f2): the f2 byte, read as a bnd prefix, made the call count twice
# (issue 13: 8 calls on the amd64 vmlinux).  objdump -d shows two calls.
cat > x86_64-f2.s <<'EOF'
	.text
	.globl __fentry__
	.type __fentry__, @function
__fentry__:
	ret
	.size __fentry__, .-__fentry__
	.globl _start
	.type _start, @function
_start:
0:	call __fentry__
	call work
	mov $60, %eax
	syscall
	mov $0xf2, %al
	.size _start, .-_start
	.globl work
	.type work, @function
work:
1:	call __fentry__
	ret
	.size work, .-work
	.section __mcount_loc, "a"
	.quad 0b
	.quad 1b
EOF
echo "asm/: gcc -nostdlib -no-pie x86_64-f2.s -o x86_64-f2  # source: asm.sh"
gcc -nostdlib -no-pie x86_64-f2.s -o x86_64-f2

# deadrun NAME PADDED: f, two dead weak copies in a row with no symbol
# (kvm.ko has such runs), then g; each 16-byte aligned.  A dead copy is
# longer than the 64-byte alignment a function could follow.  PADDED=1 is
# the shape of a Linux 6.12 x86 module (CALL_PADDING beside __mcount_loc):
# objtool's __pfx_NAME symbols cover each function's 16 NOPs of padding,
# listed in __patchable_function_entries.  PADDED=0 is Linux 6.1's: gas
# fills the alignment gaps with NOPs, only __mcount_loc.  Every padding
# entry ends at its function's entry; each copy is stale-weak in each
# table, nothing else is reported.
pad16() { for i in $(seq 16); do printf '\tnop\n'; done; }
deadrun() {
	name=$1 padded=$2
	{
		printf '\t.text\n'
		for f in f dead1 dead2 g; do
			printf '\t.p2align 4\n'
			if [ "$padded" = 1 ]; then
				case $f in dead*) printf '%s_pad:\n' "$f" ;;
				*) printf '\t.type __pfx_%s, @function\n__pfx_%s:\n' "$f" "$f" ;; esac
				pad16
				case $f in dead*) ;; *) printf '\t.size __pfx_%s, .-__pfx_%s\n' "$f" "$f" ;; esac
			fi
			case $f in dead*) ;; *) printf '\t.globl %s\n\t.type %s, @function\n%s:\n' \
				"$f" "$f" "$f" ;; esac
			[ "$padded" = 1 ] && printf '\tendbr64\n'
			printf '%s_call:\n\tcall __fentry__\n' "$f"
			case $f in dead*) printf '\t.rept 40\n\txor %%eax, %%eax\n\t.endr\n' ;; esac
			printf '\tret\n'
			case $f in dead*) ;; *) printf '\t.size %s, .-%s\n' "$f" "$f" ;; esac
		done
		printf '\t.section __mcount_loc, "a"\n'
		for f in f dead1 dead2 g; do printf '\t.quad %s_call\n' "$f"; done
		if [ "$padded" = 1 ]; then
			printf '\t.section __patchable_function_entries, "awo", @progbits, __pfx_f\n'
			printf '\t.quad __pfx_f\n\t.quad dead1_pad\n\t.quad dead2_pad\n\t.quad __pfx_g\n'
		fi
	} > "$name.s"
	echo "asm/: gcc -c $name.s -o $name.o  # source: asm.sh"
	gcc -c "$name.s" -o "$name.o"
}
deadrun x86_64-kpfx 1
deadrun x86_64-kdead 0
