#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a probe in a hot loop costs, next to SystemTap SDT and LTTng-UST:
# usage  run.sh BUILD_DIR
#
# Every bench/events/loop_*.c defines probe_loop(n) (the loop of loop.h,
# 7 instructions per iteration without a probe, with one probe per
# iteration) and may define probe_setup(); a line "LINK: flags" in it adds
# link flags ($B: the build directory); build/libpatchsite.a is linked
# last into every one.  Each is linked with main.c and measured two ways:
#   instructions per iteration: callgrind, probe_loop only
#     (--toggle-collect), N_COUNT iterations;
#   time per iteration: best of 7 runs of N_TIME iterations, pinned to CPU 1.
# Ratios are to loop_none.c.  Then the enabled paths, per hit: LTTng-UST
# recording into a session (needs lttng-sessiond: started here if none
# runs, and stopped again), uftrace -E on the SDT probe (uftrace traps each
# hit), and the branch profiler's plain and exact increments under two
# threads on one site (what the plain ones lose).
set -u
B=${1:-build}
T=$B/bench/events
mkdir -p "$T"
CC=${CC:-gcc}
N_COUNT=${N_COUNT:-1000000}
N_TIME=${N_TIME:-10000000}
N_HIT=${N_HIT:-100000}
PIN="taskset -c 1"
$PIN true 2>/dev/null || PIN=

build() {	# build NAME SOURCE [extra flags]: 0 when built, else says why
	name=$1 src=$2
	shift 2
	link=$(sed -n 's/.*LINK: //p' "$src" | sed "s|\$B|$B|g")
	# shellcheck disable=SC2086
	# libpatchsite last, for loops that call it (an archive adds nothing to the others).
	if ! $CC -O2 -Iinclude -Ibench/events "$@" bench/events/main.c "$src" -o "$T/$name" $link \
		"$B/libpatchsite.a" -pthread -ldl >"$T/$name.log" 2>&1; then
		echo "# $name: not built: $(grep -m1 -i error "$T/$name.log")"
		return 1
	fi
}

# An enabled loop (name *_on) records into a trace directory of its own, so
# that every hit is recorded and counted, not lost to a full in-memory ring.
data_env() {	# NAME KIND: the environment its runs get
	case $1 in
	*_on) rm -rf "$T/$1.$2.data"; echo "PATCHSITE_DATA=$T/$1.$2.data" ;;
	*) echo "BENCH_EVENTS_DISABLED_LOOP=1" ;;
	esac
}

instr() {	# instructions of probe_loop over N_COUNT iterations
	env $(data_env "$1" count) valgrind --tool=callgrind --toggle-collect=probe_loop \
		--callgrind-out-file="$T/cg.out" "$T/$1" "$N_COUNT" count >/dev/null 2>&1 &&
		sed -n 's/^summary: //p' "$T/cg.out"
}

if ! command -v valgrind >/dev/null; then
	echo "bench-events: valgrind is missing (scripts/deps.sh installs it)" >&2
	exit 2
fi

echo "Probe cost in a loop of 7 instructions per iteration (gcc -O2, x86-64); probes disabled"
echo "unless the loop's name ends in _on (its probe_setup enables it):"
echo "callgrind instructions per iteration over $N_COUNT iterations; time: best of 7 x $N_TIME, one CPU"
printf '%-22s %10s %8s %8s %9s %8s\n' loop instr/iter +instr "x none" ns/iter "x none"
base_i= base_t=
for src in bench/events/loop_none.c $(ls bench/events/loop_*.c | grep -v loop_none.c); do
	name=$(basename "$src" .c)
	name=${name#loop_}
	build "$name" "$src" || continue
	i=$(instr "$name")
	case $name in	# enabled: N_HIT iterations (8 runs of them are all on disk)
	*_on) t=$(env $(data_env "$name" time) $PIN "$T/$name" "$N_HIT" time)
	      eval "t_$name=\$t" ;;
	*) t=$($PIN "$T/$name" "$N_TIME" time) ;;
	esac
	if [ -z "$i" ] || [ -z "$t" ]; then
		echo "# $name: did not run"
		continue
	fi
	[ -z "$base_i" ] && base_i=$i base_t=$t
	awk -v n="$name" -v i="$i" -v t="$t" -v bi="$base_i" -v bt="$base_t" -v c="$N_COUNT" '
		BEGIN { printf "%-22s %10.2f %+8.2f %8.2f %9.3f %8.2f\n", n, i / c, (i - bi) / c,
			i / bi, t, t / bt }'
done
echo "(expect/branch: the same condition, 1 in 8 true, with __builtin_expect and with"
echo " patchsite_unlikely; branch_exact: PATCHSITE_BRANCH_EXACT.  +instr of branch over expect"
echo " is the annotation's cost per evaluated condition.)"

