#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# read= triggers (record -T FUNC@read=KIND): values read at a function's entry and exit,
# shown as uftrace shows them.  usage  readtrig.sh BUILD_DIR plain|san
#
# Oracles:
#   - the program itself (testdata/patchsite/readtrig.c): touch(N) maps and writes N fresh
#     pages; it prints getrusage(RUSAGE_THREAD)'s fault deltas over touch() and
#     /proc/self/statm's deltas over grow(), which calls touch(N) and nothing else;
#     the page-fault kind's minor delta over touch() is at least N and within a few
#     faults of the program's own count (the tracer's ring may take a fresh page inside
#     the call), statm's vmsize delta equals the program's, its rss delta within 4 pages;
#   - Debian's uftrace 0.13 on the same binary with -T 'touch@read=proc/statm' and
#     'touch@read=page-fault': the same lines (read:, diff:) at the same depths, numbers
#     aside, the same vmsize delta and minor faults within 4 (uftrace's getrusage counts
#     the process, ours the thread: one thread here);
#   - the kernel: no hardware counter here is what perf_event_open says to a program of
#     our own (readtrig_caps), so pmu-* must be refused by name; where it has one, the
#     recording must show the counters' lines instead;
#   - the counter read's choice (rdpmc or read(2)) for each capability the kernel's
#     perf_event_mmap_page can say, and for the page it maps for a software counter here.
set -u
. tests/patchsite/lib.sh	# suite_init, record, pass, fail
suite_init readtrig "${1:-build}" "${2:-plain}"
SRC="$PWD/testdata/patchsite"
SANFLAGS=
[ "$MODE" = san ] && SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
N=64
build() {
	"$@" >>"$T/build.log" 2>&1 || { fail "build: $*" "$T/build.log"; echo "$PASS passed, $FAIL failed"; exit 1; }
}
build $CC -O2 -g -Iinclude $SANFLAGS "$SRC/readtrig_caps.c" "$B/patchsite.o" -o "$T/caps" -pthread -ldl
cd "$T" || exit 1
build $CC -O2 -pg -mfentry -mrecord-mcount -o readtrig "$SRC/readtrig.c" -pthread

# page-fault over touch(): >= N and near the program's own getrusage count.
if record -d pf -T 'touch@read=page-fault' --no-libcall ./readtrig $N >pf.out 2>pf.err &&
   "$PS" replay -d pf >pf.txt 2>>pf.err; then
	own=$(sed -n 's/^faults [0-9]* \([0-9]*\)$/\1/p' pf.out)
	got=$(sed -n 's|.*/\* diff:page-fault (major=+[0-9]* minor=+\([0-9]*\)) \*/.*|\1|p' pf.txt | head -1)
	if [ -n "$got" ] && [ -n "$own" ] && [ "$got" -ge $N ] && [ $((got - own)) -le 4 ] &&
	   [ $((own - got)) -le 4 ]; then
		pass "page-fault: diff minor=+$got over touch($N), the program counted $own"
	else
		fail "page-fault: diff minor '$got', the program's $own, N=$N" pf.txt
	fi
	# Shown inside the call: the entry's read right after touch() {, the diff just before }.
	if grep -A1 'touch() {' pf.txt | grep -q 'read:page-fault (major=[0-9]* minor=[0-9]*)' &&
	   grep -A1 'diff:page-fault' pf.txt | grep -q '^.*| *}'; then
		pass "page-fault: read: after the entry, diff: before the exit"
	else
		fail "page-fault: where the lines are" pf.txt
	fi
else
	fail "page-fault: record/replay" pf.err
fi

# Each thread's counters are its own and close with it: 20 threads one after the other;
# the program's descriptors (the oracle: its /proc/self/fd) grow by what the same run
# without read= grows them (the runtime keeps each thread's file; its own descriptors
# come and go with its threads: within 2), not 2 more a thread (40),
# and each thread's touch(4) shows at least 4 minor faults.
if record -d th0 --no-libcall ./readtrig threads 20 >th0.out 2>th0.err &&
   record -d th -T 'touch@read=page-fault' --no-libcall ./readtrig threads 20 >th.out 2>th.err &&
   "$PS" replay -d th >th.txt 2>>th.err; then
	set -- $(sed -n 's/^fds //p' th0.out) $(sed -n 's/^fds //p' th.out) x x x x
	few=$(sed -n 's|.*diff:page-fault (major=+[0-9]* minor=+\([0-9]*\)).*|\1|p' th.txt | awk '$1 < 4' | wc -l)
	[ "$1" != x ] && [ "$4" != x ] && [ $(($4 - $3 - $2 + $1)) -le 2 ] &&
	[ "$(grep -c 'diff:page-fault' th.txt)" = 20 ] && [ "$few" = 0 ] &&
		pass "20 threads: 20 diffs of >= 4 faults; descriptors +$(($4 - $3)), +$(($2 - $1)) without read=" ||
		fail "20 threads: descriptors $1->$2 without, $3->$4 with read=; $(grep -c 'diff:page-fault' th.txt) diffs, $few short" th.txt
