#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Functional tests of libpatchsite: usage  run.sh BUILD_DIR plain|san
#
# Samples in testdata/patchsite/ are compiled here, in a temporary
# directory, with gcc in every form the runtime serves (compile with the
# form's flags, link without -pg):
#   nonpie  -pg -mfentry -mrecord-mcount -fno-pie  (link -no-pie)   e8 call via the PLT
#   pie     -pg -mfentry -mrecord-mcount                            ff 15 call via the GOT
#   nop     -pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie      nopl already
#   pfe     -fpatchable-function-entry=5                            5 x nop
#   piecf   pie + -fcf-protection                                   endbr64 first
#   pfecf   pfe + -fcf-protection
#   rmc     -pg -mfentry -fno-pie, then our recordmcount on each object
#   rmcpie  -pg -mfentry (PIE), then our recordmcount
#   ret     nop + -minstrument-return=nop5 -mrecord-return: function_graph exit sites
#   mcount    -pg -mrecord-mcount -fno-pie (link -no-pie): e8 call mcount after the prologue
#   mcountpie -pg -mrecord-mcount: ff 15 call *mcount@GOTPCREL(%rip) after the prologue
#   pg      -pg -fno-pie (link -no-pie): no table, sites found from symbols and prologues
#   pgpie   -pg: the same, PIE
# Traces are compared with testdata/patchsite/expected/ after normalising
# task names, pids, CPUs, times and addresses.  Compiler: the system gcc
# (written with Debian gcc 12.2.0).
set -u
. tests/patchsite/lib.sh	# suite_init, pass
suite_init test "${1:-build}" "${2:-plain}"
SRC=testdata/patchsite
SANFLAGS=
PRELOAD="$PATCHSITE_LIB"
STRESS="4 2000 200000"
RINGS="4 100 20000"	# testdata/patchsite/drivers/rings.c: threads, rounds, steady calls
if [ "$MODE" = san ]; then
	SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
	PRELOAD="$SANPRE $PRELOAD"
	STRESS="4 500 50000"
	RINGS="4 50 10000"
fi

# A failure shows 40 lines of its log.
FAIL_LINES=40

normalise() {
	sed -E -e 's/^ *[^ ]+-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+:/TASK-PID [CPU] TIME:/' \
	    -e 's/^ *[0-9]+\) +[^ ]+-[0-9]+ \|/CPU) TASK-PID |/' \
	    -e 's/\| [ +!#*@$] +[0-9]+\.[0-9]+ us \|/| DURATION |/' \
	    -e 's/^ *[0-9]+\) [^ ]+-[0-9]+ => [^ ]+-[0-9]+$/CPU) TASK-PID => TASK-PID/' \
	    -e 's/0x[0-9a-f]+/ADDR/g' -e 's/#P:[0-9]+/#P:N/' "$1"
}

# compare NAME EXPECTED ACTUAL
compare() {
	normalise "$3" >"$3.norm"
	if diff -u "$SRC/expected/$2" "$3.norm" >"$3.diff"; then pass "$1"; else fail "$1" "$3.diff"; fi
}

run_traced() {	# OUT ERR PROG ARGS...: preloaded, with PATCHSITE_* from the caller
	out=$1 err=$2
	shift 2
	LD_PRELOAD="$PRELOAD" "$@" >"$out" 2>"$err"
}

# PS_FORMS=pie (say) runs one form while working on the runtime; PS_SECTIONS=no stops
# after the forms (make check runs the forms in two halves, one with the sections).
FORMS=${PS_FORMS:-"nonpie pie nop pfe piecf pfecf ret mcount mcountpie pg pgpie"}
if [ -n "${PS_FORMS:-}" ]; then
	:
elif [ -x "$B/recordmcount" ]; then
	FORMS="$FORMS rmc rmcpie"
else
	echo "SKIP forms rmc, rmcpie: no $B/recordmcount"
