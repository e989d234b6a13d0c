#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Build patchverify's clean test inputs into OUT:   sh tests/verify/mkinputs.sh OUT
#
# Every command is echoed into OUT/COMMANDS together with the compiler
# versions, so a failing case can be rebuilt by hand.  The tables come from
# independent producers only: gcc's -mrecord-mcount / -fpatchable-function-entry,
# and the kernel's recordmcount from Debian's linux-kbuild-6.1 (run with -w,
# as kbuild does for RECORDMCOUNT_WARN=1).  A cross compiler that is missing
# skips its arch (the runner says which).
set -eu
OUT=$1
SRC=$(cd "$(dirname "$0")" && pwd)/src
RMC=${KERNEL_RECORDMCOUNT:-/usr/lib/linux-kbuild-6.1/scripts/recordmcount}
mkdir -p "$OUT"
cd "$OUT"
: > COMMANDS
run() { echo "$*" >> COMMANDS; "$@"; }
rmc() { run cp "$1" "$2"; run "$RMC" -w "$2" > /dev/null; }
have() { command -v "$1" > /dev/null 2>&1; }
NOUW=-fno-asynchronous-unwind-tables

for cc in gcc i686-linux-gnu-gcc aarch64-linux-gnu-gcc arm-linux-gnueabihf-gcc \
	  powerpc64le-linux-gnu-gcc; do
	have $cc && echo "# $($cc --version | head -1)" >> COMMANDS
done
echo "# $(ld --version | head -1)" >> COMMANDS
echo "# kernel recordmcount: $RMC (linux-kbuild-6.1)" >> COMMANDS

# x86_64 objects: gcc's own table (fentry, mcount, NOPs, CET), recordmcount's.
X="-O2 -fno-pie $NOUW"
run gcc $X -pg -mfentry -mrecord-mcount -c "$SRC/sites.c" -o x64-cc.o
run gcc $X -pg -mrecord-mcount -c "$SRC/sites.c" -o x64-mcount.o
run gcc $X -pg -mfentry -mrecord-mcount -mnop-mcount -c "$SRC/sites.c" -o x64-nop.o
run gcc $X -pg -mfentry -mrecord-mcount -fcf-protection=full -c "$SRC/sites.c" -o x64-cet.o
run gcc $X -pg -mfentry -c "$SRC/sites.c" -o x64-pg.o
rmc x64-pg.o x64-rmc.o
run gcc $X -fpatchable-function-entry=2 -c "$SRC/sites.c" -o x64-pfe.o
run gcc $X -fpatchable-function-entry=3,1 -c "$SRC/sites.c" -o x64-pfe31.o
run gcc $X -fpatchable-function-entry=2 -fcf-protection=full -c "$SRC/sites.c" -o x64-pfecet.o

# x86_64 linked files: compiled with -pg, linked without it.
L="-O2 $NOUW -pg -mfentry -mrecord-mcount"
run gcc $L -fno-pie -c "$SRC/sites.c" -o l-sites-np.o
run gcc $L -fno-pie -c "$SRC/main.c" -o l-main-np.o
run gcc -no-pie l-sites-np.o l-main-np.o -o x64-exe
run gcc $L -fpie -c "$SRC/sites.c" -o l-sites-pie.o
run gcc $L -fpie -c "$SRC/main.c" -o l-main-pie.o
run gcc -pie l-sites-pie.o l-main-pie.o -o x64-pie 2> /dev/null
run gcc $L -fpic -c "$SRC/lib.c" -o l-lib.o
run gcc -shared l-lib.o -o x64-lib.so 2> /dev/null
run gcc -O2 $NOUW -fno-pie -fpatchable-function-entry=2 -c "$SRC/sites.c" -o l-pfe.o
run gcc -O2 $NOUW -fno-pie -fpatchable-function-entry=2 -c "$SRC/main.c" -o l-mpfe.o
run gcc -no-pie l-pfe.o l-mpfe.o -o x64-pfe-exe

# i386: gcc's table, and recordmcount's (REL).
if have i686-linux-gnu-gcc; then
	I="-O2 -fno-pie $NOUW -pg -mfentry"
	run i686-linux-gnu-gcc $I -mrecord-mcount -c "$SRC/sites.c" -o i386-cc.o
	run i686-linux-gnu-gcc $I -c "$SRC/sites.c" -o i386-pg.o
	rmc i386-pg.o i386-rmc.o
fi

# aarch64: gcc has no -mrecord-mcount; recordmcount, and patchable entries.
if have aarch64-linux-gnu-gcc; then
	A="-O2 -fno-pie $NOUW"
	run aarch64-linux-gnu-gcc $A -pg -mbranch-protection=none -c "$SRC/sites.c" -o a64-pg.o
	rmc a64-pg.o a64-rmc.o
	run aarch64-linux-gnu-gcc $A -pg -mbranch-protection=standard -c "$SRC/sites.c" -o a64-pac.o
	rmc a64-pac.o a64-rmcpac.o
	run aarch64-linux-gnu-gcc $A -fpatchable-function-entry=2 -c "$SRC/sites.c" -o a64-pfe.o
	run aarch64-linux-gnu-gcc $A -fpatchable-function-entry=2 -mbranch-protection=bti \
		-c "$SRC/sites.c" -o a64-pfebti.o
fi

# arm: recordmcount, ARM and Thumb.
if have arm-linux-gnueabihf-gcc; then
	R="-O2 -fno-pie $NOUW -pg"
	run arm-linux-gnueabihf-gcc $R -marm -c "$SRC/sites.c" -o arm-pg.o
	rmc arm-pg.o arm-rmc.o
	run arm-linux-gnueabihf-gcc $R -mthumb -c "$SRC/sites.c" -o thumb-pg.o
	rmc thumb-pg.o thumb-rmc.o
fi

# ppc64le: recordmcount (clean only).
if have powerpc64le-linux-gnu-gcc; then
	run powerpc64le-linux-gnu-gcc -O2 -fno-pie $NOUW -pg -c "$SRC/sites.c" -o ppc64le-pg.o
	rmc ppc64le-pg.o ppc64le-rmc.o
fi
