#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# replay and report --srcline: usage  srcline.sh BUILD_DIR plain|san
#
# The oracle is binutils' addr2line, which reads the same line table through its own
# code (BFD, not libdw): each function a replay line shows carries "/* FILE:LINE */",
# and for every one, addr2line on the function's address (nm's, plus the object's load
# bias where it is a shared library) must print the same FILE:LINE.  A program and a
# shared library of its (testdata/patchsite/uselib.c, libwork.c), gcc -O2 and -O0, under
# function_graph and function, replay and report; an object without DWARF shows no
# srcline; report --json --srcline is refused with one line.
set -u

. tests/patchsite/lib.sh
suite_init srcline "$@"

if ! command -v addr2line >/dev/null 2>&1 || ! command -v nm >/dev/null 2>&1; then
	echo "SKIP srcline.sh: addr2line and nm (binutils, the oracle) are not installed"
	exit 0
fi

# check NAME TRACER EXE LIB: record, replay --srcline, each function's line against addr2line.
check() {
	name=$1 tracer=$2 exe=$3 lib=$4
	rm -rf "$T/rec"
	if ! record -d "$T/rec" --tracer="$tracer" "$exe" >/dev/null 2>"$T/err"; then
		fail "$name: record" "$T/err"
		return
	fi
	"$PS" replay --no-sched --srcline -d "$T/rec" >"$T/replay" 2>"$T/err" ||
		{ fail "$name: replay --srcline" "$T/err"; return; }
	# FUNC FILE:LINE pairs as replay shows them (function_graph "f() {" / "f();", function "f <-p").
	sed -n 's/.*[|:] *\([a-z_][a-z_0-9]*\)\((.*)\)\{0,1\}[ ;{<].*\/\* \(\/[^ ]*:[0-9]*\) \*\/$/\1 \3/p' \
		"$T/replay" | sort -u >"$T/got"
	: >"$T/want"
	while read -r fn _; do
		obj=$exe
		case $fn in lib_*) obj=$lib ;; esac
		addr=$(nm "$obj" | awk -v f="$fn" '$3 == f && ($2 == "T" || $2 == "t") { print $1; exit }')
		[ -n "$addr" ] && echo "$fn $(addr2line -e "$obj" "0x$addr" | sed 's/ (discriminator [0-9]*)//')"
	done <"$T/got" | sort -u >"$T/want"
	n=$(grep -c . "$T/got")
	if [ "$n" -ge 4 ] && grep -q '^lib_inner ' "$T/got" && cmp -s "$T/got" "$T/want"; then
		pass "$name: $n functions (program and library) at addr2line's FILE:LINE"
	else
		{ echo "ours:"; cat "$T/got"; echo "addr2line:"; cat "$T/want"; } >"$T/diff"
		fail "$name: srclines differ from addr2line's" "$T/diff"
	fi
	# report --srcline: each row's function, the same FILE:LINE.
	"$PS" report --srcline -d "$T/rec" 2>"$T/err" |
		sed -n 's/.*  \([a-z_][a-z_0-9]*\) \/\* \(\/[^ ]*:[0-9]*\) \*\/$/\1 \2/p' |
		sort -u >"$T/rgot"
	if cmp -s "$T/rgot" "$T/want"; then
		pass "$name: report --srcline, $(grep -c . "$T/rgot") rows at addr2line's FILE:LINE"
	else
		{ echo "report:"; cat "$T/rgot"; echo "addr2line:"; cat "$T/want"; } >"$T/diff"
		fail "$name: report --srcline differs from addr2line's" "$T/diff"
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
	check "gcc $opt function_graph" function_graph "$exe" "$lib"
	check "gcc $opt function" function "$exe" "$lib"
done

# No DWARF: the functions are shown, without a srcline (never a wrong one).
gcc -O2 -pg -mfentry -mrecord-mcount testdata/patchsite/uselib.c "$T/libwork-O2.so" \
	-Wl,-rpath,"$T" -o "$T/nodw" 2>"$T/build.log"
rm -rf "$T/rec"
record -d "$T/rec" "$T/nodw" >/dev/null 2>&1
"$PS" replay --no-sched --srcline -d "$T/rec" >"$T/replay" 2>&1
if grep -q 'prog_fn() {$' "$T/replay" && grep -q 'lib_outer() { /\* /' "$T/replay"; then
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
