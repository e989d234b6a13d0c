#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# dump --flamegraph, an SVG flame graph (icicle with --reverse): usage  flamegraph.sh BUILD_DIR plain|san
#
# Oracles: check_flame.py parses the SVG as XML and rebuilds its tree from the
# frames' rows and x ranges alone, then compares every frame's time with the node
# of report --graph --json at the same path (a tree built separately from the same
# calls) and the root's with the sum of report's self times, and looks for the
# hottest function (report's largest self time) written in a frame; the sample
# program's call counts come through report.  The issue also asks for a look in a
# real browser (a headless Chromium screenshot): run where chromium is installed,
# skipped and said where it is not.
set -u

. tests/patchsite/lib.sh
suite_init flame "$@"
CHECK="$TESTS/check_flame.py"
build_ending

record -d f -- ./ending 22 fib >out.f 2>err
record -d t -- ./ending 3000 threads >out.t 2>>err
for d in f t; do
	"$PS" report -d $d --json >report.$d 2>>err
	"$PS" report -d $d --graph --json >graph.$d 2>>err
done
# check NAME DIR [--reverse]
check() {
	rev=${3:-}
	"$PS" dump -d "$2" --flamegraph $rev >"$2$rev.svg" 2>derr
	if [ $? -eq 0 ] && [ ! -s derr ] &&
	   python3 "$CHECK" "$2$rev.svg" report.$2 graph.$2 ending ${rev:+reverse} >out 2>&1; then
		pass "$1: $(cat out)"
	else
		cat derr >>out
		fail "$1" out
	fi
}
check "flame graph of fib(22)" f
check "icicle graph (--reverse) of fib(22)" f --reverse
check "flame graph of 4 threads x 3000 calls" t
calls=$(python3 -c 'import json,sys; print(sum(r["calls"] for r in json.load(open("report.t")) if r["name"] == "leaf"))')
if [ "$calls" = 12000 ] && grep -q '<title>leaf (' t.svg; then
	pass "the threads' 12000 leaf() calls (the sample's count) are one leaf frame"
else
	fail "leaf frame ($calls calls)" t.svg
fi

if command -v chromium >/dev/null 2>&1; then
	chromium --headless --disable-gpu --no-sandbox --screenshot="$T/shot.png" \
		--window-size=1200,600 "file://$T/f.svg" >shot.log 2>&1
	if [ -s "$T/shot.png" ]; then
		pass "Chromium renders it ($(stat -c %s "$T/shot.png") bytes of screenshot)"
	else
		fail "Chromium screenshot" shot.log
	fi
else
	echo "SKIP the look in a browser: no chromium here (the SVG is checked as XML above)"
fi

"$PS" dump -d f --reverse --folded >out 2>err
rc=$?
if [ $rc -eq 2 ] && grep -q -- '^patchsite: --reverse: only with dump --flamegraph' err && [ ! -s out ]; then
	pass "--reverse without --flamegraph: exit 2, $(head -1 err)"
else
	fail "--reverse without --flamegraph (exit $rc)" err
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
