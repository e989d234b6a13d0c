#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Rebuild patchverify's committed test inputs:   sh testdata/verify/build.sh
#
# Needs the Debian 12 cross compilers (gcc-{i686,aarch64,arm,powerpc64le,riscv64}-linux-gnu*)
# and the kernel's recordmcount (linux-kbuild-6.1), and for the riscv64 -pg
# files this tree's build/recordmcount (run `make` first); `make check` needs none
# of them: it audits the files this script leaves next to it.  VERSIONS
# lists every command (run in a scratch directory, SRC = testdata/verify/src)
# and the exact compiler versions.
#
# The tables come from independent producers only: gcc's -mrecord-mcount and
# -fpatchable-function-entry, and the kernel's recordmcount from Debian's
# linux-kbuild-6.1 (run with -w, as kbuild does for RECORDMCOUNT_WARN=1) on
# the objects of arches where gcc has no -mrecord-mcount (aarch64, arm,
# ppc64le).  Linked files are linked by the cross gcc/ld without -pg.
#   *-exe        -no-pie, main.c overrides sites.c's weak wfun: the dead
#                copy keeps its site (stale-weak, made by ld)
#   *-exe-plain  the same link with -DNO_OVERRIDE: its clean twin
#   *-pie        -pie (the table is filled by R_*_RELATIVE at load time)
#   *-lib.so     -shared, sites only in .text: a sorted table
#   *-pfe-exe    -fpatchable-function-entry=2 sleds in a linked file
#   *-lib-stripped.so  *-lib.so through strip: functions only in .dynsym
#   *-weak-*.o   ld -r of a weak and a strong hook(): the dead copy (stale-weak)
#   *-prologue.o -pg after a long frame set-up (clean)
#   x64-pad*.o   call padding (16,16) beside -mrecord-mcount (clean)
#   x64-cxx-pfe-exe  a C++ link that loses one object's patchable entries
# asm/ holds the hand-written objects of asm.sh (checks no compiler output
# shows: not-at-entry, orphan-site, zero-entry).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/src
RMC=${KERNEL_RECORDMCOUNT:-/usr/lib/linux-kbuild-6.1/scripts/recordmcount}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
LOG=$W/VERSIONS
{
	echo "# Made by testdata/verify/build.sh on $(date +%Y-%m-%d); commands run in a"
	echo "# scratch directory with SRC=testdata/verify/src."
	for cc in gcc g++ i686-linux-gnu-gcc aarch64-linux-gnu-gcc arm-linux-gnueabihf-gcc \
		  powerpc64le-linux-gnu-gcc riscv64-linux-gnu-gcc; do
		echo "# $cc: $($cc --version | head -1)"
	done
	echo "# ld: $(ld --version | head -1)"
	echo "# kernel recordmcount: $RMC ($(dpkg-query -W -f='${Package} ${Version}' \
		linux-kbuild-6.1 2>/dev/null || echo 'version unknown'))"
} > "$LOG"
run() { echo "$*" | sed "s|$SRC|\$SRC|g" >> "$LOG"; "$@"; }
rmc() { run cp "$1" "$2"; run "$RMC" -w "$2" > /dev/null; }
NOUW=-fno-asynchronous-unwind-tables
KEEP=""	# the files to commit
keep() { KEEP="$KEEP $*"; }
# strip ARCH-PREFIX P: P-lib.so without .symtab (functions only in .dynsym).
stripped() { run $1strip -o $2-lib-stripped.so $2-lib.so; keep $2-lib-stripped.so; }

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
# x86 call padding beside ftrace's table, as Linux 6.12 builds (CALL_PADDING):
# __patchable_function_entries is padding there, not ftrace's table.
run gcc $X -pg -mfentry -mrecord-mcount -fpatchable-function-entry=16,16 -falign-functions=16 \
	-c "$SRC/sites.c" -o x64-pad.o
run gcc $X -pg -mfentry -mrecord-mcount -fpatchable-function-entry=16,16 -falign-functions=16 \
	-fcf-protection=full -c "$SRC/sites.c" -o x64-padcet.o
