#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The function_profile tracer: usage  profile.sh BUILD_DIR plain|san
#
# Oracles: uftrace's report (where installed); the samples' own counts of their calls (ending.c: fib's calls and
# 4 threads x N; ctlspin.c: "done A B C" per phase; profsleep.c: its calls
# and a CLOCK_MONOTONIC span around them); a function_graph recording of
# the same deterministic program (its `report --json` calls); the sleeps
# asked for (a lower bound of every time); check_profile.py, a reader of
# the `profile` file written from patchsite-data(5) alone, which checks
# each histogram against the issue's bucket rule and merges the threads;
# the kernel's source for trace_stat/function's layout (its format strings
# parsed out of Debian's linux-source-6.1 where installed, else as
# check_profile.py states them with their lines).
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail; only_switches_lost
suite_init profile "${1:-build}" "${2:-plain}"
trap '' PIPE
CHECK="python3 $PWD/tests/patchsite/oracles/check_profile.py"
PRELOAD="$PWD/$B/libpatchsite.so"
SANFLAGS=
if [ "$MODE" = san ]; then
	SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
	PRELOAD="$SANPRE $PRELOAD"
fi
# The program's own calls, as uftrace --no-libcall counts them: library calls (record's
# default) not traced.
record() { LD_PRELOAD="$SANPRE" "$PS" record --no-libcall "$@"; }

for p in ending profsleep ctlspin; do
	$CC -O2 -g -pg -mfentry -mrecord-mcount $SANFLAGS -c testdata/patchsite/$p.c -o "$T/$p.o" \
		>"$T/build.log" 2>&1 && $CC $SANFLAGS -o "$T/$p" "$T/$p.o" -pthread >>"$T/build.log" 2>&1 ||
		{ fail "build $p" "$T/build.log"; echo "$PASS passed, $((FAIL)) failed"; exit 1; }
