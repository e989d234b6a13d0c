#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# report --percentiles and --hist: usage  report_dist.sh BUILD_DIR plain|san
#
# report's percentiles come from per-function histograms (data/hist.h), so
# each must fall in the bucket of the exact one.  The oracle is check_dist.py: it reads every call's time from `replay`'s
# function_graph text (ftrace's DURATION column, exact to the ns), sorts them
# with Python and takes nearest-rank percentiles with exact fractions, and
# counts the histogram with the bucket rule of issue #28 written out on its
# own; the call counts are the sample program's (testdata/patchsite/ending.c).
set -u

. tests/patchsite/lib.sh
suite_init dist "$@"
CHECK="$TESTS/oracles/check_dist.py"
build_ending
# The percentiles are this suite's subject, not time off the CPU (sched.sh): recorded
# with --no-sched, so that a busy thread preempted faster than its switches are drained
# (said on stderr, as it must be: fib(28) under ASan beside another suite lost 3) does
# not fail a check that wants nothing on stderr.
record() { LD_PRELOAD="$SANPRE" "$PS" record --no-sched "$@"; }

# check NAME DIR FUNC PCTS CALLS: percentiles and FUNC's histogram against the oracle.
check() {
	"$PS" replay --no-sched -d "$2" >replay 2>err &&
	"$PS" report -d "$2" --json --percentiles="$4" >report.json 2>>err &&
	"$PS" report -d "$2" --hist="$3" >hist 2>>err
	if [ $? -eq 0 ] && [ ! -s err ] && python3 "$CHECK" replay report.json hist "$3" "$4" >out 2>&1 &&
	   [ "$(sed -n "s/^# $3: \([0-9]*\) calls;.*/\1/p" hist)" = "$5" ]; then
		pass "$1: $(cat out)"
	else
		cat err >>out
		fail "$1" out
	fi
}

record -d d -- ./ending 22 fib >out 2>err
check "fib(22)" d fib 50,90,99,99.9,100 "$(sed -n 's/^fib=[0-9]* calls=//p' out)"
"$PS" report -d d --percentiles >text 2>err
if head -1 text | grep -q 'Max           p50           p90           p99  Function$' &&
   [ "$(grep -c ' fib$' text)" -eq 1 ] && [ ! -s err ]; then
	pass "report --percentiles: p50, p90 and p99 columns by default"
else
	fail "report --percentiles columns" text
fi

# fib(28), the issue's sample: 1M calls, read through 125 MB of replay text (about 5 s).
rm -rf d
record -d d -- ./ending 28 fib >out 2>err
check "fib(28)" d fib 50,90,99,99.9,100 "$(sed -n 's/^fib=[0-9]* calls=//p' out)"
rm -f replay

rm -rf d
record -d d -- ./ending 3000 threads >out 2>err
check "4 threads x 3000 calls, merged" d leaf 1,50,99.9 12000

# Bad input: one line naming the option and the reason, exit 2.
for bad in --percentiles=0 --percentiles=101 --percentiles=50, --percentiles=x \
	   --percentiles=1,2,3,4,5,6,7,8,9 --hist= --hist=no_such_function; do
	"$PS" report -d d "$bad" >out 2>err
	rc=$?
	opt=${bad%%=*}
	if [ $rc -eq 2 ] && head -1 err | grep -q -- "^patchsite: $opt=" && [ ! -s out ]; then
		pass "report $bad: exit 2, $(head -1 err)"
	else
		fail "report $bad (exit $rc)" err
	fi
done
"$PS" replay --no-sched -d d --percentiles >out 2>err
rc=$?
if [ $rc -eq 2 ] && grep -q 'report' err; then
	pass "replay --percentiles: exit 2, $(head -1 err)"
else
	fail "replay --percentiles (exit $rc)" err
fi

echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
