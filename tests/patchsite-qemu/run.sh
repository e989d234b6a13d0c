#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# libpatchsite for a cross arch, under qemu-user: usage  run.sh BUILD_DIR [ARCH]
# (ARCH aarch64, the default, or riscv64; BUILD_DIR holds that arch's runtime:
# make CROSS_COMPILE=aarch64-linux-gnu- or riscv64-linux-gnu-).  One case list
# for every arch; what an arch cannot do yet is skipped by name, with why.
#
# The samples of testdata/patchsite are compiled with the cross gcc in the
# forms gcc emits on the arch (compile with the form's flags, lib.sh's form_flags):
#  aarch64:
#   pfe     -fpatchable-function-entry=2                     PIE (Debian's default)
#   pfenp   -fpatchable-function-entry=2 -fno-pie, linked -no-pie
#   bti     pfe + -mbranch-protection=standard               bti c; nop; nop; paciasp
#   pg      -pg, no table (sites found from the symbols)     mov x0, x30; bl _mcount
#           after the frame record is saved
#   pgt     -pg, its __mcount_loc table made by build/recordmcount on each object
#           (aarch64 gcc has no -mrecord-mcount)
#   pgbti   pg + -mbranch-protection=standard: paciasp signs the saved return
#           address, which function_graph hooks signed the same way
#   nofp    bti + -fomit-frame-pointer (unwind.cc only: no frame-pointer chain)
#   cyg     -finstrument-functions (unwind.cc, gdbcount.c and basic.c only): the
#           calls to __cyg_profile_func_enter/exit are the sites (arch/aarch64/cyg.S)
#  riscv64 (Debian's default -march=rv64gc has compressed instructions):
#   rvc     -fpatchable-function-entry=4 -falign-functions=4  four c.nop, 4-aligned; PIE
#   rvcnp   rvc + -fno-pie, linked -no-pie
#   rv64g   -march=rv64g -fpatchable-function-entry=2        two nop, no compressed code
# and run under qemu-ARCH with the cross C library (libc6-ARCH-cross).
# Oracles: the expected traces of tests/patchsite (written by hand from the
# samples' call trees; the same for every arch) and the programs' own results.
# qemu-user runs the guest's threads as host threads but does not model the
# arch's memory ordering or cache rules: these runs check the protocol's
# logic and encodings, not its hardware guarantees (see patchsite(7)).
set -u
# qemu-user has no perf_event_open (ENOSYS): the runtime would say once that
# off-CPU time is unknown and mark each trace so (tests/patchsite/sched.sh
# checks that); these suites compare traces, so they ask for no switches.
export PATCHSITE_SCHED=0

. tests/patchsite/lib.sh	# suite_init, pass, fail, skip, summary, qemu_init, form_flags, build_form
ARCH=${2:-aarch64}
suite_init $ARCH "${1:-build/aarch64}" plain
LABEL=$ARCH FAIL_LINES=40
SRC=testdata/patchsite
case $ARCH in
aarch64)
	FORMS="pfe pfenp bti pg pgt pgbti"
	PFE="-fpatchable-function-entry=2"
	;;
riscv64)
	FORMS="rvc rvcnp rv64g"
	PFE="-fpatchable-function-entry=4 -falign-functions=4"
	PG_REFUSED='-pg sites (call _mcount after the prologue) are not supported on riscv64 .*'
	;;
esac
PRELOAD="$PWD/$B/libpatchsite.so"
FORM_RMC=build/recordmcount	# pgt's table: the host's recordmcount (lib.sh's form_table)
STRESS="4 100 20000"

if ! qemu_init $ARCH; then
	echo "FAIL $ARCH: need qemu-user-static and $CC (make deps)"
	exit 1
fi

# The same normalisation as tests/patchsite/run.sh (task names, pids, CPUs, times, addresses).
normalise() {
	sed -E -e 's/^ *[^ ]+-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+:/TASK-PID [CPU] TIME:/' \
	    -e 's/^ *[0-9]+\) +[^ ]+-[0-9]+ \|/CPU) TASK-PID |/' \
	    -e 's/\| [ +!#*@$] +[0-9]+\.[0-9]+ us \|/| DURATION |/' \
	    -e 's/^ *[0-9]+\) [^ ]+-[0-9]+ => [^ ]+-[0-9]+$/CPU) TASK-PID => TASK-PID/' \
	    -e 's/0x[0-9a-f]+/ADDR/g' -e 's/#P:[0-9]+/#P:N/' "$1"
}

