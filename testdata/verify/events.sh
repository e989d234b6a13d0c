#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Hand-written objects with static trace events (include/patchsite_event.h's
# layout, patchsite_event(3)) for patchverify's event-site and event-desc:
#   sh testdata/verify/events.sh OUT
# Each file has one function f (and g, another) with one event site, one
# table entry (site, target, descriptor, pc-relative) and one descriptor.
# What each plants (the source below is the oracle; objdump -d shows the
# site's bytes):
#   ev-good.o       the 5-byte nopl, target inside f, a whole descriptor
#   ev-good.so      the same, linked (the offsets resolved by ld)
#   ev-jmp.o        the site is a jmp to its own target (saved while enabled)
#   ev-notnop.o     five one-byte NOPs: not the NOP the header emits
#   ev-jmpelse.o    a jmp rel32, one byte past its target
#   ev-foreign.o    the target is in g, not in f or its .cold part
#   ev-cold.o       the target is in f.cold (gcc's split): good
#   ev-magic.o      the descriptor's magic is wrong
#   ev-text.o       the descriptor's text lacks the field's type
#   ev-kind.o       a field of kind 9
#   ev-far.o        the entry's descriptor offset points 1 MiB past the section
#   ev-a64-good.o   aarch64: the site a nop; ev-a64-notnop.o: a mov x0, x0
set -eu
OUT=$1
mkdir -p "$OUT"
cd "$OUT"

# gen NAME SITE TARGET_IN MAGIC KIND TEXT [CC]
gen() {
	name=$1 site=$2 where=$3 magic=$4 kind=$5 text=$6 cc=${7:-gcc}
	cat > "$name.s" <<EOF
	.text
	.globl f
	.type f, %function
f:
.Lsite:	$site
	ret
$( [ "$where" = f ] && echo '.Ltarget:' )
	ret
	.size f, .-f
	.globl g
	.type g, %function
g:
$( [ "$where" = g ] && echo '.Ltarget:' )
	ret
	.size g, .-g
	.section .text.unlikely, "ax", %progbits
	.type f.cold, %function
f.cold:
$( [ "$where" = cold ] && echo '.Ltarget:' )
	ret
	.size f.cold, .-f.cold
	.section patchsite_events, "aw"
	.balign 8
	.weak desc
	.hidden desc
desc:
	.long $magic
	.short 1, 1
	.long .Ldesc_end - desc, .Ltext - desc
	.quad 0, 0
	.byte $kind, 0
	.short 4
.Ltext:
	$text
	.balign 8
.Ldesc_end:
	.section patchsite_event_sites, "aR"
	.balign 8
	.long .Lsite - ., .Ltarget - .
	.quad desc - .
EOF
	echo "$name: $cc -c $name.s -o $name.o  # source: events.sh"
	$cc -c "$name.s" -o "$name.o"
}

NOP='.byte 0x0f, 0x1f, 0x44, 0x00, 0x00'
TEXT='.asciz "t", "e", "x=%d", "x", "int"'
gen ev-good "$NOP" f 0x56455350 1 "$TEXT"
gen ev-jmp '.byte 0xe9; .long .Ltarget - . - 4' f 0x56455350 1 "$TEXT"
gen ev-notnop '.byte 0x90, 0x90, 0x90, 0x90, 0x90' f 0x56455350 1 "$TEXT"
gen ev-jmpelse '.byte 0xe9; .long .Ltarget - . - 3' f 0x56455350 1 "$TEXT"
gen ev-foreign "$NOP" g 0x56455350 1 "$TEXT"
gen ev-cold "$NOP" cold 0x56455350 1 "$TEXT"
gen ev-magic "$NOP" f 0x56455351 1 "$TEXT"
gen ev-text "$NOP" f 0x56455350 1 '.ascii "t\0e\0x=%d\0x"'
gen ev-kind "$NOP" f 0x56455350 9 "$TEXT"
# aarch64: the site is a nop (d503201f); a mov is not.
A64=aarch64-linux-gnu-gcc
gen ev-a64-good nop f 0x56455350 1 "$TEXT" $A64
gen ev-a64-notnop 'mov x0, x0' f 0x56455350 1 "$TEXT" $A64
sed 's/^\t\.quad desc - \.$/\t.quad desc + 0x100000 - ./' ev-good.s > ev-far.s
echo "ev-far: ev-good.s with the descriptor 1 MiB further; gcc -c ev-far.s -o ev-far.o  # source: events.sh"
gcc -c ev-far.s -o ev-far.o
echo "ev-good.so: gcc -shared -nostdlib ev-good.o -o ev-good.so  # source: events.sh"
gcc -shared -nostdlib ev-good.o -o ev-good.so
rm -f ./*.s