fi
for form in $FORMS; do
	if ! build_form "$T/basic-$form" $form $SRC/basic.c; then
		fail "$form: build" "$T/build.log"
		continue
	fi
	# The function tracer, everything but skip_me.
	PATCHSITE_TRACER=function PATCHSITE_NOTRACE=skip_me PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	if [ $? -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ]; then
		compare "$form: function tracer, preloaded" basic.function "$T/trace"
	else
		fail "$form: function tracer, preloaded" "$T/err"
	fi
	# A filter.
	PATCHSITE_TRACER=function PATCHSITE_FILTER='work_*' PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	compare "$form: PATCHSITE_FILTER=work_*" basic.filter "$T/trace"

	# function_graph, and its return hooking across longjmp, thread exit, C++ exceptions.
	PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	if grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ]; then
		compare "$form: function_graph" basic.graph "$T/trace"
	else
		fail "$form: function_graph" "$T/err"
	fi
	# coro: swapcontext coroutines and signal handlers on a sigaltstack.
	for sample in longjmp:c:'sum=22' texit:c:'ret=5,7' except:cc:'sum=2' \
		coro:c:'sum=352 co=12 handled=15'; do
		name=${sample%%:*} rest=${sample#*:} ext=${rest%%:*} want=${rest#*:}
		if [ $ext = cc ]; then
			CC=g++ build_form "$T/$name-$form" $form $SRC/$name.cc
		else
			build_form "$T/$name-$form" $form $SRC/$name.c -- -pthread
		fi || { fail "$form: build $name" "$T/build.log"; continue; }
		PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/$name-$form"
		rc=$?
		# ASan's note on swapcontext (coro) is not an error.
		sed -i "/ASan doesn't fully support makecontext/,/^\$/d" "$T/err"
		exp=$name.graph
		[ -e "$SRC/expected/$name.graph-$form" ] && exp=$name.graph-$form
		if [ $rc -eq 0 ] && grep -qx "$want" "$T/out" && [ ! -s "$T/err" ]; then
			compare "$form: function_graph across $name" $exp "$T/trace"
		else
			fail "$form: function_graph across $name" "$T/err"
		fi
	done

	# Threads and fork.
	if build_form "$T/threads-$form" $form $SRC/threads.c -- -pthread; then
		PATCHSITE_TRACER=function PATCHSITE_FILTER='work_*' PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/threads-$form"
		if grep -qx 'sum=7 child=0' "$T/out"; then
			compare "$form: threads and fork" threads.function "$T/trace"
		else
			fail "$form: threads and fork" "$T/out"
		fi
	else
		fail "$form: build threads" "$T/build.log"
	fi

	# The same, linked in as one object instead of preloaded.
	if [ "$MODE" = plain ]; then
		build_form "$T/linked-$form" $form $SRC/basic.c -- "$B/patchsite.o" -pthread &&
		PATCHSITE_TRACER=function PATCHSITE_NOTRACE=skip_me PATCHSITE_OUTPUT="$T/trace" \
			"$T/linked-$form" >"$T/out" 2>"$T/err" &&
		compare "$form: function tracer, linked in (patchsite.o)" basic.function "$T/trace" ||
		fail "$form: linked in (patchsite.o)" "$T/err"
	fi

	# A traced shared library next to a traced program (gcc has no -mnop-mcount with -fPIC).
	libform=$form
	[ $form = nop ] && libform=pie
	case $form in nonpie|rmc*|ret) libform=pie ;; mcount) libform=mcountpie ;; pg) libform=pgpie ;; esac
	$CC -O2 -g -fPIC -shared $(form_flags $libform) $SRC/libwork.c \
		-o "$T/libwork-$form.so" >>"$T/build.log" 2>&1 &&
	build_form "$T/uselib-$form" $form $SRC/uselib.c -- "$T/libwork-$form.so" \
		-Wl,-rpath,"$T" || { fail "$form: build uselib" "$T/build.log"; continue; }
	PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/uselib-$form"
	compare "$form: program and shared library" uselib.function "$T/trace"
	PATCHSITE_TRACER=function PATCHSITE_FILTER="*inner:mod:libwork-$form.so" \
		PATCHSITE_OUTPUT="$T/trace" run_traced "$T/out" "$T/err" "$T/uselib-$form"
	compare "$form: glob:mod:library" uselib.mod "$T/trace"

	# The API, and live patching under load, linked with libpatchsite.a.
	$CC -O2 -g -Iinclude $SANFLAGS -c testdata/patchsite/drivers/api.c -o "$T/api.o" &&
	$CC -O2 -g -Iinclude $SANFLAGS -c testdata/patchsite/drivers/stress.c -o "$T/stress.o" &&
	$CC -O2 -g -Iinclude -Itestdata/patchsite/drivers $SANFLAGS -c testdata/patchsite/drivers/rings.c -o "$T/rings.o" ||
		{ fail "build api/stress/rings"; continue; }
	if build_form "$T/api-$form" $form $SRC/work.c -- "$T/api.o" "$B/libpatchsite.a" $SANFLAGS \
		-pthread; then
		"$T/api-$form" >"$T/out" 2>&1
		rc=$?
		n_fail=$(grep -c '^FAIL' "$T/out")
		if [ $rc -eq 0 ] && [ "$n_fail" -eq 0 ] && grep -q '^api: ok' "$T/out"; then
			pass "$form: API ($(grep -c '^PASS' "$T/out") checks)"
		else
			fail "$form: API (exit $rc)" "$T/out"
		fi
	else
		fail "$form: build api" "$T/build.log"
	fi
	if build_form "$T/stress-$form" $form $SRC/work.c -- "$T/stress.o" "$B/libpatchsite.a" \
		$SANFLAGS -pthread; then
		"$T/stress-$form" $STRESS >"$T/out" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out"; then
			pass "$form: stress $STRESS: $(grep steady "$T/out" | sed 's/.*phase //'); $(grep INFO "$T/out" | sed 's/INFO stress: //')"
		else
			fail "$form: stress (exit $rc)" "$T/out"
		fi
	else
		fail "$form: build stress" "$T/build.log"
	fi
	# The same stress with the runtime a shared library the program needs (-lpatchsite:
	# DT_NEEDED, not preloaded): its start-up reads the program's dynamic section
	# (sites/late.c, arch/dyn.h), as on aarch64 and riscv64 (tests/patchsite-qemu/run.sh).
	if [ $form = pie ]; then
		if build_form "$T/stress-so" $form $SRC/work.c -- "$T/stress.o" -L"$B" -lpatchsite \
			-Wl,-rpath,"$PWD/$B" $SANFLAGS -pthread; then
			"$T/stress-so" $STRESS >"$T/out" 2>&1
			rc=$?
			if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out" &&
			   readelf -d "$T/stress-so" | grep -q 'NEEDED.*\[libpatchsite\.so\]'; then
				pass "$form: stress $STRESS, linked with libpatchsite.so (DT_NEEDED): $(grep steady "$T/out" | sed 's/.*phase //')"
			else
				fail "$form: stress linked with libpatchsite.so (exit $rc)" "$T/out"
			fi
		else
			fail "$form: build stress linked with libpatchsite.so" "$T/build.log"
		fi
	fi
	# The rings do not depend on how a site calls (ret: graph exits from exit sites).
	case $form in pie|nonpie|ret|mcount*|pg*) ;; *) continue ;; esac
	if build_form "$T/rings-$form" $form $SRC/work.c -- "$T/rings.o" "$B/libpatchsite.a" \
		$SANFLAGS -pthread; then
		"$T/rings-$form" $RINGS >"$T/out" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out"; then
			pass "$form: built-in tracers' rings, $RINGS: $(grep -c '^PASS' "$T/out") checks"
		else
			fail "$form: rings $RINGS (exit $rc)" "$T/out"
		fi
	else
		fail "$form: build rings" "$T/build.log"
	fi