compare() {	# NAME EXPECTED ACTUAL
	normalise "$3" >"$3.norm"
	if diff -u "$SRC/expected/$2" "$3.norm" >"$3.diff"; then pass "$1"; else fail "$1" "$3.diff"; fi
}

# A shared library of the form: lib OUT FORM SOURCE [EXTRA LINK ARGS]
lib() {
	out=$1 form=$2 src=$3
	shift 3
	o="$T/$(basename "$src" .c)-$form.pic.o"
	$CC -O2 -g -fPIC $(form_flags "$form" | sed 's/ -fno-pie//') -c "$src" -o "$o" \
		>>"$T/build.log" 2>&1 && form_table "$form" "$o" &&
	$CC -shared "$o" -o "$out" "$@" >>"$T/build.log" 2>&1
}

# The depths (indent / 2) of the calls in a function_graph trace whose name matches $2
# (an ERE), as tests/patchsite/unwind.sh reads them.
depths() {
	awk -F'|' -v re="$2" 'NF >= 3 { f = $NF; match(f, /^ */); n = RLENGTH; rest = substr(f, n + 1)
		if (rest ~ re) print (n - 1) / 2 }' "$1" | sort -u | tr '\n' ' '
}

# Every case of unwind.cc in one function_graph run (FORM): output as untraced; main 0,
# t_loop 1 and loop_mid 2 all 2,000 times, show at outer's depth (2), the cancelled and
# exiting threads' level() at 1..6, every call with children closed.
unwind_depths() {
	run "$T/plain" "$T/plain" "$T/unwind-$1"
	PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/unwind-$1"
	d_loop=$(depths "$T/trace" '^loop_mid\(') d_show=$(depths "$T/trace" '^show\(\) \{')
	d_outer=$(depths "$T/trace" '^outer\(') d_level=$(depths "$T/trace" '^level\(')
	opens=$(grep -c '|               | ' "$T/trace") closes=$(grep -c '| *}$' "$T/trace")
	# (cyg: the nested show() calls traced callees too, so it is also "show() {" at 3)
	if cmp -s "$T/plain" "$T/out" && [ ! -s "$T/err" ] && [ "$d_loop" = "2 " ] &&
	   [ "${d_show%% *}" = 2 ] && [ "$d_outer" = "2 " ] && [ "$d_level" = "1 2 3 4 5 6 " ] &&
	   [ "$opens" -eq "$closes" ] && [ "$(grep -c 'loop_mid() {$' "$T/trace")" -eq 2000 ]; then
		pass "$1: unwind.cc, all cases, function_graph: as untraced; loop_mid at $d_loop, show/outer at $d_outer, level at $d_level; $opens calls closed"
	else
		diff "$T/plain" "$T/out" >>"$T/err"
		echo "loop $d_loop show $d_show outer $d_outer level $d_level opens $opens closes $closes" >>"$T/err"
		fail "$1: unwind.cc, all cases, function_graph" "$T/err"
	fi
}

run() {		# OUT ERR PROG ARGS...: under qemu, PATCHSITE_* from the caller
	out=$1 err=$2
	shift 2
	"$QEMU" -L "$SYSROOT" "$@" >"$out" 2>"$err"
}

run_traced() {	# OUT ERR PROG ARGS...: preloaded
	out=$1 err=$2
	shift 2
	"$QEMU" -L "$SYSROOT" -E LD_PRELOAD="$PRELOAD" "$@" >"$out" 2>"$err"
}

$CC -O2 -g -Iinclude -c testdata/patchsite/drivers/api.c -o "$T/api.o" &&
$CC -O2 -g -Iinclude -c testdata/patchsite/drivers/stress.c -o "$T/stress.o" ||
	fail "build api/stress" "$T/build.log"

