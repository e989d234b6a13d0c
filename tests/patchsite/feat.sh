#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Recording features: tracing_on, set_ftrace_pid, tracing_thresh, arguments,
# filter commands, the latency tracer.  usage: feat.sh BUILD_DIR plain|san
#
# The oracle is the sample (testdata/patchsite/feat.c): it knows by
# construction which calls it made, in which thread, with which arguments
# and results, and which of them slept; each case compares exact counts from
# `patchsite report --json` / `replay` with what it did.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail; only_switches_lost
suite_init feat "${1:-build}" "${2:-plain}"
# The program's own calls are the oracle: library calls (record's default) not traced.
record() { LD_PRELOAD="$SANPRE" "$PS" record --no-libcall "$@"; }

# counts: "name:calls ..." for every function report --json lists, sorted by name.
counts() {
	"$PS" report -d d --json 2>>rerr | python3 -c '
import json, sys
print(" ".join("%s:%d" % (r["name"], r["calls"]) for r in sorted(json.load(sys.stdin), key=lambda r: r["name"])))'
}

$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/feat.c -o "$T/feat.o" \
	>"$T/build.log" 2>&1 && $CC -o "$T/feat" "$T/feat.o" -pthread -ldl >>"$T/build.log" 2>&1 ||
	{ fail "build feat" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
# The same with exit sites (gcc's -minstrument-return=nop5 -mrecord-return): no return hooks.
$CC -O2 -g -pg -mfentry -mrecord-mcount -minstrument-return=nop5 -mrecord-return \
	-c testdata/patchsite/feat.c -o "$T/featx.o" >>"$T/build.log" 2>&1 &&
	$CC -o "$T/featx" "$T/featx.o" -pthread -ldl >>"$T/build.log" 2>&1 ||
	{ fail "build featx" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1

# case NAME WANT [record options] -- feat MODE: the counts must be WANT exactly, stderr empty.
case_() {
	name=$1 want=$2
	shift 2
	rm -rf d rerr
	record -d d "$@" >out 2>err
	got=$(counts)
	if [ "$got" = "$want" ] && only_switches_lost err && [ ! -s rerr ] && ! grep -q 'ctl error' out; then
		pass "$name: $got"
	else
		echo "got:  $got" >>err
		echo "want: $want" >>err
		cat out rerr >>err 2>/dev/null
		fail "$name" err
	fi
}

for tr in function function_graph; do
	# 100 calls, off, 50 calls, on, 25 calls: 125 recorded; the ctl that turns it on is not.
	case_ "tracing_on ($tr)" "ctl:1 leaf:125 main:1" --tracer=$tr -- ./feat onoff
	# Thread A alone records, then the whole process: its 301 calls, one each of B and main.
	case_ "set_ftrace_pid ($tr)" "ctl:1 leaf_a:301 leaf_b:1 leaf_c:1 main:1 thread_a:1 thread_b:1" \
		--tracer=$tr -- ./feat pid
done
# Set at start: nothing is recorded at all.
rm -rf d
if PATCHSITE_TRACING_ON=0 record -d d -- ./feat onoff >out 2>err &&
   [ "$(counts)" = "leaf:25" ] && only_switches_lost err; then
	pass "PATCHSITE_TRACING_ON=0: only the 25 calls after tracing_on 1"
else
	fail "PATCHSITE_TRACING_ON=0" err
fi
rm -rf d
# The runtime refuses it and the program runs untraced: record exits 2 (not a recording).
if PATCHSITE_PID=abc record -d d -- ./feat onoff >out 2>err; [ $? -eq 2 ] &&
   grep -qx "patchsite: error: PATCHSITE_PID: set_ftrace_pid: 'abc' is not a thread or process id: not tracing" err; then
	pass "PATCHSITE_PID=abc refused by name"
else
	fail "PATCHSITE_PID=abc" err
fi

# tracing_thresh 10 ms: only slow() (20 ms by construction) and its open ancestors stay;
# the 8 calls of fast() and the mid() that called three of them are taken back.
for bin in feat featx; do
case_ "tracing_thresh 10000 ($bin)" "main:1 mid:1 outer:1 slow:1" --tracer=function_graph -- \
	env PATCHSITE_THRESH=10000 ./$bin thresh
# set_graph_notrace mid: neither mid nor the 3 fast() and slow() it calls; outer's 5 fast() stay.
case_ "set_graph_notrace mid ($bin)" "fast:5 main:1 outer:1" --tracer=function_graph -- \
	env PATCHSITE_GRAPH_NOTRACE=mid ./$bin thresh
# The latency tracer over outer(): calls of 1, 20 and 2 ms.  The first is kept (longest so
# far), the second too, the third taken back; replay --latency shows the second alone.
# (Only feat: set_graph_function does not limit functions with exit sites, see patchsite(7).)
if [ $bin = feat ]; then
rm -rf d
PATCHSITE_GRAPH_FUNCTION=outer record --tracer=latency -d d -- ./$bin latency >out 2>err
"$PS" replay --no-sched --latency -d d >replay 2>>err
us=$(sed -n 's/^# tracing_max_latency: \([0-9]*\) us$/\1/p' replay)
slow=$(sed -n 's/^.*| [#*] *\([0-9]*\)\.[0-9]* us |  *slow();$/\1/p' replay)
got=$(counts)
# tracing_max_latency as the process read it: the same within 1% (two conversions of ticks).
rt=$(grep -m1 '^max_latency=' out | cut -d= -f2)
rt=${rt:-0}
if [ "$got" = "fast:16 mid:4 outer:2 slow:2" ] && [ "${us:-0}" -ge 20000 ] &&
   [ "$(grep -c 'outer() {' replay)" -eq 1 ] && [ "${slow:-0}" -ge 20000 ] &&
   [ "$(grep -c '^max_latency=' out)" -eq 2 ] && grep -qx 'max_latency=0' out &&
   [ $((rt - us)) -le $((us / 100)) ] && [ $((us - rt)) -le $((us / 100)) ] && only_switches_lost err; then
	pass "latency tracer ($bin): 2 of 3 calls kept, --latency shows the ${us} us one (slow() ${slow} us); tracing_max_latency read $rt, reset to 0"
else
	echo "got: $got, max $us us, slow $slow us" >>err
	cat out replay >>err
	fail "latency tracer ($bin)" err
fi
fi
case_ "tracing_thresh 0, every call ($bin)" "fast:8 main:1 mid:2 outer:1 slow:1" \
	--tracer=function_graph -- env PATCHSITE_THRESH=0 ./$bin thresh

# Arguments and return values: leaf2(i, 2i) = 3i for i = 1..3 and leaf(7), by construction.
ARGS='leaf2@arg1,arg2,retval;leaf@arg1 main@retval'
rm -rf d
PATCHSITE_ARGS=$ARGS record --tracer=function_graph -d d -- ./$bin args >out 2>err
"$PS" replay --no-sched -d d 2>>err | sed -n 's/^.*|  *\([a-z].*\|}.*\)$/\1/p' >got
printf '%s\n' 'main() {' 'leaf2(1, 2) = 3;' 'leaf2(2, 4) = 6;' 'leaf2(3, 6) = 9;' 'leaf(7);' \
	'} = 0; /* main */' >want
if cmp -s got want && only_switches_lost err; then
	pass "set_ftrace_args ($bin): function_graph text shows leaf2(1, 2) = 3 ... and main's = 0"
else
	diff want got >>err
	fail "set_ftrace_args (function_graph, $bin)" err
fi
# The same lines as uftrace's (-A/-R on the same binary, an independent reader of the registers).
if [ $bin = feat ]; then
rm -rf uftrace.data
# --no-event: uftrace records the task's schedule events by default, and a
# preemption inside leaf2 on a busy machine showed it as "leaf2(1, 2) {".
if uftrace record --no-event -A leaf2@arg1,arg2 -R leaf2@retval -A leaf@arg1 ./feat args >out 2>err &&
   uftrace replay -F main >ureplay 2>>err; then
	sed -n 's/^.*|  *\(leaf.*\)$/\1/p' ureplay >want
	grep '^leaf' got >gotleaf
	if [ -s want ] && cmp -s want gotleaf; then
		pass "set_ftrace_args: leaf2 and leaf lines as uftrace shows them ($(wc -l <want))"
	else
		diff want gotleaf >>err
		fail "set_ftrace_args against uftrace" err
	fi
else
	fail "uftrace (scripts/deps.sh installs it)" err
fi
fi
"$PS" dump --chrome -d d >chrome.json 2>err
if python3 - chrome.json >>err 2>&1 <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
got = [(e["name"], e.get("args")) for e in ev if e["name"] in ("leaf2", "leaf", "main")]
want = [("leaf2", {"arg1": i, "arg2": 2 * i, "retval": 3 * i}) for i in (1, 2, 3)]
want += [("leaf", {"arg1": 7}), ("main", {"retval": 0})]
sys.exit(0 if got == want else print(got) or 1)
PY
then
	pass "set_ftrace_args ($bin): Chrome JSON args of leaf2, leaf and main"
else
	fail "set_ftrace_args (chrome, $bin)" err
fi
done
rm -rf d
PATCHSITE_ARGS=$ARGS record --tracer=function -d d -- ./feat args >out 2>err
"$PS" replay --no-sched -d d 2>>err | sed -n 's/^.*: \(leaf.*\) <-main$/\1/p' >got
printf '%s\n' 'leaf2(1, 2)' 'leaf2(2, 4)' 'leaf2(3, 6)' 'leaf(7)' >want
if cmp -s got want && only_switches_lost err; then
	pass "set_ftrace_args: function tracer lines show leaf2(1, 2) ... leaf(7)"
else
	diff want got >>err
	fail "set_ftrace_args (function)" err
fi
for bad in 'leaf2@arg7' 'leaf2' 'nosuchfunc@arg1'; do
	rm -rf d
	PATCHSITE_ARGS=$bad record -d d -- ./feat args >out 2>err
	if grep -q "^patchsite: error: PATCHSITE_ARGS: set_ftrace_args: .*: not tracing$" err; then
		pass "PATCHSITE_ARGS=$bad refused: $(head -1 err | cut -c1-100)"
	else
		fail "PATCHSITE_ARGS=$bad" err
	fi
done

# Filter commands.  outer:traceon fires each of the 10 rounds, leaf:traceoff:3 the first 3
# (it counts only when it turns tracing off): leaf is not recorded in rounds 1-3 (the command
# fires before the call is recorded), outer, mid and fast always are.
for tr in function function_graph; do
	rm -rf d
	PATCHSITE_TRIGGER='leaf:traceoff:3 outer:traceon' record --tracer=$tr -d d -- ./feat trig \
		>out 2>err
	got=$(counts)
	if [ "$got" = "fast:80 leaf:7 list_triggers:1 main:1 mid:10 outer:10" ] && only_switches_lost err &&
	   grep -qx 'leaf:traceoff:count=0' out && grep -qx 'outer:traceon:unlimited' out; then
		pass "traceon/traceoff ($tr): $got; listed leaf:traceoff:count=0, outer:traceon:unlimited"
	else
		echo "got: $got" >>err
		cat out >>err
		fail "traceon/traceoff ($tr)" err
	fi
	# fast:stacktrace:5: the first 5 of the 80 calls of fast: 3 from mid, then 2 from outer
	# (each chain compared up to main; libc's frames below it vary).
	rm -rf d
	PATCHSITE_TRIGGER='fast:stacktrace:5' record --tracer=$tr -d d -- ./feat trig >out 2>err
	"$PS" replay --no-sched -d d >replay 2>>err
	awk '/<stack trace>/ { if (s) print s; s = "" ; on = 1; next }
	     on && /^ => / { s = s " " $2; if ($2 == "main") on = 0; next }
	     { on = 0 } END { if (s) print s }' replay >got
	printf '%s\n' ' fast mid outer main' ' fast mid outer main' ' fast mid outer main' \
		' fast outer main' ' fast outer main' >want
	if cmp -s got want && grep -qx 'fast:stacktrace:count=0' out && only_switches_lost err; then
		pass "stacktrace:5 ($tr): 5 traces, 3 => fast => mid => outer => main, 2 => fast => outer => main"
	else
		diff want got >>err
		fail "stacktrace ($tr)" err
	fi
done
rm -rf d
PATCHSITE_TRIGGER='leaf:nosuch' record -d d -- ./feat trig >out 2>err
if grep -qx "patchsite: error: PATCHSITE_TRIGGER: nosuch: no such filter command (traceon, traceoff, snapshot, stacktrace): not tracing" err; then
	pass "an unknown filter command is refused by name"
else
	fail "unknown filter command" err
fi

# Every switch flipped 300 times while 4 threads call: no crash, nothing lost or torn (every
# record reads back), and after the switches are back at their defaults each thread's 10
# calls of leaf are all recorded (set_ftrace_pid="" every thread, tracing_on 1).
for tr in function function_graph; do
	for bin in feat featx; do
		rm -rf d
		record --tracer=$tr -d d -- ./$bin storm >out 2>err
		rc=$?
		"$PS" info -d d >info 2>>err
		leaf=$(counts | tr ' ' '\n' | sed -n 's/^leaf://p')
		if [ $rc -eq 0 ] && [ "$leaf" = 40 ] && only_switches_lost err && ! grep -q 'ctl error' out &&
		   grep -q '^# events: [0-9]* recorded, 0 lost$' info; then
			pass "switch storm ($tr, $bin): 0 lost, leaf 40 after it"
		else
			echo "rc $rc, leaf $leaf" >>err
			cat out info >>err
			fail "switch storm ($tr, $bin)" err
		fi
	done
done

# Each control file reads back what was written, in ftrace's formats ("no pid" for an empty
# set_ftrace_pid, ids sorted one a line, >> appending); bad values refused by name.
rm -rf d
record -d d -- ./feat ctl >out 2>err
cat >want <<'EOF'
tracing_on=1|
tracing_on=0|
set_ftrace_pid=no pid|
set_ftrace_pid=10|20|30|
set_ftrace_pid=5|10|20|30|
set_ftrace_pid=no pid|
tracing_thresh=250|
set_ftrace_args=leaf2@arg1,arg2,retval|leaf@arg1|
set_ftrace_args=
set_graph_notrace=mid|
tracing_max_latency=0|
refused: set_ftrace_pid: '12x' is not a thread or process id
EOF
if cmp -s out want && [ "$(wc -l <err)" -eq 3 ] &&
   grep -qx "patchsite: error: tracing_on: expected a number from 0 to 1, not '2'" err; then
	pass "control files read back what was written ($(wc -l <want) lines)"
else
	diff want out >>err
	fail "control files" err
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