done

if [ "${PS_SECTIONS:-yes}" = no ]; then
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
	exit
fi

# The sections below use these builds; with PS_FORMS the loop may not have made them.
{ [ -x "$T/basic-pie" ] || build_form "$T/basic-pie" pie $SRC/basic.c; } &&
{ [ -x "$T/basic-nonpie" ] || build_form "$T/basic-nonpie" nonpie $SRC/basic.c; } &&
{ [ -x "$T/basic-nop" ] || build_form "$T/basic-nop" nop $SRC/basic.c; } &&
{ [ -x "$T/basic-pfe" ] || build_form "$T/basic-pfe" pfe $SRC/basic.c; } &&
{ [ -x "$T/threads-pie" ] || build_form "$T/threads-pie" pie $SRC/threads.c -- -pthread; } &&
{ [ -x "$T/except-pie" ] || CC=g++ build_form "$T/except-pie" pie $SRC/except.cc; } ||
	fail "build the programs of the sections below" "$T/build.log"

# Libraries loaded with dlopen after tracing started, in each form a shared library takes:
#   pie     -fPIC: ff 15 call through the GOT       nonpie  -fno-pic: e8 call through the PLT
#   pfe     -fPIC -fpatchable-function-entry=5      rmcpie  -fPIC, then our recordmcount (nopw)
# libdyntop needs libdyn, so dlopen of the one loads the other as its dependency.
build_lib() {	# OUT FORM SOURCE [LINK ARGS]
	out=$1 form=$2 src=$3
	shift 3
	o="$T/$(basename "$out" .so).o"
	case $form in
	pie)    fl="-fPIC -pg -mfentry -mrecord-mcount" ;;
	nonpie) fl="-fno-pic -pg -mfentry -mrecord-mcount" ;;
	pfe)    fl="-fPIC -fpatchable-function-entry=5" ;;
	rmcpie) fl="-fPIC -pg -mfentry" ;;
	mcountpie) fl="-fPIC -pg -mrecord-mcount" ;;	# mcount after the prologue, a table
	pgpie)  fl="-fPIC -pg" ;;			# no table: found at load
	esac
	$CC -O2 -g $fl -c "$src" -o "$o" >>"$T/build.log" 2>&1 || return 1
	if [ $form = rmcpie ]; then
		"$B/recordmcount" "$o" >>"$T/build.log" 2>&1 || return 1
	fi
	$CC -shared -o "$out" "$o" "$@" >>"$T/build.log" 2>&1
}
DLFORMS="pie nonpie pfe mcountpie pgpie"
[ -x "$B/recordmcount" ] && DLFORMS="$DLFORMS rmcpie"
DLSTRESS="4 300"
DLPATH=
if [ "$MODE" = san ]; then
	DLSTRESS="2 100"
	DLPATH=$T	# ASan's dlopen interceptor is the caller glibc sees: no DT_RUNPATH