else
	fail "threads: record/replay" th.err
fi

# proc/statm over touch() (inside grow()): vmsize as the program's /proc/self/statm says.
# The commands patchsite-record(1) prints (-T), as printed (the program's N: 64).
[ $N = 64 ] || { fail "N must be readtrig.c's default for the printed command"; exit 1; }
if record -T 'touch@read=proc/statm' --no-libcall ./readtrig >sm.out 2>sm.err &&
   "$PS" replay >sm.txt 2>>sm.err; then
	set -- $(sed -n 's/^statm \(-*[0-9]*\) \(-*[0-9]*\) .*/\1 \2/p' sm.out) x x
	osize=$1 orss=$2
	line=$(grep 'diff:proc/statm' sm.txt | tail -1)
	size=$(echo "$line" | sed -n 's/.*vmsize=+*\(-*[0-9]*\)KB.*/\1/p')
	rss=$(echo "$line" | sed -n 's/.*vmrss=+*\(-*[0-9]*\)KB.*/\1/p')
	pk=$(($(getconf PAGESIZE) / 1024))
	if [ -n "$size" ] && [ "$size" = "$osize" ] && [ -n "$rss" ] &&
	   [ $((rss - orss)) -le $((4 * pk)) ] && [ $((orss - rss)) -le $((4 * pk)) ] &&
	   [ "$rss" -ge $((N * pk)) ]; then
		pass "proc/statm: diff vmsize=+${size}KB rss=+${rss}KB, the program's /proc/self/statm +${osize}KB +${orss}KB"
	else
		fail "proc/statm: '$line' against the program's '$osize $orss'" sm.txt
	fi
	[ "$(grep -c 'read:proc/statm (vmsize=[0-9]*KB vmrss=[0-9]*KB shared=[0-9]*KB)' sm.txt)" = 2 ] &&
		pass "proc/statm: read: at each of touch()'s two calls" ||
		fail "proc/statm: read: lines" sm.txt
	# Chrome and Perfetto carry the same lines.
	if "$PS" dump --chrome 2>/dev/null | grep -q "\"name\":\"$(echo "$line" |
	   sed 's|.*/\* \(diff:[^*]*\) \*/.*|\1|')\"" &&
	   "$PS" dump --perfetto 2>/dev/null | grep -aq 'diff:proc/statm (vmsize=+'; then
		pass "proc/statm: dump --chrome and --perfetto carry diff:proc/statm"
	else
		fail "proc/statm: dump" sm.txt
	fi
else
	fail "proc/statm: record/replay" sm.err
fi

# uftrace 0.13 on the same binary: the same lines at the same depths, numbers aside.
if ! command -v uftrace >/dev/null; then
	echo "readtrig.sh: no uftrace: the comparison with 0.13 skipped"
