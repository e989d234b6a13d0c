#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# -finstrument-functions programs traced: usage  cyg.sh BUILD_DIR plain|san
#
# gcc and clang, C (testdata/patchsite/lto_{main,lib}.c) and C++ with
# exceptions through instrumented frames (testdata/patchsite/cyg.cc), built
# through build/patchsite-cc / patchsite-c++ with -finstrument-functions.
# The runtime defines __cyg_profile_func_enter/exit (arch/x86_64/cyg.S,
# sites/cyg.c): the calls are the sites, the exit call gives the exit.
# Oracles, on the same binary:
#   - uftrace (--no-libcall --no-event), which traces such binaries through
#     the same two calls: the nesting of its replay (function, depth, in
#     order) and its calls per function must equal patchsite's
#     function_graph replay and report;
#   - the function tracer's lines per function equal uftrace's calls;
#   - the program's output untraced, the same traced.
# Where uftrace is wrong (clang C++: no exit call when an exception leaves
# a function), the nesting of the gcc build's uftrace replay is the oracle.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail, nesting
suite_init cyg "${1:-build}" "${2:-plain}"
SRC=testdata/patchsite

# calls FILE: "function calls" from a report table (patchsite's or uftrace's).
calls() {
	# the calls: the first number with no unit after it (times are a number and a
	# unit; patchsite's table has on- and off-CPU columns before the calls)
	awk 'NF >= 6 { for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+$/ && $(i + 1) !~ /^(ns|us|ms|s)$/) {
		print $NF, $i; break } }' "$1" | sort
}

command -v uftrace >/dev/null || { echo "FAIL uftrace not installed (scripts/deps.sh)"; exit 1; }

for form in gcc-c clang-c gcc-cxx clang-cxx; do
	d="$T/$form"
	mkdir -p "$d"
	case $form in
	gcc-c)     w=patchsite-cc;  cc=gcc;     src="$SRC/lto_main.c $SRC/lto_lib.c" ;;
	clang-c)   w=patchsite-cc;  cc=clang;   src="$SRC/lto_main.c $SRC/lto_lib.c" ;;
	gcc-cxx)   w=patchsite-c++; cc=g++;     src="$SRC/cyg.cc" ;;
	clang-cxx) w=patchsite-c++; cc=clang++; src="$SRC/cyg.cc" ;;
	esac
	command -v $cc >/dev/null || { echo "SKIP $form: $cc not installed"; continue; }
	if ! PATCHSITE_CC=$cc PATCHSITE_CXX=$cc "$B/$w" -O2 -finstrument-functions -o "$d/prog" \
		$src >"$d/build.log" 2>&1; then
		fail "$form: build through $w" "$d/build.log"
		continue
	fi
	(cd "$d" && ./prog >plain.out 2>&1 &&
	 uftrace record --no-libcall --no-event ./prog >/dev/null 2>u.err &&
	 uftrace replay --no-pager >u.replay 2>>u.err && uftrace report --no-pager >u.report 2>>u.err)
	(cd "$d" && LD_PRELOAD="$SANPRE" "$PS" record -d g.data --no-libcall --tracer=function_graph ./prog \
		>traced.out 2>p.err &&
	 "$PS" replay --no-sched -d g.data >p.replay 2>>p.err && "$PS" report -d g.data >p.report 2>>p.err &&
	 LD_PRELOAD="$SANPRE" "$PS" record -d f.data --no-libcall --tracer=function ./prog >/dev/null 2>>p.err &&
	 "$PS" replay --no-sched -d f.data >f.replay 2>>p.err)
	nesting "$d/u.replay" >"$d/u.nest"
	# clang calls no __cyg_profile_func_exit when an exception leaves a function (gcc
	# does, from a cleanup), so uftrace leaves leaf open and nests the rest of the run
	# in it.  The call structure is the source's: gcc's build, where uftrace is right,
	# is the oracle; the runtime closes such a call where the exception lands.
	[ $form = clang-cxx ] && [ -s "$T/gcc-cxx/u.nest" ] && cp "$T/gcc-cxx/u.nest" "$d/u.nest"
	nesting "$d/p.replay" >"$d/p.nest"
	calls "$d/u.report" >"$d/u.calls"
	calls "$d/p.report" >"$d/p.calls"
	awk '/ <-/ { for (i = 1; i <= NF; i++) if ($(i + 1) ~ /^<-/) print $i }' "$d/f.replay" |
		sort | uniq -c | awk '{ print $2, $1 }' >"$d/f.calls"
	if [ -s "$d/u.nest" ] && cmp -s "$d/u.nest" "$d/p.nest" && cmp -s "$d/u.calls" "$d/p.calls" &&
	   cmp -s "$d/u.calls" "$d/f.calls" && cmp -s "$d/plain.out" "$d/traced.out" &&
	   [ "$(wc -l <"$d/p.nest")" -gt 20 ]; then
		pass "$form: function_graph nesting ($(wc -l <"$d/p.nest") lines) and calls ($(tr '\n' ' ' <"$d/p.calls" | cut -c1-60)...) equal uftrace's, function tracer too, output unchanged"
	else
		{ echo "uftrace < > patchsite nesting:"; diff "$d/u.nest" "$d/p.nest" | head -20
		  echo "calls (uftrace, graph, function):"; paste "$d/u.calls" "$d/p.calls" "$d/f.calls"
		  cat "$d/u.err" "$d/p.err"; } >"$d/why" 2>&1
		fail "$form: against uftrace" "$d/why"
	fi
