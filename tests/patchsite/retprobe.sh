#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Return probes (FUNC%return, $retval):
# usage  retprobe.sh BUILD_DIR plain|san
#
# The oracle is gdb: a FinishBreakpoint on every call of each probed function of
# testdata/patchsite/retvals.c prints the value it returned, read by gdb from the return
# register by the function's DWARF type (retprobe_gdb.py); check_retvals.py compares them,
# return by return, with `patchsite replay` of the same program recorded with one
# `f FUNC%return $retval` probe per function, the type left to the command's DWARF
# reading (int, unsigned, long, short, signed and unsigned char, bool, enum, double, float,
# char * as a pointer and as $retval:string, void *).  r_jump longjmps out of every other
# call: gdb's finish never fires for those, and no return line may be shown for them.
# testdata/patchsite/retthrow.cc throws through a probed function: the same returns as
# gdb's, and the program's output unchanged.  gcc -O0 and -O2, clang -O2; function_graph
# on at once (both hooks on one return) once.  Bad input is refused with one line.
set -u

. tests/patchsite/lib.sh
suite_init retprobe "$@"

only_x86_64 retprobe.sh "written for x86-64 (tests/patchsite-qemu runs the aarch64 case)"
if ! command -v gdb >/dev/null 2>&1; then
	echo "SKIP retprobe.sh: gdb (the oracle) is not installed (scripts/deps.sh installs it)"
	exit 0
fi

FUNCS='r_int r_unsigned r_long r_short r_schar r_uchar r_bool r_enum r_double r_float r_str
r_ptr r_jump'

# compare NAME EXE TRACER EV=FUNC[:string]...: record with the probes, replay, gdb, compare.
compare() {
	name=$1 exe=$2 tracer=$3
	shift 3
	set -- "$@"
	probes= gdbarg= evs=
	for w in "$@"; do
		ev=${w%%=*} fn=${w#*=}
		case $fn in
		*:*) probes="$probes --probe=f:t/$ev ${fn%:*}%return \$retval:${fn#*:}" ;;
		*) probes="$probes --probe=f:t/$ev $fn%return \$retval" ;;
		esac
		gdbarg="$gdbarg $w" evs="$evs t:$ev"
	done
	rm -rf "$T/rec"
	# One argument per --probe: the definitions hold blanks.
	old_ifs=$IFS
	IFS='
'
	# shellcheck disable=SC2086
	set -- $(echo "$probes" | sed 's/ --probe=/\n--probe=/g' | sed '/^$/d')
	IFS=$old_ifs
	# No address randomisation, as under gdb: pointers compare.
	if ! LD_PRELOAD="$SANPRE" setarch -R "$PS" record -d "$T/rec" --tracer="$tracer" "$@" "$exe" \
		>"$T/out" 2>"$T/err" || grep -q error "$T/err"; then
		fail "$name: record" "$T/err"
		return
	fi
	"$PS" replay --no-sched -d "$T/rec" >"$T/replay" 2>"$T/err" || { fail "$name: replay" "$T/err"; return; }
	printf 'set pagination off\nset confirm off\nsource %s\nretprobe%s\nrun\n' \
		"$PWD/tests/patchsite/oracles/retprobe_gdb.py" "$gdbarg" >"$T/cmds.gdb"
	gdb -batch -nx -x "$T/cmds.gdb" "$exe" >"$T/gdb.log" 2>&1
	# shellcheck disable=SC2086
	if python3 tests/patchsite/oracles/check_retvals.py "$T/replay" "$T/gdb.log" $evs >"$T/cmp" 2>&1
	then
		pass "$name: $(tail -1 "$T/cmp")"
	else
		cat "$T/gdb.log" >>"$T/cmp"
		fail "$name: return values differ from gdb's" "$T/cmp"
	fi
	# The program's own output, traced and not.
	if ! "$exe" >"$T/plain.out" 2>&1 || ! cmp -s "$T/plain.out" "$T/out"; then
		echo "untraced: $(cat "$T/plain.out")  traced: $(cat "$T/out")" >"$T/diff"
		fail "$name: the program's output changed under the probes" "$T/diff"
	fi
}

variant() {
	cc=$1 opt=$2 tracer=${3:-nop}
	sites="-pg -mfentry -mrecord-mcount"
	[ "$cc" = clang ] && sites=-fpatchable-function-entry=5
	exe="$T/retvals-$cc$opt"
	if ! $cc "$opt" -g $sites testdata/patchsite/retvals.c -o "$exe" >"$T/build.log" 2>&1; then
		fail "$cc $opt: build" "$T/build.log"
		return
	fi
	args=
	for f in $FUNCS; do args="$args $f=$f"; done
	# shellcheck disable=SC2086
	compare "$cc $opt retvals.c (tracer $tracer)" "$exe" "$tracer" $args str_s=r_str:string
}

