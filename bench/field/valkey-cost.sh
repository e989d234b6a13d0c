#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What a traceable build costs with tracing off, on a real server (issue 23):
#   valkey-cost.sh BUILD_DIR [ROUNDS] [REQUESTS]
# after `make check-field` built valkey twice (FIELD_DIR, default BUILD_DIR/field):
#   plain      gcc, the same flags, no sites
#   sites      -pg -mfentry through patchsite-cc, no runtime: each function's first
#              instruction calls glibc's idle __fentry__ (through the GOT in a PIE)
#   nops       the same binary with libpatchsite preloaded, no tracer: the runtime
#              has made every site a NOP at start-up
# Each round runs the three in turn (alternated, so that the machine's load falls on all),
# valkey-benchmark (the plain build's, the same client for all) sending REQUESTS SET and GET
# from 20 connections, 16 pipelined (so that the commands' own work, where the sites are,
# outweighs the system calls); the measure is the server's CPU time per request, user
# (utime: where the sites cost) and user + system, from /proc/PID/stat.  Printed: per
# form, the median over the rounds, and each round's ticks.
set -u

B=${1:-build}
ROUNDS=${2:-5}
N=${3:-200000}
TOP=$PWD
W=${FIELD_DIR:-$TOP/$B/field}
PORT=${VALKEY_COST_PORT:-27379}
TCK=$(getconf CLK_TCK)
for f in plain traced; do
	[ -x "$W/$f/src/valkey-server" ] || { echo "valkey-cost.sh: no $W/$f/src/valkey-server: run make check-field first" >&2; exit 2; }
done
BENCH=$W/plain/src/valkey-benchmark
T=$(mktemp -d "${TMPDIR:-/tmp}/valkey-cost.XXXXXX")
trap 'rm -rf "$T"' EXIT

cpu() { awk '{ print $14, $14 + $15 }' "/proc/$1/stat"; }	# utime, utime + stime (ticks)

# one FORM: the server's CPU ticks for N SET + N GET
one() {
	case $1 in
	plain) exe=$W/plain/src/valkey-server pre= ;;
	sites) exe=$W/traced/src/valkey-server pre= ;;
	nops)  exe=$W/traced/src/valkey-server pre=$TOP/$B/libpatchsite.so ;;
	esac
	LD_PRELOAD=$pre PATCHSITE_CTL=0 "$exe" --port $PORT --save "" --appendonly no \
		--dir "$T" >"$T/server.log" 2>&1 &
	pid=$!
	i=0
	until "$BENCH" -p $PORT -n 1 -t ping -q >/dev/null 2>&1 || [ $i -ge 500 ]; do sleep 0.01; i=$((i + 1)); done
	c0=$(cpu $pid)
	"$BENCH" -p $PORT -n "$N" -c 20 -P 16 -t set,get -q >/dev/null 2>&1
	c1=$(cpu $pid)
	kill $pid
	wait $pid 2>/dev/null
	echo $c0 $c1 | awk '{ print $3 - $1, $4 - $2 }'
}

for r in $(seq 1 "$ROUNDS"); do
	for f in plain sites nops; do
		echo "$f $(one $f)" >>"$T/all"
	done
done
echo "valkey-server CPU per request (SET and GET, $N each, 20 connections, -P 16), $ROUNDS rounds alternated:"
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
per_req() { awk -v t="$1" -v hz="$TCK" -v n="$N" 'BEGIN { printf "%.3f", t / hz * 1e6 / (2 * n) }'; }
for f in plain sites nops; do
	u=$(awk -v f=$f '$1 == f { print $2 }' "$T/all" | median)
	a=$(awk -v f=$f '$1 == f { print $3 }' "$T/all" | median)
	echo "  $f: user $(per_req "$u") us, user+system $(per_req "$a") us per request (medians;" \
		"user ticks per round: $(awk -v f=$f '$1 == f { printf "%s ", $2 }' "$T/all"))"
done
