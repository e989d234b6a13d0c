#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No-flag sites (issue 37) are x86-64 only for now: on aarch64 (under qemu-user) a proof file
# is refused by name, in one line, and the program runs unchanged (testdata/noflag_rt/nfprog.c,
# -O2 without any flag; the oracle is its untraced run).
# usage  noflag.sh BUILD_DIR
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary, qemu_init
export PATCHSITE_SCHED=0	# qemu-user has no perf_event_open (run.sh says why)
suite_init aarch64-noflag "${1:-build/aarch64}" plain
LABEL="aarch64 noflag:"
PRELOAD="$PWD/$B/libpatchsite.so"
SRC="$PWD/testdata/noflag_rt/nfprog.c"
if ! qemu_init aarch64 || [ ! -f "$PRELOAD" ]; then
	echo "FAIL aarch64 noflag: needs $NEED and $PRELOAD"
	exit 1
fi
cd "$T" || exit 1
$CC -O2 -o nfprog "$SRC" >build.log 2>&1 || { fail "build" build.log; exit 1; }
printf 'patchsite-noflag-proof 1\nobject - 0 %s\nsite 0 a 0 0 0000000000 5 f\n' "$T/nfprog" > p.proof
"$QEMU" -L "$SYSROOT" ./nfprog > want.out 2>/dev/null
want=$?
"$QEMU" -L "$SYSROOT" -E LD_PRELOAD="$PRELOAD" -E PATCHSITE_NOFLAG="$T/p.proof" \
	-E PATCHSITE_TRACER=function -E PATCHSITE_OUTPUT=/dev/null ./nfprog > got.out 2>err.txt
rc=$?
if [ $rc = $want ] && cmp -s want.out got.out && [ "$(wc -l < err.txt)" = 1 ] &&
   grep -qx 'patchsite: warning: PATCHSITE_NOFLAG: no-flag sites: x86-64 only for now: nothing armed' err.txt
then
	pass "a proof file refused by name, the program unchanged"
else
	FAIL_LINES=10
	fail "exit $rc (untraced $want)" err.txt
fi
summary
