#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The branch profiler (include/patchsite_branch.h, `patchsite report --branches`):
# usage  branches.sh BUILD_DIR plain|san
#
# The oracle is the loops' arithmetic, computed here in the shell: over
# i = 0..N-1, patchsite_likely(i % 4 != 0) is wrong (N+3)/4 times (the
# multiples of 4), patchsite_unlikely(i % 10 == 0) (N+9)/10 times, and so
# on for each site of testdata/patchsite/branches.c, libbranches.c and
# branches.cc.  Line numbers come from the sources' marker comments.  The
# table's layout is the kernel's trace_stat/branch_annotated format
# (kernel/trace/trace_branch.c: "%8lu %8lu ", "%3ld " or "  X ",
# "%-30.30s %-20.20s %d"), rebuilt here with printf(1).
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail; only_switches_lost
suite_init branches "${1:-build}" "${2:-plain}"
CXX=${CXX:-g++}
TOP=$PWD
LIB="$PATCHSITE_LIB"
SANFLAGS=
[ "$MODE" = san ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
PRE="$SANPRE${SANPRE:+ }$LIB"
line_of() { grep -n "$2" "$TOP/testdata/patchsite/$1" | head -1 | cut -d: -f1; }

D=testdata/patchsite
build() {
	"$@" >>"$T/build.log" 2>&1 || { fail "build: $*" "$T/build.log"; echo "$PASS passed, $FAIL failed"; exit 1; }
}
build $CC -O2 -g $SANFLAGS -Iinclude $D/branches.c -o "$T/branches" -pthread -ldl
build $CC -O2 -g $SANFLAGS -DPATCHSITE_BRANCH_EXACT -Iinclude $D/branches.c -o "$T/branches_exact" -pthread -ldl
build $CC -O2 -g $SANFLAGS -fPIC -shared -Iinclude $D/libbranches.c -o "$T/libbranches.so"
build $CXX -O2 -g $SANFLAGS -fPIC -shared -Iinclude -x c++ $D/libbranches.c -o "$T/libbranches_cxx.so"
build $CXX -O2 -g $SANFLAGS -Iinclude $D/branches.cc -o "$T/branches_gxx"
build $CC -O2 -g $SANFLAGS -pg -mfentry -mrecord-mcount -Iinclude -c $D/branches.c -o "$T/branches_pg.o"
build $CC $SANFLAGS "$T/branches_pg.o" -o "$T/branches_pg" -pthread -ldl
build $CC -O2 -g $SANFLAGS -Iinclude $D/branches_snap.c "$B/patchsite.o" -o "$T/branches_snap" -pthread -ldl
build $CC -O2 -g $SANFLAGS -DBAD_ENTRY -Iinclude $D/branches_bad.c -o "$T/bad_entry"
build $CC -O2 -g $SANFLAGS -DBAD_SIZE -Iinclude $D/branches_bad.c -o "$T/bad_size"
build $CC -O2 -g $SANFLAGS -DBAD_REF -Iinclude $D/branches_bad.c -o "$T/bad_ref"
# (Not under the sanitizers: clang's ASan runtime is not gcc's, which SAN preloads.)
if command -v clang++ >/dev/null && [ "$MODE" != san ]; then
	build clang++ -O2 -g $SANFLAGS -Iinclude $D/branches.cc -o "$T/branches_clangxx"
fi
cd "$T" || exit 1

N=1000
M=300
LIKELY=$(line_of branches.c '/\* LIKELY_LINE')
UNLIKELY=$(line_of branches.c '/\* UNLIKELY_LINE')
NEVER=$(line_of branches.c 'NEVER_LINE')
HOT=$(line_of branches.c 'HOT_LINE')
LIBL=$(line_of libbranches.c 'LIB_LINE')
q4=$(((N + 3) / 4)) q10=$(((N + 9) / 10)) q3=$(((M + 2) / 3)) q5=$(((N + 4) / 5))

# row CORRECT INCORRECT FUNC FILE LINE: one line of the kernel's table.
row() {
	if [ "$1" -gt 0 ]; then pc=$(($2 * 100 / ($1 + $2))); pc=$(printf '%3d ' $pc)
	elif [ "$2" -gt 0 ]; then pc='100 '
	else pc='  X '
	fi
	printf '%8d %8d %s%-30.30s %-20.20s %d\n' "$1" "$2" "$pc" "$3" "$4" "$6"
}
header() {
	echo ' correct incorrect  %        Function                  File              Line'
	echo ' ------- ---------  -        --------                  ----              ----'
}

# 1. Without the runtime the counters count: the program prints its own section.
./branches $N self >self.out 2>self.err
{
	echo "self main $LIKELY $((N - q4)) $q4"
	echo "self main $UNLIKELY $((N - q10)) $q10"
	echo "self never $NEVER 0 0"
	echo "self hot_loop $HOT 0 0"
} | sort >self.want
grep '^self' self.out | sed 's/^self never\.[a-z0-9.]* /self never /' | sort >self.got
if diff -u self.want self.got >self.diff && [ ! -s self.err ]; then
	pass "no runtime: the counters count ($((N - q4))/$q4 and $((N - q10))/$q10 over $N)"
else
	cat self.err >>self.diff
	fail "no runtime: counters" self.diff
fi

# 2. PATCHSITE_BRANCHES=1, no tracer; a library dlclosed before exit keeps its counts.
rm -rf d
PATCHSITE_DATA=d PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./branches $N ./libbranches.so $M \
	>run.out 2>run.err
pid=$(ls d | grep -v session | head -1)
{
	echo "# pid $pid: $T/branches"
	header
	row $((M - q3)) $q3 lib_loop libbranches.c x "$LIBL"
	row $((N - q4)) $q4 main branches.c x "$LIKELY"
	row $((N - q10)) $q10 main branches.c x "$UNLIKELY"
	row 0 0 hot_loop branches.c x "$HOT"
	row 0 0 never branches.c x "$NEVER"
} >table.want
"$PS" report -d d --branches >table.got 2>table.err
# Equal percent and counts (the two X rows): the kernel's order leaves them as they come.
if diff -u table.want table.got >table.diff && [ ! -s table.err ] && [ ! -s run.err ]; then
	pass "PATCHSITE_BRANCHES=1: report --branches is the kernel's table, dlclosed library kept"
else
	cat run.err table.err >>table.diff
	fail "PATCHSITE_BRANCHES=1: report --branches" table.diff
fi

# info: one line with the sums.
"$PS" info -d d >info.txt 2>info.err
want="  branches: 5 sites, $((M - q3 + N - q4 + N - q10)) predicted right, $((q3 + q4 + q10)) wrong"
if grep -qxF "$want" info.txt && [ ! -s info.err ]; then
	pass "info: $want"
else
	echo "want: $want" >>info.err
	cat info.txt >>info.err
	fail "info: branches line" info.err
fi

# The same through --json, and --pid.
"$PS" report -d d --branches --json --pid "$pid" >j.json 2>j.err
python3 - j.json "$LIBL:$((M - q3)):$q3:unlikely" "$LIKELY:$((N - q4)):$q4:likely" \
	"$UNLIKELY:$((N - q10)):$q10:unlikely" >j.out 2>&1 <<'EOF'
import json, sys
rows = {(r["file"], r["line"]): r for r in json.load(open(sys.argv[1]))}
for want in sys.argv[2:]:
    line, c, i, e = want.split(":")
    r = [r for (f, l), r in rows.items() if l == int(line) and r["correct"] == int(c)]
    assert len(r) == 1, want
    r = r[0]
    assert (r["incorrect"], r["expect"]) == (int(i), e), (r, want)
    assert r["percent_incorrect"] == int(i) * 100 // (int(c) + int(i)), r
assert sum(1 for r in rows.values() if r["percent_incorrect"] is None) == 2
EOF
if [ $? -eq 0 ] && [ ! -s j.err ]; then
	pass "report --branches --json --pid: every site's counts"
else
	cat j.err >>j.out
	fail "report --branches --json" j.out
fi

# The control file trace_stat/branch_annotated: the same table, now, with no process line.
PATCHSITE_DATA=d2 PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./branches $N ./libbranches.so $M ctl \
	>ctl.out 2>ctl.err
sed 1d table.want >ctl.want
grep -v '^sum=' ctl.out >ctl.got
if diff -u ctl.want ctl.got >ctl.diff && [ ! -s ctl.err ]; then
	pass "trace_stat/branch_annotated (patchsite_ctl_read): the kernel's table, library unloaded before included"
else
	cat ctl.err >>ctl.diff
	fail "trace_stat/branch_annotated" ctl.diff
fi

# On demand (ps_branches_write, what a snapshot calls), libpatchsite linked in: the file then
# holds the first loop's counts, and at exit both loops'.
SNAP=$(line_of branches_snap.c '/\* SNAP_LINE')
rm -rf s
PATCHSITE_DATA=s PATCHSITE_BRANCHES=1 LD_PRELOAD="$SANPRE" ./branches_snap $N >s.out 2>s.err
b1=$(sed -n "s/^snap branch 1 \([0-9]* [0-9]*\) $SNAP loop .*branches_snap.c\$/\1/p" s.out)
b2=$(sed -n "s/^branch 1 \([0-9]* [0-9]*\) $SNAP loop .*branches_snap.c\$/\1/p" s/*/branches)
if grep -qx 'write 0' s.out && [ "$b1" = "$((N - q4)) $q4" ] &&
   [ "$b2" = "$((2 * (N - q4))) $((2 * q4))" ] && [ ! -s s.err ]; then
	pass "ps_branches_write on demand: $b1, then $b2 at exit"
else
	{ echo "snapshot '$b1' exit '$b2'"; cat s.out; } >>s.err
	fail "ps_branches_write on demand" s.err
fi

# 3. patchsite record (function_graph), of a program without sites and of one traced with -pg.
for prog in branches branches_pg; do
	rm -rf r
	LD_PRELOAD="$SANPRE" "$PS" record -d r -- ./$prog $N >rec.out 2>rec.err
	"$PS" report -d r --branches --json >r.json 2>>rec.err
	n=$(python3 -c "
import json, sys
print(sum(1 for r in json.load(open('r.json')) if (r['line'], r['correct'], r['incorrect']) in
      (($LIKELY, $((N - q4)), $q4), ($UNLIKELY, $((N - q10)), $q10))))")
	calls=$("$PS" report -d r --json 2>>rec.err | python3 -c "
import json, sys
print(sum(r['calls'] for r in json.load(sys.stdin) if r['name'] == 'main'))")
	if [ "$n" = 2 ] && only_switches_lost rec.err &&
	   { [ $prog = branches ] || [ "$calls" = 1 ]; }; then
		pass "patchsite record ($prog): branch counts recorded$([ $prog = branches ] || echo ", main traced once")"
	else
		fail "patchsite record ($prog): $n of 2 rows, main traced '$calls' times" rec.err
	fi
done

# 4. C++: an inline member function, a lambda, a plain function (g++ and clang++).
CM=$(line_of branches.cc 'MEMBER_LINE')
CL=$(line_of branches.cc 'LAMBDA_LINE')
CP=$(line_of branches.cc 'PLAIN_LINE')
CT=$(line_of branches.cc '/\* TEMPLATE_LINE')
CC3=$(line_of branches.cc 'CLASS_TEMPLATE_LINE')
q7=$(((N + 6) / 7)) q3n=$(((N + 2) / 3))
for prog in branches_gxx branches_clangxx; do
	[ -x $prog ] || continue
	rm -rf c
	PATCHSITE_DATA=c PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./$prog $N >c.out 2>c.err
	"$PS" report -d c --branches --json >c.json 2>>c.err
	python3 - c.json "$CM:$((N - N / 2)):$((N / 2))" "$CL:$((N - q5)):$q5" "$CP:$((N - 1)):1" \
		"$CT:$((2 * (N - q7))):$((2 * q7))" "$CC3:$((N - q3n)):$q3n" \
		>c.check 2>&1 <<EOF
import json, sys
rows = [(r["line"], r["correct"], r["incorrect"]) for r in json.load(open(sys.argv[1]))]
want = [tuple(int(x) for x in w.split(":")) for w in sys.argv[2:]]
assert sorted(rows) == sorted(want), (rows, want)
EOF
	if [ $? -eq 0 ] && [ ! -s c.err ]; then
		pass "C++ ($prog): member, lambda, function and template sites counted exactly"
	else
		cat c.err >>c.check
		fail "C++ ($prog)" c.check
	fi
done

# A C++ library, dlopened and dlclosed before exit.
rm -rf cl
PATCHSITE_DATA=cl PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./branches 10 ./libbranches_cxx.so $M >cl.out 2>cl.err
"$PS" report -d cl --branches --json >cl.json 2>>cl.err
got=$(python3 -c "
import json
print(*[(r['line'], r['correct'], r['incorrect']) for r in json.load(open('cl.json')) if r['function'] == 'lib_loop'])")
if [ "$got" = "($LIBL, $((M - q3)), $q3)" ] && [ ! -s cl.err ]; then
	pass "C++ library (g++), dlclosed before exit: $got"
else
	fail "C++ library: got '$got'" cl.err
fi

# fork: the child's counts start from the parent's; each process has its own table.
rm -rf f
PATCHSITE_DATA=f PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./branches $N fork >f.out 2>f.err
# Under SAN, LeakSanitizer at the forked child's exit may list a thread of the
# parent's (here the parent's control-channel thread) as one it could not
# suspend: its thread registry is the parent's copy.  With PATCHSITE_CTL=0
# (no thread in the parent) it never does; the line is a notice about the
# sanitizer's own bookkeeping, not a leak or a message of ours.
sed -i '/^==[0-9]*==Running thread [0-9]* was not suspended. False leaks are possible.$/d' f.err
"$PS" report -d f --branches --json >f.json 2>>f.err
got=$(python3 -c "
import json
rows = json.load(open('f.json'))
pids = sorted({r['pid'] for r in rows})
print(len(pids), *[sorted((r['line'], r['correct'], r['incorrect']) for r in rows
                          if r['pid'] == p and r['correct'] + r['incorrect']) for p in pids])" 2>>f.err)
want="2 [($LIKELY, $((N - q4)), $q4), ($UNLIKELY, $((N - q10)), $q10)] [($LIKELY, $((N - q4)), $q4), ($UNLIKELY, $((N - q10)), $q10)]"
if [ "$got" = "$want" ] && [ ! -s f.err ]; then
	pass "fork: parent and child each with the counts made before the fork"
else
	echo "got:  $got" >>f.err
	echo "want: $want" >>f.err
	fail "fork" f.err
fi

# 5. Threads: exact with PATCHSITE_BRANCH_EXACT; plain increments may only lose counts.
TH=4
NT=200000
qt=$(((NT + 3) / 4))
for prog in branches_exact branches; do
	rm -rf t
	PATCHSITE_DATA=t PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./$prog $NT threads $TH \
		>t.out 2>t.err
	"$PS" report -d t --branches --json >t.json 2>>t.err
	got=$(python3 -c "
import json
r = [r for r in json.load(open('t.json')) if r['function'] == 'hot_loop']
print(r[0]['correct'], r[0]['incorrect'])" 2>>t.err)
	c=${got% *} i=${got#* }
	if [ $prog = branches_exact ]; then
		if [ "$got" = "$((TH * (NT - qt))) $((TH * qt))" ] && [ ! -s t.err ]; then
			pass "$TH threads, PATCHSITE_BRANCH_EXACT: $got, exact"
		else
			fail "$TH threads exact: got '$got', want $((TH * (NT - qt))) $((TH * qt))" t.err
		fi
	elif [ -n "$got" ] && [ "$c" -le $((TH * (NT - qt))) ] && [ "$i" -le $((TH * qt)) ] &&
	     [ ! -s t.err ]; then
		pass "$TH threads, plain increments: $got of $((TH * (NT - qt))) $((TH * qt)) (never more)"
	else
		fail "$TH threads plain: got '$got'" t.err
	fi
done

# 6. A damaged branches file: one line naming it and why, exit 1, nothing else harmed.
pdir=d/$pid
cp $pdir/branches good
damage() {
	case $1 in
	header) sed '1s/1$/9/' good ;;
	cut) head -c -1 good ;;
	number) sed 's/^branch 0 \([0-9]*\) /branch 0 99999999999999999999999 /' good ;;
	expect) sed 's/^branch 0 /branch 7 /' good ;;
	fields) sed 's/^\(branch 1 .*\) /\1  /' good ;;
	escape) sed 's/ lib_loop / lib\\000loop /' good ;;
	unknown) cat good; echo 'bogus 1 2' ;;
	nul) printf 'branch 1 1 1 1 a\000b c\n' | cat good - ;;
	esac
}
for how in header cut number expect fields escape unknown nul; do
	damage $how >$pdir/branches
	"$PS" report -d d --branches >dmg.out 2>dmg.err
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <dmg.err)" -eq 1 ] && grep -q "^patchsite: d/$pid/branches: line [0-9]*: " dmg.err &&
	   ! grep -q '^ *[0-9]' dmg.out; then
		pass "damaged branches file ($how): $(cat dmg.err)"
	else
		cat dmg.out >>dmg.err
		fail "damaged branches file ($how): rc $rc" dmg.err
	fi
done
cp good $pdir/branches

# Counts near 2^64 (two records of one site whose sum wraps): percent by 128-bit arithmetic, sums
# saturate.  Found by fuzz_branches: correct + incorrect wrapped to 0 and divided by it.
{
	echo '# patchsite branches 1'
	echo 'branch 1 9223372036854775808 9223372036854775808 7 f x.c'
	echo 'branch 1 9223372036854775808 1 7 f x.c'
} >$pdir/branches
"$PS" report -d d --branches >big.out 2>big.err
if [ $? -eq 0 ] && [ ! -s big.err ] &&
   grep -qx '18446744073709551615 9223372036854775809  33 f                              x.c                  7' big.out; then
	pass "counts near 2^64: sums saturate, percent 33 without overflow"
else
	cat big.out >>big.err
	fail "counts near 2^64" big.err
fi
cp good $pdir/branches

# 7. A library unloaded behind libpatchsite's back: its counters are said lost, never read.
rm -rf l
PATCHSITE_DATA=l PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./branches 10 rawclose ./libbranches.so 5 \
	>l.out 2>l.err
"$PS" report -d l --branches >l.txt 2>>l.err
if [ "$(cat l.err)" = "patchsite: warning: $T/libbranches.so: unloaded without passing through patchsite's dlclose: its 1 branch counters lost" ] &&
   grep -qx '# 1 branch counters lost: objects unloaded without patchsite.s dlclose' l.txt &&
   ! grep -q lib_loop l.txt && grep -q '^sum=' l.out; then
	pass "library unloaded behind our back: 1 counter said lost, on stderr and in the report"
else
	cat l.txt >>l.err
	fail "unloaded behind our back" l.err
fi

# PATCHSITE_OUTPUT alone renders a private directory and removes it: the counts are not kept, and it says so.
PATCHSITE_TRACER=function PATCHSITE_OUTPUT=o.txt LD_PRELOAD="$PRE" ./branches 10 >o.out 2>o.err
if [ "$(cat o.err)" = "patchsite: warning: branch counts (patchsite_likely/unlikely) are not in PATCHSITE_OUTPUT's trace: set PATCHSITE_DATA to keep them" ] &&
   grep -q '^sum=' o.out; then
	pass "PATCHSITE_OUTPUT without PATCHSITE_DATA: the counts' absence said"
else
	fail "PATCHSITE_OUTPUT" o.err
fi

# Planted defects in the section: refused by name, once, marked in the report; good counters kept.
GOOD=$(line_of branches_bad.c 'GOOD_LINE')
for bad in entry size ref; do
	rm -rf b
	PATCHSITE_DATA=b PATCHSITE_BRANCHES=1 LD_PRELOAD="$PRE" ./bad_$bad >b.out 2>b.err
	"$PS" report -d b --branches >b.txt 2>>b.err
	if [ $bad = entry ]; then
		want="patchsite: warning: $T/bad_entry: section patchsite_branches: entry 1 is not a branch counter of layout 1: it and the rest of the section not read"
		rows=$(row 1 0 main branches_bad.c x "$GOOD")
	elif [ $bad = size ]; then
		want="patchsite: warning: $T/bad_size: section patchsite_branches: not an array of counters in the object's memory: not read"
		rows=
	else
		want="patchsite: warning: $T/bad_ref: section patchsite_branches: ref 0 is not a branch counter of layout 1: it and the rest of the section not read"
		rows=$(row 1 0 main branches_bad.c x "$GOOD")
	fi
	if [ "$(cat b.err)" = "$want" ] && grep -qx '# 1 damaged branch sections or entries not read (the program said which)' b.txt &&
	   [ "$(grep '^ *[0-9]' b.txt)" = "$rows" ]; then
		pass "planted defect ($bad): refused by name, counted in the report, the rest kept"
	else
		cat b.txt >>b.err
		fail "planted defect ($bad)" b.err
	fi
done

# The header in strict builds: nested uses, C and C++, no warning.
printf '#include "patchsite_branch.h"\nint f(int a, int b)\n{\n\treturn patchsite_likely(a > 0 && patchsite_unlikely(b == 3));\n}\n' >nest.c
cp nest.c nest.cc
ok=
for c in "$CC -std=c99 -pedantic nest.c" "$CC -std=gnu11 -masm=intel nest.c" \
	 "$CXX -std=c++11 -pedantic nest.cc"; do
	$c -O2 -Wall -Wextra -Wshadow -Werror -I"$TOP/include" -c -o nest.o >>nest.err 2>&1 || ok=no
done
if [ -z "$ok" ]; then
	pass "header: nested uses build warning-free (C99 -pedantic, gnu11 -masm=intel, C++11 -pedantic)"
else
	fail "header in strict builds" nest.err
fi

# g++ drops the section of a static in a template; the header lists the counter in
# patchsite_branch_refs instead (readelf is the oracle for where it is; the C++ test above
# that its counts are read).  clang++ keeps it in the section.
printf '#include "patchsite_branch.h"\ntemplate <class T> struct C {\n\tint f(T x) { return patchsite_likely(x > 0); }\n};\nint h(int x) { C<int> c; return c.f(x); }\n' >tpl.cc
$CXX -O2 -fPIC -Wall -Wextra -I"$TOP/include" -c tpl.cc -o tpl.o >tpl.err 2>&1
insec=$(readelf -SW tpl.o | grep -c ' patchsite_branches ')
refs=$(readelf -rW tpl.o | grep -A3 "'.relapatchsite_branch_refs'" | grep -c R_X86_64_64)
if [ ! -s tpl.err ] && [ "$insec" -eq 0 ] && [ "$refs" -eq 1 ]; then
	pass "g++, a class template: counter outside patchsite_branches, listed in patchsite_branch_refs"
else
	echo "patchsite_branches sections $insec, references $refs" >>tpl.err
	fail "g++ template counter" tpl.err
fi
if command -v clang++ >/dev/null; then
	clang++ -O2 -Wall -I"$TOP/include" -c tpl.cc -o tplc.o >tplc.err 2>&1
	if [ ! -s tplc.err ] && [ "$(readelf -SW tplc.o | grep -c ' patchsite_branches ')" -ge 1 ]; then
		pass "clang++, the same template: counter in the section (readelf), no warning"
	else
		fail "clang++ template" tplc.err
	fi
fi

# 8. PATCHSITE_BRANCHES=0 writes nothing; a bad value is one line, and the program runs.
rm -rf z
PATCHSITE_DATA=z PATCHSITE_TRACER=function PATCHSITE_BRANCHES=0 LD_PRELOAD="$PRE" ./branches 10 \
	>z.out 2>z.err
if ! ls z/*/branches >/dev/null 2>&1 && [ ! -s z.err ] && grep -q '^sum=' z.out; then
	pass "PATCHSITE_BRANCHES=0: no branches file"
else
	fail "PATCHSITE_BRANCHES=0" z.err
fi
rm -rf z
PATCHSITE_DATA=z PATCHSITE_BRANCHES=yes LD_PRELOAD="$PRE" ./branches 10 >z.out 2>z.err
if [ "$(cat z.err)" = "patchsite: error: PATCHSITE_BRANCHES: expected 0 or 1: not tracing" ] &&
   grep -q '^sum=' z.out && [ ! -e z ]; then
	pass "PATCHSITE_BRANCHES=yes: one line, program runs"
else
	fail "PATCHSITE_BRANCHES=yes" z.err
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