elif [ -s sm.txt ]; then
	# Numbers aside; start-up calls only one tool sees (__monstartup, __cxa_*) and
	# scheduler lines (uftrace's linux:schedule, our sched-out/in) left out.
	# A scheduler switch inside a leaf (its line left out here) draws it as "f() {" "}": folded
	# back into "f();", as uftrace draws a leaf, so that a busy machine changes nothing.
	fold_leaf() {
		awk '{ if (held != "") { if ($0 == hd " }") { print hd " " hf ";"; held = ""; next }
			print held; held = "" }
		       if ($0 ~ /\(\) \{$/) { held = $0; hd = $1; hf = $2; sub(/ \{$/, "", hf); next }
		       print } END { if (held != "") print held }'
	}
	norm() { nesting "$1" | sed 's/=+*-*[0-9][0-9]*/=N/g' | grep -v '__monstartup\|__cxa_\|linux:\|sched-' | fold_leaf; }
	if uftrace record --no-libcall --no-event -T 'touch@read=proc/statm' ./readtrig $N >u.out 2>u.err &&
	   uftrace replay >u.txt 2>>u.err; then
		norm u.txt >u.n
		norm sm.txt >p.n
		usize=$(grep 'diff:proc/statm' u.txt | tail -1 | sed -n 's/.*vmsize=+*\(-*[0-9]*\)KB.*/\1/p')
		if diff -u u.n p.n >d.txt && [ "$usize" = "$size" ]; then
			pass "proc/statm: uftrace 0.13's lines and depths, vmsize=+${usize}KB as ours"
		else
			echo "uftrace vmsize $usize, ours $size" >>d.txt
			fail "proc/statm: against uftrace 0.13" d.txt
		fi
	else
		fail "uftrace record" u.err
	fi
	# page-fault: the same lines; uftrace's minor faults (getrusage, the process's) over
	# touch() within 4 of ours (the thread's; the program has one thread).
	if [ -s pf.txt ] &&
	   uftrace record -d u.pf --no-libcall --no-event -T 'touch@read=page-fault' ./readtrig $N >u.out 2>u.err &&
	   uftrace replay -d u.pf >upf.txt 2>>u.err; then
		norm upf.txt >upf.n
		norm pf.txt >ppf.n
		uminor=$(sed -n 's|.*diff:page-fault (major=+[0-9]* minor=+\([0-9]*\)).*|\1|p' upf.txt | head -1)
		if diff -u upf.n ppf.n >d.txt && [ -n "$uminor" ] && [ $((uminor - got)) -le 4 ] &&
		   [ $((got - uminor)) -le 4 ]; then
			pass "page-fault: uftrace 0.13's lines and depths, minor=+$uminor (ours +$got)"
		else
			echo "uftrace minor '$uminor', ours '$got'" >>d.txt
			fail "page-fault: against uftrace 0.13" d.txt
		fi
	else
		fail "page-fault: uftrace record, or no replay of ours" u.err
	fi
else
	fail "against uftrace 0.13: no replay of ours"
fi

# pmu-*: refused by name where the kernel has no counter, else recorded.
for k in cycle cache branch; do
	if LD_PRELOAD="$SANPRE" ./caps 2>/dev/null | grep -q "^ns pmu-$k "; then
		record -d pmu -T "touch@read=pmu-$k" --no-libcall ./readtrig $N >pmu.out 2>pmu.err &&
		"$PS" replay -d pmu 2>&1 | grep -q "diff:pmu-$k (" &&
			pass "pmu-$k: recorded (the kernel has the counters)" ||
			fail "pmu-$k: recorded" pmu.err
		continue
	fi
	record -d pmu -T "touch@read=pmu-$k" ./readtrig $N >pmu.out 2>pmu.err
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <pmu.err)" = 1 ] && [ ! -s pmu.out ] &&
	   grep -q "^patchsite: record: read=pmu-$k: the kernel has no hardware .* counter here (perf_event_open: " pmu.err; then
		pass "pmu-$k: refused by name, exit 2: $(cat pmu.err)"
	else
		echo "exit $rc" >>pmu.err
		fail "pmu-$k: refusal" pmu.err
	fi
done

# Bad input: one line, exit 2, nothing run.
for spec in 'touch@read=nonsense' 'touch@depth=1' 'touch' '@read=page-fault'; do
	record -d bad -T "$spec" ./readtrig $N >bad.out 2>bad.err
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <bad.err)" = 1 ] && [ ! -s bad.out ] &&
		pass "-T '$spec': $(cat bad.err)" || { echo "exit $rc" >>bad.err; fail "-T '$spec'" bad.err; }
done

# The counter read's choice, by the mmap page's capabilities (ps_read_pmc_usable).
LD_PRELOAD="$SANPRE" ./caps >caps.out 2>caps.err
grep '^use' caps.out >use.got
cat >use.want <<'W'
use 0 0 0 read
use 0 0 1 read
use 0 3 0 read
use 0 3 1 read
use 1 0 0 read
use 1 0 1 read
use 1 3 0 read
use 1 3 1 rdpmc
W
diff -u use.want use.got >use.diff && pass "rdpmc only with cap_user_rdpmc, a counter index and an arch read" ||
	fail "rdpmc choice" use.diff
grep -qx 'kernel software read' caps.out && pass "a software counter's page (this kernel's): read(2)" ||
	fail "software counter's page" caps.out
f=$(sed -n 's/^faults //p' caps.out)
[ -n "$f" ] && [ "$f" -ge 32 ] && pass "page-fault's counter path: $f minor faults over 32 fresh pages" ||
	fail "page-fault's counter path" caps.out
sed -n 's/^ns \(.*\) \([0-9]*\)$/readtrig.sh: cost per read: \1 \2 ns/p' caps.out

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
