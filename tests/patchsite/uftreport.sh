#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# report's uftrace options (issue 42): -s KEY[,KEY...] with uftrace's keys, -f FIELD[,...],
# --avg-total, --avg-self, --task.  Oracle: uftrace 0.13's report (Debian's) of its own
# recording of the same binary, testdata's reportmix.c (its comment has its calls): the same
# columns, functions and calls (threads and their completed calls for --task), the rows in
# uftrace's order where the keys decide it (call counts, names), and for times, which differ
# run to run, the relations they keep and the order the keys ask for.
# usage: uftreport.sh BUILD_DIR plain|san
set -u
. "$PWD/tests/patchsite/lib.sh"
suite_init uftreport "$@"
command -v uftrace >/dev/null || { echo "FAIL uftrace not installed (scripts/deps.sh)"; exit 1; }
CHECK="python3 $TESTS/oracles/check_uftreport.py"
SRC=$PWD/testdata/patchsite
cd "$T" || exit 1
if ! $CC -O0 -pg -pthread -o prog "$SRC/reportmix.c" 2>build.log; then
	fail "build reportmix" build.log
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
if ! { uftrace record --no-libcall --no-event ./prog >u.out 2>u.err &&
       record --no-libcall ./prog >p.out 2>p.err; }; then
	cat u.err p.err >why
	fail "record reportmix" why
	echo "$PASS passed, $FAIL failed"
	exit 1
fi

# same NAME "OPTIONS" [CHECK OPTIONS...]: uftrace report OPTIONS (UOPTS when set: uftrace's
# spelling of patchsite's) and patchsite report OPTIONS (as the man page prints them),
# compared by check_uftreport.py.
n=0
same() {
	name=$1 opts=$2
	shift 2
	n=$((n + 1))
	# shellcheck disable=SC2086  # the options are words
	uftrace report --no-pager ${UOPTS:-$opts} >u.$n 2>>u.err
	# shellcheck disable=SC2086
	"$PS" report $opts >p.$n 2>p.err.$n
	if [ -s p.err.$n ]; then
		fail "$name: patchsite report $opts" p.err.$n
	elif $CHECK u.$n p.$n "$@" >cmp.$n 2>&1; then
		pass "$name: $(cat cmp.$n)"
	else
		{ cat cmp.$n; echo "uftrace:"; cat u.$n; echo "patchsite:"; cat p.$n; } >why.$n
		fail "$name against uftrace report $opts" why.$n
	fi
}

same "-s call,func: rows by calls, then name" "-s call,func" --order --subset
UOPTS="-s call,func" same "--sort=calls,func (patchsite's spelling of call)" "--sort=calls,func" \
	--order --subset
same "-s self" "-s self" --sorted-by "Self time" --subset
same "--avg-total: average, min and max of the total time, by average" "--avg-total" \
	--sorted-by "Total avg"
same "--avg-self -s max: of the self time, by its max" "--avg-self -s max" --sorted-by "Self max"
same "-f total,total-min,self-max,call -s call,func" "-f total,total-min,self-max,call -s call,func" \
	--order
same "-f all (uftrace's less size)" "-f all -s total-max" --drop Size --sorted-by "Total max"
same "-f none" "-f none -s call,func" --order
same "-f self-avg,self-min -s self-min,func" "-f self-avg,self-min -s self-min,func" \
	--sorted-by "Self min,Function"
same "--task: one row per thread" "--task" --task --sorted-by "Total time"
same "--task -f tid,func -s func" "--task -f tid,func -s func" --task --sorted-by "Num funcs"

# report --diff with --diff-policy and --sort-column: a second run with 1 top() call, not 4
# (top -3, mid -6, leaf -24 calls; the others +0): each function's calls in both runs and
# their change, in uftrace's order of the key's change, signed (no-abs) or by size (abs), or
# of A's value (--sort-column 0 with full).  --sort-column 1 (B's value): uftrace 0.13 sorts
# it as 0 (on this recording its rows' B calls read 32, 8, 1, 2, 1, 1), against its manual:
# there the oracle is the rows' own B calls, largest first, and uftrace's calls per function.
if uftrace record -d u1.data --no-libcall --no-event ./prog 1 >u1.out 2>u1.err &&
   mv patchsite.data today && record -d yesterday --no-libcall ./prog 1 >p7.out 2>p7.err; then
	for policy in "no-abs -s call:change" "abs -s call:change" "full,percent --sort-column=1 -s call:b-sorted" \
		      "full --sort-column=0 -s call:a"; do
		opts=${policy%:*} which=${policy##*:}
		n=$((n + 1))
		# shellcheck disable=SC2086  # the options are words
		uftrace report --no-pager -d uftrace.data --diff u1.data --diff-policy $opts >u.$n 2>>u.err
		# shellcheck disable=SC2086
		"$PS" report -d today --diff=yesterday --diff-policy=$opts >p.$n 2>p.err.$n
		if [ ! -s p.err.$n ] && $CHECK u.$n p.$n --diff "$which" >cmp.$n 2>&1; then
			pass "--diff-policy=$opts: $(cat cmp.$n)"
		else
			{ cat cmp.$n p.err.$n; echo "uftrace:"; cat u.$n; echo "patchsite:"; cat p.$n; } >why.$n
			fail "--diff-policy=$opts against uftrace" why.$n
		fi
	done
	mv today patchsite.data
else
	cat u1.err p7.err >why
	fail "record the second run" why
fi

# size, uftrace's function size, is not in a trace directory: refused by name.
"$PS" report -f size >/dev/null 2>size1; rc1=$?
"$PS" report -s size >/dev/null 2>size2; rc2=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && grep -q '^patchsite: -f size: a trace directory has no function sizes' size1 &&
   grep -q '^patchsite: --sort=size: a trace directory has no function sizes' size2; then
	pass "-f size and -s size refused by name: $(head -1 size1)"
else
	cat size1 size2 >size
	fail "size refused (rc $rc1 $rc2)" size
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
