#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# report --graph and report --diff: usage  report_graph.sh BUILD_DIR plain|san
#
# Oracles: the sample program's call counts (testdata/patchsite/ending.c:
# fib(n) prints how many calls it made, `ending N threads` calls leaf N times
# in each of 4 threads); the graph's own arithmetic against report's rows
# (check_graph.py: calls and self time add up per function, total = self +
# children, the root of --graph=FUNC has report's total), as the issue asks
# ("graph totals equal report's"); --diff of a run with itself is all zeros.
set -u

. tests/patchsite/lib.sh
suite_init graph "$@"
CHECK="$TESTS/oracles/check_graph.py"
build_ending

# The sample's own calls are the oracle: library calls (record's default) not traced.
record -d a --no-libcall -- ./ending 22 fib >out.a 2>err
record -d b --no-libcall -- ./ending 20 fib >out.b 2>>err
record -d t --no-libcall -- ./ending 3000 threads >out.t 2>>err
fa=$(sed -n 's/^fib=[0-9]* calls=//p' out.a)
fb=$(sed -n 's/^fib=[0-9]* calls=//p' out.b)
for d in a b t; do "$PS" report -d $d --json >report.$d 2>>err; done

# The whole tree.
"$PS" report -d a --graph --json >graph.a 2>>err
if python3 "$CHECK" graph.a report.a fib="$fa" main=1 >out 2>&1 && only_switches_lost err; then
	pass "graph of fib(22): $(cat out)"
else
	cat err >>out
	fail "graph of fib(22)" out
fi
"$PS" report -d t --graph --json >graph.t 2>err
if python3 "$CHECK" graph.t report.t leaf=12000 thread=4 main=1 >out 2>&1 && [ ! -s err ]; then
	pass "graph of 4 threads x 3000 calls, merged: $(cat out)"
else
	fail "graph of threads" out
fi

# Rooted at a function: report's total, the outermost calls.
"$PS" report -d a --graph=fib --json >graph.fib 2>err
if python3 "$CHECK" --root fib graph.fib report.a 1 >out 2>&1 && [ ! -s err ]; then
	pass "--graph=fib: $(cat out)"
else
	fail "--graph=fib" out
fi
"$PS" report -d a --graph >text 2>err
if sed -n 3p text | grep -q ' 1 .* : main$' && sed -n 4p text | grep -q ' 1 .* : +-fib$' &&
   [ "$(grep -c ': *+-fib$' text)" -eq "$(grep -o '"name":"fib"' graph.a | wc -l)" ]; then
	pass "--graph text: main, then +-fib under it, one line per node"
else
	fail "--graph text" text
fi

# patchsite graph [FUNC]: uftrace's spelling of the same.
"$PS" graph -d a fib --json >graph.verb 2>err
"$PS" graph --json -d a >graph.verb2 2>>err
if cmp -s graph.verb graph.fib && cmp -s graph.verb2 graph.a && [ ! -s err ]; then
	pass "patchsite graph [FUNC]: the same output as report --graph[=FUNC]"
else
	fail "patchsite graph" err
fi
"$PS" graph -d a fib main >out 2>err
rc=$?
if [ $rc -eq 2 ] && head -1 err | grep -q '^patchsite: graph: one function at most'; then
	pass "graph with two functions: exit 2, $(head -1 err)"
else
	fail "graph with two functions (exit $rc)" err
fi

# --diff: with itself all zeros; fib(22) against fib(20): the sample's counts, the change.
"$PS" report -d a --diff=a --json >diff.aa 2>err
"$PS" report -d a --diff=b --json >diff.ab 2>>err
"$PS" report -d a --diff=t --sort=calls --json >diff.at 2>>err
if python3 - report.a report.b "$fa" "$fb" >out 2>&1 <<'PY'
import json, sys
aa = json.load(open("diff.aa"))
ab = {r["name"]: r for r in json.load(open("diff.ab"))}
at = {r["name"]: r for r in json.load(open("diff.at"))}
ra = {r["name"]: r for r in json.load(open(sys.argv[1]))}
rb = {r["name"]: r for r in json.load(open(sys.argv[2]))}
assert {r["name"] for r in aa} == set(ra), aa
assert all(r["change"] == 0 and r["calls_a"] == r["calls_b"] for r in aa), aa
assert ab["fib"]["calls_a"] == int(sys.argv[3]) and ab["fib"]["calls_b"] == int(sys.argv[4]), ab
for n in ("fib", "main"):
    assert ab[n]["change"] == rb[n]["total_ns"] - ra[n]["total_ns"], ab[n]
    assert ab[n]["total_a_ns"] == ra[n]["total_ns"] and ab[n]["total_b_ns"] == rb[n]["total_ns"]
assert at["leaf"]["calls_a"] == 0 and at["leaf"]["change"] == 12000, at
assert at["fib"]["calls_b"] == 0 and at["fib"]["change"] == -int(sys.argv[3]), at
changes = [abs(r["change"]) for r in json.load(open("diff.at"))]
assert changes == sorted(changes, reverse=True), changes
print("with itself: %d functions, every change 0; fib(22) against fib(20): %s and %s calls, "
      "change = report's totals' difference; new and gone functions by calls" %
      (len(aa), sys.argv[3], sys.argv[4]))
PY
then
	pass "--diff: $(cat out)"
else
	fail "--diff" out
fi

# Bad input: one line naming the option and the reason, exit 2.
for bad in --graph= --graph=no_such_function --diff= --diff=no_such_dir "--diff=b --pid=1" \
	   "--graph --percentiles"; do
	# shellcheck disable=SC2086
	"$PS" report -d a $bad >out 2>err
	rc=$?
	opt=${bad%%=*}
	opt=${opt%% *}
	if [ $rc -eq 2 ] && head -1 err | grep -q -- "^patchsite: $opt" && [ ! -s out ]; then
		pass "report $bad: exit 2, $(head -1 err)"
	else
		fail "report $bad (exit $rc)" err
	fi
done

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
