#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What running uftrace's own test suite by hand through patchsite found different (issue 42,
# docs/uftrace-conformance.md): each case one of uftrace's usual reader options on our program
# (testdata/patchsite/uftconf.c, -pg -mfentry), recorded by uftrace 0.13 (Debian's, the
# oracle) and by patchsite; replays compared as lib.sh's nesting, scripts' callbacks line by line.
# usage: uftconf.sh BUILD_DIR plain|san
set -u
set -f	# the options hold globs: never the shell's
. "$PWD/tests/patchsite/lib.sh"
suite_init uftconf "$@"
SRC=$PWD/testdata/patchsite
command -v uftrace >/dev/null || { echo "FAIL uftrace not installed (scripts/deps.sh)"; exit 1; }
cd "$T" || exit 1

if ! $CC -O0 -g -pg -mfentry -o prog "$SRC/uftconf.c" 2>build.log; then
	fail "build uftconf" build.log
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
uftrace record --no-libcall --no-event ./prog >/dev/null 2>u.err &&
	record -d p.data --no-libcall ./prog >/dev/null 2>p.err ||
	{ fail "record uftconf" u.err; cat p.err; }

# Each case: uftrace's options | patchsite's | the one line patchsite says on stderr (none:
# nothing).  uftrace replay against patchsite replay: nested alike, not empty, exit 0.
# - uftrace's runner adds -N memcpy to every test: leaving out what was not recorded leaves the
#   tree whole (said in one line), as uftrace 0.13 shows it (-F nosuch stays refused: readfilt.sh).
# - uftrace spells the actions trace-on and trace-off as well.
# - -D counts from the innermost -F call: each -F call below the depth is shown again.
# - --trace=off: nothing shown until a trace_on call.  uftrace 0.13 has no --trace (later
#   uftrace's replay has): its oracle is the same tree spelt with 0.13's options, a trace_on at
#   main, where the recording starts (libraries not recorded), being what -F main shows, or
#   a trace_off at main.
# - A call shown after trace_on is drawn at its depth in the program, inside the calls entered
#   while tracing was off, whose returns are drawn once it is on again; a shown call returning
#   while it is off has no return drawn (uftrace 0.13's tree, with its unclosed "top() {").
n=0
while IFS='|' read -r uo po want; do
	n=$((n + 1))
	# shellcheck disable=SC2086  # the options are words
	uftrace replay --no-pager $uo >u$n.out 2>u$n.err
	# shellcheck disable=SC2086
	"$PS" replay --no-sched -d p.data $po >p$n.out 2>p$n.err; rc=$?
	nesting u$n.out >u$n.nest
	nesting p$n.out >p$n.nest
	said=ok
	if [ -z "$want" ]; then [ -s p$n.err ] && said=no
	elif [ "$(wc -l <p$n.err)" -ne 1 ] || ! grep -qF -- "$want" p$n.err; then said=no; fi
	if [ $rc -ne 0 ] || [ ! -s u$n.nest ] || ! cmp -s u$n.nest p$n.nest || [ $said = no ]; then
		{ echo "exit $rc; uftrace replay $uo < > patchsite replay $po:"
		  diff u$n.nest p$n.nest | head -20; cat p$n.err; } >why$n
		fail "replay $po against uftrace" why$n
	else
		pass "replay $po: $(wc -l <p$n.nest) lines nested as uftrace's: $(cut -d' ' -f2- p$n.nest | tr '\n' ' ' | cut -c1-60)"
	fi
done <<'CASES'
-N nosuch|-N nosuch|no recorded function matches 'nosuch', nothing left out by it
-H nosuch|-H nosuch|no recorded function matches 'nosuch', nothing left out by it
-N one -N nosuch|-N one -N nosuch|no recorded function matches 'nosuch'
-T top@trace-off -T add@trace-on|-T top@trace-off -T add@trace-on|
-D 1 -F one -F three -F five|-D 1 -F one -F three -F five|
-D 1 -F top -F fi.*|-D 1 -F top -F fi*|
-D 2 -F one -F four|-D 2 -F one -F four|
-D 2 -F one|-D 2 -F one|
-F main|--trace=off -T main@trace_on|
-T add@trace_on -F main|--trace off -T main@trace_on|
-T top@trace_off -T add@trace_on|--trace=off -T main@trace_on -T top@trace_off -T add@trace_on|
-T top@trace_off -T three@trace_on|-T top@trace_off -T three@trace_on|
-T one@trace_off -T sum@trace_on|-T one@trace_off -T sum@trace_on|
-T main@trace_off -T two@trace_on|--trace=off -T two@trace_on|
CASES
# --trace=off and no trace_on: nothing at all.
"$PS" replay --no-sched -d p.data --trace=off >off.out 2>off.err; rc=$?
if [ $rc -eq 0 ] && [ ! -s off.err ] && [ -z "$(nesting off.out)" ]; then
	pass "replay --trace=off: no call shown"
