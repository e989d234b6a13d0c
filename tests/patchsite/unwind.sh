#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Tracing never changes what a C++ or POSIX program does: usage  unwind.sh BUILD_DIR plain|san
#
# testdata/patchsite/unwind.cc leaves frames every way C++ and POSIX do
# (std::rethrow_exception, std::async, nested exceptions, a catch inside
# destructors run by unwinding, pthread_cancel and pthread_exit 6 frames
# deep, backtrace(), a loop catching 2,000 exceptions, a 2,000-character
# name) and prints what it saw, destructors counted.  The oracle is the
# same binary run untraced: its output must be the same, byte for byte,
# under the function and function_graph tracers, in every build form.
# Trace depths are checked against the program's call structure.
# Also: build forms (gcc and clang, C and C++; patchverify on clang's NOP), functions
# with several names at one address (alias attributes, -fipa-icf folds), and sites gcc
# -pg (without -mfentry) builds through patchsite-cc are traced.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init unwind "${1:-build}" "${2:-plain}"
SRC=testdata/patchsite
CXX=${CXX:-g++}
PRELOAD="$PWD/$B/libpatchsite.so"
SANLINK=
if [ "$MODE" = san ]; then
	# The C++ driver's sanitizer runtimes (the samples are C++).
	SANPRE="$($CXX -print-file-name=libasan.so) $($CXX -print-file-name=libubsan.so)"
	SANLINK="-fsanitize=address,undefined"	# for the runtime linked in (build/san/patchsite.o)
	PRELOAD="$SANPRE $PRELOAD"
fi

# form NAME: compile and link flags (compile; link), and whether our recordmcount runs.
form_flags() {
	case $1 in
	pie)     echo "-pg -mfentry -mrecord-mcount" ;;
	nonpie)  echo "-pg -mfentry -mrecord-mcount -fno-pie" ;;
	rmc)     echo "-pg -mfentry" ;;
	sstd)    echo "-pg -mfentry -mrecord-mcount" ;;
	sgcc)    echo "-pg -mfentry -mrecord-mcount" ;;
	ret)     echo "-pg -mfentry -mnop-mcount -mrecord-mcount -minstrument-return=nop5 -mrecord-return -fno-pie" ;;
	mcount)  echo "-pg -mrecord-mcount" ;;
	mcountnp) echo "-pg -mrecord-mcount -fno-pie" ;;
	pfe)     echo "-fpatchable-function-entry=5" ;;
	clrmc)   echo "-pg -mfentry" ;;
	clpfe)   echo "-fpatchable-function-entry=5" ;;
	pg)      echo "-pg" ;;
	clpg)    echo "-pg" ;;
	esac
}
form_ld() {
	case $1 in
	nonpie|ret|mcountnp) echo "-no-pie" ;;
	sstd)   echo "-static-libstdc++" ;;
	sgcc)   echo "-static-libstdc++ -static-libgcc" ;;
	esac
}

# clang forms (cl*): clang++ 14 has no -mrecord-mcount; its -pg -mfentry objects get
# their tables from our recordmcount, its -fpatchable-function-entry=5 writes 0f 1f 44 00 08.
# pg, clpg: plain -pg, no table (sites found at start-up); clang copies argument registers
# before its call to mcount.
build() {	# OUT FORM
	o="$T/unwind-$2.o" cxx=$CXX
	case $2 in
	cl*) cxx=${CLANGXX:-clang++} ;;
	esac
	$cxx -O2 -g $(form_flags "$2") -c $SRC/unwind.cc -o "$o" >>"$T/build.log" 2>&1 || return 1
	case $2 in
	rmc|clrmc) "$B/recordmcount" "$o" >>"$T/build.log" 2>&1 || return 1 ;;
	esac
	$cxx $(form_ld "$2") -o "$1" "$o" -pthread >>"$T/build.log" 2>&1
}

# The depths (indent / 2) of the calls in a function_graph trace whose name matches $2
# (an ERE: demangled, or mangled where the demangler is out of reach, -static-libstdc++).
depths() {
	awk -F'|' -v re="$2" 'NF >= 3 { f = $NF; match(f, /^ */); n = RLENGTH; rest = substr(f, n + 1)
		if (rest ~ re) print (n - 1) / 2 }' "$1" | sort -u | tr '\n' ' '
}

FORMS="pie nonpie rmc sstd sgcc ret pfe mcount mcountnp pg"
if command -v "${CLANGXX:-clang++}" >/dev/null; then
	FORMS="$FORMS clrmc clpfe clpg"