for form in $FORMS; do
	if ! build_form "$T/basic-$form" $form $SRC/basic.c; then
		fail "$form: build" "$T/build.log"
		continue
	fi
	PATCHSITE_TRACER=function PATCHSITE_NOTRACE=skip_me PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	if [ $? -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ]; then
		compare "$form: function tracer, preloaded" basic.function "$T/trace"
	else
		fail "$form: function tracer, preloaded" "$T/err"
	fi
	PATCHSITE_TRACER=function PATCHSITE_FILTER='work_*' PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	compare "$form: PATCHSITE_FILTER=work_*" basic.filter "$T/trace"
	PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	if grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ]; then
		compare "$form: function_graph" basic.graph "$T/trace"
	else
		fail "$form: function_graph" "$T/err"
	fi
	PATCHSITE_TRACER=function_graph PATCHSITE_GRAPH_FUNCTION=work_mid PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	compare "$form: PATCHSITE_GRAPH_FUNCTION=work_mid" basic.graph-function "$T/trace"
	PATCHSITE_TRACER=function_graph PATCHSITE_MAX_DEPTH=2 PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/basic-$form"
	compare "$form: PATCHSITE_MAX_DEPTH=2" basic.max-depth "$T/trace"
	# Arguments (x0..x7, a0..a7) and return values (x0, a0) of leaf2(i, 2i) = 3i (feat.c).
	if build_form "$T/feat-$form" $form $SRC/feat.c -- -pthread -ldl; then
		PATCHSITE_TRACER=function_graph PATCHSITE_ARGS='leaf2@arg1,arg2,retval;leaf@arg1' \
			PATCHSITE_OUTPUT="$T/trace" run_traced "$T/out" "$T/err" "$T/feat-$form" args
		sed -n 's/^.*|  *\(leaf.*\)$/\1/p' "$T/trace" >"$T/got"
		printf '%s\n' 'leaf2(1, 2) = 3;' 'leaf2(2, 4) = 6;' 'leaf2(3, 6) = 9;' 'leaf(7);' \
			>"$T/want"
		case $form in
		pg*)	# After the prologue x0 is _mcount's: refused by the function's name,
			# no argument value recorded.
			if grep -q "^patchsite: error: PATCHSITE_ARGS: set_ftrace_args: 'leaf2': leaf2 is built -pg (a call to _mcount after its prologue): its arguments are not in their registers there on aarch64" "$T/err" &&
			   ! grep -q 'leaf2(' "$T/trace"; then
				pass "$form: PATCHSITE_ARGS refused by name: $(head -1 "$T/err" | cut -c1-120)..."
			else
				fail "$form: PATCHSITE_ARGS refusal" "$T/err"
			fi ;;
		*) if cmp -s "$T/got" "$T/want" && [ ! -s "$T/err" ]; then
			pass "$form: PATCHSITE_ARGS: leaf2(1, 2) = 3 ... leaf(7)"
		else
			diff "$T/want" "$T/got" >>"$T/err"
			fail "$form: PATCHSITE_ARGS" "$T/err"
		fi ;;
		esac
		# The stacktrace filter command is refused by name here (patchsite(7)).
		PATCHSITE_TRACER=function PATCHSITE_TRIGGER='fast:stacktrace' \
			PATCHSITE_OUTPUT="$T/trace" run_traced "$T/out" "$T/err" "$T/feat-$form" trig
		if grep -q "^patchsite: error: PATCHSITE_TRIGGER: stacktrace: not done on $ARCH " "$T/err"; then
			pass "$form: stacktrace refused by name"
		else
			fail "$form: stacktrace refusal" "$T/err"
		fi
	else
		fail "$form: build feat" "$T/build.log"
	fi

	# function_graph's return hooking across longjmp, thread exit, C++ exceptions (the
	# hooked x30 saved in frame records, signed by paciasp in the bti form), coroutines
	# and signal handlers on a sigaltstack.
	for sample in longjmp:c:'sum=22' texit:c:'ret=5,7' except:cc:'sum=2' \
		coro:c:'sum=352 co=12 handled=15'; do
		name=${sample%%:*} rest=${sample#*:} ext=${rest%%:*} want=${rest#*:}
		if [ $ext = cc ] && [ $ARCH = riscv64 ]; then
			# The hooked ra is found through the frame-pointer chain, which
			# riscv64 gcc -O2 omits (patchsite(7)): built with it here.
			XFLAGS=-fno-omit-frame-pointer CC=$CXX build_form "$T/$name-$form" $form $SRC/$name.cc
		elif [ $ext = cc ]; then
			CC=$CXX build_form "$T/$name-$form" $form $SRC/$name.cc
		else
			build_form "$T/$name-$form" $form $SRC/$name.c -- -pthread
		fi || { fail "$form: build $name" "$T/build.log"; continue; }
		PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/$name-$form"
		if [ $? -eq 0 ] && grep -qx "$want" "$T/out" && [ ! -s "$T/err" ]; then
			compare "$form: function_graph across $name" $name.graph "$T/trace"
		else
			fail "$form: function_graph across $name" "$T/err"
		fi
	done

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

	build_form "$T/linked-$form" $form $SRC/basic.c -- "$B/patchsite.o" -pthread &&
	PATCHSITE_TRACER=function PATCHSITE_NOTRACE=skip_me PATCHSITE_OUTPUT="$T/trace" \
		run "$T/out" "$T/err" "$T/linked-$form" &&
	compare "$form: function tracer, linked in (patchsite.o)" basic.function "$T/trace" ||
	fail "$form: linked in (patchsite.o)" "$T/err"

	# Linked with -pg (gprof's start-up, gcrt1.o): traced, gprof's start-up does not run
	# (gprof.c: no gmon.out, as uftrace); untraced, gmon.out is written as always.
	case $form in pg | pgt | pgbti)
		d="$T/pglink-$form"
		rm -rf "$d"
		mkdir -p "$d"
		if build_form "$d/basic" $form $SRC/basic.c -- -pg; then
			(cd "$d" && PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$d/trace" \
				run_traced "$d/out" "$d/err" ./basic)
			rc=$?
			if [ $rc -eq 0 ] && grep -qx 'sum=5' "$d/out" && [ ! -s "$d/err" ] &&
			   [ ! -e "$d/gmon.out" ] && grep -q ': work_mid <-main' "$d/trace" &&
			   (cd "$d" && run "$d/out2" "$d/err2" ./basic) && [ -s "$d/gmon.out" ]; then
				pass "$form: linked with -pg: traced, no gmon.out; untraced, gmon.out written"
			else
				ls "$d" >>"$d/err"
				fail "$form: linked with -pg (exit $rc)" "$d/err"
			fi
		else
			fail "$form: build linked with -pg" "$T/build.log"
		fi ;;
	esac

	lib "$T/libwork-$form.so" $form $SRC/libwork.c &&
	build_form "$T/uselib-$form" $form $SRC/uselib.c -- "$T/libwork-$form.so" -Wl,-rpath,"$T" ||
		{ fail "$form: build uselib" "$T/build.log"; continue; }
	PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/uselib-$form"
	compare "$form: program and shared library" uselib.function "$T/trace"
	PATCHSITE_TRACER=function PATCHSITE_FILTER="*inner:mod:libwork-$form.so" \
		PATCHSITE_OUTPUT="$T/trace" run_traced "$T/out" "$T/err" "$T/uselib-$form"
	compare "$form: glob:mod:library" uselib.mod "$T/trace"

	# The API, and live patching under load (exact callback counts in the steady phase).
	if build_form "$T/api-$form" $form $SRC/work.c -- "$T/api.o" "$B/libpatchsite.a" -pthread; then
		mc=; case $form in pg*) mc=1 ;; esac
		PSTEST_MCOUNT=$mc run "$T/out" "$T/out" "$T/api-$form"
		rc=$?
		if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out" && grep -q '^api: ok' "$T/out"; then
			pass "$form: API ($(grep -c '^PASS' "$T/out") checks)"
		else
			fail "$form: API (exit $rc)" "$T/out"
		fi
	else
		fail "$form: build api" "$T/build.log"
	fi
	if build_form "$T/stress-$form" $form $SRC/work.c -- "$T/stress.o" "$B/libpatchsite.a" -pthread; then
		run "$T/out" "$T/out" "$T/stress-$form" $STRESS
		rc=$?
		if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out"; then
			pass "$form: stress $STRESS: $(grep steady "$T/out" | sed 's/.*phase //'); $(grep INFO "$T/out" | sed 's/INFO stress: //')"
		else
			fail "$form: stress (exit $rc)" "$T/out"
		fi
	else
		fail "$form: build stress" "$T/build.log"
	fi
