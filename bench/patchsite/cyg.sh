#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# -finstrument-functions builds traced by patchsite, next to the same build
# under uftrace and next to our -pg -mfentry build: usage  cyg.sh BUILD_DIR
# Workload: loop.c (mid -> leaf, two traced calls per iteration), N=2,000,000.
# Builds, all -O2 non-PIE: plain (no instrumentation: the baseline), cyg
# (-finstrument-functions: calls to __cyg_profile_func_enter/exit, which
# glibc defines as no-ops and patchsite and uftrace take over), nop (-pg
# -mfentry -mnop-mcount -mrecord-mcount, what patchsite prefers) and pg
# (plain -pg, uftrace's own build).
#   loop ns/call  the program's own CPU time of its loop per traced call, best
#                 of 5, less the plain build's (start-up and writing the trace
#                 out are not counted; uftrace's recorder process is not either)
#   e2e ns/call   wall time from start to exit, median of 5, per call, less the
#                 same binary run untraced (patchsite record / uftrace record:
#                 every event on disk, the writers included)
#   vs uftrace    this row over uftrace's row for the same build
# uftrace (Debian package) is skipped, with a note, when not installed.  The
# machine's load changes every figure: the load average is printed with them.
set -u
B=${1:-build}
T=$B/bench/patchsite/cyg
rm -rf "$T"
mkdir -p "$T"
PS="$PWD/$B/patchsite"
LIB="$PWD/$B/libpatchsite.so"
export PATCHSITE_LIB="$LIB"
SRC=bench/patchsite/loop.c
N=2000000

gcc -O2 -fno-pie -no-pie -o "$T/plain" $SRC || exit 2
gcc -O2 -finstrument-functions -fno-pie -no-pie -o "$T/cyg" $SRC || exit 2
gcc -O2 -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -no-pie -o "$T/nop" $SRC || exit 2
gcc -O2 -pg -fno-pie -no-pie -o "$T/pg" $SRC || exit 2
have_uftrace=0
command -v uftrace >/dev/null && have_uftrace=1

# loop_ns CMD...: the best of 5 loop times (the program's own) of N, per traced call
loop_ns() {
	for i in 1 2 3 4 5; do
		"$@" $N 2>&1 >/dev/null | awk '/^loop_ns/ { print $2 }'
	done | sort -n | awk -v n=$N 'NR == 1 { printf "%.1f", $1 / (2 * n) }'
}

now() { date +%s%N; }

# e2e_ns DIR CMD...: median of 5 wall times per traced call (DIR removed before each run)
e2e_ns() {
	d=$1
	shift
	for i in 1 2 3 4 5; do
		rm -rf "$d"
		s=$(now)
		"$@" $N >/dev/null 2>&1
		echo $(($(now) - s))
	done | sort -n | awk -v n=$N 'NR == 3 { printf "%.1f", $1 / (2 * n) }'
}

sub() { echo "$1 $2" | awk '{ if ($1 == "" || $2 == "") print "-"; else printf "%.1f", $1 - $2 }'; }

graph="env PATCHSITE_TRACER=function_graph PATCHSITE_BUFFER_KB=131072 PATCHSITE_OUTPUT=$T/ps.trace LD_PRELOAD=$LIB"
func="env PATCHSITE_TRACER=function PATCHSITE_BUFFER_KB=131072 PATCHSITE_OUTPUT=$T/ps.trace LD_PRELOAD=$LIB"
urec="uftrace record -d $T/uftrace.data"

echo "workload: loop.c, $N iterations, $((2 * N)) traced calls; load average $(cut -d' ' -f1-3 /proc/loadavg)"
base=$(loop_ns "$T/plain")
: >"$T/rows"
row() {	# NAME BUILD LOOP E2E
	echo "$1|$2|$3|$4" >>"$T/rows"
}
untraced_cyg=$(e2e_ns "$T/none" "$T/cyg")
untraced_nop=$(e2e_ns "$T/none" "$T/nop")
untraced_pg=$(e2e_ns "$T/none" "$T/pg")
row "untraced (glibc's no-op __cyg_profile_*)" cyg "$(sub "$(loop_ns "$T/cyg")" "$base")" "-"
row "patchsite preloaded, no tracer" cyg "$(sub "$(loop_ns env LD_PRELOAD="$LIB" "$T/cyg")" "$base")" "-"
row "patchsite function" cyg "$(sub "$(loop_ns $func "$T/cyg")" "$base")" "-"
row "patchsite function_graph / record" cyg "$(sub "$(loop_ns $graph "$T/cyg")" "$base")" \
	"$(sub "$(e2e_ns "$T/ps.data" "$PS" record -d "$T/ps.data" -- "$T/cyg")" "$untraced_cyg")"
row "patchsite function_graph / record" nop "$(sub "$(loop_ns $graph "$T/nop")" "$base")" \
	"$(sub "$(e2e_ns "$T/ps.data" "$PS" record -d "$T/ps.data" -- "$T/nop")" "$untraced_nop")"
if [ $have_uftrace = 1 ]; then
	row "uftrace record" cyg "$(sub "$(loop_ns $urec "$T/cyg")" "$base")" \
		"$(sub "$(e2e_ns "$T/uftrace.data" $urec "$T/cyg")" "$untraced_cyg")"
	row "uftrace record" pg "$(sub "$(loop_ns $urec "$T/pg")" "$base")" \
		"$(sub "$(e2e_ns "$T/uftrace.data" $urec "$T/pg")" "$untraced_pg")"
else
	echo "note: uftrace not installed (apt-get install uftrace): skipped"
fi

printf '%-42s %6s %13s %13s %12s %12s\n' "tracer" "build" "loop ns/call" "e2e ns/call" \
	"loop vs uft" "e2e vs uft"
awk -F'|' 'NR == FNR { if ($1 == "uftrace record") { ul[$2] = $3; ue[$2] = $4 } next }
	function ratio(a, b) { return (a != "-" && b != "" && b != "-" && b > 0) ? sprintf("%.2fx", a / b) : "-" }
	{ printf "%-42s %6s %13s %13s %12s %12s\n", $1, $2, $3, $4, ratio($3, ul[$2]), ratio($4, ue[$2]) }' \
	"$T/rows" "$T/rows"
awk -F'|' '$1 ~ /^patchsite function_graph/ { v[$2] = $3; e[$2] = $4 }
	END { if (v["nop"] > 0 && e["nop"] > 0)
		printf "patchsite, -finstrument-functions over -pg -mfentry: %.2fx in the loop, %.2fx end to end\n",
			v["cyg"] / v["nop"], e["cyg"] / e["nop"] }' "$T/rows"
echo "(above the plain build's $base ns per loop call; untraced end to end: cyg $untraced_cyg, nop $untraced_nop, pg $untraced_pg ns per call)"
