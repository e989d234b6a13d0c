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
# and defines record (patchsite record with SANPRE), pass, fail, skip, summary.  At exit it kills
# the sample start started (SPID) and the background jobs named in BG, and removes T.
# fail WHAT [FILE...] shows the files' first FAIL_LINES lines (default 30).
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
# QEMU_AARCH64, ... override), false with NEED naming what is missing.
# form_flags FORM, form_ld FORM: a build form's compiler and link flags (the forms below);
# build_form OUT FORM SOURCES... [-- LINK ARGS] builds them into OUT, the log in $T/build.log.
# build_ending builds testdata/patchsite/ending.c (-pg -mfentry
# -mrecord-mcount) into $T/ending and changes to $T, or fails and exits.

suite_init() {
	B=${2:-build}
	MODE=${3:-plain}
	T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-$1.XXXXXX")
	SPID=
	BG=
	trap suite_exit EXIT
	PASS=0
	FAIL=0
	SKIP=0
	CC=${CC:-gcc}
	PS="$PWD/$B/patchsite"
	TESTS="$PWD/tests/patchsite"
	export PATCHSITE_LIB="$PWD/$B/libpatchsite.so"
	SANPRE=
	if [ "$MODE" = san ]; then
		SANPRE="$($CC -print-file-name=libasan.so) $($CC -print-file-name=libubsan.so)"
		export ASAN_OPTIONS=detect_leaks=1
	fi
}

suite_exit() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	for _p in $BG; do kill "$_p" 2>/dev/null; done
	if [ -z "${KEEP:-}" ]; then rm -rf "$T"; else echo "kept $T" >&2; fi
	exec 3>&- 2>/dev/null
}

record() { LD_PRELOAD="$SANPRE" "$PS" record "$@"; }
pass() { PASS=$((PASS + 1)); echo "PASS ${LABEL:+$LABEL }$1"; }
fail() {
	FAIL=$((FAIL + 1))
	echo "FAIL ${LABEL:+$LABEL }$1"
	[ $# -gt 1 ] || return 0
	shift
	sed 's/^/    /' "$@" 2>/dev/null | head -"${FAIL_LINES:-30}"
}
skip() { SKIP=$((SKIP + 1)); echo "SKIP ${LABEL:+$LABEL }$1"; }
# summary [WHAT]: the counts line (after "WHAT: "), true when nothing failed.
summary() {
	echo "${1:+$1: }$PASS passed, $FAIL failed$([ "$SKIP" -eq 0 ] || echo ", $SKIP skipped")"
	[ "$FAIL" -eq 0 ]
}

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

form_flags() {
	case $1 in
	nonpie) echo "-pg -mfentry -mrecord-mcount -fno-pie" ;;
	pie)    echo "-pg -mfentry -mrecord-mcount" ;;
	nop)    echo "-pg -mfentry -mnop-mcount -mrecord-mcount -fno-pie" ;;
	pfe)    echo "-fpatchable-function-entry=5" ;;
	piecf)  echo "-pg -mfentry -mrecord-mcount -fcf-protection" ;;
	pfecf)  echo "-fpatchable-function-entry=5 -fcf-protection" ;;
	rmc)    echo "-pg -mfentry -fno-pie" ;;
	rmcpie) echo "-pg -mfentry" ;;	# rmc*: the table made by our recordmcount
	notable) echo "-pg -mfentry" ;;	# no table: the sites found at start-up
	ret)    echo "-pg -mfentry -mnop-mcount -mrecord-mcount -minstrument-return=nop5 -mrecord-return -fno-pie" ;;
	mcount) echo "-pg -mrecord-mcount -fno-pie" ;;
	mcountpie) echo "-pg -mrecord-mcount" ;;
	pg)     echo "-pg -fno-pie" ;;
	pgpie)  echo "-pg" ;;
	esac
}

form_ld() {
	case $1 in
	nonpie|nop|rmc|ret|mcount|pg) echo "-no-pie" ;;
	*) echo "" ;;
	esac
}

# build_form OUT FORM SOURCES... [-- EXTRA LINK ARGS]: traced sources with the form's flags
build_form() {
	_out=$1 _form=$2
	shift 2
	_objs=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_o="$T/$(basename "$1" .c)-$_form.o"
		$CC -O2 -g $(form_flags "$_form") -c "$1" -o "$_o" >>"$T/build.log" 2>&1 || return 1
		case $_form in
		rmc*) "$B/recordmcount" "$_o" >>"$T/build.log" 2>&1 || return 1 ;;
		esac
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
