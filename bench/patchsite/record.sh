#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Recording end to end, side by side with uftrace: usage  record.sh BUILD_DIR [N]
# Workload: testdata/patchsite/ending.c `fib N` (N=28: 1,028,457 calls, 2,056,914
# function_graph events), built -O2 non-PIE twice: with -mnop-mcount (NOPs: the
# untraced run and ours) and with calls to __fentry__ (what uftrace needs; run
# untraced it calls glibc's __fentry__ stub).
#   above plain  wall time from start to exit, median of 7, per call, less the
#                same binary run untraced (ours: patchsite record, every event on
#                disk; uftrace: uftrace record, its writer included)
#   floor        bench/patchsite/floor.c: the same recursion storing two
#                rdtsc-stamped words per call, inlined, into memory touched
#                beforehand; and into a file mapped 1 MiB at a time as it fills
#   B/event      bytes of per-thread data files / events
#   report/replay  wall time (median of 3) and peak RSS of the readers over the
#                fib(N) directory, output to /dev/null; the sizes of dump --chrome
#                and dump --perfetto per call (issue #28: at most a quarter)
# Machine load changes every figure: the load average is printed with them.
set -u
B=${1:-build}
N=${2:-28}
T=$B/bench/patchsite/record
rm -rf "$T"
mkdir -p "$T"
PS="$PWD/$B/patchsite"
export PATCHSITE_LIB="$PWD/$B/libpatchsite.so"
SRC=testdata/patchsite/ending.c

# compiled with -pg, linked without it (a -pg link adds gprof's start-up and gmon.out)
gcc -O2 -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie -c $SRC -o "$T/nop.o" &&
	gcc -no-pie -o "$T/nop" "$T/nop.o" -pthread || exit 2
gcc -O2 -pg -mfentry -mrecord-mcount -fno-pie -c $SRC -o "$T/pg.o" && gcc -no-pie -o "$T/pg" "$T/pg.o" -pthread || exit 2
gcc -O2 -o "$T/floor" bench/patchsite/floor.c || exit 2
have_uftrace=0
command -v uftrace >/dev/null && have_uftrace=1

now() { date +%s%N; }
# median RUNS CMD...: median wall ns of RUNS runs (each after PREP, if set); the
# fastest goes to $T/min (on a shared machine it shows what the code costs).
median() {
	runs=$1
	shift
	for i in $(seq "$runs"); do
		[ -n "${PREP:-}" ] && eval "$PREP"
		s=$(now)
		"$@" >/dev/null 2>&1
		echo $(($(now) - s))
	done | sort -n | awk -v m="$T/min" '{ v[NR] = $1 } END { print v[1] >m; print v[int((NR + 1) / 2)] }'
}
# rss CMD...: peak RSS in KB
rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

calls=$("$T/nop" "$N" fib | sed -n 's/.*calls=//p')
echo "workload: fib($N), $calls calls, $((2 * calls)) function_graph events; load average $(cut -d' ' -f1-3 /proc/loadavg)"
plain=$(median 7 "$T/nop" "$N" fib); plain_min=$(cat "$T/min")
plain_pg=$(median 7 "$T/pg" "$N" fib); plain_pg_min=$(cat "$T/min")
ours=$(PREP="rm -rf $T/ps.data" median 7 "$PS" record -d "$T/ps.data" -- "$T/nop" "$N" fib)
ours_min=$(cat "$T/min")
if [ $have_uftrace = 1 ]; then
	uft=$(PREP="rm -rf $T/uftrace.data" median 7 uftrace record -d "$T/uftrace.data" "$T/pg" "$N" fib)
	uft_min=$(cat "$T/min")
fi
"$T/floor" fib "$N" "$T" >"$T/floor.out"
fmem=$(awk '/^fib_mem_ns/ { print $2 }' "$T/floor.out")
ffile=$(awk '/^fib_file_ns/ { print $2 }' "$T/floor.out")
rm -rf "$T/ps.data"
"$PS" record -d "$T/ps.data" -- "$T/nop" "$N" fib >/dev/null
[ $have_uftrace = 1 ] && { rm -rf "$T/uftrace.data"; uftrace record -d "$T/uftrace.data" "$T/pg" "$N" fib >/dev/null; }

