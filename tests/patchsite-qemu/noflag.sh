#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No-flag sites (issue 37) are x86-64 only for now: on aarch64 (under qemu-user) a proof file
# is refused by name, in one line, and the program runs unchanged (testdata/noflag_rt/nfprog.c,
# -O2 without any flag; the oracle is its untraced run).
# usage  noflag.sh BUILD_DIR
set -u
export PATCHSITE_SCHED=0	# qemu-user has no perf_event_open (run.sh says why)
B=${1:-build/aarch64}
QEMU=${QEMU_AARCH64:-$(command -v qemu-aarch64-static || command -v qemu-aarch64)}
CC=${A64_CC:-aarch64-linux-gnu-gcc}
SYSROOT=${A64_SYSROOT:-/usr/aarch64-linux-gnu}
PRELOAD="$PWD/$B/libpatchsite.so"
SRC="$PWD/testdata/noflag_rt/nfprog.c"
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-aarch64-noflag.XXXXXX")
trap 'rm -rf "$T"' EXIT
if [ -z "$QEMU" ] || ! command -v "$CC" >/dev/null 2>&1 || [ ! -f "$PRELOAD" ]; then
	echo "FAIL aarch64 noflag: needs $CC, qemu-aarch64 and $PRELOAD"
	exit 1
fi
cd "$T" || exit 1
$CC -O2 -o nfprog "$SRC" >build.log 2>&1 || { echo "FAIL aarch64 noflag: build"; exit 1; }
# A well-formed proof (its contents are never used here).
printf 'patchsite-noflag-proof 1\nobject - 0 %s\nsite 0 a 0 0 0000000000 5 f\n' "$T/nfprog" > p.proof
"$QEMU" -L "$SYSROOT" ./nfprog > want.out 2>/dev/null
want=$?
"$QEMU" -L "$SYSROOT" -E LD_PRELOAD="$PRELOAD" -E PATCHSITE_NOFLAG="$T/p.proof" \
	-E PATCHSITE_TRACER=function -E PATCHSITE_OUTPUT=/dev/null ./nfprog > got.out 2>err.txt
rc=$?
if [ $rc = $want ] && cmp -s want.out got.out && [ "$(wc -l < err.txt)" = 1 ] &&
   grep -qx 'patchsite: warning: PATCHSITE_NOFLAG: no-flag sites: x86-64 only for now: nothing armed' err.txt
then
	echo "PASS aarch64 noflag: a proof file refused by name, the program unchanged"
	exit 0
fi
echo "FAIL aarch64 noflag: exit $rc (untraced $want)"
sed 's/^/    /' err.txt | head
exit 1