else
	echo "SKIP clang forms: no ${CLANGXX:-clang++}"
fi
for form in $FORMS; do
	if ! build "$T/u-$form" $form; then
		fail "$form: build" "$T/build.log"
		continue
	fi
	LD_PRELOAD="$SANPRE" "$T/u-$form" >"$T/plain" 2>&1
	for tracer in function function_graph; do
		PATCHSITE_TRACER=$tracer PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$PRELOAD" \
			"$T/u-$form" >"$T/out" 2>"$T/err"
		rc=$?
		if [ $form = sgcc ] && [ $tracer = function_graph ]; then
			# Its own unwinder: refused by name, run untraced, same output.
			if [ $rc -eq 0 ] && cmp -s "$T/plain" "$T/out" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
			   grep -q "function_graph: u-sgcc has its own copy of the unwinder .*exit sites.*not tracing" "$T/err"; then
				pass "$form: function_graph refused: $(cat "$T/err")"
			else
				fail "$form: function_graph refused (exit $rc)" "$T/err"
			fi
			continue
		fi
		if [ $rc -eq 0 ] && cmp -s "$T/plain" "$T/out" && [ ! -s "$T/err" ]; then
			pass "$form: $tracer: output and destructor counts as untraced ($(grep -c destructors "$T/out") cases)"
		else
			diff "$T/plain" "$T/out" >>"$T/err"
			fail "$form: $tracer (exit $rc)" "$T/err"
		fi
		[ $tracer = function_graph ] || continue
		# Depths: main 0; t_loop 1, loop_mid 2 every time; show at outer's depth;
		# the cancelled and exiting threads' level() at 1..6, every frame closed.
		d_loop=$(depths "$T/trace" '^(loop_mid|_Z8loop_midi)\(') d_show=$(depths "$T/trace" '^(show|_Z4show[A-Za-z0-9_]*)\(\) \{')
		d_outer=$(depths "$T/trace" '^(outer|_Z5outerv)\(') d_level=$(depths "$T/trace" '^(level|_Z5levelib)\(')
		# Calls with children have no duration on their line; each has its closing brace.
		opens=$(grep -c '|               | ' "$T/trace") closes=$(grep -c '| *}$' "$T/trace")
		if [ "$d_loop" = "2 " ] && [ "$d_show" = "$d_outer" ] && [ "$d_outer" = "2 " ] &&
		   [ "$d_level" = "1 2 3 4 5 6 " ] && [ "$opens" -eq "$closes" ] &&
		   [ "$(grep -Ec '(loop_mid|_Z8loop_midi)\(\) \{$' "$T/trace")" -eq 2000 ]; then
			pass "$form: function_graph depths: loop_mid at $d_loop, show/outer at $d_outer, level at $d_level; $opens calls closed"
		else
			echo "loop $d_loop show $d_show outer $d_outer level $d_level opens $opens closes $closes" >"$T/why"
			fail "$form: function_graph depths" "$T/why"
		fi
	done
done

# clang -fpatchable-function-entry=5 writes 0f 1f 44 00 08 at each function (objdump is the
# oracle for the bytes): patchverify accepts it; the same bytes with another SIB (0f 1f 44
# 01 08, a NOP the arch table does not list) are reported as no NOP sled, by entry.
if echo "$FORMS" | grep -q clpfe && [ -x "$B/patchverify" ]; then
	nsites=$(objdump -d "$T/u-clpfe" | grep -cE '0f 1f 44 00 08[[:space:]]+nopl +0x8\(%rax,%rax,1\)')
	"$B/patchverify" "$T/u-clpfe" >"$T/out" 2>&1
	rc=$?
	python3 - "$T/u-clpfe" "$T/u-clbad" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
open(sys.argv[2], 'wb').write(d.replace(bytes.fromhex('0f1f440008'), bytes.fromhex('0f1f440108')))
PY
	"$B/patchverify" "$T/u-clbad" >"$T/err" 2>&1
	rcb=$?
	if [ $rc -eq 0 ] && [ ! -s "$T/out" ] && [ "$nsites" -gt 20 ] && [ $rcb -ne 0 ] &&
	   [ "$(grep -c 'patchable-sled: __patchable_function_entries entry [0-9]*: expected a NOP sled, found 0f 1f 44 01 ' "$T/err")" -eq "$nsites" ]; then
		pass "patchverify: clang's 0f 1f 44 00 08 sleds accepted ($nsites functions); 0f 1f 44 01 08 reported for each"
	else
		cat "$T/out" >>"$T/err"
		fail "patchverify on clang -fpatchable-function-entry=5 (exit $rc, $rcb, $nsites NOPs)" "$T/err"
	fi