throws() {
	cxx=$1
	sites="-pg -mfentry -mrecord-mcount"
	[ "$cxx" = clang++ ] && sites=-fpatchable-function-entry=5
	exe="$T/retthrow-$cxx"
	if ! $cxx -O2 -g $sites testdata/patchsite/retthrow.cc -o "$exe" >"$T/build.log" 2>&1; then
		fail "$cxx: build" "$T/build.log"
		return
	fi
	# Untyped: the command finds the C++ functions by their DWARF names (symbols are mangled).
	compare "$cxx -O2 retthrow.cc (thrower throws every third call)" "$exe" nop \
		thrower=thrower caller=caller
}

# record -R FUNC@retval (uftrace's spelling) under function and function_graph: a return
# probe typed from DWARF, so a double's value too (function_graph's own line shows the
# integer register), against gdb's finish values.
spelling() {
	tracer=$1 exe="$T/retvals-gcc-O2"
	rm -rf "$T/rrec"
	if ! LD_PRELOAD="$SANPRE" setarch -R "$PS" record -d "$T/rrec" --tracer="$tracer" -R r_double@retval \
		-R r_float@retval -R r_long@retval "$exe" >/dev/null 2>"$T/err"; then
		fail "-R under $tracer: record" "$T/err"
		return
	fi
	# -R's values: function's event line "retval:r_x__exit: (...) arg1=V"; function_graph's
	# call line "r_x() = V;", as uftrace shows it, read as the same.
	"$PS" replay --no-sched -d "$T/rrec" 2>>"$T/err" |
		sed -e 's/retval:\(r_[a-z]*\)__exit:/t:\1:/' \
		    -e 's/| *\(r_[a-z]*\)() = \(.*\);$/| t:\1: (c <- \1) arg1=\2/' >"$T/rreplay"
	printf 'set pagination off\nset confirm off\nsource %s\nretprobe%s\nrun\n' \
		"$PWD/tests/patchsite/oracles/retprobe_gdb.py" " r_double=r_double r_float=r_float" \
		>"$T/rcmds.gdb"
	gdb -batch -nx -x "$T/rcmds.gdb" "$exe" >"$T/rgdb.log" 2>&1
	if python3 tests/patchsite/oracles/check_retvals.py "$T/rreplay" "$T/rgdb.log" t:r_double \
		t:r_float >"$T/cmp" 2>&1; then
		pass "-R under $tracer: $(tail -1 "$T/cmp")"
	else
		fail "-R under $tracer: values differ from gdb's" "$T/cmp"
	fi
}

# entry_values CC OPT: $argN and DWARF names in %return probes (kept from the entry, read
# through at the return, as the kernel's fprobe) against gdb's values at the entry and its
# finish value (retargs_gdb.py): 8 arguments two of them on the stack, a struct changed
# through its pointer, a recursion, a longjmp out of a probed callee.
entry_values() {
	cc=$1 opt=$2
	sites="-pg -mfentry -mrecord-mcount"
	[ "$cc" = clang ] && sites=-fpatchable-function-entry=5
	exe="$T/retargs-$cc$opt"
	if ! $cc "$opt" -g $sites testdata/patchsite/retargs.c -o "$exe" >"$T/build.log" 2>&1; then
		fail "$cc $opt retargs.c: build" "$T/build.log"
		return
	fi
	rm -rf "$T/arec"
	# clang's locations start after the patchable NOPs (the names' resolver reads them at
	# the site: <optimized out>): there the same fields as $argN, typed by hand.
	if [ "$cc" = clang ]; then
		set -- '--probe=f:t/mix ra_mix%return $retval:s64 a=$arg1:s32 b=$arg2:s64 c=$arg3:u16 d=$arg4:s8' \
		'--probe=f:t/eight ra_eight%return $retval:s64 a1=$arg1:s64 a7=$arg7:s64 a8=$arg8:s32 x=$arg2:s64' \
		'--probe=f:t/host ra_host%return $retval:s32 len=$arg2:s32 h_port=+0($arg1):s32 h_name=+0(+8($arg1)):string' \
		'--probe=f:t/fact ra_fact%return $retval:s32 n=$arg1:s32' \
		'--probe=f:t/outer ra_outer%return y=$arg2:s32 $retval:s32 x=$arg1:s32' \
		'--probe=f:t/inner ra_inner%return $retval:s32 x=$arg1:s32'
	else
		set -- '--probe=f:t/mix ra_mix%return $retval a b c d' \
		'--probe=f:t/eight ra_eight%return $retval a1 a7 a8 x=$arg2:s64' \
		'--probe=f:t/host ra_host%return $retval len h->port h->name:string' \
		'--probe=f:t/fact ra_fact%return $retval n' \
		'--probe=f:t/outer ra_outer%return y=$arg2:s32 $retval x' \
		'--probe=f:t/inner ra_inner%return $retval x'
	fi
	if ! LD_PRELOAD="$SANPRE" setarch -R "$PS" record -d "$T/arec" --tracer=nop "$@" "$exe" \
		>/dev/null 2>"$T/err"; then
		fail "$cc $opt retargs.c: record" "$T/err"
		return
	fi
	"$PS" replay --no-sched -d "$T/arec" >"$T/areplay" 2>"$T/err" || { fail "retargs: replay" "$T/err"; return; }
	# -O0 stores its arguments in the prologue: gdb reads them at the closing brace.
	loc='*'
	[ "$opt" = -O0 ] && loc="$PWD/testdata/patchsite/retargs.c"
	[ "$cc" = clang ] && loc='*+5'	# where its locations start: after the 5 NOP bytes
	printf 'set pagination off\nset confirm off\nsource %s\nretargs %s %s\nrun\n' \
		"$PWD/tests/patchsite/oracles/retargs_gdb.py" "$loc" "mix=ra_mix:a,b,c,d \
eight=ra_eight:a1,a7,a8,x=a2 host=ra_host:len,h->port,h->name fact=ra_fact:n \
outer=ra_outer:y,x inner=ra_inner:x" >"$T/acmds.gdb"
	gdb -batch -nx -x "$T/acmds.gdb" "$exe" >"$T/agdb.log" 2>&1
	if python3 tests/patchsite/oracles/check_retargs.py "$T/areplay" "$T/agdb.log" t:mix t:eight \
		t:host t:fact t:outer t:inner >"$T/cmp" 2>&1; then
		pass "$cc $opt retargs.c: $(tail -1 "$T/cmp")"
	else
		fail "$cc $opt retargs.c: values differ from gdb's" "$T/cmp"
	fi
}