done

# set_graph_function (-G) and max_graph_depth (-D) on the same gcc build, against uftrace's
# -F (its filter: the function and what it calls) and -D on it: the nesting of both replays.
d="$T/gcc-c"
for opt in "-G step:-F step" "-G fact:-F fact" "-D 2:-D 2" "-G step -D 2:-F step -D 2"; do
	[ -x "$d/prog" ] || break
	ours=${opt%%:*} theirs=${opt#*:}
	# shellcheck disable=SC2086  # the options are words
	(cd "$d" && rm -rf uftrace.data && uftrace record --no-libcall --no-event $theirs ./prog \
		>/dev/null 2>o.err && uftrace replay --no-pager >o.ureplay 2>>o.err &&
	 LD_PRELOAD="$SANPRE" "$PS" record -d o.data --no-libcall $ours ./prog >/dev/null 2>>o.err &&
	 "$PS" replay --no-sched -d o.data >o.replay 2>>o.err)
	nesting "$d/o.ureplay" >"$d/o.unest"
	nesting "$d/o.replay" >"$d/o.nest"
	if [ -s "$d/o.unest" ] && cmp -s "$d/o.unest" "$d/o.nest"; then
		pass "$ours: nesting ($(wc -l <"$d/o.nest") lines) equals uftrace's $theirs"
	else
		{ echo "uftrace $theirs < > patchsite $ours nesting:"; diff "$d/o.unest" "$d/o.nest" | head -20
		  cat "$d/o.err"; } >"$d/why" 2>&1
		fail "$ours against uftrace $theirs" "$d/why"
	fi
done

# Untraced with the runtime preloaded (nothing asked): the calls reach ours and return.
d="$T/gcc-cxx"
if [ -x "$d/prog" ]; then
	LD_PRELOAD="$SANPRE $PWD/$B/libpatchsite.so" "$d/prog" >"$d/idle.out" 2>"$d/idle.err"
	if cmp -s "$d/plain.out" "$d/idle.out" && [ ! -s "$d/idle.err" ]; then
		pass "preloaded, nothing traced: same output, nothing on stderr"
	else
		fail "preloaded, nothing traced" "$d/idle.err"
	fi
fi

# set_ftrace_args on such a function: its registers at the calls are this_fn and call_site,
# so no args are recorded and that is said once (never values that are not its args).
d="$T/gcc-c"
if [ -x "$d/prog" ]; then
	(cd "$d" && PATCHSITE_ARGS='lib_scale@arg1' LD_PRELOAD="$SANPRE" "$PS" record -d a.data \
		--no-libcall --tracer=function_graph ./prog >args.out 2>args.err && "$PS" replay --no-sched -d a.data >a.replay)
	if cmp -s "$d/plain.out" "$d/args.out" && [ "$(wc -l <"$d/args.err")" = 1 ] &&
	   grep -q "set_ftrace_args: a function traced from its -finstrument-functions calls gets no args" "$d/args.err" &&
	   grep -q 'lib_scale();' "$d/a.replay" && ! grep -q 'lib_scale([^)]' "$d/a.replay"; then
		pass "set_ftrace_args on a -finstrument-functions function: refused once by name, no args shown"
	else
		fail "set_ftrace_args on a -finstrument-functions function" "$d/args.err"
	fi
fi

# enabled_functions: a function traced from these calls is enabled while a tracer wants it
# (its site is never written); notfound.c's work() calls the enter hook (objdump).
d="$T/enabled"
mkdir -p "$d"
if gcc -O2 -finstrument-functions -Iinclude -o "$d/nf" $SRC/notfound.c -L"$PWD/$B" -lpatchsite \
	-Wl,-rpath,"$PWD/$B" >"$d/build.log" 2>&1 &&
   objdump -d "$d/nf" | awk '/<work>:/,/^$/' | grep -q 'call.*<__cyg_profile_func_enter'; then
	PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$d/trace" LD_PRELOAD="$SANPRE" \
		"$d/nf" enabled_functions >"$d/out" 2>"$d/err"
	if grep -q "^work \[nf\] (1)	function$" "$d/out" && [ ! -s "$d/err" ]; then
		pass "enabled_functions lists work [nf] (1) function"
	else
		cat "$d/err" >>"$d/out"
		fail "enabled_functions with -finstrument-functions" "$d/out"
	fi
else
	fail "enabled: build" "$d/build.log"
fi

# The tools know the form.  recordmcount --list: every call to the two hooks, as readelf -r
# lists their relocations, marked interposed (never recorded); patchverify: a note, not
# no-table's "nothing here can be traced".
d="$T/tools"
mkdir -p "$d"
if g++ -O2 -finstrument-functions -c -o "$d/cyg.o" $SRC/cyg.cc 2>"$d/build.log"; then
	want=$(readelf -rW "$d/cyg.o" | grep -c ' __cyg_profile_func_\(enter\|exit\)')
	"$B/recordmcount" --list "$d/cyg.o" >"$d/list" 2>"$d/err"
	rc=$?
	got=$(awk -F'\t' '$4 ~ /^__cyg_profile_func_(enter|exit)$/ && $5 == "interposed"' "$d/list" | wc -l)
	if [ $rc = 0 ] && [ "$want" -gt 4 ] && [ "$got" = "$want" ] && [ "$(wc -l <"$d/list")" = "$want" ] &&
	   [ ! -s "$d/err" ] && ! readelf -S "$d/cyg.o" | grep -q mcount_loc; then
		pass "recordmcount --list: $got calls to __cyg_profile_func_enter/exit as readelf -r has them, interposed"
	else
		fail "recordmcount --list on a -finstrument-functions object (exit $rc, $got of $want)" "$d/list"
	fi
	"$B/patchverify" "$T/gcc-cxx/prog" >/dev/null 2>"$d/pv.err"
	rc=$?
	if [ $rc = 0 ] && [ "$(wc -l <"$d/pv.err")" = 1 ] &&
	   grep -q "prog: note: -: no-table: built with -finstrument-functions: no table needed" "$d/pv.err"; then
		pass "patchverify: a -finstrument-functions program is named as such (a note)"
	else
		fail "patchverify on a -finstrument-functions program (exit $rc)" "$d/pv.err"
	fi
else
	fail "tools: build" "$d/build.log"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