fi
# The program finds the libraries by bare name through its DT_RUNPATH: the runtime's
# dlopen must search as if the program had called the C library's.
build_form "$T/dlopen-prog" pie $SRC/dlopen.c -- -Wl,-rpath,"$T" &&
$CC -O2 -g -Iinclude -Itestdata/patchsite/drivers $SANFLAGS testdata/patchsite/drivers/dlopen.c -o "$T/dlopen-api" "$B/libpatchsite.a" \
	$SANFLAGS -pthread >>"$T/build.log" 2>&1 &&
$CC -O2 -g -Iinclude -Itestdata/patchsite/drivers $SANFLAGS testdata/patchsite/drivers/dlspin.c -o "$T/dlspin" "$B/libpatchsite.a" \
	$SANFLAGS -pthread >>"$T/build.log" 2>&1 &&
$CC -O2 -g -Iinclude -Itestdata/patchsite/drivers $SANFLAGS testdata/patchsite/drivers/dlruntime.c -o "$T/dlruntime" \
	$SANFLAGS -pthread >>"$T/build.log" 2>&1 &&
build_form "$T/dlmopen-prog" pie $SRC/dlmopen.c -- -Wl,-rpath,"$T" &&
build_form "$T/dlmopen-linked" pie $SRC/dlmopen.c -- "$B/libpatchsite.a" $SANFLAGS -pthread \
	-Wl,-rpath,"$T" || fail "build dlopen tests" "$T/build.log"
# A second libpatchsite in a namespace of its own, for testdata/patchsite/dlmopen.c: not under
# ASan (that copy would need an ASan runtime of its own in that namespace).
RUNTIME_COPY="$PWD/$B/libpatchsite.so" INERT=-95	# ENOTSUP
[ "$MODE" = san ] && RUNTIME_COPY= INERT=0

