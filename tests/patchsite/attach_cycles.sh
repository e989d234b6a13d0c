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
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary; only_x86_64, start, finish, phase, build_form
only_x86_64 attach_cycles.sh "attach is implemented for x86-64 only"
suite_init cycles "${1:-build}" plain
CYCLES=${2:-1000}
FRESH=${3:-100}
trap '' PIPE
NTH=8
START_WAIT=300 PHASE_WAIT=600
for form in pie nop; do
	build_form "$T/ctlspin-$form" $form testdata/patchsite/ctlspin.c -- -pthread ||
		{ fail "build ctlspin ($form)" "$T/build.log"; exit 1; }
done
cd "$T" || exit 1

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
summary
