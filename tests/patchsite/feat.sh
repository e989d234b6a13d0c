#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Recording features: tracing_on, set_ftrace_pid, tracing_thresh, arguments,
# filter commands, the latency tracer.  usage: feat.sh BUILD_DIR plain|san
#
# The oracle is the sample (testdata/patchsite/feat.c): it knows by
# construction which calls it made, in which thread, with which arguments
# and results, and which of them slept; each case compares exact counts from
# `patchsite report --json` / `replay` with what it did.
set -u

B=${1:-build}
MODE=${2:-plain}
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-feat.XXXXXX")
trap 'rm -rf "$T"' EXIT
PASS=0
FAIL=0
CC=${CC:-gcc}
PS="$PWD/$B/patchsite"
export PATCHSITE_LIB="$PWD/$B/libpatchsite.so"
SANPRE=
if [ "$MODE" = san ]; then
	SANPRE="$($CC -print-file-name=libasan.so) $($CC -print-file-name=libubsan.so)"
	export ASAN_OPTIONS=detect_leaks=1
fi
record() { LD_PRELOAD="$SANPRE" "$PS" record "$@"; }
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }

# counts: "name:calls ..." for every function report --json lists, sorted by name.
counts() {
	"$PS" report -d d --json 2>>rerr | python3 -c '
import json, sys
print(" ".join("%s:%d" % (r["name"], r["calls"]) for r in sorted(json.load(sys.stdin), key=lambda r: r["name"])))'
}

$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/feat.c -o "$T/feat.o" \
	>"$T/build.log" 2>&1 && $CC -o "$T/feat" "$T/feat.o" -pthread -ldl >>"$T/build.log" 2>&1 ||
	{ fail "build feat" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1

# case NAME WANT [record options] -- feat MODE: the counts must be WANT exactly, stderr empty.
case_() {
	name=$1 want=$2
	shift 2
	rm -rf d rerr
	record -d d "$@" >out 2>err
	got=$(counts)
	if [ "$got" = "$want" ] && [ ! -s err ] && [ ! -s rerr ] && ! grep -q 'ctl error' out; then
		pass "$name: $got"
	else
		echo "got:  $got" >>err
		echo "want: $want" >>err
		cat out rerr >>err 2>/dev/null
		fail "$name" err
	fi
}

for tr in function function_graph; do
	# 100 calls, off, 50 calls, on, 25 calls: 125 recorded; the ctl that turns it on is not.
	case_ "tracing_on ($tr)" "ctl:1 leaf:125 main:1" --tracer=$tr -- ./feat onoff
	# Thread A alone records, then the whole process: its 301 calls, one each of B and main.
	case_ "set_ftrace_pid ($tr)" "ctl:1 leaf_a:301 leaf_b:1 leaf_c:1 main:1 thread_a:1 thread_b:1" \
		--tracer=$tr -- ./feat pid
done
# Set at start: nothing is recorded at all.
rm -rf d
if PATCHSITE_TRACING_ON=0 record -d d -- ./feat onoff >out 2>err &&
   [ "$(counts)" = "leaf:25" ] && [ ! -s err ]; then
	pass "PATCHSITE_TRACING_ON=0: only the 25 calls after tracing_on 1"
else
	fail "PATCHSITE_TRACING_ON=0" err
fi
rm -rf d
if PATCHSITE_PID=abc record -d d -- ./feat onoff >out 2>err; [ $? -eq 0 ] &&
   grep -qx "patchsite: error: PATCHSITE_PID: set_ftrace_pid: 'abc' is not a thread or process id: not tracing" err; then
	pass "PATCHSITE_PID=abc refused by name"
else
	fail "PATCHSITE_PID=abc" err
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