# dlmopen_verdict NAME LIBFORM: what testdata/patchsite/dlmopen.c printed, traced and said.
# libdyn in the base namespace is traced: 3 calls of dyn_outer -> dyn_inner.  The copy in a
# new namespace (5 calls) and libdyntop there (2 calls) are not, and each is reported by name
# exactly once on stderr, although libdyn is dlmopened into that namespace twice.  The second
# libpatchsite, if loaded, says once that it stays inert.
dlmopen_verdict() {
	other="^patchsite: warning: .*/%s-$2.so: loaded by dlmopen into namespace [1-9][0-9]*: not traced\$"
	inert=$(grep -c '^patchsite: note: this copy was loaded into namespace [1-9][0-9]* (dlmopen): inert' "$T/err")
	if grep -qx "base=21 other=50 top=211 again=1 inert=$INERT" "$T/out" &&
	   [ "$(grep -c "$(printf "$other" libdyn)" "$T/err")" -eq 1 ] &&
	   [ "$(grep -c "$(printf "$other" libdyntop)" "$T/err")" -eq 1 ] &&
	   [ "$inert" -eq "$([ -n "$RUNTIME_COPY" ] && echo 1 || echo 0)" ] &&
	   ! grep -q ': error: ' "$T/err" &&
	   [ "$(grep -c ' dyn_outer <-prog_sum$' "$T/trace")" -eq 3 ] &&
	   [ "$(grep -c ' dyn_inner <-dyn_outer$' "$T/trace")" -eq 3 ] &&
	   ! grep -q top_call "$T/trace"; then
		pass "$1: $(grep -m1 "$(printf "$other" libdyntop)" "$T/err" | sed 's/^patchsite: //;s|/.*/||')"
	else
		fail "$1" "$T/err"
		sed 's/^/    out: /' "$T/out"
	fi
}
# dl_trace NAME EXPECTED TRACER [FILTER]: testdata/patchsite/dlopen.c traced, in form $libform.
dl_trace() {
	LD_LIBRARY_PATH=$DLPATH PATCHSITE_TRACER=$3 PATCHSITE_FILTER=${4:-} \
		PATCHSITE_OUTPUT="$T/trace" run_traced "$T/out" "$T/err" "$T/dlopen-prog" $libform
	if grep -qx 'sum=213' "$T/out" && [ ! -s "$T/err" ]; then
		compare "dlopen ($libform): $1" $2 "$T/trace"
	else
		fail "dlopen ($libform): $1" "$T/err"
		sed 's/^/    out: /' "$T/out"
	fi
}
DLSPIN=200
[ "$MODE" = san ] && DLSPIN=50
for libform in $DLFORMS; do
	if ! build_lib "$T/libdyn-$libform.so" $libform $SRC/libdyn.c ||
	   ! build_lib "$T/libdyntop-$libform.so" $libform $SRC/libdyntop.c \
		-L"$T" -ldyn-$libform -Wl,-rpath,'$ORIGIN'; then
		fail "dlopen ($libform): build libraries" "$T/build.log"
		continue
	fi
	dl_trace "function_graph through dlopen, dlclose, dlopen" dlopen.graph function_graph
	# The function tracer: callers inside a library that was unloaded before the trace is written.
	dl_trace "function tracer, callers in unloaded code named" dlopen.function function
	# A :mod: filter set at start-up, before its library is loaded.
	dl_trace "PATCHSITE_FILTER='*inner:mod:libdyn-*.so', pending" dlopen.mod function_graph \
		'*inner:mod:libdyn-*.so'
	"$T/dlopen-api" "$T" $libform $DLSTRESS >"$T/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out"; then
		pass "dlopen ($libform): API, $(grep -c '^PASS' "$T/out") checks; $(grep '^PASS threads: [0-9]* threads' "$T/out" | sed 's/^PASS threads: //;s/:.*//'); $(grep INFO "$T/out" | sed 's/INFO dlopen: //')"
	else
		fail "dlopen ($libform): API and threads (exit $rc)" "$T/out"
	fi
	# libpatchsite itself dlopened (testdata/patchsite/drivers/dlruntime.c says what it asserts).  No
	# threads for pfe: the runtime NOPs a library the threads already run (see dlspin below).
	RT_THREADS=$DLSTRESS
	[ $libform = pfe ] && RT_THREADS=
	"$T/dlruntime" "$PWD/$B/libpatchsite.so" "$T" $libform $RT_THREADS >"$T/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out"; then
		pass "dlopen ($libform): libpatchsite dlopened, libraries picked up by API calls, $(grep -c '^PASS' "$T/out") checks$(grep INFO "$T/out" | sed 's/INFO dlruntime: /; /')"
	else
		fail "dlopen ($libform): libpatchsite dlopened (exit $rc)" "$T/out"
	fi
	# dlmopen into the base namespace and into others, preloaded and linked in.
	LD_LIBRARY_PATH=$DLPATH PATCHSITE_LOG=1 PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/dlmopen-prog" $libform $RUNTIME_COPY
	dlmopen_verdict "dlmopen ($libform), preloaded" $libform
	LD_LIBRARY_PATH=$DLPATH PATCHSITE_LOG=1 PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		"$T/dlmopen-linked" $libform $RUNTIME_COPY >"$T/out" 2>"$T/err"
	dlmopen_verdict "dlmopen ($libform), linked in" $libform
	# A thread in the library's code while dlopen NOPs its sites (testdata/patchsite/drivers/dlspin.c says
	# what it asserts).  Not pfe: rewriting five one-byte NOPs under a running thread is the
	# case patchsite(7) says cannot be made safe.  Not nonpie: -fno-pic code takes the
	# addresses of its own data and functions as 32-bit constants, which a shared object
	# cannot have (libdyn has neither).
	case $libform in pfe|nonpie) continue ;; esac
	if ! build_lib "$T/libspin-$libform.so" $libform $SRC/libspin.c -pthread; then
		fail "dlopen ($libform): build libspin" "$T/build.log"
		continue
	fi
	"$T/dlspin" "$T/libspin-$libform.so" $DLSPIN >"$T/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out" && [ "$(grep -c '^PASS' "$T/out")" -eq 9 ]; then
		pass "dlopen ($libform): constructor thread running the library while its sites are NOPed, $DLSPIN rounds x 2; $(grep INFO "$T/out" | sed 's/INFO dlspin: //')"
	else
		fail "dlopen ($libform): constructor thread in the library during dlopen (exit $rc)" "$T/out"
	fi
done

