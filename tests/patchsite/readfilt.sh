#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Filters on a recording (issue 42): replay, report, graph and dump take uftrace's -F -N -H -C
# -T -D -t -Z -L -r --max-stack.  One program (testdata/patchsite/readfilt.c, -g -pg -mfentry)
# recorded once by uftrace 0.13 (Debian's, the oracle) and once by patchsite; each option's
# replay compared with uftrace's replay of its own recording with the same option, call trees
# as "depth name" lines (lib.sh's nesting).  Where uftrace 0.13 has no such meaning on a
# recording the oracle is named at the case.  usage: readfilt.sh BUILD_DIR plain|san
set -u
set -f	# the options hold globs (-F 'o*'): never the shell's
. "$PWD/tests/patchsite/lib.sh"
suite_init readfilt "$@"
SRC=$PWD/testdata/patchsite
command -v uftrace >/dev/null || { echo "FAIL uftrace not installed (scripts/deps.sh)"; exit 1; }
cd "$T" || exit 1

if ! $CC -O0 -g -pg -mfentry -o prog "$SRC/readfilt.c" "$SRC/readfilt_lib.c" 2>build.log; then
	fail "build readfilt" build.log
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
# --srcline: uftrace's -L reads the source lines recorded with it.
uftrace record --srcline --no-libcall --no-event ./prog >/dev/null 2>u.err &&
	record -d p.data --no-libcall ./prog >/dev/null 2>p.err ||
	{ fail "record readfilt" u.err; cat p.err; }

# same UOPTS POPTS: uftrace replay UOPTS against patchsite replay POPTS, nested alike and
# not empty; patchsite says nothing on stderr.
n=0
same() {
	n=$((n + 1))
	# shellcheck disable=SC2086  # the options are words
	uftrace replay --no-pager $1 >u$n.out 2>u$n.err
	# shellcheck disable=SC2086
	"$PS" replay --no-sched -d p.data $2 >p$n.out 2>p$n.err
	nesting u$n.out >u$n.nest
	nesting p$n.out >p$n.nest
	if [ -s u$n.nest ] && cmp -s u$n.nest p$n.nest && [ ! -s p$n.err ]; then
		pass "replay $2: $(wc -l <p$n.nest) lines nested as uftrace's: $(cut -d' ' -f2- p$n.nest | tr '\n' ' ' | cut -c1-60)"
	else
		{ echo "uftrace replay $1 < > patchsite replay $2:"; diff u$n.nest p$n.nest | head -20
		  cat p$n.err; } >why$n
		fail "replay $2 against uftrace" why$n
	fi
}

same "-F mid" "-F mid"
same "--filter=outer" "--filter=outer"
same "-N mid" "-N mid"
same "-H mid" "-H mid"
same "-D 2" "-D 2"
same "-F outer -D 2" "-F outer -D 2"
same "-t 10ms" "-t 10ms"
same "-C leaf" "-C leaf"
same "-C mid" "-C mid"
same "-C leaf -D 2" "-C leaf -D 2"
same "-T outer@depth=1" "-T outer@depth=1"
same "-T outer@trace_off -T nap@trace_on" "-T outer@trace_off -T nap@trace_on"
same "-T mid@notrace" "-T mid@notrace"
same "-Z 60" "-Z 60"
same "-L readfilt_lib.c" "-L readfilt_lib.c"
same "-F rec -H rec" "-F rec -H rec"
same "-r ~10ms" "-r ~10ms"
# Globs: record's syntax (ftrace's); uftrace's replay takes them with --match=glob.
same "--match=glob -F o*" "-F o*"
same "--match=glob -N *e*" "-N *e*"
# Regular expressions: uftrace's default, ours with --match=regex (before or after -F).
same "-F ^m.d$" "--match=regex -F ^m.d$"
same "-N ^o -H ^nap -H leaf" "-N ^o -H ^nap -H leaf --match=regex"

# --max-stack on a recording: uftrace 0.13's replay takes it and shows every call; the
# oracle is its record-time meaning, uftrace record --max-stack=3 of the same program.
uftrace record -d ms.data --max-stack=3 --no-libcall --no-event ./prog >/dev/null 2>ms.err
uftrace replay --no-pager -d ms.data >ms.out 2>>ms.err
"$PS" replay --no-sched -d p.data --max-stack=3 >pms.out 2>pms.err
nesting ms.out >ms.nest
nesting pms.out >pms.nest
if [ -s ms.nest ] && cmp -s ms.nest pms.nest && [ ! -s pms.err ]; then
	pass "replay --max-stack=3 nested as uftrace record --max-stack=3: $(wc -l <pms.nest) lines"
