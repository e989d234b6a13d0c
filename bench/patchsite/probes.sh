#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Dynamic probes' cost per hit: usage  probes.sh BUILD_DIR [N]
# Workload: bench/patchsite/probeloop.c, N calls of f3(a, b, c) (or of g0(),
# which no probe names), -O2 -pg -mfentry -mrecord-mcount, the runtime
# preloaded, into a trace directory:
#   nop        no tracer: the sites are NOPs
#   function   the function tracer on f3 alone (its fast trampoline)
#   probe      f:b/f3 f3 a=$arg1:s32 b=$arg2:s32 c=$arg3:s32, no tracer
#   return     f:b/f3r f3%return r=$retval:s32, no tracer (the return hooked on the
#              shadow stack by the probe trampoline, recorded by the return
#              trampoline: arch/x86_64/retprobe_tramp.S), and with the three
#              arguments kept at the entry (a=$arg1:s32 ...), beside
#   graph      the function_graph tracer on f3 alone (its fast entry and return)
#   g0, probe set   g0's loop while f3's probe is enabled: g0 must cost what
#              it costs under nop (only the probed function takes the slow path)
# ns: CPU time per iteration of the loop, median of 5 (the machine's load
# changes it; the load average is printed).  instr: instructions per
# iteration under callgrind (N and 2N, the difference), which load does not
# change.
set -u
B=${1:-build}
N=${2:-2000000}
T=$B/bench/patchsite/probes
mkdir -p "$T"
LIB="$PWD/$B/libpatchsite.so"
gcc -O2 -pg -mfentry -mrecord-mcount -fno-pie -c bench/patchsite/probeloop.c -o "$T/pl.o" &&
	gcc -no-pie -o "$T/pl" "$T/pl.o" || exit 2
PROBE='f:b/f3 f3 a=$arg1:s32 b=$arg2:s32 c=$arg3:s32'
RPROBE='f:b/f3r f3%return r=$retval:s32'
RPROBE3='f:b/f3k f3%return r=$retval:s32 a=$arg1:s32 b=$arg2:s32 c=$arg3:s32'

# run N WHICH ENV...: ns per iteration
run() {
	n=$1 which=$2
	shift 2
	rm -rf "$T/data"
	env "$@" PATCHSITE_DATA="$T/data" LD_PRELOAD="$LIB" "$T/pl" "$n" "$which" 2>&1 >/dev/null
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ns() { for i in 1 2 3 4 5; do run "$N" "$@"; done | median; }
# instr WHICH ENV...: instructions per iteration (callgrind, 100000 and 200000 iterations)
instr() {
	command -v valgrind >/dev/null 2>&1 || { echo "-"; return; }
	which=$1
	shift
	for n in 100000 200000; do
		rm -rf "$T/data"
		env "$@" PATCHSITE_DATA="$T/data" LD_PRELOAD="$LIB" valgrind --tool=callgrind \
			--callgrind-out-file="$T/cg.$n" "$T/pl" "$n" "$which" >/dev/null 2>&1
	done
	a=$(awk '/^(summary|totals):/ { print $2; exit }' "$T/cg.100000")
	b=$(awk '/^(summary|totals):/ { print $2; exit }' "$T/cg.200000")
	echo $(((b - a) / 100000))
}

echo "dynamic probes, $N iterations; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-40s %10s %10s\n' "" "ns/iter" "instr/iter"
printf '%-40s %10s %10s\n' "f3, no tracer (NOPs)" "$(ns 0 PATCHSITE_TRACER=nop)" \
	"$(instr 0 PATCHSITE_TRACER=nop)"
printf '%-40s %10s %10s\n' "f3, function tracer" "$(ns 0 PATCHSITE_TRACER=function PATCHSITE_FILTER=f3)" \
	"$(instr 0 PATCHSITE_TRACER=function PATCHSITE_FILTER=f3)"
printf '%-40s %10s %10s\n' "f3, probe with 3 s32 arguments" "$(ns 0 PATCHSITE_PROBES="$PROBE")" \
	"$(instr 0 PATCHSITE_PROBES="$PROBE")"
printf '%-40s %10s %10s\n' "f3, function_graph tracer" \
	"$(ns 0 PATCHSITE_TRACER=function_graph PATCHSITE_FILTER=f3)" \
	"$(instr 0 PATCHSITE_TRACER=function_graph PATCHSITE_FILTER=f3)"
printf '%-40s %10s %10s\n' "f3, return probe (\$retval:s32)" "$(ns 0 PATCHSITE_PROBES="$RPROBE")" \
	"$(instr 0 PATCHSITE_PROBES="$RPROBE")"
printf '%-40s %10s %10s\n' "f3, return probe, 3 s32 arguments kept" \
	"$(ns 0 PATCHSITE_PROBES="$RPROBE3")" "$(instr 0 PATCHSITE_PROBES="$RPROBE3")"
printf '%-40s %10s %10s\n' "g0 (no probe), f3's probe enabled" "$(ns 1 PATCHSITE_PROBES="$PROBE")" \
	"$(instr 1 PATCHSITE_PROBES="$PROBE")"
printf '%-40s %10s %10s\n' "g0, no tracer (NOPs)" "$(ns 1 PATCHSITE_TRACER=nop)" \
	"$(instr 1 PATCHSITE_TRACER=nop)"
