# SPDX-License-Identifier: GPL-2.0-only
# What the recording suites share (sourced from the top of the source tree,
# after `set -u`):  suite_init NAME BUILD_DIR plain|san  sets
#   B MODE        the build directory and plain or san
#   T             a temporary directory, removed at exit (kept, and named on
#                 stderr, when KEEP is set: KEEP=1 sh tests/patchsite/NAME.sh)
#   PASS FAIL SKIP  the counts pass, fail and skip keep
#   CC PS         the compiler, the patchsite command (absolute)
#   TESTS         tests/patchsite (absolute): the oracles are in TESTS/oracles
#   SANPRE        under san: the sanitizer runtimes record preloads
# and defines record (patchsite record with SANPRE), pass, fail, skip, summary.  At exit (an
# interrupt or TERM exits 2 through it) it runs what on_exit CMD added (a suite's unmounts),
# kills the sample start started (SPID) and the background jobs named in BG, and removes T.
# Every suite of tests/ starts here, not only the recording ones (tests/bad, golden, tree,
# layers, recordmcount, verify): they use T, pass, fail, skip and summary.
# fail WHAT [FILE...] shows the files' first FAIL_LINES lines (default 30; their last ones
# with FAIL_END=1, for a build log whose error is at its end).
# user_shell: the environment of a user at a shell, no make and no runtime of the tree's
# around (tests/build: make run as README prints it, the installed files alone).
# LABEL, when set, is put before every PASS and FAIL line's text (a qemu suite's arch).
# nesting FILE prints a function_graph replay's calls (uftrace's or ours) as "depth token"
# lines, token name() {, name(); or } (a closing comment dropped).
# wait_for FILE RE waits (20 s at most) for a line of FILE matching RE; phase CMD WORD sends CMD
# to a sample on fd 3 and waits for a new "WORD A B C" line of ./out, setting A BB C
# (testdata/patchsite/ctlspin.c's protocol).
# start PROG ARGS starts a sample with an empty environment, driven on fd 3, and waits for
# its "ready" line (START_WAIT tenths of a second, default 20 s); finish quits it (exit 0
# and nothing on stderr, or false).
# only_x86_64 SUITE REASON [CMD...] skips the suite (exit 0) unless on x86-64 with each CMD.
# qemu_init aarch64|riscv64 sets QEMU CC CXX SYSROOT OBJDUMP for the arch (A64_CC, RV64_CC,
# QEMU_AARCH64, ... override) and FORM_ARCH, false with NEED naming what is missing.
# form_flags FORM, form_ld FORM: a build form's compiler and link flags on FORM_ARCH (x86_64
# unless qemu_init set it; the forms below, every arch's in one table);
# build_form OUT FORM SOURCES... [-- LINK ARGS] builds them into OUT, the log in $T/build.log
# (form_table: the table our recordmcount makes for the forms that need it).
# build_ending builds testdata/patchsite/ending.c (-pg -mfentry
# -mrecord-mcount) into $T/ending and changes to $T, or fails and exits.

