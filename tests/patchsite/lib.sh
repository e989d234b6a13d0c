# SPDX-License-Identifier: GPL-2.0-only
# What the recording suites share (sourced from the top of the source tree,
# after `set -u`):  suite_init NAME BUILD_DIR plain|san  sets
#   B MODE        the build directory and plain or san
#   T             a temporary directory, removed at exit (kept, and named on
#                 stderr, when KEEP is set: KEEP=1 sh tests/patchsite/NAME.sh)
#   PASS FAIL     the counts pass and fail keep
#   CC PS         the compiler, the patchsite command (absolute)
#   TESTS         tests/patchsite (absolute), for the checkers
#   SANPRE        under san: the sanitizer runtimes record preloads
# and defines record (patchsite record with SANPRE), pass, fail.
# nesting FILE prints a function_graph replay's calls (uftrace's or ours) as "depth token"
# lines, token name() {, name(); or } (a closing comment dropped).
# wait_for FILE RE waits (20 s at most) for a line of FILE matching RE; phase CMD WORD sends CMD
# to a sample on fd 3 and waits for a new "WORD A B C" line of ./out, setting A BB C
# (testdata/patchsite/ctlspin.c's protocol).
# build_ending builds testdata/patchsite/ending.c (-pg -mfentry
# -mrecord-mcount) into $T/ending and changes to $T, or fails and exits.

suite_init() {
	B=${2:-build}
	MODE=${3:-plain}
	T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-$1.XXXXXX")
	trap 'if [ -z "${KEEP:-}" ]; then rm -rf "$T"; else echo "kept $T" >&2; fi' EXIT
	PASS=0
	FAIL=0
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

record() { LD_PRELOAD="$SANPRE" "$PS" record "$@"; }
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }

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

# wait_for FILE PATTERN [TENTHS]: until a line of FILE matches (default 20 s, in tenths of a second).
wait_for() {
	for _ in $(seq "${3:-200}"); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
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

. tests/patchsite/stderr_quiet.sh	# only_switches_lost (sourced from the top of the tree)
