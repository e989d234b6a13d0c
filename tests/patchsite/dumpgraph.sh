#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# dump --graphviz and dump --mermaid (issue 42): the call graph as uftrace's dump draws it.
# Oracles: uftrace 0.13's dump --graphviz and --mermaid (Debian's) of its own recording of the
# same binary, with the same filters; graphviz's dot reads both DOT outputs (dot -Tjson0: its
# own parser, which must accept patchsite's without a word) and check_dumpgraph.py compares
# the graphs it parsed: name, nodes, and edges with their call counts as multisets.  Mermaid:
# check_dumpgraph.py's parser of the published flowchart syntax reads patchsite's output
# (nothing else allowed in it) and uftrace's flowchart (inside its HTML page) into trees of
# paths with their calls, compared.  Samples: testdata's reportmix.c (two threads; its comment
# has its calls) and callgraph.c (recursion, one function by two paths, calls that never
# return, which uftrace counts).
# usage: dumpgraph.sh BUILD_DIR plain|san
set -u
. "$PWD/tests/patchsite/lib.sh"
suite_init dumpgraph "$@"
CHECK="python3 $TESTS/oracles/check_dumpgraph.py"
SRC=$PWD/testdata/patchsite
for tool in uftrace dot; do
	command -v $tool >/dev/null || { echo "FAIL $tool not installed (scripts/deps.sh)"; exit 1; }
done
cd "$T" || exit 1
# The man page's commands run as printed: patchsite on PATH.
PATH="$(dirname "$PS"):$PATH"

# sample NAME SOURCE: built as uftrace's tests build (-pg -O0), recorded by both tools into
# NAME.u and NAME.p.
sample() {
	if $CC -O0 -pg -pthread -o "$1" "$SRC/$2" 2>build.log &&
	   uftrace record -d "$1.u" --no-libcall --no-event "./$1" >"$1.uout" 2>"$1.uerr" &&
	   record -d "$1.p" --no-libcall "./$1" >"$1.pout" 2>"$1.perr"; then
		return 0
	fi
	cat build.log "$1.uerr" "$1.perr" >why
	fail "build and record $2" why
	echo "$PASS passed, $FAIL failed"
	exit 1
}
sample mix reportmix.c
sample cg callgraph.c

# same PROG "FILTERS" [UFILTERS]: dump --graphviz and --mermaid of PROG with FILTERS (uftrace:
# UFILTERS when given), uftrace's against patchsite's.
n=0
same() {
	prog=$1 f=$2 uf=${3:-$2}
	n=$((n + 1))
	# shellcheck disable=SC2086  # the filters are words
	uftrace dump -d "$prog.u" --graphviz $uf >u.$n.dot 2>>u.err
	# shellcheck disable=SC2086
	"$PS" dump -d "$prog.p" --graphviz $f >p.$n.dot 2>p.$n.err; rc=$?
	if [ $rc != 0 ] || [ -s p.$n.err ]; then
		{ echo "exit $rc"; cat p.$n.err; } >why.$n
		fail "$prog: patchsite dump --graphviz $f" why.$n
	elif ! dot -Tjson0 u.$n.dot >u.$n.json 2>dot.$n.err ||
	     ! dot -Tjson0 p.$n.dot >p.$n.json 2>>dot.$n.err || [ -s dot.$n.err ]; then
		cat p.$n.dot >>dot.$n.err
		fail "$prog --graphviz $f: dot reads it without a word" dot.$n.err
	elif $CHECK dot u.$n.json p.$n.json >cmp.$n 2>&1; then
		pass "$prog --graphviz $f: dot reads it; $(cat cmp.$n)"
	else
		{ cat cmp.$n; echo "uftrace:"; cat u.$n.dot; echo "patchsite:"; cat p.$n.dot; } >why.$n
		fail "$prog --graphviz $f against uftrace dump --graphviz $uf" why.$n
	fi
	# shellcheck disable=SC2086
	uftrace dump -d "$prog.u" --mermaid $uf >u.$n.html 2>>u.err
	# shellcheck disable=SC2086
	"$PS" dump -d "$prog.p" --mermaid $f >p.$n.mmd 2>p.$n.err; rc=$?
	if [ $rc != 0 ] || [ -s p.$n.err ]; then
		{ echo "exit $rc"; cat p.$n.err; } >why.$n
		fail "$prog: patchsite dump --mermaid $f" why.$n
	elif $CHECK mermaid u.$n.html p.$n.mmd >cmp.$n 2>&1; then
		pass "$prog --mermaid $f: a flowchart; $(cat cmp.$n)"
	else
		{ cat cmp.$n; echo "patchsite:"; cat p.$n.mmd; } >why.$n
		fail "$prog --mermaid $f against uftrace dump --mermaid $uf" why.$n
	fi
}

