#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# patchsite script (issue 42): Python callbacks over a recording, and import patchsite.
# Oracles: patchsite report's own numbers (recomputed by a script from the callbacks alone),
# uftrace 0.13's `uftrace script -S` (Debian's) running the same uftrace script on its own
# recording of the same -pg binary, the program's own call counts and arithmetic (twice(i)
# returns 2i+1), and the readers' loss lines.  usage: script.sh BUILD_DIR plain|san
set -u
. "$PWD/tests/patchsite/lib.sh"
suite_init script "$@"
SCRIPTS="$PWD/testdata/patchsite"	# the scripts run
SRC=$PWD/testdata/patchsite
PY=$PWD/python
TOP=$PWD
if [ "$MODE" = san ]; then
	# The command (ASan) dlopens libpython, which keeps memory until the process ends: only
	# leaks through libpython are suppressed, the command's own are still reported.
	printf 'leak:libpython3\n' >"$T/lsan.supp"
	export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0"
fi
command -v uftrace >/dev/null || { echo "FAIL uftrace not installed (scripts/deps.sh)"; exit 1; }
cd "$T" || exit 1
$CC -O0 -g -pg -pthread -o scripted "$SRC/scripted.c" >build.log 2>&1 || {
	fail "build scripted" build.log; echo "0 passed, 1 failed"; exit 1; }

# One recording, with twice's argument and return value (set_ftrace_args: uftrace's inline form).
PATCHSITE_ARGS='twice@arg1,retval' record -d p.data --no-libcall -- ./scripted 5 >p.out 2>p.err ||
	fail "record scripted" p.err

# 1. report's numbers from the callbacks: calls, total and self per function, to the ns.
"$PS" script -d p.data "$SCRIPTS/script_report.py" >mine.json 2>mine.err
"$PS" report -d p.data --json >report.json 2>>mine.err
if python3 - mine.json report.json >why 2>&1 <<'PY'
import json, sys
mine = json.load(open(sys.argv[1]))
report = {r["name"]: [r["calls"], r["total_ns"], r["self_ns"]] for r in json.load(open(sys.argv[2]))}
print("script:", mine, "\nreport:", report)
assert mine == report and set(mine) == {"main", "worker", "sum", "twice", "fib"}
# the program's own counts (it prints them): sum 6, twice 15, fib 41 for N=5
assert [mine[f][0] for f in ("sum", "twice", "fib")] == [6, 15, 41]
PY
then
	pass "report from entry/exit callbacks: calls, total and self of $(grep -c name report.json) functions equal to the ns"
else
	cat mine.err >>why; fail "script's report against patchsite report" why
fi

# The function tracer's calls (no return: entry with untimed set) count as report counts them.
record -d f.data --tracer=function --no-libcall -- ./scripted 5 >f.out 2>f.err
"$PS" script -d f.data "$SCRIPTS/script_report.py" >f.json 2>f.serr
if python3 - f.json f.data "$PS" >why 2>&1 <<'PY'
import json, subprocess, sys
mine = json.load(open(sys.argv[1]))
rows = json.loads(subprocess.run([sys.argv[3], "report", "-d", sys.argv[2], "--json"],
                                 capture_output=True, text=True, check=True).stdout)
print("script:", mine, "\nreport:", rows)
assert mine == {r["name"]: [r["calls"], r["total_ns"], r["self_ns"]] for r in rows}
assert all(r["untimed_calls"] == r["calls"] for r in rows) and mine["fib"][0] == 41
PY
then
	pass "function tracer: untimed entries counted as report counts them"
else
	cat f.serr >>why; fail "function tracer's calls against report" why
fi