done

# The stress with the runtime a shared library the program needs (-lpatchsite: DT_NEEDED, not
# preloaded): its start-up, which under qemu-user finds qemu's threads, reads the program's
# dynamic section (sites/late.c), whose d_ptr entries riscv64's glibc leaves unrelocated (its
# .dynamic is read-only: arch/dyn.h).  Read as addresses, they crashed it at start-up.
f0=${FORMS%% *}
if build_form "$T/stress-so" $f0 $SRC/work.c -- "$T/stress.o" -L"$B" -lpatchsite \
	-Wl,-rpath,"$PWD/$B" -pthread; then
	run "$T/out" "$T/out" "$T/stress-so" $STRESS
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out" &&
	   readelf -d "$T/stress-so" | grep -q 'NEEDED.*\[libpatchsite\.so\]'; then
		pass "$f0: stress $STRESS, linked with libpatchsite.so (DT_NEEDED): $(grep steady "$T/out" | sed 's/.*phase //')"
	else
		fail "$f0: stress linked with libpatchsite.so (exit $rc)" "$T/out"
	fi
else
	fail "build stress linked with libpatchsite.so" "$T/build.log"
fi

# Libraries loaded with dlopen after tracing started (their sites NOPed live: the first
# word becomes mov x9, x30 or auipc t0 while the program runs), unloaded, loaded again;
# libdyntop needs libdyn, so dlopen of the one loads the other.
f0=${FORMS%% *}
DLFORMS=$f0
[ $ARCH = aarch64 ] && DLFORMS="$f0 pg pgbti"
for f0 in $DLFORMS; do
if lib "$T/libdyn-$f0.so" $f0 $SRC/libdyn.c &&
   lib "$T/libdyntop-$f0.so" $f0 $SRC/libdyntop.c -L"$T" -ldyn-$f0 -Wl,-rpath,'$ORIGIN' &&
   build_form "$T/dlopen-prog" $f0 $SRC/dlopen.c -- -Wl,-rpath,"$T"; then
	PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/dlopen-prog" $f0
	if grep -qx 'sum=213' "$T/out" && [ ! -s "$T/err" ]; then
		compare "$f0: dlopen, dlclose, dlopen: function_graph" dlopen.graph "$T/trace"
	else
		fail "$f0: dlopen, dlclose, dlopen: function_graph" "$T/err"
	fi
	# The function tracer: both rounds' calls.  Not dlopen.function: under qemu the
	# library comes back at another address, and the runtime reuses its record on
	# reload, so callers in the first, unloaded copy are not named (left as is: sites/sync.c).
	PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/dlopen-prog" $f0
	if grep -qx 'sum=213' "$T/out" && [ ! -s "$T/err" ] &&
	   [ "$(grep -c ' dyn_outer <-' "$T/trace")" -eq 2 ] &&
	   [ "$(grep -c ' dyn_inner <-' "$T/trace")" -eq 2 ] &&
	   [ "$(grep -c ' top_call <-prog_run$' "$T/trace")" -eq 2 ]; then
		pass "$f0: dlopen, dlclose, dlopen: function tracer, 2 calls in each library"
	else
		fail "$f0: dlopen, dlclose, dlopen: function tracer" "$T/trace"
	fi
