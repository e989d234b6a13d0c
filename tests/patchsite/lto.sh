#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# LTO builds through build/patchsite-cc: usage  lto.sh BUILD_DIR plain|san
#
# gcc -flto objects hold bytecode; their code, and its calls to the hook, is
# generated at the link.  testdata/patchsite/lto_{main,lib}.c is compiled
# with -flto -pg (-mfentry or not) through the wrapper and linked through it,
# with -pg on the link line (CFLAGS reaching the link, as in make) and
# without it.  Oracles:
#   - readelf: the objects hold .gnu.lto_* sections and no code (so
#     recordmcount must refuse them);
#   - objdump -d of the linked program: the functions that call the hook,
#     which patchverify --list must name, from both files;
#   - nm: gprof's start-up (__monstartup) is not linked; no gmon.out appears;
#   - uftrace (--no-libcall --no-event) on the same binary: the calls per
#     function, equal to patchsite report's under function_graph;
#   - the program's own output, untraced: the same traced.
# Also: patchverify's no-table warning on an LTO link without -pg, and
# clang -flto -pg refused by the wrapper, naming the fix that works
# (-fpatchable-function-entry=5, traced here).
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init lto "${1:-build}" "${2:-plain}"
SRC=testdata/patchsite
PRELOAD="$SANPRE $PWD/$B/libpatchsite.so"
W="$PWD/$B/patchsite-cc"

# counts FILE: "function calls" lines of a report table (patchsite's or uftrace's),
# sorted.  Times are a number and a unit; the calls are the first number with no unit
# after it (patchsite's table has on- and off-CPU columns before them, uftrace's not).
counts() {
	awk 'NF >= 6 { for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+$/ && $(i + 1) !~ /^(ns|us|ms|s)$/) {
		print $NF, $i; break } }' "$1" | sort
}

# hooked PROG HOOK: the functions whose code calls HOOK, from objdump (sorted).
hooked() {
	objdump -d --no-show-raw-insn "$1" |
		awk -v h="$2" '/^[0-9a-f]+ <.*>:$/ { f = $2; gsub(/[<>:]/, "", f); next }
			       $0 ~ "call.*<" h "(@plt)?>|call.*# .*<" h { print f }' | sort -u
}

# form: compile flags, link flags, the hook, how the link is asked
for form in fentry-linkpg fentry-nolinkpg fentry-auto mcount-nopie; do
	d="$T/$form"
	mkdir -p "$d"
	case $form in
	fentry-linkpg)   cfl="-pg -mfentry" lfl="-pg -mfentry" hook=__fentry__ ;;
	fentry-nolinkpg) cfl="-pg -mfentry" lfl="" hook=__fentry__ ;;
	fentry-auto)     cfl="-pg -mfentry" lfl="-flto=auto -pg" hook=__fentry__ ;;
	mcount-nopie)    cfl="-pg -fno-pie" lfl="-pg -no-pie" hook=mcount ;;
	esac
	if ! (cd "$d" && PATCHSITE_CC=$CC "$W" -O2 -flto $cfl -c "$OLDPWD/$SRC/lto_main.c" &&
	      PATCHSITE_CC=$CC "$W" -O2 -flto $cfl -c "$OLDPWD/$SRC/lto_lib.c" &&
	      PATCHSITE_CC=$CC "$W" -O2 -flto $lfl lto_main.o lto_lib.o -o prog) >"$d/build.log" 2>&1
	then
		fail "$form: build through patchsite-cc" "$d/build.log"
		continue
	fi
	if [ $form = fentry-linkpg ]; then
		# The object: bytecode, no code (readelf), so recordmcount says so and fails.
		if readelf -S "$d/lto_main.o" | grep -q '\.gnu\.lto_' &&
		   ! readelf -SW "$d/lto_main.o" | awk '$0 ~ /\] / && $0 ~ / AX / && $7 != "000000"' |
			grep -q . &&
		   ! "$B/recordmcount" "$d/lto_main.o" 2>"$d/rmc.err" && [ "$(wc -l <"$d/rmc.err")" = 1 ] &&
		   grep -q "lto_main.o: error: LTO bytecode (.gnu.lto_\* sections) and no code" "$d/rmc.err"
		then
			pass "recordmcount refuses an LTO bytecode object: $(cut -c1-90 "$d/rmc.err")..."
		else
			fail "recordmcount on an LTO bytecode object" "$d/rmc.err"
		fi
	fi
	hooked "$d/prog" $hook >"$d/want.fn"
	"$B/patchverify" --list "$d/prog" 2>"$d/pv.err" | cut -f4 | sed 's/+0x[0-9a-f]*$//' |
		sort -u >"$d/got.fn"
	if grep -qx main "$d/want.fn" && grep -q "^lib_sum" "$d/want.fn" && grep -qx step "$d/want.fn" &&
	   cmp -s "$d/want.fn" "$d/got.fn" && [ ! -s "$d/pv.err" ]; then
		pass "$form: the link's code is recorded: $(tr '\n' ' ' <"$d/got.fn")(objdump: the same calls to $hook)"
	else
		diff "$d/want.fn" "$d/got.fn" >>"$d/pv.err"
		fail "$form: sites of the generated code (objdump < > patchverify)" "$d/pv.err"
	fi
	(cd "$d" && ./prog >"$d/plain.out" 2>&1)
	if ! nm "$d/prog" | grep -q __monstartup && [ ! -e "$d/gmon.out" ] &&
	   grep -qx 'sum=[0-9]*' "$d/plain.out"; then
		pass "$form: gprof's start-up left out (no __monstartup, no gmon.out), untraced: $(cat "$d/plain.out")"
	else
		nm "$d/prog" | grep -i mon >>"$d/plain.out"
		fail "$form: gprof's start-up or untraced run" "$d/plain.out"
	fi
	(cd "$d" && uftrace record -d "$d/u.data" --no-libcall --no-event ./prog >/dev/null 2>"$d/u.err" &&
	 uftrace report -d "$d/u.data" --no-pager >"$d/u.rep" 2>>"$d/u.err")
	(cd "$d" && LD_PRELOAD="$SANPRE" "$OLDPWD/$B/patchsite" record -d "$d/p.data" \
		--no-libcall --tracer=function_graph ./prog >"$d/traced.out" 2>"$d/p.err" &&
	 "$OLDPWD/$B/patchsite" report -d "$d/p.data" >"$d/p.rep" 2>>"$d/p.err")
	counts "$d/u.rep" >"$d/u.cnt"
	counts "$d/p.rep" >"$d/p.cnt"
	if [ -s "$d/u.cnt" ] && cmp -s "$d/u.cnt" "$d/p.cnt" && cmp -s "$d/plain.out" "$d/traced.out" &&
	   grep -q '^lib_scale 1[0-9]$' "$d/p.cnt"; then
		pass "$form: function_graph calls per function equal uftrace's ($(tr '\n' ' ' <"$d/p.cnt"| cut -c1-70)...), output unchanged"
	else
		{ echo "uftrace:"; cat "$d/u.cnt" "$d/u.err"; echo "patchsite:"; cat "$d/p.cnt" "$d/p.err"; } >"$d/why"
		fail "$form: counts against uftrace" "$d/why"
	fi