suite_init() {
	B=${2:-build}
	MODE=${3:-plain}
	T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-$1.XXXXXX")
	SPID=
	BG=
	ON_EXIT=
	trap suite_exit EXIT
	trap 'exit 2' INT TERM
	PASS=0
	FAIL=0
	SKIP=0
	CC=${CC:-gcc}
	case $B in /*) _top= ;; *) _top=$PWD/ ;; esac	# BUILD_DIR absolute or from the top
	PS="$_top$B/patchsite"
	TESTS="$PWD/tests/patchsite"
	export PATCHSITE_LIB="$_top$B/libpatchsite.so"
	SANPRE=
	if [ "$MODE" = san ]; then
		SANPRE="$($CC -print-file-name=libasan.so) $($CC -print-file-name=libubsan.so)"
		export ASAN_OPTIONS=detect_leaks=1
	fi
}

# on_exit CMD: run CMD (a string, eval'd) at exit, before T is removed.
on_exit() { ON_EXIT="$ON_EXIT$1;"; }

suite_exit() {
	[ -n "$ON_EXIT" ] && eval "$ON_EXIT"
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	for _p in $BG; do kill "$_p" 2>/dev/null; done
	if [ -z "${KEEP:-}" ]; then rm -rf "$T"; else echo "kept $T" >&2; fi
	exec 3>&- 2>/dev/null
}

record() { LD_PRELOAD="$SANPRE" "$PS" record "$@"; }
# pass [WHAT]: counted; printed when named (tests/verify/run.sh's checks print only failures).
pass() { PASS=$((PASS + 1)); [ $# -eq 0 ] || echo "PASS ${LABEL:+$LABEL }$1"; }
fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL ${LABEL:+$LABEL }$1"
	[ $# -gt 1 ] || return 0
	shift
	sed 's/^/    /' "$@" 2>/dev/null | if [ -n "${FAIL_END:-}" ]; then tail -"${FAIL_LINES:-30}"
	else head -"${FAIL_LINES:-30}"; fi
}
skip() { SKIP=$((SKIP + 1)); echo "SKIP ${LABEL:+$LABEL }$1"; }
# summary [WHAT]: the counts line (after "WHAT: "), true when nothing failed.
summary() {
	echo "${1:+$1: }$PASS passed, $FAIL failed$([ "$SKIP" -eq 0 ] || echo ", $SKIP skipped")"
	[ "$FAIL" -eq 0 ]
}

user_shell() { unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES PATCHSITE_LIB; }

only_x86_64() {
	_why="$1: $2"
	shift 2
	[ "$(uname -m)" = x86_64 ] || { echo "SKIP $_why"; exit 0; }
	for _c; do command -v "$_c" >/dev/null 2>&1 || { echo "SKIP $_why"; exit 0; }; done
}

qemu_init() {
	case $1 in
	aarch64)
		QEMU=${QEMU_AARCH64:-$(command -v qemu-aarch64-static || command -v qemu-aarch64)}
		CC=${A64_CC:-aarch64-linux-gnu-gcc}
		CXX=${A64_CXX:-aarch64-linux-gnu-g++}
		SYSROOT=${A64_SYSROOT:-/usr/aarch64-linux-gnu}
		;;
	riscv64)
		QEMU=${QEMU_RISCV64:-$(command -v qemu-riscv64-static || command -v qemu-riscv64)}
		CC=${RV64_CC:-riscv64-linux-gnu-gcc}
		CXX=${RV64_CXX:-riscv64-linux-gnu-g++}
		SYSROOT=${RV64_SYSROOT:-/usr/riscv64-linux-gnu}
		;;
	*)
		echo "unknown arch '$1' (aarch64, riscv64)" >&2
		exit 2
		;;
	esac
	OBJDUMP=${CC%gcc}objdump
	FORM_ARCH=$1
	NEED="$CC and qemu-$1"
	[ -n "$QEMU" ] && command -v "$CC" >/dev/null 2>&1
}

nesting() {
	grep -v '^#' "$1" | awk -F'|' 'NF >= 2 {
		s = $NF; sub(/^ /, "", s); d = match(s, /[^ ]/) - 1; s = substr(s, d + 1)
		sub(/^} \/\*.*\*\/$/, "}", s); print d / 2, s }'
}

build_ending() {
	$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/ending.c -o "$T/ending.o" \
		>"$T/build.log" 2>&1 && $CC -o "$T/ending" "$T/ending.o" -pthread >>"$T/build.log" 2>&1 ||
		{ fail "build ending" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
	cd "$T" || exit 1
}

# The forms, by arch.  x86_64: the entry forms gcc emits (rmc*: the table made by our
# recordmcount; notable: no table, the sites found at start-up).  aarch64 and riscv64 (the qemu
# suites; tests/patchsite-qemu/run.sh says what each is): pfe*, bti, rvc*, rv64g the patchable
# entry; pg, pgt (its table by our recordmcount), pgbti the -pg ones; nofp, cyg (unwind.cc).
# plt-*: how a program whose library calls are traced is built (tests/patchsite-qemu/libcall.sh).
form_flags() {
	case ${FORM_ARCH:-x86_64}:$1 in
	x86_64:nonpie) echo "-pg -mfentry -mrecord-mcount -fno-pie" ;;
	x86_64:pie)    echo "-pg -mfentry -mrecord-mcount" ;;
	x86_64:nop)    echo "-pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie" ;;
	x86_64:pfe)    echo "-fpatchable-function-entry=5" ;;
	x86_64:piecf)  echo "-pg -mfentry -mrecord-mcount -fcf-protection" ;;
	x86_64:pfecf)  echo "-fpatchable-function-entry=5 -fcf-protection" ;;
	x86_64:rmc)    echo "-pg -mfentry -fno-pie" ;;
	x86_64:rmcpie) echo "-pg -mfentry" ;;
	x86_64:notable) echo "-pg -mfentry" ;;
	x86_64:ret)    echo "-pg -mfentry -mnop-mcount -mrecord-mcount -minstrument-return=nop5 -mrecord-return -fno-pie" ;;
	x86_64:mcount) echo "-pg -mrecord-mcount -fno-pie" ;;
	x86_64:mcountpie) echo "-pg -mrecord-mcount" ;;
	x86_64:pg)     echo "-pg -fno-pie" ;;
	x86_64:pgpie)  echo "-pg" ;;
	aarch64:pfe)   echo "-fpatchable-function-entry=2" ;;
	aarch64:pfenp) echo "-fpatchable-function-entry=2 -fno-pie" ;;
	aarch64:bti)   echo "-fpatchable-function-entry=2 -mbranch-protection=standard" ;;
	aarch64:pg | aarch64:pgt) echo "-pg" ;;
	aarch64:pgbti) echo "-pg -mbranch-protection=standard" ;;
	aarch64:nofp)  echo "-fpatchable-function-entry=2 -mbranch-protection=standard -fomit-frame-pointer" ;;
	aarch64:cyg)   echo "-finstrument-functions" ;;
	riscv64:rvc)   echo "-fpatchable-function-entry=4 -falign-functions=4" ;;
	riscv64:rvcnp) echo "-fpatchable-function-entry=4 -falign-functions=4 -fno-pie" ;;
	riscv64:rv64g) echo "-march=rv64g -fpatchable-function-entry=2" ;;
	*:plt-pie)     echo "-fPIE -pie" ;;
	*:plt-nopie)   echo "-fno-pie -no-pie" ;;
	aarch64:plt-bti) echo "-fPIE -pie -mbranch-protection=standard" ;;
	esac
}

form_ld() {
	case ${FORM_ARCH:-x86_64}:$1 in
	x86_64:nonpie | x86_64:nop | x86_64:rmc | x86_64:ret | x86_64:mcount | x86_64:pg) echo "-no-pie" ;;
	aarch64:pfenp | riscv64:rvcnp) echo "-no-pie" ;;
	*) echo "" ;;
	esac
}

# form_table FORM OBJECT: the forms whose table our recordmcount makes (FORM_RMC, default
# $B/recordmcount: a qemu suite's is the host's).
form_table() {
	case ${FORM_ARCH:-x86_64}:$1 in
	x86_64:rmc* | aarch64:pgt) "${FORM_RMC:-$B/recordmcount}" "$2" >>"$T/build.log" 2>&1 ;;
	esac
}

# build_form OUT FORM SOURCES... [-- EXTRA LINK ARGS]: traced sources (C, or C++ with CC=$CXX)
# with the form's flags and XFLAGS, each object named for its source and form.
build_form() {
	_out=$1 _form=$2
	shift 2
	_objs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_o="$T/$(basename "$1" | sed 's/\.[a-z]*$//')-$_form.o"
		$CC -O2 -g $(form_flags "$_form") ${XFLAGS:-} -c "$1" -o "$_o" >>"$T/build.log" 2>&1 ||
			return 1
		form_table "$_form" "$_o" || return 1
		_objs="$_objs $_o"
		shift
	done
	[ $# -gt 0 ] && shift
	$CC $(form_ld "$_form") -o "$_out" $_objs "$@" >>"$T/build.log" 2>&1
}

# wait_for FILE PATTERN [TENTHS]: until a line of FILE matches (default 20 s, in tenths of a second).
wait_for() {
	for _ in $(seq "${3:-200}"); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

start() {
	rm -f in out err
	mkfifo in
	env -i "$@" <in >out 2>err &
	SPID=$!
	exec 3>in
	wait_for out '^ready' "${START_WAIT:-200}"
}

finish() {
	echo quit >&3
	exec 3>&-
	wait "$SPID"; st=$?
	SPID=
	[ $st -eq 0 ] && [ ! -s err ]
}

# phase CMD WORD: send CMD to the sample, wait for a new WORD line; sets A BB C (its counts),
# x x x when it does not answer within PHASE_WAIT tenths of a second (default 30 s).
phase() {
	n0=$(grep -c "^$2 " out)
	echo "$1" >&3
	for _ in $(seq "${PHASE_WAIT:-300}"); do
		[ "$(grep -c "^$2 " out)" -gt "$n0" ] && break
		sleep 0.1
	done
	[ "$(grep -c "^$2 " out)" -gt "$n0" ] || { fail "sample did not answer '$1'" err; A=x BB=x C=x; return 1; }
	set -- $(grep "^$2 " out | tail -1)
	A=$2 BB=$3 C=$4
}

# only_switches_lost FILE is true when FILE (record's stderr) says nothing, or nothing but
# record's last line on scheduler switches the kernel could not give (record_lost.c; perf's
# count, PERF_RECORD_LOST, on a loaded machine), so that a test about events is not failed
# by a lost switch.  Any other line fails it, the "events lost" one too; the test checks
# `patchsite info`'s events lost itself.
only_switches_lost() {
	! grep -qv '^patchsite: .*: [0-9]* scheduler switches lost (per thread: patchsite info -d .*)$' "$1"
}