else
	fail "$f0: dlopen: build" "$T/build.log"
fi
done

# riscv64 sites that one aligned store cannot switch are refused by name, each with
# its fix, and the program runs right: compressed code without -falign-functions=4
# (gcc aligns functions to 2: some sites are 2-aligned), and =2 with compressed
# code (two c.nop, 4 bytes; its 2-aligned sites are refused as such).  Nothing else
# is printed.
if [ $ARCH = riscv64 ]; then
	for c in "noalign:-fpatchable-function-entry=4:a site only 2-byte aligned (compressed code): one aligned store cannot switch it; build with -falign-functions=4" \
		 "twocnop:-fpatchable-function-entry=2:two c.nop (4 bytes), not the 8 a site needs: build with -fpatchable-function-entry=4 when compressed instructions are on"; do
		name=${c%%:*} rest=${c#*:} flags=${rest%%:*} why=${rest#*:}
		if ! $CC -O2 -g $flags $SRC/basic.c -o "$T/basic-$name" >>"$T/build.log" 2>&1; then
			fail "$name: build" "$T/build.log"
			continue
		fi
		PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/basic-$name"
		n=$(grep -cF "$why (found " "$T/err")
		if grep -qx 'sum=5' "$T/out" && [ "$n" -gt 0 ] &&
		   [ "$(grep -v -e "$why (found " -e 'build with -falign-functions=4 (found ' "$T/err" |
			grep -c .)" -eq 0 ]; then
			pass "$flags without the fix: $n sites refused by name: $why"
		else
			fail "$flags: refusal by name" "$T/err"
		fi
	done
fi

# -pg (a call to _mcount after the prologue, recorded by our recordmcount): not traced
# yet on riscv64, said once per object by name; the program runs right.  (On aarch64
# it is a form above: pg, pgt, pgbti.)
if [ $ARCH = aarch64 ]; then
	:
elif [ -x build/recordmcount ] && $CC -O2 -g -pg -c $SRC/basic.c -o "$T/basic-pg.o" &&
   build/recordmcount "$T/basic-pg.o" && $CC -o "$T/basic-pg" "$T/basic-pg.o"; then
	PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" run_traced "$T/out" "$T/err" "$T/basic-pg"
	if [ $? -eq 0 ] && grep -qx 'sum=5' "$T/out" && [ "$(wc -l <"$T/err")" -eq 1 ] &&
	   grep -q "^patchsite: warning: basic-pg: $PG_REFUSED: its __mcount_loc sites not traced\$" "$T/err"; then
		pass "-pg refused by name: $(sed 's/^patchsite: //' "$T/err")"
	else
		fail "-pg refused by name" "$T/err"
	fi
else
	skip "-pg refusal: no build/recordmcount (make) or no build"
fi

# testdata/patchsite/unwind.cc, the ways C++ and POSIX leave a frame, in the entry and
# the -pg forms, with and without pointer authentication (bti, pgbti: qemu's default
# cpu signs): the output and destructor counts as untraced (the oracle: the same
# program run untraced), each case on its own and then all in one run, whose
# function_graph depths are checked against the program's call structure as
# tests/patchsite/unwind.sh does on x86-64.  The unwinder is shown through the hooked
# frame records by the _Unwind_Find_FDE wrapper, as on x86-64 (record/unwind.c), with
# or without frame pointers (nofp); and from -finstrument-functions' own calls (cyg).
# riscv64 the same way, in rv64g (in rvc, g++ leaves some C++ functions only 2-aligned
# despite -falign-functions=4, and their sites are refused by name).
case $ARCH in aarch64) UFORMS="pfe bti pg pgbti nofp cyg" ;; *) UFORMS=rv64g ;; esac
for form in $UFORMS; do
	if ! CC=$CXX build_form "$T/unwind-$form" $form $SRC/unwind.cc -- -pthread; then
		fail "$form: build unwind.cc" "$T/build.log"
		continue
	fi
	run "$T/plain" "$T/plain" "$T/unwind-$form"
	PATCHSITE_TRACER=function PATCHSITE_OUTPUT="$T/trace" \
		run_traced "$T/out" "$T/err" "$T/unwind-$form"
	if cmp -s "$T/plain" "$T/out" && [ ! -s "$T/err" ]; then
		pass "$form: unwind.cc, function: output and destructor counts as untraced"
	else
		diff "$T/plain" "$T/out" >>"$T/err"
		fail "$form: unwind.cc, function" "$T/err"
	fi
	for c in rethrow async nested dtorcatch cancel exit backtrace loop longname; do
		run "$T/plain" "$T/plain" "$T/unwind-$form" $c
		PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/unwind-$form" $c
		if cmp -s "$T/plain" "$T/out" && [ ! -s "$T/err" ]; then
			pass "$form: unwind.cc $c, function_graph: as untraced"
		else
			diff "$T/plain" "$T/out" >>"$T/err"
			fail "$form: unwind.cc $c, function_graph" "$T/err"
		fi
	done
	unwind_depths "$form"