same mix ""
same mix "-F top"
same mix "-N mid"
same mix "-D 2"
same mix "-F top -D 2"
same mix "-F mid -N leaf"
same mix "-N top -N work"
same mix "-T mid@depth=1"
same mix "-T top@notrace"
same mix "-C leaf"
same mix "-H mid"
# The main thread only: each recording's own pid (uftrace's in its task.txt).
upid=$(sed -n 's/^SESS .* pid=\([0-9]*\) .*/\1/p' mix.u/task.txt)
ppid=$(sed -n '1s/^\([0-9]*\) .*/\1/p' mix.p/session)
same mix "--tid=$ppid" "--tid=$upid"
same cg ""
same cg "-D 3"
same cg "-N twice"
same cg "-F down"

# The checks can fail: the whole graph is not uftrace's -F top one, and a flowchart line
# outside the syntax (a node's text unquoted) is refused.
if $CHECK dot u.2.json p.1.json >out 2>&1 || ! grep -q "^check_dumpgraph: nodes only" out; then
	fail "check_dumpgraph.py took the whole graph for uftrace's -F top" out
else
	pass "the whole graph against uftrace's -F top: told apart ($(cut -c1-60 out)...)"
fi
sed '3s/\["\([a-z]*\)"\]/[\1]/' p.1.mmd >bad.mmd
if ! cmp -s bad.mmd p.1.mmd && ! $CHECK mermaid u.1.html bad.mmd >out 2>&1 &&
   grep -q "not a flowchart statement" out; then
	pass "a flowchart line outside the syntax is refused: $(cat out)"
else
	fail "a mangled flowchart line" out
fi

# The edges' text: every edge of the DOT output, as printed (uftrace's xlabel).
if grep -qx '	"mid" -> "leaf" \[xlabel = "32"\]' p.1.dot &&
   grep -qx '	"mid" -> "leaf" \[xlabel = "24"\]' p.1.dot; then
	pass "leaf under top/mid (32 calls) and under work/mid (24 calls): an edge each"
else
	fail "mid -> leaf edges" p.1.dot
fi

# C++ names through both syntaxes (uftrace 0.13 writes operator"" _km unescaped in its DOT,
# and strips the template arguments: not the oracle here): what dot parses back and what the
# flowchart's labels read are the functions' names as c++filt gives them from the binary's
# symbols (their parameters left out), with the program's and main.
if ${CXX:-g++} -O0 -pg -o names "$SRC/callgraph_names.cc" 2>build.log &&
   record -d names.p --no-libcall ./names >names.out 2>names.err; then
	{ echo names; echo main
	  nm names | awk '$2 ~ /^[TW]$/ && $3 ~ /^_Z/ { print $3 }' | c++filt | sed 's/(.*$//'; } >names.want
	"$PS" dump -d names.p --graphviz >names.dot 2>names.err
	"$PS" dump -d names.p --mermaid >names.mmd 2>>names.err
	if [ ! -s names.err ] && dot -Tjson0 names.dot >names.json 2>names.err && [ ! -s names.err ] &&
	   $CHECK names names.json names.mmd names.want >out 2>&1; then
		pass "C++ names ('\"', '<', '>') escaped: $(cat out)"
	else
		{ cat names.err out; cat names.dot names.mmd; } >why
		fail "C++ names in DOT and mermaid" why
	fi
else
	cat build.log names.err >why
	fail "build and record callgraph_names.cc" why
fi