# A C++ library dlopened (RTLD_LOCAL) by a C program after tracing started: libstdc++ is
# only in the library's scope.  Oracle: the expected files, written by hand from
# testdata/patchsite/libcxx.cc and c++filt of its symbols less the parameter list
# (shapes::area(int, int), shapes::Square::perimeter() const, int shapes::twice<int>(int)).
# The filter picks the method by its demangled name and the template by its mangled one.
if CC=g++ build_lib "$T/libcxx-pie.so" pie $SRC/libcxx.cc &&
   build_form "$T/dlcxx-prog" pie $SRC/dlcxx.c -- -Wl,-rpath,"$T"; then
	LD_LIBRARY_PATH=$DLPATH PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/dlcxx-prog" libcxx-pie.so
	if grep -qx 'sum=26' "$T/out" && [ ! -s "$T/err" ]; then
		compare "dlopen C++: demangled names in the function tracer" dlcxx.function "$T/trace"
	else
		fail "dlopen C++: function tracer" "$T/out"
	fi
	LD_LIBRARY_PATH=$DLPATH PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		PATCHSITE_FILTER='shapes::Square::*:mod:libcxx-pie.so shapes::tw*:mod:libcxx-*.so _ZN6shapes4areaEii:mod:libcxx-pie.so' \
		run_traced "$T/out" "$T/err" "$T/dlcxx-prog" libcxx-pie.so
	if grep -qx 'sum=26' "$T/out" && [ ! -s "$T/err" ]; then
		compare "dlopen C++: PATCHSITE_FILTER='shapes::Square::*:mod:... shapes::tw*:mod:... _ZN6shapes4areaEii:mod:...'" \
			dlcxx.filter "$T/trace"
	else
		fail "dlopen C++: filter" "$T/out"
	fi
else
	fail "dlopen C++: build" "$T/build.log"
fi

# More objects than module slots (256): 300 copies of libdyn dlopened one by one.  The
# first ones are traced (one dyn_outer line each), the program runs right, and the
# objects left out are said once, not once per object or per later dlopen.
mkdir -p "$T/many" &&
for i in $(seq 0 299); do cp "$T/libdyn-pie.so" "$T/many/libmany-$i.so" || break; done &&
build_form "$T/many-prog" pie $SRC/many.c -- >>"$T/build.log" 2>&1
if [ $? -eq 0 ]; then
	PATCHSITE_TRACER=function PATCHSITE_FILTER='dyn_outer:mod:libmany-*' \
		PATCHSITE_OUTPUT="$T/trace" run_traced "$T/out" "$T/err" "$T/many-prog" "$T/many" 300
	traced=$(grep -c ': dyn_outer <-main$' "$T/trace")
	if grep -qx 'sum=1200' "$T/out" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	   grep -q '^patchsite: warning: /.*/libmany-[0-9]*.so: more than 256 objects: this one and any further ones not traced$' "$T/err" &&
	   [ "$traced" -ge 200 ] && [ "$traced" -lt 300 ]; then
		pass "300 objects: $traced traced, then one line: $(sed 's/^patchsite: warning: //;s|/.*/||' "$T/err")"
	else
		fail "300 objects ($traced traced)" "$T/err"
	fi
else
	fail "300 objects: build" "$T/build.log"
fi

# PATCHSITE_OUTPUT=/dev/stdout redirected to a file: the program's output and the
# trace both there, neither truncated nor written over.
for dest in /dev/stdout -; do
	PATCHSITE_TRACER=function PATCHSITE_FILTER='work_*' PATCHSITE_OUTPUT=$dest \
		run_traced "$T/out" "$T/err" "$T/basic-pie"
	if grep -qx 'sum=5' "$T/out" && grep -qx '# tracer: function' "$T/out" &&
	   [ "$(grep -c ': work_' "$T/out")" -eq 4 ] && [ ! -s "$T/err" ]; then
		pass "PATCHSITE_OUTPUT=$dest into a file: the program's output and the trace"
	else
		fail "PATCHSITE_OUTPUT=$dest into a file" "$T/out"
	fi
done

# Bad settings: one line on stderr, the program runs untraced.
bad_setting() {	# NAME VAR=VALUE...
	name=$1
	shift
	env PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/bad-trace" "$@" \
		LD_PRELOAD="$PRELOAD" "$T/basic-pie" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	   grep -q '^patchsite: error: .*not tracing$' "$T/err" && [ ! -e "$T/bad-trace" ]; then
		pass "bad setting: $name: $(cat "$T/err")"
	else
		fail "bad setting: $name (exit $rc)" "$T/err"
	fi
	rm -f "$T/bad-trace"
}
bad_setting "filter matches nothing" PATCHSITE_FILTER=no_such_function
bad_setting "notrace matches nothing" PATCHSITE_NOTRACE='nope*'
bad_setting "unknown tracer" PATCHSITE_TRACER=bogus
bad_setting "unknown format" PATCHSITE_FORMAT=xml
bad_setting "folded without function_graph" PATCHSITE_FORMAT=folded
bad_setting "max depth 0" PATCHSITE_TRACER=function_graph PATCHSITE_MAX_DEPTH=0
bad_setting "graph function matches nothing" PATCHSITE_TRACER=function_graph \
	PATCHSITE_GRAPH_FUNCTION=nope