done

# -finstrument-functions (cyg): basic.c's traces are every form's (the expected files,
# written from its call tree); preloaded with nothing asked, the calls reach
# arch/aarch64/cyg.S and return: the same output, nothing said.
if [ $ARCH = aarch64 ]; then
	if build_form "$T/basic-cyg" cyg $SRC/basic.c; then
		PATCHSITE_TRACER=function PATCHSITE_NOTRACE=skip_me PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/basic-cyg"
		if grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ]; then
			compare "cyg: function tracer" basic.function "$T/trace"
		else
			fail "cyg: function tracer" "$T/err"
		fi
		PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/basic-cyg"
		if grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ]; then
			compare "cyg: function_graph" basic.graph "$T/trace"
		else
			fail "cyg: function_graph" "$T/err"
		fi
		run_traced "$T/out" "$T/err" "$T/basic-cyg"
		if grep -qx 'sum=5' "$T/out" && [ ! -s "$T/err" ]; then
			pass "cyg: preloaded, nothing traced: same output, nothing on stderr"
		else
			fail "cyg: preloaded, nothing traced" "$T/err"
		fi
	else
		fail "cyg: build basic.c" "$T/build.log"
	fi
fi

# Call counts against an outside oracle: gdb breakpoints on leaf and mid (gdbcount.c)
# through qemu's gdbstub (its breakpoints do not write guest code, so they do not meet
# the runtime's patching); each tracer's trace must name as many calls.
gdb_case() {	# FORM TRACER
	form=$1 tracer=$2 d="$T/gdb-$1-$2"
	mkdir -p "$d"
	printf '%s\n' 'set pagination off' 'set confirm off' 'break *leaf' 'commands' 'silent' \
		'continue' 'end' 'break *mid' 'commands' 'silent' 'continue' 'end' 'continue' \
		'info breakpoints' >"$d/cmds"
	port=$((20000 + ($$ + PASS + FAIL) % 20000))
	PATCHSITE_TRACER=$tracer PATCHSITE_OUTPUT="$d/trace" "$QEMU" -L "$SYSROOT" -g $port \
		-E LD_PRELOAD="$PRELOAD" "$T/gdbcount-$form" >"$d/out" 2>"$d/err" &
	qpid=$!
	# qemu waits for gdb before it runs the program: connect once its stub listens (a
	# fixed second was too short on a loaded machine: gdb gave up, and qemu waited for
	# it for ever), and never wait for a qemu that gdb left behind.
	hexport=$(printf '%04X' $port)
	for _ in $(seq 600); do
		grep -q ":$hexport 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 0.1
	done
	timeout 300 gdb-multiarch -batch -nx -ex "set sysroot $SYSROOT" -ex "file $T/gdbcount-$form" \
		-ex "target remote 127.0.0.1:$port" -x "$d/cmds" >"$d/gdb" 2>&1
	for _ in $(seq 100); do kill -0 $qpid 2>/dev/null || break; sleep 0.1; done
	kill -9 $qpid 2>/dev/null && echo "qemu still waiting 10 s after gdb ended: killed" >>"$d/err"
	wait $qpid
	gl=$(grep -A1 '^1 .* in leaf at' "$d/gdb" | sed -n 's/.*already hit \([0-9]*\) time.*/\1/p')
	gm=$(grep -A1 '^2 .* in mid at' "$d/gdb" | sed -n 's/.*already hit \([0-9]*\) time.*/\1/p')
	if [ $tracer = function ]; then
		tl=$(grep -c ' leaf <-' "$d/trace") tm=$(grep -c ' mid <-' "$d/trace")
	else
		# (a call with no traced callee is one line, "f();", else "f() {")
		tl=$(grep -cE '\| *leaf\(\)( \{|;)' "$d/trace") tm=$(grep -cE '\| *mid\(\)( \{|;)' "$d/trace")
	fi
	if [ -n "$gl" ] && [ -n "$gm" ] && [ "$gl" -gt 0 ] && [ "$gl" = "$tl" ] && [ "$gm" = "$tm" ] &&
	   [ ! -s "$d/err" ] && grep -q '^s=' "$d/out"; then
		pass "$form: $tracer: gdb counts leaf $gl, mid $gm calls; the trace the same"
	else
		echo "gdb: leaf '$gl' mid '$gm'; trace: leaf $tl mid $tm" >>"$d/err"
		fail "$form: $tracer: calls against gdb's breakpoint counts" "$d/err"
	fi
}
if [ $ARCH = aarch64 ] && command -v gdb-multiarch >/dev/null; then
	for form in pfe pg pgt pgbti cyg; do
		if build_form "$T/gdbcount-$form" $form $SRC/gdbcount.c; then
			gdb_case $form function
			gdb_case $form function_graph
		else
			fail "$form: build gdbcount" "$T/build.log"
		fi
	done