else
	{ echo "exit $rc"; cat off.out off.err; } >why.off
	fail "replay --trace=off" why.off
fi
# As patchsite-replay(1) prints it.
"$PS" replay -d p.data --trace=off -T main@trace_on >on.out 2>on.err; rc=$?
if [ $rc -eq 0 ] && [ ! -s on.err ] && [ "$(nesting on.out | head -1)" = "0 main() {" ]; then
	pass "replay -d p.data --trace=off -T main@trace_on: from main on"
else
	{ echo "exit $rc"; cat on.out on.err; } >why.on
	fail "replay -d p.data --trace=off -T main@trace_on" why.on
fi

# --no-libcall on a recording made with library calls: replay's tree and report's rows (calls,
# function) as uftrace 0.13's replay and report --no-libcall of its own; without it, getpid is
# there (what is hidden was recorded).
uftrace record -d ul --no-event ./prog >/dev/null 2>ul.err &&
	record -d pl.data ./prog >/dev/null 2>>ul.err || fail "record with library calls" ul.err
uftrace replay -d ul --no-libcall >ul.out 2>>ul.err
"$PS" replay --no-sched -d pl.data --no-libcall >pl.out 2>pl.err; rc=$?
"$PS" replay --no-sched -d pl.data >pl.all 2>>pl.err
nesting ul.out >ul.nest
nesting pl.out >pl.nest
if [ $rc -eq 0 ] && [ -s ul.nest ] && cmp -s ul.nest pl.nest && [ ! -s pl.err ] &&
   grep -q 'getpid();' pl.all; then
	pass "replay --no-libcall: $(wc -l <pl.nest) lines nested as uftrace's, getpid left out"
else
	{ echo "exit $rc"; diff ul.nest pl.nest | head -20; cat pl.err; } >why.nolib
	fail "replay --no-libcall against uftrace" why.nolib
fi
uftrace report -d ul --no-libcall >ulr.out 2>>ul.err
"$PS" report -d pl.data --no-libcall -f call >plr.out 2>plr.err; rc=$?
awk 'seen && NF { print $NF, $(NF - 1) } /^ *===/ { seen = 1 }' ulr.out | sort >ulr.rows
awk 'seen && NF { print $NF, $(NF - 1) } /^ *===/ { seen = 1 }' plr.out | sort >plr.rows
if [ $rc -eq 0 ] && [ -s ulr.rows ] && cmp -s ulr.rows plr.rows && [ ! -s plr.err ]; then
	pass "report --no-libcall: $(wc -l <plr.rows) rows (calls, function) as uftrace's"
else
	{ echo "exit $rc"; diff ulr.rows plr.rows; cat plr.err; } >why.nolibr
	fail "report --no-libcall against uftrace" why.nolibr
fi

# --no-args: the arguments and return values recorded (-A, -R) not shown, as uftrace 0.13's
# replay --no-args of its own recording; -R of a function or a glob is function_graph's return
# value (patchsite-record(1)).  Without it, they are there, in the call line.
uftrace record -d ua -A 'add@arg1,arg2' -R 'sum@retval' --no-libcall --no-event ./prog \
	>/dev/null 2>ua.err || fail "uftrace record -A -R" ua.err