fi

# Several names at one address (alias.c; readelf is the oracle for the names, their order
# in the symbol table and their one address): a filter naming any of them traces the
# function, the trace shows the first name, the listing gives the others as aliases.
CC=${CC:-gcc}
if PATCHSITE_CC=$CC "$B/patchsite-cc" -O2 -pg -mfentry -mrecord-mcount -o "$T/alias" \
	$SRC/alias.c >>"$T/build.log" 2>&1 &&
   PATCHSITE_CC=$CC "$B/patchsite-cc" -O2 -Iinclude -pg -mfentry -mrecord-mcount -DLIST \
	-o "$T/alias-list" $SRC/alias.c "$B/patchsite.o" -pthread $SANLINK >>"$T/build.log" 2>&1; then
	names=$(readelf -sW "$T/alias" | awk '$4 == "FUNC" && $8 ~ /^scale_/ { print $2, $8 }')
	addrs=$(echo "$names" | awk '{ print $1 }' | sort -u | wc -l)
	first=$(echo "$names" | head -1 | awk '{ print $2 }')
	ok=1
	for name in $(echo "$names" | awk '{ print $2 }'); do
		PATCHSITE_TRACER=function_graph PATCHSITE_FILTER=$name PATCHSITE_OUTPUT="$T/trace" \
			LD_PRELOAD="$PRELOAD" "$T/alias" >"$T/out" 2>"$T/err"
		[ $? -eq 0 ] && [ ! -s "$T/err" ] && grep -qx '10 17 24' "$T/out" &&
		[ "$(grep -c "| $first();\$" "$T/trace")" -eq 3 ] && [ "$(grep -c scale_ "$T/trace")" -eq 3 ] ||
			{ ok=0; echo "filter $name:" >>"$T/why"; cat "$T/err" "$T/trace" >>"$T/why"; }
	done
	"$T/alias-list" >"$T/out" 2>"$T/err"
	want=$(echo "$names" | awk 'NR == 1 { print $2 " same-ip" } NR > 1 { print $2 " alias same-ip" }')
	[ "$(sed 1d "$T/out")" = "$want" ] || { ok=0; cat "$T/out" >>"$T/why"; }
	if [ $ok = 1 ] && [ "$addrs" -eq 1 ] && [ "$(echo "$names" | wc -l)" -eq 3 ]; then
		pass "aliases: $(echo "$names" | awk '{ printf "%s ", $2 }')at one address: each filters, '$first' shown, the others listed as aliases"
	else
		fail "aliases ($addrs addresses)" "$T/why"
	fi
else
	fail "aliases: build" "$T/build.log"
fi

# Functions gcc's -fipa-icf folded (folded.cc: X::f and Y::f, one body; readelf shows the
# two names at one address, X's first): a filter naming Y::f traces both calls, shown as X::f.
if PATCHSITE_CXX=$CXX "$B/patchsite-c++" -O2 -pg -mfentry -o "$T/folded" $SRC/folded.cc \
	>>"$T/build.log" 2>&1; then
	syms=$(readelf -sW "$T/folded" | awk '$4 == "FUNC" && $8 ~ /1[XY]1fEi$/ { print $2, $8 }')
	PATCHSITE_TRACER=function_graph PATCHSITE_FILTER='*::Y::f' PATCHSITE_OUTPUT="$T/trace" \
		LD_PRELOAD="$PRELOAD" "$T/folded" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -qx '6 11' "$T/out" && [ ! -s "$T/err" ] &&
	   [ "$(echo "$syms" | awk '{ print $1 }' | sort -u | wc -l)" -eq 1 ] &&
	   [ "$(echo "$syms" | head -1 | awk '{ print $2 }')" = _ZNK12_GLOBAL__N_11X1fEi ] &&
	   [ "$(grep -c '| (anonymous namespace)::X::f();$' "$T/trace")" -eq 2 ] &&
	   [ "$(grep -c '::f()' "$T/trace")" -eq 2 ]; then
		pass "-fipa-icf: X::f and Y::f at one address: PATCHSITE_FILTER='*::Y::f' traces both calls, shown as X::f"
	else
		echo "$syms" >"$T/why"
		cat "$T/err" "$T/trace" >>"$T/why"
		fail "-fipa-icf folded functions (exit $rc)" "$T/why"
	fi