# Trace events (a probe of another group than -A's) reach event(ctx), with replay's text.
record -d e.data --no-libcall --probe='f:grp/tw twice n=$arg1:s32' -- ./scripted 2 >e.out 2>e.err
printf 'def event(ctx): print(ctx["name"] + ": " + ctx["args"])\n' >ev.py
"$PS" script -d e.data ev.py >ev.out 2>ev.err
"$PS" replay -d e.data --no-sched 2>>ev.err | sed -n 's,.*| *\/\* \(grp:tw: .*\) \*\/$,\1,p' >ev.replay
if [ "$(wc -l <ev.out)" -eq 3 ] && cmp -s ev.out ev.replay && [ ! -s ev.err ]; then
	pass "event(ctx): $(wc -l <ev.out | tr -d ' ') probe events as replay shows them ($(head -1 ev.out))"
else
	{ diff ev.replay ev.out; cat ev.err; } >why; fail "event callbacks against replay" why
fi

# The dicts a script gets are --json's objects, key for key and in order (one description of a
# ctx, two writers), on set_ftrace_args' values, -A/-R probes and trace events.
cat >same.py <<'PYS'
import json
def out(cb, ctx):
    print(json.dumps(list({"cb": cb, **ctx}.items())))
def begin(ctx): out("begin", ctx)
def entry(ctx): out("entry", ctx)
def exit(ctx): out("exit", ctx)
def event(ctx): out("event", ctx)
def end(): out("end", {})
PYS
record -d r.data --no-libcall -A twice@arg1 -R twice@retval -A sum@arg1/u -- ./scripted 5 >r.out 2>r.err
for d in p r e; do
	"$PS" script -d $d.data same.py >same.$d 2>same.err
	"$PS" script -d $d.data --json 2>>same.err |
		python3 -c 'import json, sys
for l in sys.stdin: print(json.dumps(list(json.loads(l).items())))' >json.$d
	if [ -s json.$d ] && cmp -s same.$d json.$d && [ ! -s same.err ]; then
		pass "$d.data: the $(wc -l <json.$d | tr -d ' ') dicts are --json's objects"
	else
		{ diff same.$d json.$d | head; cat same.err; } >why; fail "$d.data: dicts against --json" why
	fi
done

# 2. A uftrace script, unchanged, against uftrace script -S on uftrace's recording of the same
# binary: entries, exits and depth per function, and the (argument, return value) pairs, from
# set_ftrace_args (p.data) and from record -A/-R spelt as uftrace's (their probes, q.data).
uftrace record --no-libcall --no-event -A twice@arg1 -R twice@retval ./scripted 5 >u.out 2>u.err &&
	uftrace script -S "$SCRIPTS/script_count.py" >u.count 2>>u.err
record -d q.data --no-libcall -A twice@arg1 -R twice@retval -- ./scripted 5 >q.out 2>q.err
for d in p q; do
	# uftrace's spelling (-S) on the recording spelt as uftrace's
	s=$([ $d = q ] && echo -S)
	"$PS" script -d $d.data $s "$SCRIPTS/script_count.py" >$d.count 2>$d.cerr
	if [ -s u.count ] && cmp -s u.count $d.count && grep -q '^twice args \[4\] retval 9 x 1$' $d.count &&
	   cmp -s u.out $d.out && [ ! -s $d.cerr ]; then
		pass "uftrace script -S's callbacks, $d.data: $(wc -l <$d.count | tr -d ' ') lines equal ($(tail -1 $d.count))"
	else
		{ echo "uftrace < > patchsite"; diff u.count $d.count; cat u.err $d.cerr; } >why 2>&1
		fail "the same uftrace script against uftrace script -S, $d.data" why
	fi
done

# 3. patchsite's callback names, sys.argv after --, UFTRACE_FUNCS, sys.exit's status.
cat >names.py <<'PYS'
import sys
UFTRACE_FUNCS = ["^tw"]
seen = []
def begin(ctx): seen.append("begin " + " ".join(sys.argv[1:]))
def entry(ctx): seen.append(ctx["name"])
def exit(ctx): pass
def end():
    print(seen[0], len(seen) - 1, set(seen[1:]))
    sys.exit(3)