done
cd "$T" || exit 1
KSRC=/usr/src/linux-source-6.1.tar.xz
if [ -z "${KERNEL_TRACE_DIR:-}" ] && [ -r "$KSRC" ] &&
   tar -xJf "$KSRC" --wildcards '*/kernel/trace/ftrace.c' '*/kernel/trace/trace_functions_graph.c' \
	2>/dev/null; then
	export KERNEL_TRACE_DIR="$(dirname "$(ls -d "$T"/*/kernel/trace/ftrace.c | head -1)")"
fi

# row DECODED NAME FIELD: a field of NAME's line in check_profile.py decode's output.
row() { awk -v n="$2" -v k="$3" '$1 == n { print $k }' "$1"; }
calls() { python3 -c 'import json, sys
print(sum(r["calls"] for r in json.load(open(sys.argv[1])) if r["name"] == sys.argv[2]))' "$1" "$2"; }

# 1. fib(22): hits equal the program's count and a function_graph recording's calls.
record --tracer=function_profile -d p -- ./ending 22 fib >out 2>err
record -d g -- ./ending 22 fib >/dev/null 2>>err
"$PS" report -d g --json >g.json 2>>err
want=$(sed -n 's/^fib=[0-9]* calls=//p' out)
if $CHECK decode p/*/profile >dec 2>>err && [ "$(row dec fib 2)" = "$want" ] &&
   [ "$(calls g.json fib)" = "$want" ] && [ "$(row dec main 2)" = 1 ] && [ "$(calls g.json main)" = 1 ] &&
   [ "$(row dec threads 2)" = 1 ] && only_switches_lost err && ! grep -q '^0x' dec; then
	pass "fib(22): $want hits of fib, 1 of main, as the program counts and function_graph records"
else
	cat dec err >>out 2>/dev/null; fail "fib(22) hits" out
fi
# The same directory through report: the file's rows, with percentiles and the histogram.
"$PS" report -d p --json --percentiles=50,99,100 >p.json 2>err
"$PS" report -d p --hist=fib >hist 2>>err
if python3 - p.json dec <<'PY' >cmp 2>&1 && $CHECK hist hist p/*/profile fib >>cmp 2>&1 && [ ! -s err ]
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
for ln in open(sys.argv[2]):
    w = ln.split()
    if w[0] == "threads":
        continue
    r = rows[w[0]]
    got = [r["calls"], r["total_ns"], r["self_ns"], r["min_ns"], r["max_ns"], r["avg_ns"]]
    want = [int(w[1]), int(w[2]), int(w[3]), int(w[4]), int(w[5]), int(w[6]) // int(w[1])]
    assert got == want, (w[0], got, want)
    assert r["p100_ns"] == int(w[5]), r
print("report rows equal the file's")
PY
then
	pass "report on a function_profile run: $(head -1 cmp); --hist: $(tail -1 cmp)"
else
	cat err >>cmp; fail "report on a function_profile run" cmp
fi
# The other readers have no events to show: each says, in one line, where the counts are.
: >err
for v in "replay" "graph" "dump --chrome" "dump --perfetto" "dump --folded"; do
	# shellcheck disable=SC2086
	"$PS" $v -d p >/dev/null 2>>err
done
if [ "$(grep -c "^patchsite: p/[0-9]*: function_profile counted calls without recording them: 'patchsite report' shows those counts$" err)" = 5 ] &&
   [ "$(wc -l <err)" = 5 ]; then
	pass "replay, graph, dump (3 formats): one line each pointing at report"
else
	fail "other readers on a function_profile run" err
fi
# Self time: fib calls only itself, so its self is its total (the outermost call); main's is
# its total less fib's, up to 1 ns of rounding per call.
t_main=$(row dec main 3) s_main=$(row dec main 4) t_fib=$(row dec fib 3) s_fib=$(row dec fib 4)
d=$((t_main - s_main - t_fib))
if [ "$s_fib" = "$t_fib" ] && [ $d -ge -1 ] && [ $d -le 1 ]; then
	pass "self: fib's is its total ($t_fib ns); main's total less fib's ($s_main ns, off by $d)"
else
	fail "self: main $t_main/$s_main fib $t_fib/$s_fib" dec
fi

# 2. Four threads x 3000 calls: every thread's counts, merged.
rm -rf p
record --tracer=function_profile -d p -- ./ending 3000 threads >out 2>err
if $CHECK decode p/*/profile >dec 2>>err && [ "$(row dec leaf 2)" = 12000 ] &&
   [ "$(row dec threads 2)" = 5 ] && only_switches_lost err; then
	pass "4 threads x 3000: 12000 hits of leaf in 4 threads' counters, merged"
else
	cat dec err >>out; fail "threads" out
fi

# uftrace, where installed, as a second recorder: its report's calls per function equal the
# profile's hits, function by function (fib(22) and the 4 threads).
if command -v uftrace >/dev/null 2>&1 && [ "$MODE" = plain ]; then
	for args in "22 fib" "3000 threads"; do
		rm -rf p ud
		record --tracer=function_profile -d p -- ./ending $args >/dev/null 2>err
		timeout 120 uftrace record --no-libcall --no-sched -d ud ./ending $args >/dev/null 2>>err
		uftrace report -d ud -f call --no-pager >ucalls 2>>err
		$CHECK decode p/*/profile >dec 2>>err
		u=$(awk 'NR > 2 { print $2, $1 }' ucalls | sort | tr '\n' ' ')
		o=$(awk '$1 != "threads" { print $1, $2 }' dec | sort | tr '\n' ' ')
		if [ -n "$o" ] && [ "$u" = "$o" ]; then
			pass "uftrace agrees on ending $args: $o"
		else
			echo "uftrace: $u; profile: $o" >>err; fail "uftrace on ending $args" err
		fi
	done
else
	echo "SKIP uftrace as a second oracle (not installed, or under ASan)"
fi

# A fork: the child's counts start there (its file: M leaf calls, and no main, which began in
# the parent); the parent's file: its N + M.
rm -rf p
record --tracer=function_profile -d p -- ./ending 100 fork 7 >out 2>err
# LeakSanitizer's note in a child forked while the channel thread runs (as branches.sh drops it).
sed -i '/^==[0-9]*==Running thread [0-9]* was not suspended. False leaks are possible.$/d' err
got=
for f in p/*/profile; do
	$CHECK decode "$f" >dec 2>>err && got="$got $(row dec leaf 2)/$(row dec main 2)"
done
if [ "$(echo $got | tr ' ' '\n' | sort | tr '\n' ' ')" = "107/1 7/ " ] && only_switches_lost err; then
	pass "fork: the child's profile holds its 7 leaf calls and no main, the parent's 107 and main"
else
	echo "got:$got" >>out; cat err >>out; fail "fork" out
fi

# Calls left by longjmp and by C++ exceptions end where they land: counted as function_graph
# records them, and the program's output and exit status are its own.
for src in longjmp.c except.cc; do
	cc=$CC
	case $src in *.cc) cc=${CXX:-g++} ;; esac
	$cc -O2 -g -pg -mfentry -mrecord-mcount $SANFLAGS -c "$OLDPWD/testdata/patchsite/$src" -o u.o \
		>blog 2>&1 && $cc $SANFLAGS -o u u.o -pthread >>blog 2>&1 || { fail "build $src" blog; continue; }
	./u >plain 2>&1; rc0=$?
	rm -rf p g
	record --tracer=function_profile -d p -- ./u >prof 2>err; rc1=$?
	record -d g -- ./u >/dev/null 2>>err
	"$PS" report -d g --json >g.json 2>>err
	if $CHECK decode p/*/profile >dec 2>>err && [ $rc0 = $rc1 ] && cmp -s plain prof &&
	   python3 - g.json dec <<'PY' >cmp 2>&1
import json, sys
g = {r["name"]: r["calls"] for r in json.load(open(sys.argv[1]))}
p = {w[0]: int(w[1]) for w in (l.split() for l in open(sys.argv[2])) if w[0] != "threads"}
assert g == p, (g, p)
print(len(p), "functions,", sum(p.values()), "calls")
PY
	then
		pass "$src: same output and exit $rc1 as untraced; hits equal function_graph's calls ($(cat cmp))"
	else
		cat cmp dec err >>prof; fail "$src under function_profile (exit $rc0/$rc1)" prof
	fi
done

# _exit: the counts were only in memory; report says they are lost, in one line.
rm -rf p
record --tracer=function_profile -d p -- ./ending 10 _exit >out 2>err
"$PS" report -d p >rep 2>err
if [ ! -e p/*/profile ] && [ "$(wc -l <err)" = 1 ] &&
   grep -q "^patchsite: p/[0-9]*: function_profile counted in memory, but there is no profile file" err; then
	pass "_exit: no profile file, and report says the counts are lost: $(cut -c1-80 err)..."