else
	fail "-fipa-icf: build" "$T/build.log"
fi

# build/patchsite-c++ (scripts/patchsite-cc): C++ over two files, gcc and clang, objects
# compiled apart or with the link on one line: each -pg -mfentry object gets our
# recordmcount, the link has no -pg (readelf: no __monstartup; no gmon.out written), and
# Box<int>::get, emitted in both objects, is traced at both calls (the sources' oracle).
for cxx in g++ clang++; do
	command -v $cxx >/dev/null || { echo "SKIP patchsite-c++ with $cxx: not installed"; continue; }
	for how in apart oneline; do
		d="$T/multi-$cxx-$how"
		mkdir -p "$d"
		if [ $how = apart ]; then
			(cd "$d" && PATCHSITE_CXX=$cxx "$OLDPWD/$B/patchsite-c++" -O2 -pg -mfentry \
				-c "$OLDPWD/$SRC/multi_a.cc" &&
			 PATCHSITE_CXX=$cxx "$OLDPWD/$B/patchsite-c++" -O2 -pg -mfentry \
				-c "$OLDPWD/$SRC/multi_b.cc" -o b.o &&
			 PATCHSITE_CXX=$cxx "$OLDPWD/$B/patchsite-c++" -pg multi_a.o b.o -o prog)
		else
			(cd "$d" && PATCHSITE_CXX=$cxx "$OLDPWD/$B/patchsite-c++" -O2 -pg -mfentry \
				"$OLDPWD/$SRC/multi_a.cc" "$OLDPWD/$SRC/multi_b.cc" -o prog)
		fi >>"$T/build.log" 2>&1 || { fail "patchsite-c++ ($cxx, $how): build" "$T/build.log"; continue; }
		(cd "$d" && PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$d/trace" \
			LD_PRELOAD="$PRELOAD" ./prog >"$d/out" 2>"$d/err")
		rc=$?
		if [ $rc -eq 0 ] && grep -qx 'ab1 8' "$d/out" && [ ! -s "$d/err" ] && [ ! -e "$d/gmon.out" ] &&
		   ! readelf -sW "$d/prog" | grep -q __monstartup &&
		   [ "$(grep -c 'Box<int>::get();$' "$d/trace")" -eq 2 ] && grep -q 'join_b() {$' "$d/trace"; then
			pass "patchsite-c++ ($cxx, $how): two C++ objects through our recordmcount, linked without -pg, Box<int>::get traced twice"
		else
			cat "$d/err" "$d/trace" >"$T/why" 2>/dev/null
			fail "patchsite-c++ ($cxx, $how) (exit $rc)" "$T/why"
		fi
	done
done

# clang, C: basic.c through patchsite-cc (clang -pg -mfentry, our recordmcount) and with
# -fpatchable-function-entry=5; function_graph draws the source's call tree, the same
# expected trace as gcc's forms (testdata/patchsite/expected/basic.graph).
if command -v clang >/dev/null; then
	for fl in "-pg -mfentry" "-fpatchable-function-entry=5"; do
		PATCHSITE_CC=clang "$B/patchsite-cc" -O2 -Wno-unknown-attributes $fl -o "$T/clang-c" \
			$SRC/basic.c >>"$T/build.log" 2>&1 || { fail "clang C ($fl): build" "$T/build.log"; continue; }
		PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$PRELOAD" \
			"$T/clang-c" >"$T/out" 2>"$T/err"
		sed -E -e 's/^ *[0-9]+\) +[^ ]+-[0-9]+ \|/CPU) TASK-PID |/' \
		    -e 's/\| [ +!#*@$] +[0-9]+\.[0-9]+ us \|/| DURATION |/' "$T/trace" >"$T/trace.norm"
		if grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ] &&
		   diff -u $SRC/expected/basic.graph "$T/trace.norm" >"$T/why"; then
			pass "clang C ($fl): function_graph as expected (basic.graph)"
		else
			cat "$T/err" >>"$T/why"
			fail "clang C ($fl)" "$T/why"
		fi
	done
fi