uftrace replay -d ua --no-args >ua.out 2>>ua.err
nesting ua.out >ua.nest
for r in 'sum@retval' 's*@retval'; do
	rm -rf pa.data
	record -d pa.data --no-libcall -A 'add@arg1,arg2' -R "$r" ./prog >/dev/null 2>pa.err
	"$PS" replay --no-sched -d pa.data --no-args >pa.out 2>>pa.err; rc=$?
	"$PS" replay --no-sched -d pa.data >pa.all 2>>pa.err
	nesting pa.out >pa.nest
	if [ $rc -eq 0 ] && [ -s ua.nest ] && cmp -s ua.nest pa.nest && [ ! -s pa.err ] &&
	   grep -q 'add(1, 2) {' pa.all && grep -q 'sum() = [0-9]*;' pa.all; then
		pass "replay --no-args (-R $r): $(wc -l <pa.nest) lines nested as uftrace's"
	else
		{ echo "exit $rc"; diff ua.nest pa.nest | head -20; cat pa.err; } >why.noargs
		fail "replay --no-args (-R $r) against uftrace" why.noargs
	fi
done

# record -A/-R in uftrace's spellings (testdata/patchsite/uftargs.c): replay shows the values in
# the call line and on the leaf or closing line, as uftrace 0.13's replay of its own recording
# made with the same options (its regular expressions written as our globs); the program passes
# no pointer, so the lines compare whole.
# - explicit formats, integers either side of where uftrace's forms switch to hex
# - -A FUNC and -R FUNC with no spec: their types from DWARF (the floats', the string's)
# - -A and -R by glob, with a format
# - -a: every function's, from DWARF (a char as 'a')
if $CC -O0 -g -pg -mfentry -o args "$SRC/uftargs.c" 2>args.log; then
	n=0
	while IFS='|' read -r uo po; do
		n=$((n + 1))
		[ "$po" = same ] && po=$uo
		rm -rf ua$n pa$n.data
		# shellcheck disable=SC2086  # the options are words
		uftrace record -d ua$n --no-libcall --no-event $uo ./args >/dev/null 2>ua$n.err &&
			uftrace replay -d ua$n --no-pager >ua$n.out 2>>ua$n.err || fail "uftrace $uo" ua$n.err
		# shellcheck disable=SC2086
		record -d pa$n.data --no-libcall $po ./args >/dev/null 2>pa$n.err &&
			"$PS" replay --no-sched -d pa$n.data >pa$n.out 2>>pa$n.err; rc=$?
		nesting ua$n.out >ua$n.nest
		nesting pa$n.out >pa$n.nest
		if [ $rc -eq 0 ] && [ -s ua$n.nest ] && cmp -s ua$n.nest pa$n.nest && [ ! -s pa$n.err ] &&
		   grep -q '(' ua$n.nest; then
			pass "replay of record $po: $(wc -l <pa$n.nest) lines as uftrace's: $(grep -m1 ' = ' pa$n.nest)"
		else
			{ echo "exit $rc"; diff ua$n.nest pa$n.nest | head -20; cat pa$n.err; } >why.args$n
			fail "replay of record $po against uftrace" why.args$n
		fi
	done <<'CASES'
-A mid@arg1,arg2 -A leaf@arg1,arg2 -A neg@arg1 -A wide@arg1 -A big@arg1/x -A slen@arg1/s -A up@arg1/c -A half@fparg1,fparg2/f32 -A nothing@arg1 -R mid@retval -R leaf@retval -R neg@retval -R wide@retval -R big@retval/x -R slen@retval -R up@retval/c -R half@retval/f|same
-A mid -A slen -A half -R mid -R half -R slen|same
-A ^w@arg1/x -A ^n@arg1/i32 -R ^n@retval/x -R ^w@retval/u|-A w*@arg1/x -A n*@arg1/i32 -R n*@retval/x -R w*@retval/u
-a|same
CASES
else
	fail "build uftargs" args.log
fi

# report --diff with filters: they keep the same calls of both recordings.  uftrace 0.13 filters
# only the base of a diff at report time, so its oracle is two recordings it made with -N one
# (record-time, the same meaning): the functions left and their change in calls.
record -d p2.data --no-libcall ./prog >/dev/null 2>p2.err &&
	uftrace record -d un1 -N one --no-libcall --no-event ./prog >/dev/null 2>>p2.err &&
	uftrace record -d un2 -N one --no-libcall --no-event ./prog >/dev/null 2>>p2.err ||
	fail "record for --diff" p2.err
uftrace report -d un1 --diff un2 >ud.out 2>ud.err
"$PS" report -d p.data --diff=p2.data -N one >pd.out 2>pd.err; rc=$?
awk 'seen && NF { print $NF, $(NF - 1) } /^ *===/ { seen = 1 }' ud.out | sort >ud.rows
awk 'seen && NF { d = $(NF - 1) - $(NF - 2); print $NF, (d < 0 ? "" : "+") d } /^ *===/ { seen = 1 }' \
	pd.out | sort >pd.rows
