#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Scheduler switches lost under load: usage  sched_loss.sh BUILD_DIR [RUNS] [REF_BUILD_DIR]
# While LOADERS busy loops (4) compete for the CPUs, RUNS times each (20):
#   fib       testdata/patchsite/ending.c 28 fib (record.sh's fib(28) case)
#   threads   schedload.c: 2 threads of fib(28) x 2, 2 that spin without calls
# recorded with `patchsite record` (switches on, the default).  Per case and build:
# runs that lost switches, switches lost, switches out recorded (patchsite info) and
# the drain thread's CPU per run (its schedstat, printed by schedload.c), and
# vol: the worker threads' voluntary switches per run, the kernel's count
# (/proc/thread-self/status, printed by schedload.c), beside the same program
# run untraced (the floor): what recording changed in the program's
# scheduling (a thread waiting for the mmap lock the trace store holds is one);
# faults: the fib threads' minor page faults per run (getrusage), which the
# store's helper thread keeps low by faulting chunks in ahead.
# With REF_BUILD_DIR (an older build), its figures side by side: the runs alternate.
# Loss is what the kernel counted (PERF_RECORD_LOST) and record said on stderr.
set -u
B=${1:-build}
RUNS=${2:-20}
REF=${3:-}
LOADERS=${LOADERS:-4}
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-schedloss.XXXXXX")
LPIDS=
cleanup() {
	for p in $LPIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
gcc -O2 -pg -mfentry -mrecord-mcount -o "$T/ending" testdata/patchsite/ending.c -pthread \
	2>"$T/cc.log" && gcc -O2 -pg -mfentry -mrecord-mcount -o "$T/schedload" \
	bench/patchsite/schedload.c -pthread 2>>"$T/cc.log" || { cat "$T/cc.log"; exit 2; }
one() {	# BUILD CASE: "lost out drain_ns vol faults" of one run
	if [ "$1" = untraced ]; then
		(cd "$T" && ./schedload 2 28 2 >out 2>err)
		echo "0 0 0 $(awk '/^(vol|faults) / { printf "%s ", $2 }' "$T/out")"
		return
	fi
	case $2 in
	fib) set -- "$1" ./ending 28 fib ;;
	*) set -- "$1" ./schedload 2 28 2 ;;
	esac
	b=$(cd "$1" && pwd)
	shift
	rm -rf "$T/d"
	(cd "$T" && PATCHSITE_LIB="$b/libpatchsite.so" "$b/patchsite" record --no-libcall -d d -- "$@" \
		>out 2>err)
	lost=$(sed -n 's/.*: \([0-9]*\) scheduler switches lost.*/\1/p' "$T/err")
	out=$("$b/patchsite" info -d "$T/d" 2>/dev/null | sed -n 's/^  sched: *\([0-9]*\) switches out.*/\1/p' |
	      awk '{ s += $1 } END { print s + 0 }')
	drain=$(awk '/^drain / { print $2 }' "$T/out")
	vol=$(awk '/^vol / { print $2 }' "$T/out")
	flt=$(awk '/^faults / { print $2 }' "$T/out")
	echo "${lost:-0} $out ${drain:-0} ${vol:-0} ${flt:-0}"
}
i=0
while [ "$i" -lt "$LOADERS" ]; do
	sh -c 'while :; do :; done' &
	LPIDS="$LPIDS $!"
	i=$((i + 1))
done
for c in fib threads; do
	: >"$T/new.$c"
	: >"$T/ref.$c"
	: >"$T/untraced.$c"
	r=0
	while [ "$r" -lt "$RUNS" ]; do
		one "$B" $c >>"$T/new.$c"
		[ -n "$REF" ] && one "$REF" $c >>"$T/ref.$c"
		[ $c = threads ] && one untraced $c >>"$T/untraced.$c"
		r=$((r + 1))
	done
done
for p in $LPIDS; do kill "$p" 2>/dev/null; done
LPIDS=
sum() {	# FILE: runs-with-loss lost out drain-ms/run vol/run (median) faults/run
	sort -n -k4 "$1" | awk '{ n++; if ($1 > 0) r++; l += $1; o += $2; d += $3; v[n] = $4; f += $5 }
	     END { printf "%3d/%-3d %8d %10d %9.2f %6d %7d", r, n, l, o, n ? d / n / 1e6 : 0,
		   n ? v[int((n + 1) / 2)] : 0, n ? f / n : 0 }'
}
printf '%-8s %-10s %7s %8s %10s %9s %6s %7s\n' case build "lossy" lost "out" "drain ms" vol faults
for c in fib threads; do
	printf '%-8s %-10s %s\n' $c this "$(sum "$T/new.$c")"
	[ -n "$REF" ] && printf '%-8s %-10s %s\n' $c reference "$(sum "$T/ref.$c")"
	[ $c = threads ] && printf '%-8s %-10s %s\n' $c untraced "$(sum "$T/untraced.$c")"
done
echo "($LOADERS busy loops on $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"drain ms: the drain thread's CPU per run; vol: the worker threads' voluntary" \
	"switches, median per run (/proc/thread-self/status); faults: the fib threads' minor" \
	"faults, mean per run; all three threads case only)"
