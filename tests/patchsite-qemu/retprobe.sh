#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Return probes on aarch64 under qemu-user: usage  retprobe.sh A64_BUILD_DIR HOST_BUILD_DIR
#
# The oracle is the x86-64 run of the same samples (testdata/patchsite/retvals.c,
# retthrow.cc), whose values tests/patchsite/retprobe.sh checks against gdb's finish: the
# same FUNC%return probes must give the same values, return by return, from x0 and d0 as
# aarch64's graph_return slow path saved them (patchsite/arch/aarch64/regs.c
# ps_regs_exit_value), under qemu-aarch64.  The types are written out: the runtime reads
# no DWARF (record's command does, and it runs no aarch64 program here).  r_jump's
# longjmps and thrower's throws must leave no return line, and the programs' output must
# be the untraced one.  Pointers differ between the two runs and are not probed.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary, qemu_init
export PATCHSITE_SCHED=0	# qemu-user has no perf_event_open (see probes.sh)
A=${1:-build/aarch64}
H=${2:-build}
suite_init a64ret "$H" plain
LABEL=aarch64
if ! qemu_init aarch64 || [ ! -f "$A/libpatchsite.so" ]; then
	echo "SKIP aarch64 return probes: needs $NEED and $A/libpatchsite.so"
	exit 0
fi
RETVALS='f:t/r_int r_int%return $retval:s32
f:t/r_unsigned r_unsigned%return $retval:u32
f:t/r_long r_long%return $retval:s64
f:t/r_short r_short%return $retval:s16
f:t/r_schar r_schar%return $retval:s8
f:t/r_uchar r_uchar%return $retval:u8
f:t/r_bool r_bool%return $retval:u8
f:t/r_enum r_enum%return $retval:s32
f:t/r_double r_double%return $retval:double
f:t/r_float r_float%return $retval:float
f:t/r_str r_str%return +0($retval):string
f:t/r_jump r_jump%return $retval:s32'
THROW='f:t/thrower thrower%return $retval:s32
f:t/caller caller%return $retval:s32'
# Entry values kept for the return ($argN, read through at the return): retargs.c, whose
# x86-64 values tests/patchsite/retprobe.sh checks against gdb.  aarch64 passes all 8 in x0-x7.
RETARGS='f:t/mix ra_mix%return $retval:s64 a=$arg1:s32 b=$arg2:s64 c=$arg3:u16 d=$arg4:s8
f:t/eight ra_eight%return $retval:s64 a1=$arg1:s64 a7=$arg7:s64 a8=$arg8:s32 x=$arg2:s64
f:t/host ra_host%return $retval:s32 len=$arg2:s32 h_port=+0($arg1):s32 h_name=+0(+8($arg1)):string
f:t/fact ra_fact%return $retval:s32 n=$arg1:s32
f:t/outer ra_outer%return y=$arg2:s32 $retval:s32 x=$arg1:s32
f:t/inner ra_inner%return $retval:s32 x=$arg1:s32'

# one NAME SRC COMPILER PROBES [TRACER]: x86-64 and aarch64 runs, their events compared.
one() {
	name=$1 src=$2 cc=$3 probes=$4 tracer=${5:-nop}
	host=gcc
	case $src in *.cc) host=g++ ;; esac
	$host -O2 -g -pg -mfentry -mrecord-mcount "$src" -o "$T/x86" 2>"$T/err"
	$cc -O2 -g -fpatchable-function-entry=2 "$src" -o "$T/a64" 2>>"$T/err"
	rm -rf "$T/x86.d" "$T/a64.d"
	PATCHSITE_PROBES="$probes" PATCHSITE_DATA="$T/x86.d" PATCHSITE_TRACER=$tracer \
		LD_PRELOAD="$PWD/$H/libpatchsite.so" "$T/x86" >"$T/x86.out" 2>>"$T/err"
	"$QEMU" -L "$SYSROOT" -E LD_PRELOAD="$PWD/$A/libpatchsite.so" \
		-E PATCHSITE_PROBES="$probes" -E PATCHSITE_DATA="$T/a64.d" \
		-E PATCHSITE_TRACER=$tracer "$T/a64" >"$T/a64.out" 2>>"$T/err"
	"$QEMU" -L "$SYSROOT" "$T/a64" >"$T/a64.plain" 2>>"$T/err"
	# The caller's offset and size are each arch's own code: its name is compared.
	for arch in x86 a64; do
		"$H/patchsite" replay -d "$T/$arch.d" 2>>"$T/err" |
			grep -o ' t:[a-z_]*: .*' |
			sed 's/ \*\/$//; s,(\([^ +]*\)+0x[0-9a-f]*/0x[0-9a-f]* <- ,(\1 <- ,' >"$T/$arch.txt"
	done
	n=$(wc -l <"$T/x86.txt")
	if [ "$n" -gt 10 ] && diff -u "$T/x86.txt" "$T/a64.txt" >"$T/diff" &&
	   cmp -s "$T/a64.out" "$T/a64.plain" && cmp -s "$T/x86.out" "$T/a64.out"; then
		pass "$name: $n returns, the same values as x86-64's, output unchanged"
	else
		echo "output: traced $(cat "$T/a64.out") untraced $(cat "$T/a64.plain")" >"$T/why"
		fail "$name differ from x86-64's ($n returns)" "$T/why" "$T/err" "$T/diff"
	fi
}
one "retvals.c" testdata/patchsite/retvals.c "$CC" "$RETVALS"
one "retvals.c under function_graph" testdata/patchsite/retvals.c "$CC" "$RETVALS" function_graph
one "retargs.c (entry values at the return)" testdata/patchsite/retargs.c "$CC" "$RETARGS"
if command -v "$CXX" >/dev/null 2>&1; then
	one "retthrow.cc (throws through a probed function)" testdata/patchsite/retthrow.cc "$CXX" \
		"$THROW"
else
	echo "SKIP aarch64 retthrow.cc: $CXX not installed"
fi
summary
