#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What recording scheduler switches costs a traced call (issue 25): usage  sched.sh BUILD_DIR
# loop.c (mid -> leaf, two traced calls per iteration), function_graph into a trace
# directory (PATCHSITE_DATA, as `patchsite record` runs it), with the switches
# (PATCHSITE_SCHED=1, the default) and without (0, record --no-sched):
#   Ir/call  callgrind, instructions of the traced thread inside main per call,
#            (Ir(N) - Ir(0)) / 2N: load-independent; it includes the thread's own
#            drains at its chunk switches, not the drain thread's
#   ns/call  the loop's CPU time per call (its own clock), best of 5, runs alternated
# Nothing is added per call by design (the kernel writes the switches); both columns
# should agree within their noise.
set -u
B=${1:-build}
T=$B/bench/patchsite/sched
rm -rf "$T"
mkdir -p "$T"
LIB="$PWD/$B/libpatchsite.so"
NIR=100000
NT=2000000
gcc -O2 -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie -o "$T/nop" \
	bench/patchsite/loop.c || exit 2
run() {	# SCHED N: the loop traced into a fresh directory
	rm -rf "$T/d"
	env PATCHSITE_TRACER=function_graph PATCHSITE_DATA="$T/d" PATCHSITE_SCHED="$1" \
		LD_PRELOAD="$LIB" "$T/nop" "$2"
}
ir() {	# SCHED N
	rm -rf "$T/d"
	valgrind --tool=callgrind --toggle-collect=main --trace-children=yes --callgrind-out-file="$T/cg.%p" \
		env PATCHSITE_TRACER=function_graph PATCHSITE_DATA="$T/d" PATCHSITE_SCHED="$1" \
		LD_PRELOAD="$LIB" "$T/nop" "$2" >/dev/null 2>"$T/cg.log"
	awk '/Collected/ { s += $4 } END { print s }' "$T/cg.log"
}
per_ir() {	# SCHED
	if ! command -v valgrind >/dev/null; then echo "-"; return; fi
	a=$(ir "$1" 0)
	b=$(ir "$1" $NIR)
	echo "$a $b" | awk -v n=$NIR '{ printf "%.1f", ($2 - $1) / (2 * n) }'
}
on_best= off_best=
for i in 1 2 3 4 5; do
	for s in 1 0; do
		d=$(run $s $NT 2>&1 >/dev/null | awk '/^loop_ns/ { print $2 }')
		if [ $s = 1 ]; then
			[ -z "$on_best" ] || [ "$d" -lt "$on_best" ] && on_best=$d
		else
			[ -z "$off_best" ] || [ "$d" -lt "$off_best" ] && off_best=$d
		fi
	done
done
run 1 $NT >/dev/null 2>&1
sw=$(ls "$T"/d/*/sched.* 2>/dev/null | head -1)
nsw=$([ -n "$sw" ] && echo $((($(stat -c %s "$sw") - 256) / 16)) || echo "no file")
printf '%-44s %9s %9s\n' "function_graph into a trace directory" "Ir/call" "ns/call"
printf '%-44s %9s %9s\n' "with scheduler switches (default)" "$(per_ir 1)" \
	"$(echo "$on_best" | awk -v n=$NT '{ printf "%.1f", $1 / (2 * n) }')"
printf '%-44s %9s %9s\n' "without (--no-sched)" "$(per_ir 0)" \
	"$(echo "$off_best" | awk -v n=$NT '{ printf "%.1f", $1 / (2 * n) }')"
echo "(loop of $NT iterations: $nsw switches recorded in one run; load average $(cut -d' ' -f1-3 /proc/loadavg))"