else
	{ diff ms.nest pms.nest; cat pms.err; } >why.ms
	fail "replay --max-stack=3 against uftrace record --max-stack=3" why.ms
fi

# -r START~: uftrace keeps the depth of calls entered before START and shows their returns;
# ours shows the calls entered in the range, re-based (patchsite-replay(1), FILTERS).  What
# is compared: the calls entered in the range, in order (uftrace's lines that open a call).
uftrace replay --no-pager -r 10ms~ >ur.out 2>ur.err
"$PS" replay --no-sched -d p.data -r 10ms~ >pr.out 2>pr.err
nesting ur.out | awk '$2 != "}" { print $2 }' >ur.calls
nesting pr.out | awk '$2 != "}" { print $2 }' >pr.calls
if [ -s ur.calls ] && cmp -s ur.calls pr.calls && [ ! -s pr.err ] && ! grep -q 'main\|nap' pr.out; then
	pass "replay -r 10ms~: the calls uftrace shows entered in the range: $(tr '\n' ' ' <pr.calls)"
else
	{ diff ur.calls pr.calls; cat pr.err; } >why.r
	fail "replay -r 10ms~ against uftrace" why.r
fi

# -r with a time stamp as funcgraph-abstime prints it (seconds, CLOCK_MONOTONIC): from the
# leaf() nap() calls after its sleep (30 ms after the event before it) on.  Oracle: the
# unfiltered replay's own calls entered from that line on.
"$PS" replay --no-sched -d p.data --options=funcgraph-abstime >ra.all 2>ra.err
start=$(grep -A1 ' nap() {' ra.all | awk -F'|' '/leaf\(\)/ { gsub(/ /, "", $1); print $1; exit }')
grep -A1000 ' nap() {' ra.all | tail -n +2 | sed 's/^[^|]*|//' | nesting /dev/stdin |
	awk '$2 != "}" { print $2 }' >ra.want
"$PS" replay --no-sched -d p.data -r "$start~" >ra.out 2>>ra.err
nesting ra.out | awk '$2 != "}" { print $2 }' >ra.got
if [ -n "$start" ] && [ -s ra.want ] && cmp -s ra.want ra.got && [ ! -s ra.err ]; then
	pass "replay -r $start~ (a time stamp): the calls entered from there: $(tr '\n' ' ' <ra.got)"
else
	{ echo "start $start"; diff ra.want ra.got; cat ra.err; } >why.ra
	fail "replay -r TIMESTAMP~" why.ra
fi

# report: the functions and their calls as uftrace's report with the same filter.
for o in "-F mid" "-N mid" "-H mid" "-D 2" "-C leaf" "-t 10ms" "-T outer@depth=1"; do
	# shellcheck disable=SC2086
	uftrace report $o 2>/dev/null | awk 'NR > 2 && NF == 6 { print $6, $5 }' | sort >ur.rows
	# shellcheck disable=SC2086
	"$PS" report -d p.data --json $o 2>rp.err | python3 -c 'import json, sys
for r in json.load(sys.stdin): print(r["name"], r["calls"])' | sort >rp.rows
	if [ -s ur.rows ] && cmp -s ur.rows rp.rows && [ ! -s rp.err ]; then
		pass "report $o: calls per function as uftrace's: $(tr '\n' ' ' <rp.rows)"
	else
		{ diff ur.rows rp.rows; cat rp.err; } >why.rep
		fail "report $o against uftrace" why.rep
	fi
done

# graph: uftrace 0.13's graph draws -F as a flat list; the oracle is graph FUNC's own tree
# (rooted at FUNC, no filter): graph -F FUNC shows the same paths and calls.
"$PS" graph -d p.data -F outer >g1.out 2>g.err
"$PS" graph -d p.data outer >g2.out 2>>g.err
awk -F: '!/^#/ { split($1, a, " +"); print a[6], $2 }' g1.out >g1.rows
awk -F: '!/^#/ { split($1, a, " +"); print a[6], $2 }' g2.out >g2.rows
if [ "$(wc -l <g1.rows)" -eq 6 ] && cmp -s g1.rows g2.rows && [ ! -s g.err ]; then
	pass "graph -F outer: the paths and calls of graph outer: $(tr -s ' \n' ' ' <g1.rows)"
else
	{ diff g1.rows g2.rows; cat g.err; } >why.g
	fail "graph -F outer against graph outer" why.g
fi