done

# An LTO link that never saw -pg: no table and no hook call; patchverify says so (a warning,
# an error when asked), where it used to pass "0 tables, 0 sites".
d="$T/nopg"
mkdir -p "$d"
if $CC -O2 -flto -o "$d/prog" $SRC/lto_main.c $SRC/lto_lib.c >"$d/build.log" 2>&1; then
	"$B/patchverify" "$d/prog" >/dev/null 2>"$d/pv.err"
	rc=$?
	"$B/patchverify" --error=no-table "$d/prog" >/dev/null 2>"$d/pv2.err"
	rc2=$?
	if [ $rc = 0 ] && [ $rc2 = 1 ] && [ -z "$(hooked "$d/prog" __fentry__)" ] &&
	   grep -q "prog: warning: -: no-table: no __mcount_loc or __patchable_function_entries table and no call" "$d/pv.err" &&
	   grep -q "prog: error: -: no-table:" "$d/pv2.err"; then
		pass "patchverify: no-table on a linked file with nothing to trace (exit 0, 1 with --error=no-table)"
	else
		cat "$d/pv2.err" >>"$d/pv.err"
		fail "patchverify no-table on an LTO link without -pg (exit $rc, $rc2)" "$d/pv.err"
	fi
else
	fail "LTO without -pg: build" "$d/build.log"
fi

# clang: LLVM generates the code inside the linker, so -flto -pg is refused by name with the
# fix; the fix, -fpatchable-function-entry=5, gets its table from the code generator: traced.
d="$T/clang"
mkdir -p "$d"
if command -v clang >/dev/null; then
	PATCHSITE_CC=clang "$W" -O2 -flto -pg -mfentry -c -o "$d/a.o" $SRC/lto_main.c 2>"$d/err"
	rc=$?
	if [ $rc = 1 ] && [ ! -e "$d/a.o" ] && [ "$(wc -l <"$d/err")" = 1 ] &&
	   grep -q "^patchsite-cc: clang -flto with -pg: .*-fpatchable-function-entry=5" "$d/err"; then
		pass "clang -flto -pg refused: $(cut -c1-80 "$d/err")..."
	else
		fail "clang -flto -pg refusal (exit $rc)" "$d/err"
	fi
	if PATCHSITE_CC=clang "$W" -O2 -flto -fpatchable-function-entry=5 -o "$d/prog" \
		$SRC/lto_main.c $SRC/lto_lib.c >"$d/build.log" 2>&1; then
		"$d/prog" >"$d/plain.out"
		PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$d/trace" LD_PRELOAD="$PRELOAD" \
			"$d/prog" >"$d/traced.out" 2>"$d/err"
		# The oracle for the count: the program calls lib_scale once per element (16).
		n=$(grep -c ' lib_scale <-step' "$d/trace")
		if cmp -s "$d/plain.out" "$d/traced.out" && [ "$n" = 16 ] && [ ! -s "$d/err" ]; then
			pass "clang -flto -fpatchable-function-entry=5: lib_scale traced 16 times, output unchanged"
		else
			fail "clang -flto -fpatchable-function-entry=5 ($n calls of lib_scale)" "$d/err"
		fi
	else
		fail "clang -flto -fpatchable-function-entry=5: build" "$d/build.log"
	fi
else
	echo "SKIP clang: not installed"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
