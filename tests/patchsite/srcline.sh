#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# replay and report --srcline: usage  srcline.sh BUILD_DIR plain|san
#
# The oracle is uftrace (Debian's 0.13) on the same binary: each function a replay line
# shows carries "/* FILE:LINE */", and the FUNC FILE:LINE pairs must be the ones uftrace's
# replay --srcline shows: the declaration's line (DW_AT_decl_line, "int f(int x)", not
# the "{" or first statement a line table gives), the file relative to the compilation's
# directory (the sources are compiled by a relative name here).  A program and a shared
# library of its (testdata/patchsite/uselib.c, libwork.c), gcc -O2 and -O0, under
# function_graph and function, replay and report; an object without DWARF shows no
# srcline; report --json --srcline is refused with one line.
set -u

. tests/patchsite/lib.sh
suite_init srcline "$@"

command -v uftrace >/dev/null || { echo "FAIL uftrace (the oracle) not installed (scripts/deps.sh)"; exit 1; }

# FUNC FILE:LINE pairs of a replay --srcline on stdin (function_graph "f() {" / "f();",
# function "f <-p"), sorted.
pairs() {
	sed -n 's/.*[|:] *\([a-z_][a-z_0-9]*\)\((.*)\)\{0,1\}[ ;{<].*\/\* \([^ ]*:[0-9]*\) \*\/$/\1 \3/p' |
		sort -u
}

# want EXE: uftrace's pairs for EXE into $T/want.
want() {
	rm -rf "$T/u.data"
	uftrace record -d "$T/u.data" --srcline --no-event "$1" >/dev/null 2>"$T/err" &&
		uftrace replay -d "$T/u.data" --srcline --no-pager 2>>"$T/err" | pairs >"$T/want"
	grep -q '^lib_inner ' "$T/want" || fail "uftrace record/replay --srcline $1" "$T/err"
	# graph --srcline: "(1) NAME [FILE:LINE]" a node
	uftrace graph -d "$T/u.data" --srcline --no-pager 2>>"$T/err" | gpairs >"$T/gwant"
}

gpairs() {
	sed -n 's/.*[-: )]\([a-z_][a-z_0-9]*\) \[\([^ ]*:[0-9]*\)\]$/\1 \2/p' | sort -u
}

# check NAME TRACER EXE LIB: record, replay --srcline, each function's line against uftrace's.
check() {
	name=$1 tracer=$2 exe=$3 lib=$4
	rm -rf "$T/rec"
	if ! record -d "$T/rec" --tracer="$tracer" "$exe" >/dev/null 2>"$T/err"; then
		fail "$name: record" "$T/err"
		return
	fi
	"$PS" replay --no-sched --srcline -d "$T/rec" >"$T/replay" 2>"$T/err" ||
		{ fail "$name: replay --srcline" "$T/err"; return; }
	pairs <"$T/replay" >"$T/got"
	n=$(grep -c . "$T/got")
	if [ "$n" -ge 4 ] && grep -q '^lib_inner ' "$T/got" && cmp -s "$T/got" "$T/want"; then
		pass "$name: $n functions (program and library) at uftrace's FILE:LINE"
	else
		{ echo "ours:"; cat "$T/got"; echo "uftrace:"; cat "$T/want"; } >"$T/diff"
		fail "$name: srclines differ from uftrace's" "$T/diff"
	fi
	# graph --srcline: each node's function, the same FILE:LINE as uftrace graph --srcline's
	# (the function tracer records no calls to draw).
	if [ "$tracer" = function_graph ]; then
		"$PS" graph --srcline -d "$T/rec" 2>"$T/err" | gpairs >"$T/ggot"
		if [ -s "$T/gwant" ] && cmp -s "$T/ggot" "$T/gwant"; then
			pass "$name: graph --srcline, $(grep -c . "$T/ggot") nodes at uftrace's FILE:LINE"
		else
			{ echo "graph:"; cat "$T/ggot"; echo "uftrace graph:"; cat "$T/gwant"; } >"$T/diff"
			fail "$name: graph --srcline differs from uftrace's" "$T/diff"
		fi
	fi
	# report --srcline: each row's function, the same FILE:LINE.
	"$PS" report --srcline -d "$T/rec" 2>"$T/err" |
		sed -n 's/.*  \([a-z_][a-z_0-9]*\) \/\* \([^ ]*:[0-9]*\) \*\/$/\1 \2/p' |
		sort -u >"$T/rgot"
	if cmp -s "$T/rgot" "$T/want"; then
		pass "$name: report --srcline, $(grep -c . "$T/rgot") rows at uftrace's FILE:LINE"
	else
		{ echo "report:"; cat "$T/rgot"; echo "uftrace:"; cat "$T/want"; } >"$T/diff"
		fail "$name: report --srcline differs from uftrace's" "$T/diff"
	fi
}

for opt in -O2 -O0; do
	lib="$T/libwork$opt.so" exe="$T/uselib$opt"
	if ! gcc $opt -g -pg -mfentry -mrecord-mcount -fPIC -shared testdata/patchsite/libwork.c \
		-o "$lib" >"$T/build.log" 2>&1 ||
	   ! gcc $opt -g -pg -mfentry -mrecord-mcount testdata/patchsite/uselib.c "$lib" \
		-Wl,-rpath,"$T" -o "$exe" >>"$T/build.log" 2>&1; then
		fail "gcc $opt: build" "$T/build.log"
		continue
	fi
	want "$exe"
	check "gcc $opt function_graph" function_graph "$exe" "$lib"
	check "gcc $opt function" function "$exe" "$lib"
done

# No DWARF: the functions are shown, without a srcline (never a wrong one).
gcc -O2 -pg -mfentry -mrecord-mcount testdata/patchsite/uselib.c "$T/libwork-O2.so" \
	-Wl,-rpath,"$T" -o "$T/nodw" 2>"$T/build.log"
rm -rf "$T/rec"
record -d "$T/rec" "$T/nodw" >/dev/null 2>&1
"$PS" replay --no-sched --srcline -d "$T/rec" >"$T/replay" 2>&1
if grep -q 'prog_fn() {$' "$T/replay" && grep -q 'lib_outer() { /\* testdata/patchsite/libwork\.c:[0-9]* \*/$' "$T/replay"; then
	pass "a program without DWARF: no srcline for its functions, its library's shown"
else
	fail "no DWARF: prog_fn must show no srcline" "$T/replay"
fi

"$PS" report --json --srcline -d "$T/rec" >/dev/null 2>"$T/err"
rc=$?
if [ $rc = 2 ] && [ "$(grep -c . "$T/err")" -le 2 ] && grep -q "srcline is replay's" "$T/err"; then
	pass "report --json --srcline refused (exit 2)"
else
	fail "report --json --srcline: exit $rc" "$T/err"
fi

echo "srcline.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
