#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/patchsite/stress.c under ThreadSanitizer: usage  tsan.sh BUILD_DIR
# (BUILD_DIR holds a libpatchsite.a built with -fsanitize=thread: make check-tsan).
set -u

B=${1:-build/tsan}
SRC=testdata/patchsite
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-tsan.XXXXXX")
trap 'rm -rf "$T"' EXIT
CC=${CC:-gcc}
STRESS=${PS_TSAN_STRESS:-"4 300 20000"}
TSAN="-fsanitize=thread"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$PWD/tests/patchsite/tsan.supp ${TSAN_OPTIONS:-}"
FAIL=0

for form in pie nonpie; do
	case $form in
	pie)    fl="-pg -mfentry -mrecord-mcount" ld= ;;
	nonpie) fl="-pg -mfentry -mrecord-mcount -fno-pie" ld=-no-pie ;;
	esac
	if ! { $CC -O2 -g $fl -c $SRC/work.c -o "$T/work-$form.o" &&
	       $CC -O1 -g -Iinclude $TSAN -c tests/patchsite/stress.c -o "$T/stress.o" &&
	       $CC $ld -o "$T/stress-$form" "$T/work-$form.o" "$T/stress.o" "$B/libpatchsite.a" \
			$TSAN -pthread; } >"$T/build.log" 2>&1; then
		echo "FAIL $form: tsan: build"; sed 's/^/    /' "$T/build.log" | head -40
		FAIL=$((FAIL + 1))
		continue
	fi
	start=$(date +%s)
	"$T/stress-$form" $STRESS >"$T/out" 2>"$T/err"
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/out" && ! grep -q 'ThreadSanitizer' "$T/err"; then
		echo "PASS $form: tsan stress $STRESS (${secs}s): $(grep steady "$T/out" | sed 's/.*phase //'); $(grep INFO "$T/out" | sed 's/INFO stress: //')"
	else
		echo "FAIL $form: tsan stress $STRESS (exit $rc, ${secs}s)"
		sed 's/^/    /' "$T/out" "$T/err" | head -${PS_TSAN_LINES:-80}
		FAIL=$((FAIL + 1))
	fi
done
[ "$FAIL" -eq 0 ]
