# What tests/build's suites share: PASS/FAIL counts, pass and fail, a directory of their own
# ($T, kept with KEEP=1), and the environment of a user at a shell (no make around).
#   suite_init NAME
suite_init() {
	PASS=0
	FAIL=0
	T=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 2
	trap 'if [ -z "${KEEP:-}" ]; then rm -rf "$T"; else echo "kept $T" >&2; fi' EXIT
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
}
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | tail -20; }
