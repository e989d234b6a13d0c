#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# libpatchsite on aarch64 or riscv64, under qemu-user: guest instructions per
# traced call.  usage: aarch64.sh BUILD_DIR [ARCH] (the arch's runtime,
# build/aarch64 or build/riscv64; ARCH aarch64, the default, or riscv64)
# Times under qemu mean nothing, so no ns/call: qemu-ARCH runs the loop
# (bench/patchsite/loop.c, mid() -> leaf(), two traced calls per iteration,
# built with -fpatchable-function-entry=2, on riscv64 =4 -falign-functions=4
# with compressed code) one instruction per block
# (-singlestep) and logs each executed one (-d exec,nochain) with the
# system calls (strace); the count is taken between the loop's two
# clock_gettime calls, so start-up and the trace written at exit are not
# in it; runs of N1 and N2 iterations take out each thread's first event
# (its ring and shadow stack are set up then).
# Per traced call = ((traced N2 - N1) - (untraced N2 - N1)) / 2(N2 - N1).
set -u
# qemu-user has no perf_event_open: the runtime would say so on stderr before the
# loop, and count() takes the first write to stderr as the loop's end.
export PATCHSITE_SCHED=0
B=${1:-build/aarch64}
ARCH=${2:-aarch64}
case $ARCH in
aarch64)
	CC=${A64_CC:-aarch64-linux-gnu-gcc}
	SYSROOT=${A64_SYSROOT:-/usr/aarch64-linux-gnu}
	QEMU=${QEMU_AARCH64:-$(command -v qemu-aarch64-static || command -v qemu-aarch64)}
	PFE="-fpatchable-function-entry=2"
	;;
riscv64)
	CC=${RV64_CC:-riscv64-linux-gnu-gcc}
	SYSROOT=${RV64_SYSROOT:-/usr/riscv64-linux-gnu}
	QEMU=${QEMU_RISCV64:-$(command -v qemu-riscv64-static || command -v qemu-riscv64)}
	PFE="-fpatchable-function-entry=4 -falign-functions=4"
	;;
*)	echo "aarch64.sh: unknown arch '$ARCH' (aarch64, riscv64)" >&2; exit 2 ;;
esac
T=$(mktemp -d "${TMPDIR:-/tmp}/ps-bench-$ARCH.XXXXXX")
trap 'rm -rf "$T"' EXIT
N1=200
N2=1200
LIB="$PWD/$B/libpatchsite.so"

$CC -O2 $PFE -o "$T/loop" bench/patchsite/loop.c || exit 2
# aarch64 -pg: bl _mcount after the prologue, sites found from the symbols (no table).
FORMS=pfe
[ $ARCH = aarch64 ] && $CC -O2 -pg -o "$T/loop-pg" bench/patchsite/loop.c && FORMS="pfe pg"
# aarch64 -finstrument-functions: the hook calls are the sites (arch/aarch64/cyg.S).
[ $ARCH = aarch64 ] && $CC -O2 -finstrument-functions -o "$T/loop-cyg" bench/patchsite/loop.c &&
	FORMS="$FORMS cyg"
PROG="$T/loop"

count() {	# N [VAR=VALUE...]: guest instructions between the loop's two clock_gettime
	N=$1
	shift
	env "$@" "$QEMU" -L "$SYSROOT" -singlestep -d exec,nochain,strace -D "$T/log" \
		"$PROG" $N >/dev/null 2>"$T/err" || { sed 's/^/    /' "$T/err"; exit 1; }
	# The loop's pair: the last two before its first write to stderr (the
	# runtime's start-up reads that clock too).
	awk '/^Trace / { c++; next }
	     /clock_gettime\(CLOCK_THREAD_CPUTIME_ID/ { a = b; b = c; n++; next }
	     /^[0-9]+ write\(2,/ { if (n < 2) exit 1; print b - a; done = 1; exit }
	     END { if (!done) exit 1 }' "$T/log"
}

per() {	# ENV...: instructions per loop call, N2 run less N1 run
	c1=$(count $N1 "$@") && c2=$(count $N2 "$@") || exit 1
	echo "$c1 $c2 $N1 $N2" | awk '{ printf "%.1f", ($2 - $1) / (2 * ($4 - $3)) }'
}
echo "$ARCH (qemu-user, $N1 and $N2 iterations, 2 traced calls each): guest instructions per call"
for form in $FORMS; do
	if [ $form = pg ]; then
		# Against the idle site (the runtime NOPed the bl), not glibc's _mcount.
		PROG="$T/loop-pg"
		base=$(per QEMU_SET_ENV=LD_PRELOAD="$LIB",PATCHSITE_TRACER=nop,PATCHSITE_OUTPUT=/dev/null) || exit 1
		echo "  pg: -pg, idle (runtime loaded, no tracer: each bl _mcount a NOP), the loop included: $base"
	elif [ $form = cyg ]; then
		# Against the untraced build, whose hook calls reach glibc's no-ops.
		PROG="$T/loop-cyg"
		base=$(per QEMU_X=0) || exit 1
		echo "  cyg: -finstrument-functions, untraced (glibc's no-op hooks), the loop included: $base"
		c=$(per QEMU_SET_ENV=LD_PRELOAD="$LIB",PATCHSITE_TRACER=nop,PATCHSITE_OUTPUT=/dev/null) || exit 1
		echo "  cyg: patchsite loaded, no tracer: $(echo "$c $base" | awk '{ printf "%.1f", $1 - $2 }') above it"
	else
		PROG="$T/loop"
		base=$(per QEMU_X=0) || exit 1
		echo "  pfe: untraced build (the NOPs of $PFE), the loop included: $base"
	fi
	for tracer in function function_graph; do
		c=$(per QEMU_SET_ENV=LD_PRELOAD="$LIB",PATCHSITE_TRACER=$tracer,PATCHSITE_OUTPUT=/dev/null) || exit 1
		echo "  $form: patchsite $tracer: $(echo "$c $base" | awk '{ printf "%.1f", $1 - $2 }') above it"
	done
done