per() { echo "$1 $2 $calls" | awk '{ printf "%.1f", ($1 - $2) / $3 }'; }
ours_pc=$(per "$ours" "$plain")
ours_min_pc=$(per "$ours_min" "$plain_min")
printf '%-44s %12s %10s %12s\n' "end to end, fib($N)" "ns/call" "vs floor" "fastest run"
printf '%-44s %12s %10s\n' "floor: two stamped words into memory" "$fmem" "1.0x"
printf '%-44s %12s %10s\n' "floor: the same into a file, 1 MiB chunks" "$ffile" \
	"$(echo "$ffile $fmem" | awk '{ printf "%.1fx", $1 / $2 }')"
printf '%-44s %12s %10s %12s\n' "patchsite record (function_graph)" "$ours_pc" \
	"$(echo "$ours_pc $fmem" | awk '{ printf "%.1fx", $1 / $2 }')" "$ours_min_pc"
if [ $have_uftrace = 1 ]; then
	uf_pc=$(per "$uft" "$plain_pg")
	uf_min_pc=$(per "$uft_min" "$plain_pg_min")
	printf '%-44s %12s %10s %12s\n' "uftrace record" "$uf_pc" \
		"$(echo "$uf_pc $fmem" | awk '{ printf "%.1fx", $1 / $2 }')" "$uf_min_pc"
	echo "uftrace / patchsite above plain: $(echo "$uf_pc $ours_pc" | awk '{ printf "%.1fx", $1 / $2 }') (medians), $(echo "$uf_min_pc $ours_min_pc" | awk '{ printf "%.1fx", $1 / $2 }') (fastest runs)"
fi
echo "(untraced: $((plain / 1000)) us NOP build, $((plain_pg / 1000)) us __fentry__ build; median of 7 wall times)"

ev=$("$PS" info -d "$T/ps.data" | sed -n 's/^# events: \([0-9]*\) recorded.*/\1/p')
psb=$(cat "$T"/ps.data/*/thread.* | wc -c)
echo
echo "bytes per event: patchsite $(echo "$psb $ev" | awk '{ printf "%.1f", $1 / $2 }') ($psb bytes, $ev events)"
if [ $have_uftrace = 1 ]; then
	ufb=$(cat "$T"/uftrace.data/*.dat | wc -c)
	echo "                 uftrace   $(echo "$ufb $((2 * calls))" | awk '{ printf "%.1f", $1 / $2 }') ($ufb bytes of *.dat)"
fi

echo
printf '%-32s %10s %10s\n' "reading $ev events" "ms" "peak KB"
rowv() { name=$1; shift; printf '%-32s %10s %10s\n' "$name" "$(($(PREP= median 3 "$@") / 1000000))" "$(rss "$@")"; }
rowv "patchsite report" "$PS" report -d "$T/ps.data"
[ $have_uftrace = 1 ] && rowv "uftrace report" uftrace report -d "$T/uftrace.data"
rowv "patchsite replay" "$PS" replay -d "$T/ps.data"
[ $have_uftrace = 1 ] && rowv "uftrace replay" uftrace replay -d "$T/uftrace.data"
rowv "patchsite dump --folded" "$PS" dump --folded -d "$T/ps.data"
rowv "patchsite dump --chrome" "$PS" dump --chrome -d "$T/ps.data"
rowv "patchsite dump --perfetto" "$PS" dump --perfetto -d "$T/ps.data"
rowv "patchsite report --percentiles" "$PS" report --percentiles=50,90,99,99.9 -d "$T/ps.data"
rowv "patchsite report --hist=fib" "$PS" report --hist=fib -d "$T/ps.data"
rowv "patchsite report --graph" "$PS" report --graph -d "$T/ps.data"
rowv "patchsite dump --flamegraph" "$PS" dump --flamegraph -d "$T/ps.data"
jb=$("$PS" dump --chrome -d "$T/ps.data" | wc -c)
pb=$("$PS" dump --perfetto -d "$T/ps.data" | wc -c)
echo "bytes per call: dump --chrome $(echo "$jb $calls" | awk '{ printf "%.1f", $1 / $2 }')," \
	"dump --perfetto $(echo "$pb $calls" | awk '{ printf "%.1f", $1 / $2 }')" \
	"($(echo "$pb $jb" | awk '{ printf "%.1f", 100 * $1 / $2 }')% of the JSON)"
