#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Conditions on arguments in the function filter: usage  filter_if.sh BUILD_DIR plain|san
#
# set_ftrace_filter 'FUNC if COND' (record -F, uftrace's -F FUNC@if:COND, PATCHSITE_FILTER,
# the control file): FUNC is traced only for the calls whose arguments make COND true.
# The oracle is gdb: a conditional breakpoint at FUNC's first instruction with the same
# condition (on the parameters' names, or on the argument register itself for argN)
# stops exactly at the calls the trace must show, counted and in order (the value of one
# argument printed at each).  testdata/patchsite/retargs.c (ra_fact recurses at -O0), the
# function and function_graph tracers, gcc -O0 and -O2.
set -u

. tests/patchsite/lib.sh
suite_init filter_if "$@"

only_x86_64 filter_if.sh "needs x86-64 and gdb (the oracle; scripts/deps.sh installs it)" gdb

# gdb_count EXE LOC COND: the stops of "break LOC if COND" (LOC *FUNC, or at -O0 a line
# of FUNC's body: its prologue stores the arguments in the slots DWARF names).
gdb_count() {
	printf 'break %s if %s\ncommands\nsilent\nprintf "@@\\n"\ncontinue\nend\nrun\n' "$2" "$3" \
		>"$T/c.gdb"
	gdb -batch -nx -x "$T/c.gdb" "$1" 2>&1 | grep -c '^@@'
}

# case NAME EXE TRACER FUNC GDBLOC GDBCOND TOTAL RECORD-ARGS...: the traced calls of FUNC
# equal gdb's stops, and are neither none nor all TOTAL calls (the condition decides).
case_() {
	name=$1 exe=$2 tracer=$3 fn=$4 loc=$5 gcond=$6 total=$7
	shift 7
	rm -rf "$T/rec"
	if ! record -d "$T/rec" --tracer="$tracer" "$@" "$exe" >/dev/null 2>"$T/err"; then
		fail "$name: record" "$T/err"
		return
	fi
	"$PS" replay --no-sched -d "$T/rec" >"$T/replay" 2>>"$T/err"
	got=$(grep -cE " $fn(\\(\\)[;{ ]| <-)" "$T/replay")
	want=$(gdb_count "$exe" "$loc" "$gcond")
	if [ "$got" = "$want" ] && [ "$want" -gt 0 ] && [ "$want" -lt "$total" ]; then
		pass "$name: $got of $total calls traced, as gdb's 'break $loc if $gcond'"
	else
		echo "traced $got, gdb stopped $want (of $total)" >>"$T/err"
		cat "$T/replay" >>"$T/err"
		fail "$name" "$T/err"
	fi
}

for opt in -O0 -O2; do
	exe="$T/ra$opt"
	gcc $opt -g -pg -mfentry -mrecord-mcount testdata/patchsite/retargs.c -o "$exe" \
		2>"$T/build.log" || { fail "gcc $opt: build" "$T/build.log"; continue; }
	mix='*ra_mix' host='*ra_host'
	if [ "$opt" = -O0 ]; then
		mix="retargs.c:$(grep -n 'return a \* 3' testdata/patchsite/retargs.c | cut -d: -f1)"
		host="retargs.c:$(grep -n 'h->port += len' testdata/patchsite/retargs.c | cut -d: -f1)"
	fi
	# Names from DWARF (b a long, d a signed char); ra_mix runs 7 times.
	case_ "gcc $opt names, function" "$exe" function ra_mix "$mix" \
		'b < -3000000000 && d > 0' 7 -F 'ra_mix if b < -3000000000 && d > 0'
	case_ "gcc $opt names, function_graph" "$exe" function_graph ra_host "$host" 'len & 1' 7 \
		-F 'ra_host if len & 1' -F main
	# uftrace's spelling: arg1 is the first integer argument register.
	total=7
	[ "$opt" = -O0 ] && total=28	# the recursion's calls too
	case_ "gcc $opt uftrace's ra_fact@if:arg1>=5, function_graph" "$exe" function_graph ra_fact \
		'*ra_fact' '(long)$rdi >= 5' $total -F 'ra_fact@if:arg1>=5'