keep x64-cc.o x64-mcount.o x64-nop.o x64-cet.o x64-rmc.o x64-pfe.o x64-pfe31.o x64-pfecet.o
keep x64-pad.o x64-padcet.o

# x86_64 linked files: compiled with -pg, linked without it.
L="-O2 $NOUW -pg -mfentry -mrecord-mcount"
run gcc $L -fno-pie -c "$SRC/sites.c" -o l-sites-np.o
run gcc $L -fno-pie -c "$SRC/main.c" -o l-main-np.o
run gcc $L -fno-pie -DNO_OVERRIDE -c "$SRC/main.c" -o l-main-plain.o
run gcc -no-pie l-sites-np.o l-main-np.o -o x64-exe
run gcc -no-pie l-sites-np.o l-main-plain.o -o x64-exe-plain
run gcc $L -fpie -c "$SRC/sites.c" -o l-sites-pie.o
run gcc $L -fpie -c "$SRC/main.c" -o l-main-pie.o
run gcc -pie l-sites-pie.o l-main-pie.o -o x64-pie 2> /dev/null
run gcc $L -fpic -c "$SRC/lib.c" -o l-lib.o
run gcc -shared l-lib.o -o x64-lib.so 2> /dev/null
run gcc -O2 $NOUW -fno-pie -fpatchable-function-entry=2 -c "$SRC/sites.c" -o l-pfe.o
run gcc -O2 $NOUW -fno-pie -fpatchable-function-entry=2 -c "$SRC/main.c" -o l-mpfe.o
run gcc -no-pie l-pfe.o l-mpfe.o -o x64-pfe-exe
keep x64-exe x64-exe-plain x64-pie x64-lib.so x64-pfe-exe
stripped "" x64

# i386: gcc's table, recordmcount's (REL), patchable entries; linked files
# from gcc's tables: -mfentry calls through the PLT (-no-pie), and, since
# gcc has no -mfentry with -fpic, PIC "call *mcount@GOT(%ebx)" (PIE, .so).
I="-O2 -fno-pie $NOUW"
II="i686-linux-gnu-gcc -O2 $NOUW -pg -mrecord-mcount"
run i686-linux-gnu-gcc $I -pg -mfentry -mrecord-mcount -c "$SRC/sites.c" -o i386-cc.o
run i686-linux-gnu-gcc $I -pg -mfentry -c "$SRC/sites.c" -o i386-pg.o
rmc i386-pg.o i386-rmc.o
run i686-linux-gnu-gcc $I -fpatchable-function-entry=2 -c "$SRC/sites.c" -o i386-pfe.o
keep i386-cc.o i386-rmc.o i386-pfe.o
run $II -fno-pie -mfentry -c "$SRC/main.c" -o i386-main.o
run $II -fno-pie -mfentry -DNO_OVERRIDE -c "$SRC/main.c" -o i386-mplain.o
run i686-linux-gnu-gcc -no-pie i386-cc.o i386-main.o -o i386-exe
run i686-linux-gnu-gcc -no-pie i386-cc.o i386-mplain.o -o i386-exe-plain
run $II -fpie -c "$SRC/sites.c" -o i386-s-pie.o
run $II -fpie -c "$SRC/main.c" -o i386-m-pie.o
run i686-linux-gnu-gcc -pie i386-s-pie.o i386-m-pie.o -o i386-pie 2> /dev/null
run $II -fpic -c "$SRC/lib.c" -o i386-l.o
run i686-linux-gnu-gcc -shared i386-l.o -o i386-lib.so 2> /dev/null
run i686-linux-gnu-gcc $I -fpatchable-function-entry=2 -c "$SRC/main.c" -o i386-pfem.o
run i686-linux-gnu-gcc -no-pie i386-pfe.o i386-pfem.o -o i386-pfe-exe
keep i386-exe i386-exe-plain i386-pie i386-lib.so i386-pfe-exe
stripped i686-linux-gnu- i386