# dump --folded: the oracle is arithmetic on the unfiltered stacks: -N mid drops every stack
# through mid; -H mid takes mid out of each stack (its callees then under its caller).
"$PS" dump --folded -d p.data >f.out 2>f.err
"$PS" dump --folded -d p.data -N mid >fn.out 2>>f.err
"$PS" dump --folded -d p.data -H mid >fh.out 2>>f.err
cut -d' ' -f1 f.out | grep -v ';mid\(;\|$\)' | sort -u >fn.want
cut -d' ' -f1 fn.out | sort -u >fn.got
cut -d' ' -f1 f.out | sed 's/;mid\(;\|$\)/\1/g' | sort -u >fh.want
cut -d' ' -f1 fh.out | sort -u >fh.got
if [ -s fn.got ] && cmp -s fn.want fn.got && cmp -s fh.want fh.got && [ ! -s f.err ]; then
	pass "dump --folded -N mid, -H mid: the unfiltered stacks without mid's ($(wc -l <fn.got), $(wc -l <fh.got) stacks)"
else
	{ diff fn.want fn.got; diff fh.want fh.got; cat f.err; } >why.f
	fail "dump --folded -N mid, -H mid" why.f
fi

# dump --chrome: the calls uftrace's replay -F outer shows (its tree above), by name and count.
"$PS" dump --chrome -d p.data -F outer >c.json 2>c.err
python3 - c.json <<'PY' >c.out 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
calls = {}
for e in ev:
    if e.get("ph") in ("B", "X"):
        calls[e["name"]] = calls.get(e["name"], 0) + 1
print(" ".join(f"{k} {v}" for k, v in sorted(calls.items())))
PY
if [ "$(cat c.out)" = "big 1 leaf 2 mid 2 outer 1" ] && [ ! -s c.err ]; then
	pass "dump --chrome -F outer: $(cat c.out)"
else
	cat c.err >>c.out
	fail "dump --chrome -F outer: expected big 1 leaf 2 mid 2 outer 1" c.out
fi

# Two programs in one session (sh runs both): a pattern is refused only when no process has
# it.  Oracle: the unfiltered replay's own neg() lines (negret.c's; depth 0 below -F), none
# of readfilt's.
$CC -O0 -pg -mfentry -o neg "$SRC/negret.c" 2>>build.log &&
	record -d mp.data --no-libcall sh -c './prog >/dev/null; ./neg >/dev/null' 2>mp.err
"$PS" replay --no-sched -d mp.data >mp.all 2>>mp.err
"$PS" replay --no-sched -d mp.data -F neg >mp.neg 2>>mp.err
grep -v '^#' mp.all | grep ' neg();' | sed 's/| *neg/| neg/' >mp.want
grep -v '^#' mp.neg | grep '|' | sed 's/| *neg/| neg/' >mp.got
if [ -s mp.want ] && cmp -s mp.want mp.got && [ ! -s mp.err ] && grep -q ' prog-' mp.all; then
	pass "-F neg over a session of two programs: neg's $(wc -l <mp.got) calls, none of the other's"
else
	{ diff mp.want mp.got; cat mp.err; } >why.mp
	fail "-F neg over a session of two programs" why.mp
fi

# The function tracer records no returns: -F, -C, -D, -t and depth= are refused by name; -N
# hides the function's own lines (oracle: the unfiltered text without them).
record -d fn.data --tracer=function --no-libcall ./prog >/dev/null 2>fn.err
"$PS" replay -d fn.data -F mid >fnf.out 2>fnf.err; rc=$?
"$PS" replay --no-sched -d fn.data >fna.out 2>>fn.err
"$PS" replay --no-sched -d fn.data -N mid >fnn.out 2>>fn.err
grep -v '^#' fna.out | grep -v ' mid <-' | sed 's/^[^:]*: //' >fnn.want
grep -v '^#' fnn.out | sed 's/^[^:]*: //' >fnn.got
"$PS" replay -d fn.data -T outer@trace_off >fnt.out 2>fnt.err; rct=$?
"$PS" replay --no-sched -d fn.data -L readfilt_lib.c >fnl.out 2>>fn.err
grep -v '^#' fna.out | grep ' \(mid\|leaf\) <-' | sed 's/^[^:]*: //' >fnl.want
grep -v '^#' fnl.out | sed 's/^[^:]*: //' >fnl.got
if [ $rc -ne 0 ] && [ "$(wc -l <fnf.err)" -eq 1 ] && grep -q -- '--filter: recorded without calls.*function' fnf.err &&
   [ ! -s fnf.out ] && grep -q 'leaf <-' fnn.got && cmp -s fnn.want fnn.got && [ ! -s fn.err ] &&
   [ $rct -ne 0 ] && grep -q -- '--trigger: recorded without' fnt.err && [ ! -s fnt.out ] &&
   [ "$(wc -l <fnl.got)" -eq 10 ] && cmp -s fnl.want fnl.got; then
	pass "function tracer: -F, -T refused in one line ($(cut -c1-60 fnf.err)...); -N mid, -L readfilt_lib.c: the unfiltered lines without mid's, with mid's and leaf's only"
