#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# libpatchsite next to uftrace and LLVM XRay FDR mode on one workload
# (loop.c: two traced calls per iteration).  usage: compare.sh BUILD_DIR
#   Ir/call   callgrind instructions per traced call above the untraced
#             build (-mnop-mcount, sites NOPed), counted inside main only
#             (output written at exit is not counted), N=100000 minus N=0
#   ns/call   CPU time of the loop per traced call above the untraced
#             build, best of 5 runs of N=2000000 (the program times its own
#             loop: start-up and trace output are not counted; uftrace's
#             recorder process is not either)
#   end to end  `patchsite record` of the same loop, the process tree's
#             CPU per call (user + system), against function_graph's
#   B/event   bytes each entry or exit takes in the trace buffer (function_profile
#             writes none: it counts in memory; issue #28 wants it at most
#             function_graph's cost per call)
#   no-flag   the same loop built at -O2 without any flag (issue 37):
#             patchsite traces it from patchverify's proof, uftrace by its
#             own dynamic patching (-P .); each row above that build's
#             untraced run, per call that tool traced (the line after the
#             table says which functions each traced)
#   floor     floor.c: one rdtsc, and the same loop where each function
#             stores its own two stamped words (no tracer): no
#             function_graph tracer can cost less per call on this machine
# uftrace (Debian package) and XRay (clang 14, libclang-rt-14-dev) are
# skipped, with a note, when not installed.
set -u
B=${1:-build}
T=$B/bench/patchsite/compare
mkdir -p "$T"
LIB="$PWD/$B/libpatchsite.so"
SRC=bench/patchsite/loop.c
NIR=100000
NT=2000000

gcc -O2 -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie -o "$T/nop" $SRC || exit 2
gcc -O2 -pg -mfentry -mnop-mcount -mrecord-mcount -minstrument-return=nop5 -mrecord-return \
	-fno-pie -no-pie -o "$T/ret" $SRC || exit 2
gcc -O2 -pg -mfentry -o "$T/pg" $SRC || exit 2
gcc -O2 -o "$T/plain" $SRC || exit 2
"$B/patchverify" --noflag --proof="$T/plain.proof" "$T/plain" >/dev/null || exit 2
# uftrace's own build: mcount after the prologue, no table (found at start-up), linked with -pg.
gcc -O2 -pg -fno-pie -no-pie -o "$T/mc" $SRC || exit 2
have_xray=0
if clang -O2 -fxray-instrument -fxray-instruction-threshold=1 -o "$T/xray" $SRC 2>/dev/null; then
	have_xray=1
fi
have_uftrace=0
command -v uftrace >/dev/null && have_uftrace=1
have_cg=0
command -v valgrind >/dev/null && have_cg=1

# ir N CMD...: instructions inside main
ir() {
	n=$1
	shift
	valgrind --tool=callgrind --toggle-collect=main --trace-children=yes \
		--callgrind-out-file="$T/cg.%p" "$@" "$n" >/dev/null 2>"$T/cg.log"
	awk '/Collected/ { s += $4 } END { print s }' "$T/cg.log"
}

# per_call_ir CMD...: (Ir(N) - Ir(0)) / (2 N)
per_call_ir() {
	[ $have_cg = 1 ] || { echo "-"; return; }
	a=$(ir 0 "$@")
	b=$(ir $NIR "$@")
	echo "$a $b" | awk -v n=$NIR '{ printf "%.1f", ($2 - $1) / (2 * n) }'
}

now() { date +%s%N; }

# per_call_ns CMD...: best of 5 loop times (the program's own) of N=NT, per traced call
# (CALLS traced calls an iteration, 2 unless set)
per_call_ns() {
	best=
	for i in 1 2 3 4 5; do
		"$@" $NT >/dev/null 2>"$T/ns.log"
		d=$(awk '/^loop_ns/ { print $2 }' "$T/ns.log")
		[ -n "$d" ] || { echo "-"; return; }
		[ -z "$best" ] || [ $d -lt $best ] && best=$d
	done
	echo "$best" | awk -v n=$NT -v c="${CALLS:-2}" '{ printf "%.1f", $1 / (c * n) }'
}

# Commands as words (valgrind runs them; shell functions would not do).
pgraph="env PATCHSITE_TRACER=function_graph PATCHSITE_BUFFER_KB=131072 PATCHSITE_OUTPUT=$T/ps.trace LD_PRELOAD=$LIB"
pfunc="env PATCHSITE_TRACER=function PATCHSITE_BUFFER_KB=131072 PATCHSITE_OUTPUT=$T/ps.trace LD_PRELOAD=$LIB"
pidle="env LD_PRELOAD=$LIB"
# function_profile writes nothing while it runs (its counts go to a directory at exit).
pprof="env PATCHSITE_TRACER=function_profile PATCHSITE_DATA=$T/prof.data LD_PRELOAD=$LIB"
urec="uftrace record -d $T/uftrace.data"
nfunc="env PATCHSITE_NOFLAG=$T/plain.proof $pfunc"
ngraph="env PATCHSITE_NOFLAG=$T/plain.proof $pgraph"
xfdr="env XRAY_OPTIONS=patch_premain=true:xray_mode=xray-fdr:verbosity=0 XRAY_FDR_OPTIONS=buffer_size=1048576:buffer_max=128"