PYS
"$PS" script -d p.data names.py -- a 'b c' >names.out 2>names.err
rc=$?
if [ $rc -eq 3 ] && [ "$(cat names.out)" = "begin a b c 15 {'twice'}" ] && [ ! -s names.err ]; then
	pass "begin/entry/exit/end, argv after --, UFTRACE_FUNCS, sys.exit(3) is the status"
else
	echo "rc $rc" >>names.out; cat names.err >>names.out; fail "patchsite's names" names.out
fi

# 4. Errors: one line naming the script (and its line), non-zero.
printf 'def entry(ctx):\n    return (\n' >syntax.py
printf 'n = 0\ndef uftrace_entry(ctx):\n    global n\n    n += 1\n    if n == 3:\n        1 / 0\n' >raise.py
printf 'x = 1\n' >none.py
one_line() {	# NAME WANT(regex) ARGS...: exit 1, one stderr line matching WANT, no stdout
	name=$1 want=$2
	shift 2
	"$PS" script "$@" >e.out 2>e.err
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <e.err)" -eq 1 ] && grep -Eq "$want" e.err && [ ! -s e.out ]; then
		pass "$name: $(cat e.err)"
	else
		{ echo "rc $rc"; cat e.out e.err; } >why; fail "$name" why
	fi
}
one_line "syntax error" '^patchsite script: syntax\.py:[0-9]+: SyntaxError: ' -d p.data syntax.py
one_line "exception in a callback" \
	'^patchsite script: raise\.py:6: in uftrace_entry\(\): ZeroDivisionError: division by zero$' \
	-d p.data raise.py
one_line "no callback" '^patchsite script: none\.py: defines none of begin' -d p.data none.py
one_line "missing script" '^patchsite script: nosuch\.py: No such file or directory$' -d p.data nosuch.py
one_line "missing trace directory" '^patchsite: nodir: not a trace directory' -d nodir raise.py
one_line "--pid of no process" '^patchsite: p\.data: no process 999999 recorded$' -d p.data --pid=999999 raise.py
PATCHSITE_LIBPYTHON=libpython-none.so.1 one_line "no libpython" \
	'^patchsite script: libpython-none\.so\.1 \(Python 3, Debian.s libpython3\.11\): ' -d p.data raise.py

# 5. Loss is said: a 64 KB ring that overwrote calls; begin's ctx has the readers' lines.
record -d lost.data --overwrite --buffer-kb=64 --no-libcall -- ./scripted 300 >/dev/null 2>lost.rec
cat >lost.py <<'PYS'
def uftrace_begin(ctx): print(ctx["lost"], ctx["losses"])
def uftrace_entry(ctx): pass
PYS
"$PS" script -d lost.data lost.py >lost.out 2>lost.err
"$PS" report -d lost.data --json >/dev/null 2>lost.rerr
n=$(sed -n 's/.*\[OVERWRITTEN \([0-9]*\) EVENTS\]$/\1/p' lost.rerr | awk '{ s += $1 } END { print s + 0 }')
if [ "$n" -gt 0 ] && cmp -s lost.err lost.rerr && grep -q "^$n \[.*OVERWRITTEN" lost.out; then
	pass "loss: begin's ctx says $(cut -c1-60 lost.out), stderr as report's"
else
	{ cat lost.out lost.err; echo "report:"; cat lost.rerr; } >why; fail "loss said" why
fi

# 6. import patchsite: the same ctx stream and report rows, errors as PatchsiteError.
if PYTHONPATH=$PY python3 - "$PS" >mod.out 2>&1 <<'PY'
import json, subprocess, sys, patchsite
t = patchsite.Trace("p.data", patchsite=sys.argv[1])
events = list(t.events())
lines = subprocess.run([sys.argv[1], "script", "-d", "p.data", "--json"], capture_output=True,
                       text=True, check=True).stdout.splitlines()
