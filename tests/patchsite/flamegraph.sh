#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# dump --flamegraph, an SVG flame graph (icicle with --reverse): usage  flamegraph.sh BUILD_DIR plain|san
#
# Oracles: check_flame.py parses the SVG as XML and rebuilds its tree from the
# frames' rows and x ranges alone, then compares every frame's time with the node
# of report --graph --json at the same path (a tree built separately from the same
# calls) and the root's with the sum of report's self times, and looks for the
# hottest function (report's largest self time) written in a frame; the sample
# program's call counts come through report.  A picture people look at is checked
# where they look at it: headless Chromium's screenshot against the SVG's frames
# (check_shot.py).
set -u

. tests/patchsite/lib.sh
suite_init flame "$@"
CHECK="$TESTS/oracles/check_flame.py"
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

# The picture a browser draws (scripts/deps.sh installs Debian's chromium; without it this
# fails): check_shot.py reads the screenshot's pixels and finds every frame of the SVG in its
# colour at its place.  The same check on the picture of a copy whose main() frame is
# recoloured must fail: it is the picture that is looked at.
# shot SVG PNG: a headless Chromium screenshot of SVG at 1:1
shot() {
	chromium --headless --disable-gpu --no-sandbox --screenshot="$2" \
		--window-size=1200,600 "file://$1" >shot.log 2>&1
}
if ! command -v chromium >/dev/null 2>&1; then
	echo "no chromium: scripts/deps.sh installs Debian's chromium" >shot.log
	fail "the flame graph in a browser" shot.log
elif shot "$T/f.svg" "$T/shot.png" && python3 "$TESTS/oracles/check_shot.py" f.svg shot.png >out 2>&1; then
	pass "Chromium's picture of it: $(cat out)"
	sed 's/\(<title>main (.*fill="\)rgb([0-9,]*)/\1rgb(20,200,20)/' f.svg >recoloured.svg
	if ! grep -q 'rgb(20,200,20)' recoloured.svg || ! shot "$T/recoloured.svg" "$T/shot2.png" ||
	   python3 "$TESTS/oracles/check_shot.py" f.svg shot2.png >out 2>&1 || ! grep -q "^check_shot: frame 'main" out; then
		fail "the picture of a recoloured main() frame is told apart" out
	else
		pass "the picture of a copy with main() recoloured fails the check: $(cat out)"
	fi
else
	cat shot.log >>out
	fail "Chromium's picture of the flame graph" out
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