base_ir=$(per_call_ir "$T/nop")
base_ns=$(per_call_ns "$T/nop")
plain_ir=$(per_call_ir "$T/plain")
plain_ns=$(per_call_ns "$T/plain")
idle_ir=$(per_call_ir $pidle "$T/nop")

row() {	# NAME BYTES IR NS
	echo "$1|$2|$3|$4" >>"$T/rows"
}
: >"$T/rows"
sub() { echo "$1 $2" | awk '{ if ($1 == "-" || $2 == "-") print "-"; else printf "%.1f", $1 - $2 }'; }

row "patchsite, preloaded, no tracer (NOP sites)" "-" "$(sub "$idle_ir" "$base_ir")" "-"
row "patchsite function_graph (entry+exit)" 8 "$(sub "$(per_call_ir $pgraph "$T/nop")" "$base_ir")" \
	"$(sub "$(per_call_ns $pgraph "$T/nop")" "$base_ns")"
row "patchsite function_graph, gcc exit sites" 8 \
	"$(sub "$(per_call_ir $pgraph "$T/ret")" "$base_ir")" "$(sub "$(per_call_ns $pgraph "$T/ret")" "$base_ns")"
row "patchsite function_profile (counted, no events)" "-" \
	"$(sub "$(per_call_ir $pprof "$T/nop")" "$base_ir")" "$(sub "$(per_call_ns $pprof "$T/nop")" "$base_ns")"
row "patchsite function (entry)" 16 "$(sub "$(per_call_ir $pfunc "$T/nop")" "$base_ir")" \
	"$(sub "$(per_call_ns $pfunc "$T/nop")" "$base_ns")"
row "patchsite function_graph, plain -pg (mcount)" 8 "$(sub "$(per_call_ir $pgraph "$T/mc")" "$base_ir")" \
	"$(sub "$(per_call_ns $pgraph "$T/mc")" "$base_ns")"
row "patchsite function, plain -pg (mcount)" 16 "$(sub "$(per_call_ir $pfunc "$T/mc")" "$base_ir")" \
	"$(sub "$(per_call_ns $pfunc "$T/mc")" "$base_ns")"
if [ $have_uftrace = 1 ]; then
	row "uftrace record (-pg; entry+exit)" 16 "$(sub "$(per_call_ir $urec "$T/pg")" "$base_ir")" \
		"$(sub "$(per_call_ns $urec "$T/pg")" "$base_ns")"
	row "uftrace record (plain -pg, mcount)" 16 "$(sub "$(per_call_ir $urec "$T/mc")" "$base_ir")" \
		"$(sub "$(per_call_ns $urec "$T/mc")" "$base_ns")"
	# Nothing traced: uftrace still calls mcount in each function, which returns at
	# once under --nop (its own no-op mode; --disable still records in 0.11); patchsite's
	# sites are NOPs then (the first row).
	row "uftrace record --nop (plain -pg, nothing traced)" "-" \
		"$(sub "$(per_call_ir $urec --nop "$T/mc")" "$base_ir")" \
		"$(sub "$(per_call_ns $urec --nop "$T/mc")" "$base_ns")"
else
	echo "note: uftrace not installed (apt-get install uftrace): skipped"
fi
row "patchsite function, no-flag build (proof)" 16 "$(sub "$(per_call_ir $nfunc "$T/plain")" "$plain_ir")" \
	"$(sub "$(per_call_ns $nfunc "$T/plain")" "$plain_ns")"
row "patchsite function_graph, no-flag build (proof)" 8 \
	"$(sub "$(per_call_ir $ngraph "$T/plain")" "$plain_ir")" "$(sub "$(per_call_ns $ngraph "$T/plain")" "$plain_ns")"
if [ $have_uftrace = 1 ]; then
	# uftrace -P patches mid only: leaf's 4 bytes are too short for its jump.
	row "uftrace record -P . (no-flag build; mid only)" 16 "-" \
		"$(sub "$(CALLS=1 per_call_ns $urec -P . "$T/plain")" "$(CALLS=1 per_call_ns "$T/plain")")"
fi
if [ $have_xray = 1 ]; then
	row "XRay FDR mode (entry+exit)" 8 "$(sub "$(per_call_ir $xfdr "$T/xray")" "$base_ir")" \
		"$(sub "$(per_call_ns $xfdr "$T/xray")" "$base_ns")"
else
	echo "note: clang -fxray-instrument failed (libclang-rt-14-dev?): XRay skipped"
fi

printf '%-46s %8s %9s %9s %14s %14s\n' "tracer (loop.c: mid->leaf)" "B/event" "Ir/call" \
	"ns/call" "Ir vs graph" "ns vs graph"