elif [ $ARCH = aarch64 ]; then
	skip "gdb breakpoint counts: no gdb-multiarch (apt-get install gdb-multiarch)"
fi

# pgbti's signed hooks are tested only where the machine signs (qemu's default cpu
# has FEAT_PAuth): the saved return address differs from itself stripped.  A
# function signed with key B (pacibsp) is refused by name, never hooked wrong.
if [ $ARCH = aarch64 ]; then
	if $CC -O2 -mbranch-protection=standard $SRC/pacprobe.c -o "$T/pacprobe" >>"$T/build.log" 2>&1 &&
	   run "$T/out" "$T/err" "$T/pacprobe" && grep -qx signed "$T/out"; then
		pass "pgbti: qemu signs return addresses (paciasp): the signed hooks were tested"
	else
		fail "pgbti: return addresses are not signed here: its cases prove nothing" "$T/out"
	fi
	if $CC -O2 -g -pg -mbranch-protection=pac-ret+b-key $SRC/basic.c -o "$T/basic-bkey" \
		>>"$T/build.log" 2>&1; then
		PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" \
			run_traced "$T/out" "$T/err" "$T/basic-bkey"
		n=$(grep -c 'signed with key B (pacibsp).*site refused' "$T/err")
		if grep -qx 'sum=5' "$T/out" && [ "$n" -ge 4 ] && ! grep -q 'work_' "$T/trace"; then
			pass "-pg with pac-ret+b-key: $n sites refused by name, none traced"
		else
			fail "-pg with pac-ret+b-key: refusal by name" "$T/err"
		fi
	else
		fail "build -pg pac-ret+b-key" "$T/build.log"
	fi