# refused CASE WANT ARGS...: record refuses the definition with one line naming WANT and a
# non-zero exit, whether the command or the runtime in the program refuses it.
refused() {
	what=$1 want=$2
	shift 2
	LD_PRELOAD="$SANPRE" "$PS" record -d "$T/bad" --tracer=nop "$@" "$T/retvals-gcc-O2" \
		>/dev/null 2>"$T/err"
	rc=$?
	if [ $rc -ne 0 ] && grep -q -- "$want" "$T/err" && [ "$(grep -c . "$T/err")" -eq 1 ]; then
		pass "refused: $what ($(grep -- "$want" "$T/err" | head -1 | cut -c1-110)) rc=$rc"
	else
		fail "refused: $what (want '$want')" "$T/err"
	fi
}

variant gcc -O0
variant gcc -O2
variant gcc -O2 function_graph
if command -v clang >/dev/null 2>&1; then
	variant clang -O2
else
	echo "SKIP clang: not installed"
fi
throws g++
entry_values gcc -O0
entry_values gcc -O2
command -v clang >/dev/null 2>&1 && entry_values clang -O2
command -v clang++ >/dev/null 2>&1 && throws clang++
spelling function
spelling function_graph
refused '$retval on an entry probe' 'only for a FUNC%return probe' '--probe=f r_int $retval'
refused 'six entry values in a return probe' 'keeps at most 5 values' \
	'--probe=f r_int%return $arg1 $arg2 $arg3 $arg4 $arg5 $arg6'
refused '%return on no such function' "no traceable function matches 'no_such'" \
	'--probe=f no_such%return $retval'
refused 'a void function' 'returns void' '--probe=f r_void%return $retval'
refused 'an entry probe on no such function' "no traceable function matches 'no_such'" \
	'--probe=f no_such $arg1'
refused 'an unknown type' "no such type 'u7'" '--probe=f r_int%return $retval:u7'
refused 'a name DWARF does not have' "no parameter 'nosuch'" '--probe=f r_int nosuch'
refused 'a condition on no field' "no field named 'zz'" '--probe=f:a/b r_int%return $retval if zz > 1'
refused 'a filter on no function' "no traceable function matches 'no_such'" -F no_such

# -finstrument-functions: the return value is not in a register at __cyg_profile_func_exit.
if gcc -O2 -g -finstrument-functions testdata/patchsite/retvals.c -o "$T/cyg" 2>"$T/build.log"
then
	LD_PRELOAD="$SANPRE" "$PS" record -d "$T/badcyg" --tracer=nop \
		'--probe=f r_int%return $retval' "$T/cyg" >/dev/null 2>"$T/err"
	if grep -q 'r_int%return: a -finstrument-functions function' "$T/err"; then
		pass "refused: %return on a -finstrument-functions function"
	else
		fail "refused: %return on a -finstrument-functions function" "$T/err"
	fi
fi

echo "retprobe.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