g=$(awk -F'|' '/function_graph \(/ { print $3 "|" $4 }' "$T/rows")
while IFS='|' read -r name bytes irc nsc; do
	echo "$name|$bytes|$irc|$nsc|$g"
done <"$T/rows" | awk -F'|' '{
	r1 = ($3 != "-" && $5 > 0) ? sprintf("%.1fx", $3 / $5) : "-"
	r2 = ($4 != "-" && $6 > 0) ? sprintf("%.1fx", $4 / $6) : "-"
	printf "%-46s %8s %9s %9s %14s %14s\n", $1, $2, $3, $4, r1, r2 }'
echo "(above the untraced NOP build, which takes $base_ir Ir and $base_ns ns per call; no-flag rows above the untraced no-flag build, $plain_ir Ir and $plain_ns ns per call; Ir: callgrind inside main; ns: the loop's CPU time, best of 5; ratios: this row over the function_graph row)"
# What each tool traced of the no-flag build: loop.c's main, mid and leaf.
traced() {	# REPORT-COMMAND...: which of main, mid, leaf its report names
	"$@" 2>/dev/null | awk '$NF == "main" || $NF == "mid" || $NF == "leaf" { print $NF }' | sort | tr '\n' ' '
}
rm -rf "$T/nf.d" "$T/uft.d"
"$PWD/$B/patchsite" record --tracer=function --noflag-proof="$T/plain.proof" -d "$T/nf.d" -- "$T/plain" 10 >/dev/null 2>&1
echo "no-flag build, functions traced of main, mid, leaf: patchsite $(traced "$PWD/$B/patchsite" report -d "$T/nf.d")"
if [ $have_uftrace = 1 ]; then
	uftrace record -d "$T/uft.d" -P . "$T/plain" 10 >/dev/null 2>&1
	echo "no-flag build, functions traced of main, mid, leaf: uftrace -P . $(traced uftrace report -d "$T/uft.d")"
fi

# End to end, as a user runs it: `patchsite record` of the same N calls, the
# whole process tree's CPU (user + system: the trace's page faults and the
# runtime's threads count too), best of 5, less the untraced program's, per
# call.  function_profile writes no events; function_graph's trace is
# written to the directory as it runs.
PS="$PWD/$B/patchsite"
e2e_cpu() {	# CMD...: best of 5 user+system seconds of CMD NT
	best=
	for i in 1 2 3 4 5; do
		rm -rf "$T/e2e.d"
		/usr/bin/time -f '%U %S' -o "$T/e2e.cpu" "$@" $NT >/dev/null 2>&1 || { echo "-"; return; }
		c=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$T/e2e.cpu")
		[ -z "$best" ] || [ $c -lt $best ] && best=$c
	done
	echo "$best"
}
if [ -x /usr/bin/time ]; then
	e0=$(e2e_cpu "$T/nop")
	for tr in function_graph function_profile function; do
		e=$(e2e_cpu "$PS" record --tracer=$tr -d "$T/e2e.d" -- "$T/nop")
		echo "$tr $e $e0"
	done | awk -v n=$NT '$2 != "-" { v[$1] = ($2 - $3) * 1e6 / (2 * n); o[++k] = $1 }
		END { g = v["function_graph"]
			for (i = 1; i <= k; i++)
				printf "end to end, patchsite record --tracer=%s: %.1f ns of process CPU per call (%s function_graph)\n",
					o[i], v[o[i]], (g > 0) ? sprintf("%.2fx", v[o[i]] / g) : "-" }'
	echo "(N=$NT loop.c iterations, user + system time of the record command and its program, ms resolution, best of 5, less the untraced program's)"
else
	echo "note: /usr/bin/time not installed (apt-get install time): end-to-end rows skipped"
fi

# The floor: what two time stamps per call cost here, whatever the tracer.
gcc -O2 -o "$T/floor" bench/patchsite/floor.c || exit 2
"$T/floor" >"$T/floor.out" || exit 2
awk '/^rdtsc_ns/ { r = $2 } /^graph_ns/ { g = $2 } END {
	printf "floor: rdtsc %.1f ns; function_graph with only its two time stamps and stores inlined in the functions: %.1f ns per call\n", r, g }' "$T/floor.out"
awk -F'|' -v g="$(awk '/^graph_ns/ { print $2 }' "$T/floor.out")" '
	/^uftrace record \(/ && $4 != "-" { printf "10x less than uftrace needs <= %.1f ns per call (floor %.1f: %s)\n", $4 / 10, g, ($4 / 10 >= g) ? "reachable" : "not reachable with TSC stamps" }
	/^XRay/ && $4 != "-" { printf "5x less than XRay FDR needs <= %.1f ns per call (floor %.1f: %s)\n", $4 / 5, g, ($4 / 5 >= g) ? "reachable" : "not reachable with TSC stamps" }' "$T/rows"