# C++: names demangled (without parameters), and filters match them.
PATCHSITE_TRACER=function_graph PATCHSITE_FILTER='catcher middle' PATCHSITE_OUTPUT="$T/trace" \
	run_traced "$T/out" "$T/err" "$T/except-pie"
if [ "$(grep -c '| *catcher() {$' "$T/trace")" -eq 4 ] && [ "$(grep -c '| *middle();$' "$T/trace")" -eq 4 ] &&
   ! grep -q thrower "$T/trace"; then
	pass "C++: demangled names, PATCHSITE_FILTER='catcher middle'"
else
	fail "C++: demangled names in filters" "$T/trace"
fi

# function_graph options, on the PIE build.
PATCHSITE_TRACER=function_graph PATCHSITE_GRAPH_FUNCTION=work_mid PATCHSITE_OUTPUT="$T/trace" \
	run_traced "$T/out" "$T/err" "$T/basic-pie"
compare "PATCHSITE_GRAPH_FUNCTION=work_mid: only work_mid and its callees" basic.graph-function \
	"$T/trace"
PATCHSITE_TRACER=function_graph PATCHSITE_MAX_DEPTH=2 PATCHSITE_OUTPUT="$T/trace" \
	run_traced "$T/out" "$T/err" "$T/basic-pie"
compare "PATCHSITE_MAX_DEPTH=2: work_leaf (depth 3) not recorded" basic.max-depth "$T/trace"

# Chrome trace-event JSON: valid JSON, events of several threads, children inside parents.
for tracer in function_graph function; do
	PATCHSITE_TRACER=$tracer PATCHSITE_FORMAT=chrome PATCHSITE_OUTPUT="$T/trace.json" \
		run_traced "$T/out" "$T/err" "$T/threads-pie"
	if python3 tests/patchsite/oracles/check_chrome.py "$T/trace.json" $tracer >"$T/check" 2>&1; then
		pass "chrome JSON ($tracer): $(cat "$T/check")"
	else
		fail "chrome JSON ($tracer)" "$T/check"
	fi
done

# Folded stacks: `comm;f;g count` lines, every frame a known function, counts positive.
PATCHSITE_TRACER=function_graph PATCHSITE_FORMAT=folded PATCHSITE_OUTPUT="$T/folded" \
	run_traced "$T/out" "$T/err" "$T/basic-pie" 3
if awk '
	NF != 2 || $2 !~ /^[0-9]+$/ || $2 < 1 { bad = 1 }
	{ n = split($1, f, ";"); if (f[1] != "basic-pie" || n < 2 || f[2] != "main") bad = 1
	  for (i = 2; i <= n; i++) if (f[i] !~ /^(main|work_mid|work_leaf|other|skip_me)$/) bad = 1
	  if (seen[$1]++) bad = 1 }
	END { exit bad || NR != 5 }' "$T/folded" &&
   grep -q '^basic-pie;main;work_mid;work_leaf [0-9]*$' "$T/folded"; then
	pass "folded stacks: $(wc -l <"$T/folded") distinct stacks, e.g. $(grep work_leaf "$T/folded" | cut -d' ' -f1)"
else
	fail "folded stacks" "$T/folded"
fi
bad_setting "buffer size" PATCHSITE_BUFFER_KB=12x
bad_setting "output" PATCHSITE_OUTPUT=/nonexistent/dir/trace