# crosslinked PREFIX CC FLAGS: objects through the kernel's recordmcount,
# then the five linked files above.
crosslinked() {
	p=$1 cc=$2 f=$3
	for v in np:-fno-pie pie:-fpie; do
		run $cc $f ${v#*:} -pg -c "$SRC/sites.c" -o $p-s-${v%%:*}-pg.o
		rmc $p-s-${v%%:*}-pg.o $p-s-${v%%:*}.o
		run $cc $f ${v#*:} -pg -c "$SRC/main.c" -o $p-m-${v%%:*}-pg.o
		rmc $p-m-${v%%:*}-pg.o $p-m-${v%%:*}.o
	done
	run $cc $f -fno-pie -pg -DNO_OVERRIDE -c "$SRC/main.c" -o $p-mplain-pg.o
	rmc $p-mplain-pg.o $p-mplain.o
	run $cc $f -fpic -pg -c "$SRC/lib.c" -o $p-l-pg.o
	rmc $p-l-pg.o $p-l.o
	run $cc -no-pie $p-s-np.o $p-m-np.o -o $p-exe
	run $cc -no-pie $p-s-np.o $p-mplain.o -o $p-exe-plain
	run $cc -pie $p-s-pie.o $p-m-pie.o -o $p-pie
	run $cc -shared $p-l.o -o $p-lib.so
	run $cc $f -fno-pie -fpatchable-function-entry=2 -c "$SRC/sites.c" -o $p-pfes.o
	run $cc $f -fno-pie -fpatchable-function-entry=2 -c "$SRC/main.c" -o $p-pfem.o
	run $cc -no-pie $p-pfes.o $p-pfem.o -o $p-pfe-exe
	keep $p-exe $p-exe-plain $p-pie $p-lib.so $p-pfe-exe
}

# aarch64: gcc has no -mrecord-mcount; recordmcount, and patchable entries.
A="-O2 -fno-pie $NOUW"
run aarch64-linux-gnu-gcc $A -pg -mbranch-protection=none -c "$SRC/sites.c" -o a64-pg.o
rmc a64-pg.o a64-rmc.o
run aarch64-linux-gnu-gcc $A -pg -mbranch-protection=standard -c "$SRC/sites.c" -o a64-pac.o
rmc a64-pac.o a64-rmcpac.o
run aarch64-linux-gnu-gcc $A -fpatchable-function-entry=2 -c "$SRC/sites.c" -o a64-pfe.o
run aarch64-linux-gnu-gcc $A -fpatchable-function-entry=2 -mbranch-protection=bti \
	-c "$SRC/sites.c" -o a64-pfebti.o
keep a64-rmc.o a64-rmcpac.o a64-pfe.o a64-pfebti.o
crosslinked a64 aarch64-linux-gnu-gcc "-O2 $NOUW -mbranch-protection=none"
stripped aarch64-linux-gnu- a64

# riscv64 patchable entries.  With compressed code (rv64gc, Debian's default) gcc
# aligns functions to 2 only: misaligned for libpatchsite unless -falign-functions=4
# (R_RISCV_ALIGN ending at each site); rv64g code is 4-aligned throughout.
V="-O2 -fno-pie $NOUW"
run riscv64-linux-gnu-gcc $V -fpatchable-function-entry=4 -c "$SRC/sites.c" -o rv64-pfe.o
run riscv64-linux-gnu-gcc $V -fpatchable-function-entry=4 -falign-functions=4 \
	-c "$SRC/sites.c" -o rv64-pfealign.o
run riscv64-linux-gnu-gcc $V -march=rv64g -fpatchable-function-entry=2 \
	-c "$SRC/sites.c" -o rv64g-pfe.o
keep rv64-pfe.o rv64-pfealign.o rv64g-pfe.o
# BEGIN riscv64 linked
# riscv64 linked files.  gcc has no -mrecord-mcount on riscv64 and the kernel's
# recordmcount refuses the machine, so the independent tables are gcc's
# -fpatchable-function-entry ones:
#   rv64-exe, rv64-exe-plain, rv64-pie, rv64-lib.so (and -stripped): =4 with
#                -falign-functions=4 (rv64gc), linked as the other arches' five
#   rv64-pfe-exe  =4 without -falign-functions=4: 2-aligned sites (misaligned)
#   rv64g-pfe-exe =2, -march=rv64g
#   rv64-pg-exe  -pg (mv a0,ra; call _mcount after the prologue, relaxed by ld
#                to jal _mcount@plt), no table: the calls alone
#   rv64-rmc-exe, rv64-rmc-pie, rv64-rmc-lib.so, rv64-prologue.o: -pg objects through THIS
#                project's recordmcount (RV_RECORDMCOUNT, default build/), the
#                only producer of an __mcount_loc there is; not independent,
#                so the tests check them against objdump's calls too.
#   rv64-norelax-exe  rv64-rmc-exe's objects linked with --no-relax: the
#                calls stay auipc ra + jalr ra (8 bytes) to _mcount@plt
RVCC=riscv64-linux-gnu-gcc
RVRMC=${RV_RECORDMCOUNT:-$HERE/../../build/recordmcount}
rvrmc() { run cp "$1" "$2"; run "$RVRMC" "$2"; }
VL="-O2 $NOUW -fpatchable-function-entry=4 -falign-functions=4"
run $RVCC $VL -fno-pie -c "$SRC/sites.c" -o rv64-s-np.o
run $RVCC $VL -fno-pie -c "$SRC/main.c" -o rv64-m-np.o
run $RVCC $VL -fno-pie -DNO_OVERRIDE -c "$SRC/main.c" -o rv64-mplain.o
run $RVCC -no-pie rv64-s-np.o rv64-m-np.o -o rv64-exe
run $RVCC -no-pie rv64-s-np.o rv64-mplain.o -o rv64-exe-plain
run $RVCC $VL -fpie -c "$SRC/sites.c" -o rv64-s-pie.o
run $RVCC $VL -fpie -c "$SRC/main.c" -o rv64-m-pie.o
run $RVCC -pie rv64-s-pie.o rv64-m-pie.o -o rv64-pie
run $RVCC $VL -fpic -c "$SRC/lib.c" -o rv64-l.o
run $RVCC -shared rv64-l.o -o rv64-lib.so
run $RVCC -O2 $NOUW -fno-pie -fpatchable-function-entry=4 -c "$SRC/sites.c" -o rv64-us.o
run $RVCC -O2 $NOUW -fno-pie -fpatchable-function-entry=4 -c "$SRC/main.c" -o rv64-um.o
run $RVCC -no-pie rv64-us.o rv64-um.o -o rv64-pfe-exe
run $RVCC -O2 $NOUW -fno-pie -march=rv64g -fpatchable-function-entry=2 -c "$SRC/sites.c" \
	-o rv64g-s.o
run $RVCC -O2 $NOUW -fno-pie -march=rv64g -fpatchable-function-entry=2 -c "$SRC/main.c" \
	-o rv64g-m.o
run $RVCC -no-pie rv64g-s.o rv64g-m.o -o rv64g-pfe-exe
run $RVCC -O2 $NOUW -fno-pie -pg -c "$SRC/sites.c" -o rv64-s-pg.o
run $RVCC -O2 $NOUW -fno-pie -pg -c "$SRC/main.c" -o rv64-m-pg.o
run $RVCC -no-pie rv64-s-pg.o rv64-m-pg.o -o rv64-pg-exe
rvrmc rv64-s-pg.o rv64-s-rmc.o
rvrmc rv64-m-pg.o rv64-m-rmc.o
run $RVCC -no-pie rv64-s-rmc.o rv64-m-rmc.o -o rv64-rmc-exe
run $RVCC -no-pie -Wl,--no-relax rv64-s-rmc.o rv64-m-rmc.o -o rv64-norelax-exe
run $RVCC -O2 $NOUW -fpie -pg -c "$SRC/sites.c" -o rv64-sp-pg.o
run $RVCC -O2 $NOUW -fpie -pg -c "$SRC/main.c" -o rv64-mp-pg.o
rvrmc rv64-sp-pg.o rv64-sp-rmc.o
rvrmc rv64-mp-pg.o rv64-mp-rmc.o
run $RVCC -pie rv64-sp-rmc.o rv64-mp-rmc.o -o rv64-rmc-pie
run $RVCC -O2 $NOUW -fpic -pg -c "$SRC/lib.c" -o rv64-l-pg.o
rvrmc rv64-l-pg.o rv64-l-rmc.o
run $RVCC -shared rv64-l-rmc.o -o rv64-rmc-lib.so
keep rv64-exe rv64-exe-plain rv64-pie rv64-lib.so rv64-pfe-exe rv64g-pfe-exe rv64-pg-exe
keep rv64-rmc-exe rv64-norelax-exe rv64-rmc-pie rv64-rmc-lib.so
# -pg after a long frame set-up (prologue.c, stack protector): the call 0x32
# bytes into build_table, after 13 saves and 8 argument moves (recordmcount as above).
run $RVCC -O2 $NOUW -fno-pie -pg -fstack-protector-strong -c "$SRC/prologue.c" -o rv64-prol-pg.o
rvrmc rv64-prol-pg.o rv64-prologue.o
keep rv64-prologue.o
stripped riscv64-linux-gnu- rv64
# END riscv64 linked

# arm: recordmcount, ARM and Thumb; patchable entries.  Debian's armhf gcc
# makes Thumb-2 code by default: its linked files are Thumb, calling the
# ARM PLT entry of __gnu_mcount_nc with blx; arm-lib-arm.so is ARM code.
R="-O2 -fno-pie $NOUW"
run arm-linux-gnueabihf-gcc $R -pg -marm -c "$SRC/sites.c" -o arm-pg.o
rmc arm-pg.o arm-rmc.o
run arm-linux-gnueabihf-gcc $R -pg -mthumb -c "$SRC/sites.c" -o thumb-pg.o
rmc thumb-pg.o thumb-rmc.o
run arm-linux-gnueabihf-gcc $R -marm -fpatchable-function-entry=2 -c "$SRC/sites.c" -o arm-pfe.o
run arm-linux-gnueabihf-gcc $R -mthumb -fpatchable-function-entry=2 -c "$SRC/sites.c" \
	-o thumb-pfe.o
keep arm-rmc.o thumb-rmc.o arm-pfe.o thumb-pfe.o
crosslinked arm arm-linux-gnueabihf-gcc "-O2 $NOUW"
run arm-linux-gnueabihf-gcc -O2 $NOUW -marm -fpic -pg -c "$SRC/lib.c" -o arm-la-pg.o
rmc arm-la-pg.o arm-la.o
run arm-linux-gnueabihf-gcc -shared arm-la.o -o arm-lib-arm.so
keep arm-lib-arm.so
stripped arm-linux-gnueabihf- arm

# ppc64le: recordmcount; one linked file, which patchverify refuses by name.
run powerpc64le-linux-gnu-gcc -O2 -fno-pie $NOUW -pg -c "$SRC/sites.c" -o ppc64le-pg.o
rmc ppc64le-pg.o ppc64le-rmc.o
run powerpc64le-linux-gnu-gcc -O2 $NOUW -pg -c "$SRC/main.c" -o ppc64le-mpg.o
rmc ppc64le-mpg.o ppc64le-m.o
run powerpc64le-linux-gnu-gcc -no-pie ppc64le-rmc.o ppc64le-m.o -o ppc64le-exe
keep ppc64le-rmc.o ppc64le-exe

# Dead weak copies (stale-weak): weak.c's weak hook() and strong.c's strong
# one joined by ld -r, as a kernel module is; every table kind, and with
# -ffunction-sections (.text.hook names the dead copy).
# weakpair PREFIX CC LD OUT FLAGS
weakpair() {
	run $2 $5 -c "$SRC/weak.c" -o $4-w.o
	run $2 $5 -c "$SRC/strong.c" -o $4-s.o
	run $3 -r $4-w.o $4-s.o -o $4.o
	keep $4.o
}
# the same through the kernel's recordmcount (arches without -mrecord-mcount)
weakpair_rmc() {
	run $2 $5 -c "$SRC/weak.c" -o $4-wpg.o
	rmc $4-wpg.o $4-w.o
	run $2 $5 -c "$SRC/strong.c" -o $4-spg.o
	rmc $4-spg.o $4-s.o
	run $3 -r $4-w.o $4-s.o -o $4.o
	keep $4.o
}
weakpair x64 gcc ld x64-weak-pfe "$X -fpatchable-function-entry=2"
weakpair x64 gcc ld x64-weak-pad "$X -fpatchable-function-entry=16,16"
weakpair x64 gcc ld x64-weak-cet "$X -fpatchable-function-entry=2 -fcf-protection=full"
weakpair x64 gcc ld x64-weak-cc "$X -pg -mfentry -mrecord-mcount"
weakpair x64 gcc ld x64-weak-fs "$X -pg -mfentry -mrecord-mcount -ffunction-sections"
# as Linux 6.12 x86 modules: call padding beside __mcount_loc, with and without CET
KPAD="-pg -mfentry -mrecord-mcount -fpatchable-function-entry=16,16 -falign-functions=16"
weakpair x64 gcc ld x64-weak-kpad "$X $KPAD"
weakpair x64 gcc ld x64-weak-kpadcet "$X $KPAD -fcf-protection=full"
AL=aarch64-linux-gnu-ld
weakpair a64 aarch64-linux-gnu-gcc $AL a64-weak-pfe "$A -fpatchable-function-entry=2"
weakpair a64 aarch64-linux-gnu-gcc $AL a64-weak-bti \
	"$A -fpatchable-function-entry=2 -mbranch-protection=bti"
weakpair a64 aarch64-linux-gnu-gcc $AL a64-weak-fs \
	"$A -fpatchable-function-entry=2 -ffunction-sections"
weakpair_rmc a64 aarch64-linux-gnu-gcc $AL a64-weak-rmc "$A -pg -mbranch-protection=none"
weakpair rv64 riscv64-linux-gnu-gcc riscv64-linux-gnu-ld rv64-weak-pfe \
	"$V -fpatchable-function-entry=4 -falign-functions=4"

# -pg after a long frame set-up (prologue.c): arm64 as Linux 6.1 builds it
# (stack protector, no -mfentry there), x86_64 -pg without -mfentry.
run aarch64-linux-gnu-gcc $A -pg -fstack-protector-strong -mbranch-protection=none \
	-c "$SRC/prologue.c" -o a64-prol-pg.o
rmc a64-prol-pg.o a64-prologue.o
run gcc $X -pg -mrecord-mcount -fstack-protector-strong -c "$SRC/prologue.c" -o x64-prologue.o
keep a64-prologue.o x64-prologue.o

# g++ -fpatchable-function-entry=5, two files sharing COMDAT functions: the
# link drops one object's table with the group (missing-site, issue 16).
run g++ -O0 $NOUW -fpatchable-function-entry=5 -c "$SRC/cxx-a.cpp" -o cxx-a.o
run g++ -O0 $NOUW -fpatchable-function-entry=5 -c "$SRC/cxx-b.cpp" -o cxx-b.o
run g++ cxx-a.o cxx-b.o -o x64-cxx-pfe-exe
keep x64-cxx-pfe-exe

sh "$HERE/asm.sh" "$W/asm" >> "$LOG"
sh "$HERE/events.sh" "$W/events" >> "$LOG"

rm -rf "$HERE/asm"
mkdir -p "$HERE/asm"
cp $KEEP "$HERE/"
cp asm/*.o asm/x86_64-f2 "$HERE/asm/"
rm -rf "$HERE/events"
mkdir -p "$HERE/events"
cp events/*.o events/*.so "$HERE/events/"
cp "$LOG" "$HERE/VERSIONS"
echo "testdata/verify: $(echo $KEEP | wc -w) files and $(ls asm/*.o | wc -l) asm objects"