if [ $rc -eq 0 ] && [ -s ud.rows ] && cmp -s ud.rows pd.rows && [ ! -s pd.err ]; then
	pass "report --diff=p2.data -N one: $(tr '\n' ' ' <pd.rows)as uftrace's"
else
	{ echo "exit $rc"; diff ud.rows pd.rows; cat pd.err; } >why.diff
	fail "report --diff=p2.data -N one against uftrace" why.diff
fi

# report --diff with -s func (rows in name order, the change of the total time) and -f (uftrace's
# diff layout with the columns asked, in its order): against uftrace 0.13's on its two recordings
# above, the rows' names in order, the header's columns and, with -f call, the rows whole.
n=0
while IFS='|' read -r uo po; do
	n=$((n + 1))
	# shellcheck disable=SC2086  # the options are words
	uftrace report -d un1 --diff un2 $uo >udf$n.out 2>udf$n.err
	# shellcheck disable=SC2086
	"$PS" report -d p.data --diff=p2.data -N one $po >pdf$n.out 2>pdf$n.err; rc=$?
	for w in u p; do
		awk '/^ *===/ { seen = 1; next } seen && NF { print $NF }' ${w}df$n.out >${w}df$n.names
		grep -B1 '^ *===' ${w}df$n.out | head -1 | tr -s ' ' >${w}df$n.head
	done
	case "$po" in *'-f call') awk '/^ *===/ { seen = 1; next } seen && NF' udf$n.out \
		| tr -s ' ' >udf$n.rows
		awk '/^ *===/ { seen = 1; next } seen && NF' pdf$n.out | tr -s ' ' >pdf$n.rows ;;
	*) : >udf$n.rows; : >pdf$n.rows ;;
	esac
	if [ $rc -eq 0 ] && [ -s udf$n.names ] && cmp -s udf$n.names pdf$n.names &&
	   { case "$po" in *-f*) cmp -s udf$n.head pdf$n.head ;; esac; } &&
	   cmp -s udf$n.rows pdf$n.rows && [ ! -s pdf$n.err ]; then
		pass "report --diff=p2.data -N one $po: $(tr '\n' ' ' <pdf$n.names)as uftrace's"
	else
		{ echo "exit $rc"; diff udf$n.names pdf$n.names; diff udf$n.head pdf$n.head
		  diff udf$n.rows pdf$n.rows; cat pdf$n.err; } >why.df$n
		fail "report --diff=p2.data -N one $po against uftrace" why.df$n
	fi
done <<'CASES'
-s func|-s func
-s func -f call|-s func -f call
-s func -f self,call|-s func -f call,self
-s func -f total|-s func -f total
CASES

# script takes the readers' filters, as uftrace script does: the calls each callback gets, with
# their depth, against uftrace script's on its own recording.
if [ "$MODE" = san ]; then
	# libpython, dlopened by script, keeps memory to the end (as script.sh says): only its leaks
	# are suppressed.
	printf 'leak:libpython3\n' >lsan.supp
	export LSAN_OPTIONS="suppressions=$T/lsan.supp:print_suppressions=0"
fi
cat >cb.py <<'PY'
def uftrace_entry(ctx):
    print("entry %d %s" % (ctx["depth"], ctx["name"]))
def uftrace_exit(ctx):
    print("exit %d %s" % (ctx["depth"], ctx["name"]))
PY
for o in "-F one" "-N two" "-F one -D 2" "-F top -N three" "--filter=add --depth=1"; do
	# shellcheck disable=SC2086  # the options are words
	uftrace script -S cb.py $o >us.out 2>us.err
	# shellcheck disable=SC2086
	"$PS" script -d p.data -S cb.py $o >ps.out 2>ps.err; rc=$?
	if [ $rc -eq 0 ] && [ -s us.out ] && cmp -s us.out ps.out && [ ! -s ps.err ]; then
		pass "script -S cb.py $o: $(wc -l <ps.out) callbacks as uftrace's"
	else
		{ echo "exit $rc"; diff us.out ps.out | head; cat ps.err; } >why.script
		fail "script -S cb.py $o against uftrace" why.script
	fi
done

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