echo
echo "Enabled, per hit (ns/iter of the loop with the probe enabled, minus loop_none's):"
for src in bench/events/loop_*_on.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	name=${name#loop_}
	eval "t=\${t_$name:-}"
	[ -n "$t" ] || continue
	kept="$("$B/patchsite" info -d "$T/$name.time.data" 2>/dev/null |
		sed -n 's/^# events: \([0-9]*\) recorded, \([0-9]*\) lost$/\1 of '$((8 * N_HIT))' hits recorded, \2 lost/p')"
	awk -v n="$name" -v t="$t" -v bt="$base_t" -v k="${kept:-not counted}" 'BEGIN {
		printf "%-34s %9.1f ns per hit (%s)\n", n ", 2 integer fields", t - bt, k }'
done
# LTTng-UST: a session recording bench:loop into a private directory.
if [ -x "$T/lttng" ] && command -v lttng >/dev/null && command -v lttng-sessiond >/dev/null; then
	own=
	if ! lttng list >/dev/null 2>&1; then
		lttng-sessiond >"$T/sessiond.log" 2>&1 &
		own=$!
		for k in 1 2 3 4 5 6 7 8 9 10; do
			lttng list >/dev/null 2>&1 && break
			sleep 0.5
		done
	fi
	rm -rf "$T/lttng-trace"
	s=bench-events-$$
	if lttng create "$s" --output="$T/lttng-trace" >"$T/lttng.log" 2>&1 &&
	   lttng enable-channel -u -s "$s" --subbuf-size=4M --num-subbuf=8 ch >>"$T/lttng.log" 2>&1 &&
	   lttng enable-event -u -s "$s" -c ch bench:loop >>"$T/lttng.log" 2>&1 &&
	   lttng start "$s" >>"$T/lttng.log" 2>&1; then
		t=$($PIN "$T/lttng" "$N_HIT" time)
		lttng stop "$s" >>"$T/lttng.log" 2>&1
		# What the trace holds (warm-up and 7 runs): a hit not recorded was not paid for.
		if command -v babeltrace >/dev/null; then
			kept="$(babeltrace "$T/lttng-trace" 2>/dev/null | grep -c 'bench:loop') of $((8 * N_HIT)) hits recorded"
		else
			kept="recorded events not counted: babeltrace missing"
		fi
		awk -v t="$t" -v bt="$base_t" -v k="$kept" 'BEGIN {
			printf "%-34s %9.1f ns per hit (%s)\n", "LTTng-UST, 2 integer fields", t - bt, k }'
	else
		echo "# LTTng-UST enabled: no session ($(tail -1 "$T/lttng.log"))"
	fi
	lttng destroy "$s" >/dev/null 2>&1
	[ -n "$own" ] && kill "$own" && wait "$own" 2>/dev/null
else
	echo "# LTTng-UST enabled: not measured (needs liblttng-ust-dev and lttng-tools)"
fi
# uftrace enables SDT probes with -E; it needs a -pg program (for its own start-up).
if command -v uftrace >/dev/null && build sdt_pg bench/events/loop_sdt.c -pg; then
	n=$((N_HIT / 10))
	rm -rf "$T/uftrace.data"
	t=$(uftrace record -d "$T/uftrace.data" -E 'bench:loop' "$T/sdt_pg" "$n" time 2>"$T/uftrace.log")
	ev=$(uftrace dump -d "$T/uftrace.data" 2>/dev/null | grep -c '\[event\] bench:loop')
	if [ -n "$t" ]; then
		awk -v t="$t" -v bt="$base_t" -v ev="$ev" -v hits=$((8 * n)) 'BEGIN {
			printf "%-34s %9.1f ns per hit (%d of %d hits recorded as events)\n",
			"uftrace -E on the SDT probe", t - bt, ev, hits }'
	else
		echo "# uftrace -E: did not run ($(tail -1 "$T/uftrace.log"))"
	fi
else
	echo "# uftrace -E on SDT: not measured (uftrace missing)"
fi

echo
echo "Branch counters under contention: 2 threads, one site, 20000000 evaluations each:"
for v in plain exact; do
	flag=
	[ $v = exact ] && flag=-DPATCHSITE_BRANCH_EXACT
	if $CC -O2 -Iinclude $flag bench/events/threads.c -o "$T/threads_$v" -pthread 2>"$T/threads.log"; then
		"$T/threads_$v" 2 20000000 | awk -v v=$v '{
			printf "%-6s %9d of %9d counted (%.1f%% lost), %.2f ns per evaluation\n",
			v, $2, $1, 100 * ($1 - $2) / $1, $3 }'
	fi
done