# A W^X policy (PR_SET_MDWE): said once, nothing written, the program runs untraced.
$CC -O2 -o "$T/mdwe" testdata/patchsite/drivers/mdwe.c
for form in nop pfe; do
	"$T/mdwe" /usr/bin/env PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/wx-trace" \
		LD_PRELOAD="$PRELOAD" "$T/basic-$form" >"$T/out" 2>"$T/err"
	rc=$?
	if [ $rc -eq 77 ]; then
		echo "SKIP W^X ($form): the kernel has no PR_SET_MDWE"
	elif [ $rc -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	     grep -q "PATCHSITE_TRACER: basic-$form: cannot make its code writable: .*(a W^X policy: .*): tracing nothing: not tracing\$" "$T/err" &&
	     [ ! -e "$T/wx-trace" ]; then
		pass "W^X ($form, PR_SET_MDWE): $(cat "$T/err")"
	else
		fail "W^X ($form, PR_SET_MDWE) (exit $rc)" "$T/err"
	fi
done

# Flight recorder (PATCHSITE_OVERWRITE=1): an 8 KB ring is two chunks of 512 words; the
# newest are kept and what reuse overwrote is counted: kept + overwritten = the 4001
# function events basic.c makes with 1000 rounds (4 calls a round and main).
PATCHSITE_TRACER=function PATCHSITE_OVERWRITE=1 PATCHSITE_BUFFER_KB=8 PATCHSITE_OUTPUT="$T/trace" \
	run_traced "$T/out" "$T/err" "$T/basic-nonpie" 1000
kept=$(grep -c ' <-' "$T/trace")
if grep -q "^# entries-in-buffer/entries-written: $kept/4001 " "$T/trace" &&
   grep -q "OVERWRITTEN $((4001 - kept)) EVENTS" "$T/trace" && [ "$kept" -gt 200 ] &&
   [ "$kept" -lt 512 ] && [ ! -s "$T/err" ]; then
	pass "overwrite ring: the newest $kept of 4001 events kept, $((4001 - kept)) counted overwritten"
else
	fail "overwrite ring ($kept kept)" "$T/trace"
fi

# The same for function_graph: what is kept stays balanced (no exit without its entry).
PATCHSITE_TRACER=function_graph PATCHSITE_OVERWRITE=1 PATCHSITE_BUFFER_KB=8 PATCHSITE_OUTPUT="$T/trace" \
	run_traced "$T/out" "$T/err" "$T/basic-nonpie" 1000
opens=$(grep -c '() {$' "$T/trace") closes=$(grep -c '| *}$' "$T/trace")
if grep -q 'OVERWRITTEN [0-9]* EVENTS' "$T/trace" && ! grep -q '/\*' "$T/trace" &&
   [ "$opens" -eq "$closes" ] && [ "$(grep -c '();$' "$T/trace")" -gt 100 ]; then
	pass "overwrite ring, function_graph: $(grep -o 'OVERWRITTEN [0-9]* EVENTS' "$T/trace"), $opens calls with children, balanced"
else
	fail "overwrite ring, function_graph" "$T/trace"
fi

# Refusal: make other()'s site a different 5-byte NOP (66 0f 1f 40 00, nopw 0x0(%rax))
# in the file; it must be refused and reported, never written, and the rest traced.
cp "$T/basic-nop" "$T/basic-corrupt"
addr=$(nm "$T/basic-corrupt" | awk '$3 == "other" { print $1 }')
python3 - "$T/basic-corrupt" "$addr" <<'EOF'
import struct, sys
path, addr = sys.argv[1], int(sys.argv[2], 16)
data = bytearray(open(path, 'rb').read())
phoff, = struct.unpack_from('<Q', data, 32)
phentsize, phnum = struct.unpack_from('<HH', data, 54)
for i in range(phnum):
    p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz = struct.unpack_from('<IIQQQQ', data, phoff + i * phentsize)
    if p_type == 1 and p_vaddr <= addr < p_vaddr + p_filesz:
        off = p_offset + addr - p_vaddr
        assert data[off:off + 5] == bytes([0x0f, 0x1f, 0x44, 0x00, 0x00]), data[off:off + 5].hex()
        data[off:off + 5] = bytes([0x66, 0x0f, 0x1f, 0x40, 0x00])
        open(path, 'wb').write(data)
        sys.exit(0)
sys.exit(1)
EOF
# Reported without being asked: the tracer was started from the environment.
PATCHSITE_TRACER=function PATCHSITE_NOTRACE=skip_me PATCHSITE_OUTPUT="$T/trace" \
	run_traced "$T/out" "$T/err" "$T/basic-corrupt"
msg="patchsite: basic-corrupt: warning: other+0x0 (0x$(echo "$addr" | sed 's/^0*//')): expected a call to __fentry__ or a 5-byte NOP, found 66 0f 1f 40 00: site refused"
if grep -qxF "$msg" "$T/err" && grep -qx 'sum=5' "$T/out"; then
	pass "refusal: $(grep 'site refused' "$T/err" | sed 's/^patchsite: //')"
else
	fail "refusal is reported" "$T/err"
fi
compare "refusal: the refused site is left alone, the others traced" basic.refused "$T/trace"
PATCHSITE_LOG=0 PATCHSITE_TRACER=function PATCHSITE_NOTRACE=skip_me PATCHSITE_OUTPUT="$T/trace" \
	run_traced "$T/out" "$T/err" "$T/basic-corrupt"
if [ ! -s "$T/err" ] && grep -qx 'sum=5' "$T/out"; then
	pass "refusal: PATCHSITE_LOG=0 silences the report"
else
	fail "refusal: PATCHSITE_LOG=0" "$T/err"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
