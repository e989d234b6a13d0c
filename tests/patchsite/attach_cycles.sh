#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Many attach -> trace -> detach cycles (issue #26): usage
#   attach_cycles.sh BUILD_DIR [CYCLES [FRESH]]     (make check-attach-cycles; not in make check)
#
# The threaded sample of the control tests (testdata/patchsite/ctlspin.c, -pg -mfentry
# -mrecord-mcount, PIE and -mnop-mcount non-PIE), started with an empty environment, 8 threads
# calling at full speed:
#   1. one process, CYCLES (default 1000) `record -p --duration` cycles, the tracer alternating
#      function (-F alpha) and function_graph (-F beta); each must exit 0 within 60 s with the
#      process alive; every 100 cycles the sample stops its threads and says its own counts
#      (the oracle: alpha, beta and gamma_leaf called equally often, "run 1000" exactly 8 x 1000
#      each: no call lost, doubled or changed by the cycles);
#   2. FRESH (default 100) fresh processes, each attached once (the injection itself), then
#      the same counts, quit, exit status 0 and nothing on stderr.
# It prints the slowest cycle.  Takes minutes (about 0.2 s a cycle on a loaded 2-core machine).
set -u
B=${1:-build}
CYCLES=${2:-1000}
FRESH=${3:-100}
if [ "$(uname -m)" != x86_64 ]; then
	echo "SKIP attach_cycles.sh: attach is implemented for x86-64 only"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-cycles.XXXXXX")
SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	exec 3>&- 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap '' PIPE
PASS=0
FAIL=0
CC=${CC:-gcc}
PS="$PWD/$B/patchsite"
NTH=8
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }

PG="-pg -mfentry -mrecord-mcount"
for form in pie nop; do
	case $form in
	pie) f="$PG" l= ;;
	nop) f="$PG -mnop-mcount -fno-pie" l="-no-pie" ;;
	esac
	$CC -O2 -g $f -c testdata/patchsite/ctlspin.c -o "$T/ctlspin-$form.o" >"$T/build.log" 2>&1 &&
		$CC $l -o "$T/ctlspin-$form" "$T/ctlspin-$form.o" -pthread >>"$T/build.log" 2>&1 ||
		{ fail "build ctlspin ($form)" "$T/build.log"; exit 1; }
done
cd "$T" || exit 1

wait_for() {
	for _ in $(seq 300); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# phase CMD WORD: send CMD, wait for a new WORD line; sets A BB C (the sample's counts).
phase() {
	n0=$(grep -c "^$2 " out)
	echo "$1" >&3
	for _ in $(seq 600); do
		[ "$(grep -c "^$2 " out)" -gt "$n0" ] && break
		sleep 0.1
	done
	set -- $(grep "^$2 " out | tail -1) x x x x
	A=$2 BB=$3 C=$4
}
start() {
	rm -f in out err
	mkfifo in
	env -i "$@" <in >out 2>err &
	SPID=$!
	exec 3>in
	wait_for out '^ready'
}
finish() {
	echo quit >&3
	exec 3>&-
	wait "$SPID"; st=$?
	SPID=
	[ $st -eq 0 ] && [ ! -s err ]
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# counts_ok: the last stop said equal non-zero counts, and "run 1000" exactly NTH x 1000 each
counts_ok() {
	phase stop stopped
	[ "$A" = "$BB" ] && [ "$BB" = "$C" ] && [ "$A" -gt 0 ] 2>/dev/null || return 1
	phase "run 1000" done
	[ "$A $BB $C" = "$((NTH * 1000)) $((NTH * 1000)) $((NTH * 1000))" ]
}

# 1. One process, CYCLES cycles.
if [ "$CYCLES" -gt 0 ]; then
start ./ctlspin-pie $NTH || { fail "sample did not start" err; exit 1; }
echo spin >&3
ok=0 worst=0 bad=
t0=$(now_ms)
for i in $(seq "$CYCLES"); do
	if [ $((i % 2)) = 1 ]; then tr="--tracer=function -F alpha"; else tr="--tracer=function_graph -F beta"; fi
	s=$(now_ms)
	# shellcheck disable=SC2086
	timeout 60 "$PS" record -p "$SPID" -d cycles $tr --duration=0.02 2>cyc.err
	rc=$?
	d=$(($(now_ms) - s))
	[ $d -gt $worst ] && worst=$d
	if [ $rc -ne 0 ] || ! kill -0 "$SPID" 2>/dev/null; then
		echo "cycle $i: exit $rc" >>cyc.log; cat cyc.err >>cyc.log; bad=1; break
	fi
	ok=$((ok + 1))
	if [ $((i % 100)) = 0 ]; then
		counts_ok || { echo "cycle $i: counts $A $BB $C" >>cyc.log; bad=1; break; }
		echo spin >&3
	fi
done
t1=$(now_ms)
counts_ok || { echo "end: counts $A $BB $C" >>cyc.log; bad=1; }
# Both tracers' records are there (the replay shows them in the last tracer's format).
"$PS" replay --no-sched -d cycles >replay.txt 2>>cyc.log
grep -q 'alpha' replay.txt && grep -q 'beta' replay.txt ||
	{ echo "no alpha or no beta in the trace" >>cyc.log; bad=1; }
finish || { echo "quit: status $st" >>cyc.log; cat err >>cyc.log; bad=1; }
if [ -z "$bad" ]; then
	pass "$ok attach/trace/detach cycles on one process ($NTH threads calling): no crash or hang, counts equal and exact every 100 cycles, exit 0; $(((t1 - t0) / ok)) ms a cycle, slowest $worst ms"
else
	echo "$ok of $CYCLES cycles" >>cyc.log; fail "cycles on one process" cyc.log
fi
[ -n "$SPID" ] && { kill "$SPID"; wait "$SPID" 2>/dev/null; SPID=; }
fi

# 2. FRESH processes, each injected once.
ok=0 worst=0 bad=
for i in $(seq "$FRESH"); do
	if [ $((i % 2)) = 1 ]; then form=pie; else form=nop; fi
	start ./ctlspin-$form $NTH || { echo "run $i: did not start" >>fresh.log; bad=1; break; }
	echo spin >&3
	rm -rf "fresh"
	s=$(now_ms)
	timeout 60 "$PS" record -p "$SPID" -d fresh --tracer=function -F alpha --duration=0.02 2>fresh.err
	rc=$?
	d=$(($(now_ms) - s))
	[ $d -gt $worst ] && worst=$d
	if [ $rc -ne 0 ] || ! counts_ok || ! finish; then
		echo "run $i ($form): exit $rc, counts $A $BB $C" >>fresh.log; cat fresh.err err >>fresh.log; bad=1; break
	fi
	ok=$((ok + 1))
done
if [ -z "$bad" ]; then
	pass "$ok fresh processes (PIE and -mnop-mcount) attached, traced and left: counts exact, exit 0, nothing on stderr; slowest record -p $worst ms"
else
	fail "fresh processes ($ok of $FRESH)" fresh.log
fi
echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