fi

# The build chooses the host arch from $(CC) -dumpmachine, and refuses one it does not
# support by name (a compiler that says mips64); with no compiler, a goal that needs one says so.
printf '#!/bin/sh\n[ "$1" = -dumpmachine ] && echo mips64-linux-gnuabi64\n' >"$T/cc-mips64"
chmod +x "$T/cc-mips64"
make -n CC="$T/cc-mips64" >"$T/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q "unsupported host architecture 'mips64'.*supported: x86_64 aarch64 riscv64" "$T/out" &&
   ! make CC="$T/no-such-cc" all >"$T/out2" 2>&1 &&
   grep -q "make all: needs a C compiler and '$T/no-such-cc -dumpmachine' failed: run 'make deps'" "$T/out2"; then
	pass "build: $(sed -n 's/.*\*\*\* //p' "$T/out")"
else
	fail "build refuses an unsupported host arch (exit $rc)" "$T/out"
fi

# Static trace events (tests/patchsite/events.sh's program): each site a nop,
# switched to B and back live; the records decoded by the arch-neutral
# second reader (check_events.py) from the format file alone.
if $CC -O2 -g -Wall -Wextra -Werror -Iinclude -Itestdata/patchsite/drivers testdata/patchsite/drivers/evprog.c \
	-o "$T/evp" "$B/libpatchsite.a" -pthread -ldl >"$T/build.log" 2>&1; then
	for m in "sidefx 500" prio "threads 2 10"; do
		# shellcheck disable=SC2086
		if run "$T/out" "$T/err" "$T/evp" $m; then pass "events: $m"; else fail "events: $m" "$T/err"; fi
	done
	if "$QEMU" -L "$SYSROOT" -E PATCHSITE_DATA="$T/evd" "$T/evp" record >"$T/out" 2>"$T/err" &&
	   python3 tests/patchsite/oracles/check_events.py "$T/evd" >"$T/out" 2>&1; then
		pass "events: every field type recorded, decoded from the format"
	else
		fail "events: record" "$T/out"
	fi
else
	fail "events: build" "$T/build.log"
fi

# function_profile: counted through this arch's graph trampolines and returns; hits are
# ending.c's own counts (fib and 4 threads), read by check_profile.py from the file alone.
if $CC -O2 -g $PFE -o "$T/ending" $SRC/ending.c -pthread >"$T/build.log" 2>&1; then
	for m in "18 fib" "500 threads"; do
		rm -rf "$T/prof"
		# shellcheck disable=SC2086
		if "$QEMU" -L "$SYSROOT" -E LD_PRELOAD="$PRELOAD" -E PATCHSITE_TRACER=function_profile \
			-E PATCHSITE_DATA="$T/prof" "$T/ending" $m >"$T/out" 2>"$T/err" &&
		   python3 tests/patchsite/oracles/check_profile.py decode "$T"/prof/*/profile >"$T/dec" 2>>"$T/err"; then
			want=$(sed -n 's/^fib=[0-9]* calls=//p; s/^calls=//p' "$T/out")
			got=$(awk '$1 == "fib" || $1 == "leaf" { s += $2 } END { print s }' "$T/dec")
			if [ -n "$want" ] && [ "$got" = "$want" ] && [ ! -s "$T/err" ]; then
				pass "function_profile: ending $m: $got hits, as the program counts"
			else
				cat "$T/out" "$T/dec" >>"$T/err"; fail "function_profile: ending $m ($got, want $want)" "$T/err"
			fi
		else
			fail "function_profile: ending $m" "$T/err"
		fi
	done
else
	fail "function_profile: build ending" "$T/build.log"
fi

summary "$ARCH"