else
	{ echo "rc $rc $rct"; cat fnf.err fnt.err fn.err; diff fnn.want fnn.got | head
	  diff fnl.want fnl.got | head; } >why.fn
	fail "function tracer with -F and -N" why.fn
fi

# Bad input: one line naming the option and what is wrong, a non-zero exit, nothing shown.
bad() {
	# shellcheck disable=SC2086
	"$PS" $1 -d p.data $2 >bad.out 2>bad.err; rc=$?
	if [ $rc -ne 0 ] && [ ! -s bad.out ] && head -1 bad.err | grep -q -- "$3" &&
	   ! grep -v -- "$3" bad.err | grep -qv 'patchsite --help for usage'; then
		pass "$1 $2: exit $rc, $(head -1 bad.err)"
	else
		{ echo "exit $rc"; cat bad.err bad.out; } >why.bad
		fail "$1 $2: expected one line with '$3'" why.bad
	fi
}
bad replay "-F nosuch" "--filter nosuch: no recorded function matches 'nosuch'"
bad report "-C mid,nosuch*" "--caller-filter mid,nosuch\*: no recorded function matches 'nosuch\*'"
bad graph "-T nosuch@depth=1" "--trigger nosuch@depth=1: no recorded function matches 'nosuch'"
bad replay "-t 10xs" "--time-filter=10xs: expected a time"
bad dump "--folded -t ms" "--time-filter=ms: expected a time"
bad replay "-r 5" "--time-range=5: expected START~END"
bad replay "-r 1xs~" "--time-range=1xs~: '1xs' is not a time"
bad replay "-D 0" "--depth=0: expected a depth"
bad replay "-T mid@backtrace" "'backtrace': not an action on a recording"
bad replay "-F mid[" "--filter=mid\[: 'mid\[' is not a valid glob"
bad replay "--match=regex -F (" "--filter=(: '(' is not a regular expression"
bad replay "--match=re -F mid" "--match=re: expected glob"
bad replay "-L /nowhere" "--loc-filter /nowhere: no recorded function is there"
bad info "-F mid" "info: the filters"
# function_profile counts calls in memory: no calls to filter, said by name.
record -d pf.data --tracer=function_profile --no-libcall ./prog >/dev/null 2>pf.err
"$PS" report -d pf.data -F mid >pf.out 2>pf.err2; rc=$?
if [ $rc -ne 0 ] && [ ! -s pf.out ] && [ "$(wc -l <pf.err2)" -eq 1 ] &&
   grep -q 'function_profile counted calls without recording them: no calls to filter' pf.err2; then
	pass "report -F of function_profile's counts: exit $rc, $(cut -c1-70 pf.err2)..."
else
	{ echo "exit $rc"; cat pf.err pf.err2 pf.out; } >why.pf
	fail "report -F of function_profile's counts" why.pf
fi
# A function's size or source line not recorded: refused by name, not shown unfiltered.
$CC -O0 -pg -mfentry -o nodwarf "$SRC/readfilt.c" "$SRC/readfilt_lib.c" 2>>build.log &&
	record -d nd.data --no-libcall ./nodwarf >/dev/null 2>nd.err
"$PS" replay -d nd.data -L readfilt_lib.c >nd.out 2>nd.err2; rc=$?
if [ $rc -ne 0 ] && [ ! -s nd.out ] && [ "$(wc -l <nd.err2)" -eq 1 ] &&
   grep -q -- '--loc-filter readfilt_lib.c: no source lines' nd.err2; then
	pass "-L without DWARF: exit $rc, $(cut -c1-80 nd.err2)"
else
	{ echo "exit $rc"; cat nd.err nd.err2; } >why.nd
	fail "-L without DWARF" why.nd
fi

# patchsite-replay(1), FILTERS, EXAMPLES: each command as printed (in the program's
# directory: patchsite.data the default).
rm -rf patchsite.data && record --no-libcall ./prog >/dev/null 2>ex.err
ok=true
while read -r cmd; do
	sh -c "$PS ${cmd#patchsite }" >ex.out 2>>ex.err && [ -s ex.out ] || { ok=false; echo "$cmd" >>ex.err; }
done <<'EOF'
patchsite replay -F outer -D 2
patchsite replay -N mid -t 1us
patchsite report -C leaf
patchsite graph -H mid
patchsite dump --folded -r 10ms~
EOF
if $ok && [ ! -s ex.err ]; then
	pass "patchsite-replay(1) FILTERS examples run as printed"
else
	fail "patchsite-replay(1) FILTERS examples" ex.err
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