# patchsite-cc's table for user space: place-relative on x86_64 (and aarch64), so a PIE
# links with -z text and without DT_TEXTREL; PATCHSITE_TABLE=abs gives __mcount_loc, which
# ld warns about.  Oracles: readelf -S/-d, ld's own refusal, the program's result and its
# function_graph trace (basic.graph, as above).
: >"$T/pie.log"
if PATCHSITE_CC=$CC "$B/patchsite-cc" -O2 -Wno-unknown-attributes -pg -mfentry -fpie -pie \
	-Wl,-z,text -Wl,--fatal-warnings -o "$T/pie-pcrel" $SRC/basic.c >>"$T/pie.log" 2>&1 &&
   readelf -SW "$T/pie-pcrel" | grep -q ' __mcount_loc_pcrel ' &&
   ! readelf -SW "$T/pie-pcrel" | grep -q ' __mcount_loc ' &&
   ! readelf -dW "$T/pie-pcrel" | grep -q TEXTREL &&
   PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$PRELOAD" \
	"$T/pie-pcrel" >"$T/out" 2>>"$T/pie.log" && grep -qx 'sum=5' "$T/out" &&
   sed -E -e 's/^ *[0-9]+\) +[^ ]+-[0-9]+ \|/CPU) TASK-PID |/' \
	-e 's/\| [ +!#*@$] +[0-9]+\.[0-9]+ us \|/| DURATION |/' "$T/trace" >"$T/trace.norm" &&
   diff -u $SRC/expected/basic.graph "$T/trace.norm" >>"$T/pie.log" &&
   ! PATCHSITE_TABLE=abs PATCHSITE_CC=$CC "$B/patchsite-cc" -O2 -Wno-unknown-attributes -pg \
	-mfentry -fpie -pie -Wl,-z,text -o "$T/pie-abs" $SRC/basic.c >"$T/pie-abs.log" 2>&1 &&
   grep -q 'read-only' "$T/pie-abs.log" &&
   ! PATCHSITE_TABLE=bogus "$B/patchsite-cc" -c -o "$T/x.o" $SRC/basic.c 2>"$T/bogus.err" &&
   grep -qx 'patchsite-cc: PATCHSITE_TABLE=bogus: expected pcrel or abs' "$T/bogus.err"; then
	pass "patchsite-cc: a PIE with the place-relative table links with -z text, no TEXTREL, traced as basic.graph; PATCHSITE_TABLE=abs: ld refuses -z text"
else
	cat "$T/pie-abs.log" "$T/bogus.err" >>"$T/pie.log" 2>/dev/null
	fail "patchsite-cc: place-relative table" "$T/pie.log"
fi

