#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time off the CPU (issue 25): usage  sched.sh BUILD_DIR plain|san
#
# Oracles, all from the kernel and never from patchsite's own output:
#  - switches: /proc/self/task/TID/status (voluntary_ctxt_switches,
#    nonvoluntary_ctxt_switches), read by testdata/patchsite/offcpu.c itself
#    before and after its work in each of 5 threads; the sched files, parsed
#    from patchsite-data(5) by check_sched.py, must hold exactly the switches
#    between the two reads (bounds for a switch during a read: see there).
#  - nosleep-time: CLOCK_THREAD_CPUTIME_ID around sleeper(), read by the
#    program; the tolerance is derived below.
#  - denied: a seccomp filter in the program makes perf_event_open return
#    EACCES, as perf_event_paranoid 3 would (the sysctl is not ours to set).
set -u

B=${1:-build}
MODE=${2:-plain}
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-sched.XXXXXX")
trap 'rm -rf "$T"' EXIT
PASS=0
FAIL=0
CC=${CC:-gcc}
PS="$PWD/$B/patchsite"
CHECK="$PWD/tests/patchsite/check_sched.py"
export PATCHSITE_LIB="$PWD/$B/libpatchsite.so"
SANPRE=
if [ "$MODE" = san ]; then
	SANPRE="$($CC -print-file-name=libasan.so) $($CC -print-file-name=libubsan.so)"
	export ASAN_OPTIONS=detect_leaks=1
fi
record() { LD_PRELOAD="$SANPRE" "$PS" record "$@"; }
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }

$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/offcpu.c -o "$T/offcpu.o" \
	>"$T/build.log" 2>&1 && $CC -o "$T/offcpu" "$T/offcpu.o" -pthread >>"$T/build.log" 2>&1 ||
	{ fail "build offcpu" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1

# perf events may be refused on this machine (perf_event_paranoid 3, a container's seccomp
# profile): then only the refusal is tested, and that is said.
record -d probe -- ./offcpu sleep >/dev/null 2>probe.err
if grep -q 'scheduler switches not recorded' probe.err; then
	echo "SKIP switches recorded: perf events are refused here: $(cat probe.err)"
	PERF=no
else
	PERF=yes
fi

# 1. The switches recorded = the kernel's counts of each thread's switches.
if [ $PERF = yes ]; then
	record -d sw -- ./offcpu switches >out.sw 2>err.sw
	if python3 "$CHECK" sw/*/ out.sw >out 2>&1 && [ ! -s err.sw ]; then
		pass "switches recorded = /proc counts: $(cat out)"
	else
		cat err.sw >>out
		fail "switches recorded = /proc counts" out
	fi
fi

# 2. --no-sched: no sched files, the info file says so.
record --no-sched -d off -- ./offcpu sleep >/dev/null 2>err.off
if ! ls off/*/sched.* >/dev/null 2>&1 && grep -qx 'sched off' off/*/info && [ ! -s err.off ]; then
	pass "--no-sched: no switch files, info says sched off"
else
	ls off/*/ >>err.off
	fail "--no-sched" err.off
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