done

# The runtime's own form (what set_ftrace_filter takes): no names, arg1..arg6 as s64.
exe="$T/ra-O2"
rm -rf "$T/env"
PATCHSITE_FILTER='ra_outer if arg2 >= 300' PATCHSITE_TRACER=function PATCHSITE_DATA="$T/env" \
	LD_PRELOAD="$SANPRE${SANPRE:+ }$PATCHSITE_LIB" "$exe" >/dev/null 2>"$T/err"
got=$("$PS" replay --no-sched -d "$T/env" 2>>"$T/err" | grep -c ' ra_outer <-')
want=$(gdb_count "$exe" '*ra_outer' '(long)$rsi >= 300')
if [ "$got" = "$want" ] && [ "$want" -gt 0 ] && [ "$want" -lt 7 ]; then
	pass "PATCHSITE_FILTER='ra_outer if arg2 >= 300': $got calls, as gdb's"
else
	fail "PATCHSITE_FILTER condition: traced $got, gdb $want" "$T/err"
fi

# The control file, with fetch arguments (patchsite.7's example): the line is taken whole
# (its len=$arg2:u32 is no glob:command).  server.c's handle_request(id) calls
# send_msg(buf, (id % 8) * 250): len > 1000 for 3 ids of every 8, in a row, so each
# handle_request line is followed by a send_msg line in runs of 3, and 5 without.
$CC -O2 -g -pg -mfentry -mrecord-mcount testdata/patchsite/server.c -o "$T/server" 2>"$T/build.log" ||
	fail "build server" "$T/build.log"
LD_PRELOAD="$SANPRE${SANPRE:+ }$PATCHSITE_LIB" "$T/server" 2>"$T/srv.err" &
spid=$!
"$PS" ctl $spid set_ftrace_filter 'handle_request
send_msg len=$arg2:u32 if len > 1000' 2>"$T/err" &&
	"$PS" ctl $spid set_ftrace_filter >"$T/filt" 2>>"$T/err" &&
	"$PS" ctl $spid current_tracer function 2>>"$T/err" && sleep 0.5 &&
	"$PS" ctl $spid tracing_on 0 2>>"$T/err" &&
	"$PS" replay --no-sched -d "$("$PS" ctl $spid trace_dir)" >"$T/ctl.replay" 2>>"$T/err"
kill $spid; wait $spid 2>/dev/null
runs=$(awk '/ handle_request <-/ { if (h) s = s "0"; h = 1 } / send_msg <-/ { if (h) s = s "1"; h = 0 }
	END { print s }' "$T/ctl.replay")
per=$(printf '%01000d' 0 | sed 's/0/00000111/g')	# (00000111)* long enough to hold runs
if grep -q 'send_msg len:u32 if len > 1000' "$T/filt" && [ ${#runs} -ge 16 ] &&
	case "$per$per" in *"$runs"*) true ;; *) false ;; esac; then
	pass "ctl set_ftrace_filter 'send_msg len=\$arg2:u32 if len > 1000': ${#runs} requests, send_msg in runs of 3 of 8"
else
	{ cat "$T/filt"; echo "runs: $runs"; } >>"$T/err"
	fail "ctl set_ftrace_filter with a fetch argument and a condition" "$T/err"
fi

# Refusals: one line naming the reason, exit 2.
for bad in "ra_mix if zz > 1:no parameter 'zz'" "ra_mix if b >:b >" \
	   "no_such if arg1 > 1:no_such"; do
	arg=${bad%%:*} want=${bad#*:}
	record -d "$T/bad" -F "$arg" "$exe" >/dev/null 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(grep -c . "$T/err")" = 1 ] && grep -q -- "$want" "$T/err"; then
		pass "refused: -F '$arg' ($(head -c 120 "$T/err")) rc=$rc"
	else
		fail "refused: -F '$arg' (want '$want', rc=$rc)" "$T/err"
	fi
done

echo "filter_if.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