# A program linked with -pg (gprof's start-up, gcrt1.o), with a table (-mfentry
# -mrecord-mcount) and without (plain -pg, uftrace's build): traced, gprof's start-up
# does not run (gprof.c: no gmon.out, as uftrace); untraced, it writes gmon.out as always.
for pgform in fentry plain; do
	d="$T/pglink-$pgform"
	mkdir -p "$d"
	fl="-pg -mfentry -mrecord-mcount"; [ $pgform = plain ] && fl="-pg"
	if ! ${CC:-gcc} -O2 $fl -o "$d/basic" $SRC/basic.c >>"$T/build.log" 2>&1; then
		fail "linked with -pg ($pgform): build" "$T/build.log"
		continue
	fi
	(cd "$d" && PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$d/trace" LD_PRELOAD="$PRELOAD" \
		./basic >"$d/out" 2>"$d/err")
	rc=$?
	(cd "$d" && PATCHSITE_LOG=note PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$d/trace2" \
		LD_PRELOAD="$PRELOAD" ./basic >/dev/null 2>"$d/note")
	if [ $rc -eq 0 ] && grep -qx 'sum=5' "$d/out" && [ ! -s "$d/err" ] && [ ! -e "$d/gmon.out" ] &&
	   grep -q ': work_mid <-' "$d/trace" &&
	   grep -q "^patchsite: note: linked with -pg: gprof's start-up skipped while traced" "$d/note" &&
	   (cd "$d" && ./basic >/dev/null) && [ -e "$d/gmon.out" ]; then
		pass "linked with -pg ($pgform): traced, no gmon.out; untraced, gmon.out written"
	else
		ls "$d" >>"$d/err"
		fail "linked with -pg ($pgform) (exit $rc)" "$d/err"
	fi
done

# -pg without -mfentry through patchsite-cc: gcc calls mcount after the prologue (objdump
# shows where); each site is traced from there (the return slot at 8(%rbp)), PIE and non-PIE,
# function and function_graph, nothing refused.
for form in pie nonpie; do
	fl=; [ $form = nonpie ] && fl="-fno-pie -no-pie"
	if ! PATCHSITE_CC=${CC:-gcc} "$B/patchsite-cc" -O2 -pg -mrecord-mcount $fl -o "$T/mcount-$form" \
		$SRC/basic.c >>"$T/build.log" 2>&1; then
		fail "mcount ($form): build" "$T/build.log"
		continue
	fi
	late=$(objdump -d --no-show-raw-insn "$T/mcount-$form" |
	       awk '/<work_mid>:/ { f = 1; n = 0; next } f && /call.*mcount/ { print n; exit } f { n++ }')
	for tracer in function function_graph; do
		PATCHSITE_TRACER=$tracer PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$PRELOAD" \
			"$T/mcount-$form" >"$T/out" 2>"$T/err"
		rc=$?
		if [ $tracer = function ]; then
			want='work_mid <-main'
		else
			want='work_mid() {'
		fi
		if [ $rc -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ "${late:-0}" -gt 0 ] &&
		   [ ! -s "$T/err" ] && grep -qF "$want" "$T/trace"; then
			pass "mcount ($form, $tracer): call at insn $late of work_mid traced: $want"
		else
			fail "mcount ($form, $tracer) (exit $rc, call at insn ${late:-none})" "$T/err"
		fi
	done
done

# A realigned stack's prologue (DRAP, testdata/patchsite/drap.c): 8(%rbp) is a copy of the
# return address, so that one site is refused by name and the rest traced.
if ${CC:-gcc} -O2 -pg -mrecord-mcount -fno-pie -c -o "$T/drap.o" $SRC/drap.c >>"$T/build.log" 2>&1 &&
   ${CC:-gcc} -no-pie -o "$T/drap" "$T/drap.o" >>"$T/build.log" 2>&1 &&
   objdump -d --no-show-raw-insn "$T/drap" | grep -A1 '<drap_realigned>:' | grep -q 'lea .*0x8(%rsp),%r10'; then
	PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$PRELOAD" \
		"$T/drap" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	   grep -q "drap_realigned+0x[0-9a-f]* (.*): a call to mcount, but not after a frame-pointer prologue at drap_realigned's start .*: site refused$" "$T/err" &&
	   [ "$(grep -c 'drap_use();' "$T/trace")" -eq 2 ] && ! grep -q 'drap_realigned' "$T/trace"; then
		pass "mcount: a realigned (DRAP) prologue refused by name, the rest traced"
	else
		fail "mcount: DRAP prologue (exit $rc)" "$T/err"
	fi
else
	fail "mcount: build drap (or gcc no longer emits the DRAP prologue)" "$T/build.log"
fi

# Stripped: a call to mcount with no function symbol around it has no known prologue, so
# each such site is refused by name and the program runs as built.
if ${CC:-gcc} -O2 -pg -mrecord-mcount -fno-pie -c -o "$T/strip.o" $SRC/basic.c >>"$T/build.log" 2>&1 &&
   ${CC:-gcc} -no-pie -o "$T/stripped" "$T/strip.o" >>"$T/build.log" 2>&1 && strip "$T/stripped"; then
	PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$PRELOAD" \
		"$T/stripped" >"$T/out" 2>"$T/err"
	rc=$?
	n=$(grep -c 'a call to mcount after a prologue, in code with no function symbol (stripped?): its return slot is not known: site refused$' "$T/err")
	if [ $rc -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ "$n" -gt 0 ] && [ "$(wc -l <"$T/err")" -eq "$n" ]; then
		pass "mcount, stripped: $n sites refused by name, the program runs as built"
	else
		fail "mcount, stripped (exit $rc)" "$T/err"
	fi
else
	fail "mcount, stripped: build" "$T/build.log"
fi

# -finstrument-functions: traced from its calls to __cyg_profile_func_enter/exit (cyg.sh
# holds the uftrace comparisons); here basic.c's work_mid is seen, nothing on stderr.
if ${CC:-gcc} -O2 -finstrument-functions -o "$T/instr" $SRC/basic.c >>"$T/build.log" 2>&1; then
	PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$PRELOAD" \
		"$T/instr" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ] &&
	   grep -q ': work_mid <-' "$T/trace"; then
		pass "-finstrument-functions: work_mid traced, runs as built"
	else
		fail "-finstrument-functions (exit $rc)" "$T/err"
	fi
else
	fail "-finstrument-functions: build" "$T/build.log"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