else
	fail "_exit" err
fi

# 3. Times: between the sleeps asked for and the span the program measured around the calls.
rm -rf p
record --tracer=function_profile -d p -- ./profsleep >out 2>err
span=$(sed -n 's/^span_ns=\([0-9]*\) .*/\1/p' out)
if $CHECK decode p/*/profile >dec 2>>err && [ "$(row dec work 2)" = 5 ] && [ "$(row dec nap 2)" = 20 ] &&
   [ "$(row dec nap 3)" -ge 4000000 ] && [ "$(row dec nap 5)" -ge 200000 ] &&
   [ "$(row dec work 3)" -ge "$(row dec nap 3)" ] && [ "$(row dec work 3)" -le "$span" ] &&
   [ "$(row dec work 5)" -ge 800000 ] && only_switches_lost err; then
	pass "profsleep: nap 20 hits, $(row dec nap 3) ns >= 20 x 200 us asked; work $(row dec work 3) ns <= the program's span $span ns"
else
	echo "span $span" >>out; cat dec err >>out; fail "profsleep times" out
fi

# 4. Live: trace_stat/function and function_hist through patchsite ctl, reset, filters.
mkdir -m 700 xdg
mkfifo in
XDG_RUNTIME_DIR=$T/xdg LD_PRELOAD="$PRELOAD" ./ctlspin 4 <in >out 2>err &
SPID=$!
exec 3>in
ctl() { XDG_RUNTIME_DIR=$T/xdg "$PS" ctl "$SPID" "$@"; }
phase() {
	n0=$(grep -c "^done " out)
	echo "$1" >&3
	for _ in $(seq 300); do
		[ "$(grep -c "^done " out)" -gt "$n0" ] && break
		sleep 0.1
	done
	set -- $(grep "^done " out | tail -1)
	A=$2 BB=$3 C=$4
}
for _ in $(seq 200); do grep -q '^ready' out && [ -S xdg/patchsite/$SPID.sock ] && break; sleep 0.1; done
ctl trace_dir "$T/live" 2>cerr
ctl current_tracer function_profile 2>>cerr
phase "run 500"
A1=$A B1=$BB C1=$C
ctl trace_stat/function >stat1 2>>cerr
ctl trace_stat/function_hist gamma_leaf 2>>cerr
ctl trace_stat/function_hist >hist1 2>>cerr
ctl snapshot 1 2>>cerr
if [ "$(awk '$1 == "alpha" { print $2 }' stat1)" = "$A" ] &&
   [ "$(awk '$1 == "beta" { print $2 }' stat1)" = "$BB" ] &&
   [ "$(awk '$1 == "gamma_leaf" { print $2 }' stat1)" = "$C" ] &&
   [ "$(ctl current_tracer)" = function_profile ] && [ ! -s cerr ] &&
   head -1 hist1 | grep -q "^# gamma_leaf: $C calls;"; then
	pass "live: trace_stat/function hits alpha $A, beta $BB, gamma_leaf $C as ctlspin counts; function_hist of gamma_leaf"
else
	cat stat1 hist1 cerr >>out; fail "live trace_stat/function (ctlspin says $A $BB $C)" out
fi
# Reset by writing; only the filtered function counted afterwards.
ctl trace_stat/function 0 2>cerr
ctl trace_stat/function >stat2 2>>cerr
ctl set_ftrace_filter alpha 2>>cerr
phase "run 300"
ctl trace_stat/function >stat3 2>>cerr
if [ "$(sed -n '3,$p' stat2 | wc -l)" = 0 ] && [ "$(sed -n '3,$p' stat3 | wc -l)" = 1 ] &&
   [ "$(awk '$1 == "alpha" { print $2 }' stat3)" = "$A" ] && [ ! -s cerr ]; then
	pass "reset by a write (no rows after), then set_ftrace_filter alpha: only alpha, $A hits"
else
	cat stat2 stat3 cerr >>out; fail "reset and filter" out
fi
ctl trace_stat/function_hist nosuch 2>cerr
ctl trace_stat/function_hist >hist2 2>>cerr; rc=$?
if [ $rc -ne 0 ] && grep -q 'trace_stat/function_hist: no call of nosuch counted' cerr && [ ! -s hist2 ]; then
	pass "function_hist of a function never counted: exit $rc, $(grep -m1 'nosuch' cerr)"
else
	fail "function_hist nosuch (exit $rc)" cerr
fi
echo quit >&3
wait $SPID
SPID=
# At exit: the profile file holds what was counted since the reset (alpha only); the
# snapshot taken before the reset has the first phase's three functions.
snap=$(ls -d "$T"/live/snapshot.1/*/ 2>/dev/null | head -1)
if $CHECK decode live/*/profile >dec 2>err && [ "$(row dec alpha 2)" = "$A" ] &&
   [ "$(wc -l <dec)" = 2 ] && [ -n "$snap" ] && $CHECK decode "$snap/profile" >dec1 2>>err &&
   [ "$(row dec1 alpha 2) $(row dec1 beta 2) $(row dec1 gamma_leaf 2)" = "$A1 $B1 $C1" ] &&
   $CHECK stat stat1 "$snap/profile" >statok 2>&1 &&
   "$PS" report -d live --snapshot=1 --json >snap.json 2>>err &&
   [ "$(calls snap.json gamma_leaf)" = "$(row dec1 gamma_leaf 2)" ]; then
	pass "at exit: profile file with alpha's $A hits since the reset; snapshot 1: trace_stat/function's $(cat statok)"
else
	cat dec dec1 statok err >>out 2>/dev/null; fail "profile at exit and snapshot" out
fi

# Switched live while 4 threads call without end: function_graph, function_profile,
# function_graph, function_profile, function_graph.  Each call is either recorded (it began
# while function_graph ran) or counted (while function_profile ran), never both, never lost:
# report's calls, events and profile together, are ctlspin's own counts.
rm -f in
mkfifo in
XDG_RUNTIME_DIR=$T/xdg PATCHSITE_TRACER=function_graph PATCHSITE_DATA=$T/sw LD_PRELOAD="$PRELOAD" \
	./ctlspin 4 <in >out 2>err &
SPID=$!
exec 3>in
for _ in $(seq 200); do grep -q '^ready' out && [ -S xdg/patchsite/$SPID.sock ] && break; sleep 0.1; done
echo spin >&3
sleep 0.3
: >cerr
for tr in function_profile function_graph function_profile function_graph; do
	ctl current_tracer $tr 2>>cerr
	sleep 0.3
done
echo stop >&3
for _ in $(seq 300); do grep -q '^stopped' out && break; sleep 0.1; done
echo quit >&3
wait $SPID
SPID=
set -- $(grep '^stopped' out)
"$PS" report -d sw --json >sw.json 2>>cerr
if [ $# = 4 ] && [ "$(calls sw.json alpha) $(calls sw.json beta) $(calls sw.json gamma_leaf)" = "$2 $3 $4" ] &&
   [ -e sw/*/profile ] && [ "$(grep -c function_profile sw/*/tracers)" = 2 ] && [ ! -s cerr ]; then
	pass "switched live 4 times while spinning: report's calls (events + profile) are ctlspin's $2 $3 $4"
else
	echo "stopped: $*; report: $(calls sw.json alpha) $(calls sw.json beta) $(calls sw.json gamma_leaf)" >>cerr
	cat err >>cerr; fail "live switches" cerr
fi

# 5. Damage: one line naming the file and the reason, and no rows.
rm -rf p
record --tracer=function_profile -d p -- ./ending 10 fib >/dev/null 2>&1
f=$(ls p/*/profile)
for bad in 's/^patchsite-profile 1/patchsite-profile 9/' 's/^h \([0-9]*\):/h \1:9/' 's/^f [0-9]*/f 0/' \
	   '$d' 's/^thread.*/thread x/'; do
	cp "$f" keep
	sed -i "$bad" "$f"
	"$PS" report -d p >rep 2>err; rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <err)" = 1 ] && grep -q "^patchsite: $f: line [0-9]*: " err; then
		pass "damaged profile ($bad): exit $rc, $(cat err)"
	else
		fail "damaged profile ($bad): exit $rc" err
	fi
	cp keep "$f"
done

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