# The man page's examples, exactly as it prints them.
rm -rf patchsite.data
ln -s mix.p patchsite.data
rm -f callgraph.svg top.svg callgraph.mmd
patchsite dump --graphviz | dot -Tsvg >callgraph.svg 2>ex.err
patchsite dump --graphviz -F top | dot -Tsvg >top.svg 2>>ex.err
patchsite dump --mermaid >callgraph.mmd 2>>ex.err
if [ ! -s ex.err ] && [ "$(grep -c '<g id="edge' callgraph.svg)" = 8 ] &&
   [ "$(grep -c '<g id="edge' top.svg)" = 4 ] && cmp -s callgraph.mmd p.1.mmd; then
	pass "the man page's examples: an SVG of 8 edges, of 4 under top, the flowchart"
else
	fail "the man page's examples" ex.err
fi

# Bad input.  A session list of damaged lines only: one line naming it, exit 1, nothing out.
mkdir -p broken && cp -r mix.p/. broken/ && echo garbage >broken/session
"$PS" dump -d broken --graphviz >out 2>err; rc=$?
if [ $rc = 1 ] && [ ! -s out ] && grep -q "^patchsite: broken/session: not a session line" err &&
   tail -n 1 err | grep -q "^patchsite: broken: not a trace directory (no process in its session list)$"; then
	pass "a session list of garbage: exit 1, $(tail -n 1 err)"
else
	{ echo "exit $rc"; cat err out; } >why
	fail "dump --graphviz of a damaged session list" why
fi
"$PS" dump -d nosuch --mermaid >out 2>err; rc=$?
if [ $rc = 1 ] && [ ! -s out ] && [ "$(wc -l <err)" = 1 ] && grep -q "^patchsite: nosuch: not a trace directory" err; then
	pass "no directory: exit 1, $(cat err)"
else
	{ echo "exit $rc"; cat err; } >why
	fail "dump --mermaid of no directory" why
fi
# A thread's file damaged: said (the file and why), the rest drawn, exit 0 as every reader
# (patchsite(1)): the main thread and the other worker drawn, one work() call less.
rm -rf broken && mkdir broken && cp -r mix.p/. broken/
victim=
for f in broken/*/thread.*; do
	[ "${f##*/}" = "thread.$ppid" ] || { victim=$f; break; }
done
head -c 64 /dev/urandom >"$victim"
"$PS" dump -d broken --graphviz >out 2>err; rc=$?
if [ $rc = 0 ] && [ "$(wc -l <err)" = 1 ] && grep -q "^patchsite: $victim: truncated" err &&
   dot -Tjson0 out >/dev/null 2>&1 && grep -q '"mix" -> "work" \[xlabel = "1"\]' out; then
	pass "a worker's file damaged: $(cat err); the other worker's work() drawn"
else
	{ echo "exit $rc"; cat err out; } >why
	fail "dump --graphviz with a damaged thread file" why
fi

# The function tracer's hits have no returns, so no place in the tree: their number is said
# (callgraph.c's comment: 1 main + 4 down + 3 twice + 6 leaf + 1 bye = 15), not dropped unsaid.
record -d fn.p --tracer=function --no-libcall ./cg >fn.out 2>fn.err
"$PS" dump -d fn.p --graphviz >out 2>err; rc=$?
if [ $rc = 0 ] && [ "$(wc -l <err)" = 1 ] &&
   grep -q "^patchsite: fn.p/[0-9]*: 15 function tracer hits (no returns recorded) are not in the call graph" err &&
   dot -Tjson0 out >/dev/null 2>&1; then
	pass "the function tracer's recording: $(cat err)"
else
	{ echo "exit $rc"; cat fn.err err out; } >why
	fail "dump --graphviz of the function tracer's recording" why
fi

# The other tree-shaped outputs say the same count (they dropped it unsaid before).
for v in "dump --folded:folded stacks" "dump --flamegraph:flame graph" "graph:call graph" \
	 "report --graph:call graph"; do
	"$PS" ${v%%:*} -d fn.p >out 2>err; rc=$?
	if [ $rc = 0 ] && [ "$(wc -l <err)" = 1 ] &&
	   grep -q "^patchsite: fn.p/[0-9]*: 15 function tracer hits (no returns recorded) are not in the ${v#*:}" err; then
		pass "${v%%:*} of the function tracer's recording says its 15 hits"
	else
		{ echo "exit $rc"; cat err; } >why
		fail "${v%%:*} of the function tracer's recording" why
	fi
done

# Usage: --reverse is --flamegraph's; dump without a format names the new ones.
"$PS" dump -d mix.p --graphviz --reverse >out 2>err; rc=$?
if [ $rc = 2 ] && [ ! -s out ] && grep -q "^patchsite: --reverse: only with dump --flamegraph" err; then
	pass "--graphviz --reverse: exit 2, $(head -n 1 err)"
else
	{ echo "exit $rc"; cat err; } >why
	fail "--graphviz --reverse" why
fi
"$PS" dump -d mix.p >out 2>err; rc=$?
if [ $rc = 2 ] && grep -q -- "--graphviz or --mermaid?" err; then
	pass "dump without a format: exit 2, $(head -n 1 err)"
else
	{ echo "exit $rc"; cat err; } >why
	fail "dump without a format" why
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
