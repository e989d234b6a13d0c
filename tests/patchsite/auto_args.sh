#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# record -a: every function's arguments and return value from DWARF (uftrace's -a).
# usage  auto_args.sh BUILD_DIR plain|san
#
# The oracle is gdb: at each function's entry it lists the frame's arguments itself (which
# parameters, their values, auto_gdb.py), and at each return its finish value
# (retargs_gdb.py, check_retargs.py); `record -a` of testdata/patchsite/retargs.c (8
# arguments, two on the stack, a pointer, a recursion at -O0, a longjmp) must show the same
# arguments call by call and the same return values.  gcc -O2 and -O0, the function tracer
# (function_graph shows the same events).
set -u

. tests/patchsite/lib.sh
suite_init auto_args "$@"

only_x86_64 auto_args.sh "needs x86-64 and gdb (the oracle; scripts/deps.sh installs it)" gdb

FUNCS='ra_mix ra_eight ra_host ra_fact ra_inner ra_outer'
for opt in -O2 -O0; do
	exe="$T/ra$opt"
	gcc $opt -g -pg -mfentry -mrecord-mcount testdata/patchsite/retargs.c -o "$exe" \
		2>"$T/build.log" || { fail "gcc $opt: build" "$T/build.log"; continue; }
	rm -rf "$T/rec"
	# No address randomisation, as under gdb: the pointers compare.
	if ! LD_PRELOAD="$SANPRE" setarch -R "$PS" record -d "$T/rec" --tracer=function -a "$exe" \
		>/dev/null 2>"$T/err"; then
		fail "gcc $opt: record -a" "$T/err"
		continue
	fi
	"$PS" replay --no-sched -d "$T/rec" >"$T/replay" 2>>"$T/err"
	loc='*'
	[ "$opt" = -O0 ] && loc="$PWD/testdata/patchsite/retargs.c"
	printf 'set pagination off\nset confirm off\nsource %s\nautoargs %s %s\nrun\n' \
		"$PWD/tests/patchsite/oracles/auto_gdb.py" "$loc" "$FUNCS" >"$T/a.gdb"
	# Compared as sets of calls; pointers to the stack differ between gdb's run and ours (another environment).
	gdb -batch -nx -x "$T/a.gdb" "$exe" 2>&1 | sed -n 's/^@@ //p' |
		sed 's/=0x[0-9a-f]*/=PTR/g' | sort >"$T/want"
	grep -o 'auto:ra_[a-z]*: .*' "$T/replay" | sed 's/=0x[0-9a-f]*/=PTR/g' | sort >"$T/got"
	n=$(grep -c . "$T/want")
	if [ "$n" -ge 39 ] && cmp -s "$T/got" "$T/want"; then
		pass "gcc $opt: $n calls' arguments (names, types, values) equal gdb's"
	else
		diff "$T/want" "$T/got" | head -20 >"$T/diff"
		fail "gcc $opt: arguments differ from gdb's ($n calls)" "$T/diff"
	fi
	# The function tracer's parents, with every return hooked by a probe first: the callers
	# the sample's source has (main calls ra_mix, ra_outer calls ra_inner), never our hook.
	if grep -q ' ra_mix <-main$' "$T/replay" && grep -q ' ra_inner <-ra_outer$' "$T/replay" &&
	   ! grep -q '<-ps_' "$T/replay"; then
		pass "gcc $opt: the function tracer's parents seen through the return probes' hooks"
	else
		grep ' <-' "$T/replay" | head -10 >"$T/diff"
		fail "gcc $opt: parents" "$T/diff"
	fi
	# Return values: the -R probes -a adds, against gdb's finish (retargs_gdb.py: each frame
	# its own, the recursion's too).
	sed 's/retval:\(ra_[a-z]*\)__exit:/t:\1:/' "$T/replay" >"$T/rreplay"
	args= evs=
	for f in $FUNCS; do args="$args $f=$f:" evs="$evs t:$f"; done
	printf 'set pagination off\nset confirm off\nsource %s\nretargs * %s\nrun\n' \
		"$PWD/tests/patchsite/oracles/retargs_gdb.py" "$args" >"$T/r.gdb"
	gdb -batch -nx -x "$T/r.gdb" "$exe" >"$T/rgdb.log" 2>&1
	# shellcheck disable=SC2086
	if python3 tests/patchsite/oracles/check_retargs.py "$T/rreplay" "$T/rgdb.log" $evs >"$T/cmp" 2>&1
	then
		pass "gcc $opt: $(tail -1 "$T/cmp")"
	else
		fail "gcc $opt: return values differ from gdb's" "$T/cmp"
	fi
done

# No DWARF: refused with one line, exit 2.
gcc -O2 -pg -mfentry -mrecord-mcount testdata/patchsite/retargs.c -o "$T/nodw" 2>/dev/null
"$PS" record -d "$T/bad" -a "$T/nodw" >/dev/null 2>"$T/err"
rc=$?
if [ $rc = 2 ] && [ "$(grep -c . "$T/err")" = 1 ] && grep -q 'no function in its DWARF' "$T/err"
then
	pass "record -a without DWARF: refused ($(cat "$T/err"))"
else
	fail "record -a without DWARF: exit $rc" "$T/err"
fi

echo "auto_args.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