assert events == [json.loads(l) for l in lines] and events[0]["cb"] == "begin"
assert sum(c["cb"] == "entry" and c["name"] == "fib" for c in t.calls()) == 41
assert {r["name"]: r["calls"] for r in t.report()}["twice"] == 15 and t.lost == 0
try:
    patchsite.Trace("nodir", patchsite=sys.argv[1]).report()
    raise SystemExit("no error")
except patchsite.PatchsiteError as e:
    assert str(e).startswith("patchsite: nodir: not a trace directory"), e
print(len(events), "events")
PY
then
	pass "import patchsite: $(cat mod.out), as script --json; report rows; PatchsiteError"
else
	fail "import patchsite" mod.out
fi

# make install puts the module where Debian's python3 looks for PREFIX=/usr (a scratch DESTDIR),
# and it reads a trace through the installed command.
if (cd "$TOP" && make --no-print-directory -s install $([ "$MODE" = san ] && echo SAN=1) \
	DESTDIR="$T/inst" PREFIX=/usr) >inst.log 2>&1; then
	site=$(/usr/bin/python3 -c 'import sys; print(*[p for p in sys.path if p == "/usr/lib/python3/dist-packages"])')
	if [ -n "$site" ] && PYTHONPATH="$T/inst$site" /usr/bin/python3 -c '
import sys, patchsite
assert patchsite.__file__ == sys.argv[1] + "/patchsite/__init__.py", patchsite.__file__
print(len(patchsite.Trace("p.data", patchsite=sys.argv[2]).report()), end="")' "$T/inst$site" \
		"$T/inst/usr/bin/patchsite" >inst.out 2>&1 && [ "$(cat inst.out)" = 5 ]; then
		pass "make install: the module in $site (on Debian python3's path), 5 report rows"
	else
		fail "installed module ($site)" inst.out
	fi
else
	fail "make install into a scratch DESTDIR" inst.log
fi

# 7. The page's examples (man/patchsite-script.1, EXAMPLES), run as printed: its script saved
# as calls.py, its commands with this build's patchsite first on PATH, in a directory of their own.
mkdir ex && cp "$SRC/scripted.c" ex/ && cd ex || exit 1
sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$TOP/man/patchsite-script.1" |
	awk '/^\.nf/ { b++; on = 1; next } /^\.fi/ { on = 0 } on && !/^\./ { print > ("block" b) }'
sed 's/\\-/-/g' block2 >cmds
cp block1 calls.py
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	case $cmd in "patchsite record"*) pre=$SANPRE ;; *) pre= ;; esac
	LD_PRELOAD="$pre" PATH="$(dirname "$PS"):$PATH" PYTHONPATH="$PY" sh -c "$cmd" >out.$i 2>err.$i ||
		{ echo "exit $? of: $cmd" >>err.$i; fail "example $i: $cmd" err.$i; continue; }
	case $i in
	1) [ -x scripted ] ;;
	2) grep -q '^main=1 worker=1 sum=6 twice=15 fib=41 ' out.$i ;;
	3) grep -qx '41 fib' out.$i && grep -qx '15 twice' out.$i ;;
	# as many entries as the counts of example 3 add up to
	4) [ "$(grep -c '^{"cb":"entry"' out.$i)" -eq "$(awk '{ s += $1 } END { print s }' out.3)" ] ;;
	# -F worker -D 2: worker as often as example 3 counts it, and sum, its callee, under it;
	# twice, two calls below worker, cut by the depth
	5) grep -qx "$(grep ' worker$' out.3)" out.$i && grep -q '^[1-9][0-9]* sum$' out.$i &&
	   ! grep -q 'twice\|fib\|main' out.$i ;;
	6) [ "$(cat out.$i)" = main ] ;;
	esac && [ ! -s err.$i ] && pass "example $i as printed: $cmd" || fail "example $i: $cmd" out.$i
done <cmds
[ $i -eq 6 ] || fail "the page's examples: $i commands, 6 expected" cmds
cd .. || exit 1

echo "script.sh: $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
