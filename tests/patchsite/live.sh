#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# patchsite pipe, record --live, trace_marker and snapshot:  live.sh BUILD_DIR plain|san
#
# Oracles:
# - the sample (testdata/patchsite/livemark.c) prints how many leaf() calls
#   it made, and for a snapshot how many were complete before and after it;
#   the function tracer records one line per call (filter: leaf), so a pipe
#   or replay must show exactly that many `leaf <-` lines, a snapshot
#   between the two counts;
# - ftrace's formats, from the kernel 6.1 sources (Debian's linux-source-6.1):
#   a marker on function tracer lines is kernel/trace/trace_output.c's
#   trace_print_print, `seq_print_ip_sym(s, field->ip, flags);
#   trace_seq_printf(s, ": %s", field->buf);` with the ip in
#   tracing_mark_write, i.e. `tracing_mark_write: TEXT`; in function_graph,
#   Documentation/trace/ftrace.rst shows a comment as
#   `1)               |                /* I'm a comment! */`;
#   trace_marker cuts a write at TRACE_BUF_SIZE (1024, kernel/trace/trace.c:
#   `if (cnt > TRACE_BUF_SIZE) cnt = TRACE_BUF_SIZE;`);
# - Chrome's trace-event format: an instant event is "ph":"i".
set -u
. tests/patchsite/lib.sh	# suite_init, record, pass, fail
suite_init live "${1:-build}" "${2:-plain}"
TOP=$PWD
# check DESCRIPTION FILE-TO-SHOW COMMAND...: pass when COMMAND succeeds
check() { d=$1; f=$2; shift 2; if "$@"; then pass "$d"; else fail "$d" "$f"; fi; }
said() { sed -n "s/^$1 //p" "$2"; }

$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/livemark.c -o "$T/livemark.o" \
	>"$T/build.log" 2>&1 && $CC -o "$T/livemark" "$T/livemark.o" -pthread -ldl >>"$T/build.log" 2>&1 ||
	{ fail "build livemark" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1

# record --live: the lines stream out as the threads run; every call is shown.
record -d live --live --tracer=function -F leaf -- ./livemark 3 30000 >live.out 2>live.err
rc=$?
calls=$(said calls live.out)
shown=$(grep -c ': leaf <-' live.out)
check "record --live: exit status 0, $shown leaf lines = the $calls calls made" live.err \
	test "$rc" = 0 -a -n "$calls" -a "$shown" = "${calls:-x}"
record -d gl --live -- ./livemark 2 20000 >gl.out 2>gl.err
calls=$(said calls gl.out)
# (a leaf a switch was shown inside is 'leaf() {' ... '}': switches are shown by default)
shown=$(grep -c -e '|   leaf();$' -e '|   leaf() {$' gl.out)
check "record --live, function_graph: $shown leaf lines (each once it returned) = $calls calls" \
	gl.err test -n "$calls" -a "$shown" = "${calls:-x}"
record -d st --live -- sh -c 'exit 3' >st.out 2>&1
check "record --live: the command's exit status (3)" st.out test $? = 3

# pipe on a running program: started after the recording, ends with it.
record -d d --tracer=function -F leaf -- ./livemark 4 40000 >run.out 2>run.err &
rpid=$!
n=0
while [ ! -s d/session ] && [ $n -lt 200 ]; do sleep 0.01; n=$((n + 1)); done
"$PS" pipe -d d >pipe.out 2>pipe.err
prc=$?
wait $rpid
alive=$(kill -0 $rpid 2>/dev/null && echo yes || echo no)
calls=$(said calls run.out)
shown=$(grep -c ': leaf <-' pipe.out)
check "pipe: exit 0 once the program ended; $shown leaf lines = the $calls calls" pipe.err \
	test "$prc" = 0 -a "$alive" = no -a -n "$calls" -a "$shown" = "${calls:-x}"
# (times aside: replay converts them with the rate measured over the whole run)
untimed() { grep ': leaf <-' | sed 's/^ *//; s/\] *[0-9.]*:/]/' | sort; }
"$PS" replay --no-sched -d d | untimed >replay.leaf
untimed <pipe.out >pipe.leaf
check "pipe: the same lines as replay (times aside)" pipe.err cmp -s replay.leaf pipe.leaf
# Consuming: a second pipe goes on where the first stopped (at the end).
"$PS" pipe -d d >again.out 2>&1
check "pipe again: nothing left to show (pipe.pos)" again.out test ! -s again.out
"$PS" pipe -d d --from-start | grep -c ': leaf <-' >from.out
check "pipe --from-start: every line again" from.out test "$(cat from.out)" = "$calls"
"$PS" pipe -d d --reader=other | grep -c ': leaf <-' >other.out
"$PS" pipe -d d --reader=other >other2.out
check "pipe --reader=other: its own position (every line, then none)" other.out \
	test "$(cat other.out)" = "$calls" -a ! -s other2.out
"$PS" pipe -d d --pid=1 >nopid.out 2>&1
check "pipe --pid of a process not in the session: said, exit 1" nopid.out \
	sh -c "test $? = 1 && grep -q 'no process 1' nopid.out"
# pipe --from-now (issue 23): what happens from now on, not the backlog since the tracer started.
# 2 threads x 200000 calls pause 1 ms every 1000 calls (at least 0.2 s); a pipe started 0.1 s in
# shows the calls made after it (some, not all), each once, and nothing lost.
rm -rf dn
record -d dn --tracer=function -F leaf -- ./livemark 2 200000 >run.out 2>run.err &
rpid=$!
n=0
while [ ! -s dn/session ] && [ $n -lt 200 ]; do sleep 0.01; n=$((n + 1)); done
sleep 0.1
"$PS" pipe -d dn --from-now >now.out 2>now.err
prc=$?
wait $rpid
calls=$(said calls run.out)
shown=$(grep -c ': leaf <-' now.out)
"$PS" replay --no-sched -d dn | untimed >replay.leaf
untimed <now.out >now.leaf
check "pipe --from-now: $shown of the $calls leaf lines (the ones after it started), each as replay has it" \
	now.err test "$prc" = 0 -a "$shown" -gt 0 -a "$shown" -lt "${calls:-0}" -a ! -s now.err \
	-a "$(comm -23 now.leaf replay.leaf | wc -l)" = 0 -a "$(grep -c LOST now.out)" = 0
"$PS" pipe -d dn --from-start --from-now >both.out 2>&1
check "pipe --from-start --from-now: a usage error (exit 2)" both.out test $? = 2

# record -p PID --live (issue 23): a process with the runtime preloaded (untraced but ready), its
# control channel answering; record switches the tracer on once it follows the session, and off
# at the end (--duration) before its last look.  The sample runs far longer than each case (one
# thread, 20000000 calls pausing 1 ms every 1000: 20 s at least) and is killed after.
# Oracle: replay of the same directory (every leaf line shown is one it has; a fresh attach
# shows every one), and the count of lines before the attach that a "from now" must not show.
livepid() {	# start the sample preloaded; its pid, once its channel answers
	LD_PRELOAD="$SANPRE $PATCHSITE_LIB" ./livemark 1 20000000 >lp.out 2>lp.err &
	lp=$!
	n=0
	until "$PS" ctl $lp current_tracer >/dev/null 2>&1 || [ $n -ge 500 ]; do sleep 0.01; n=$((n + 1)); done
}
livepid
record -p $lp -d fa --live --tracer=function -F leaf --duration=0.3 >fa.out 2>fa.err
rc=$?
"$PS" ctl $lp current_tracer >fa.cur 2>&1
"$PS" replay --no-sched -d fa | untimed >replay.leaf
untimed <fa.out >fa.leaf
shown=$(wc -l <fa.leaf)
# A call whose record was in flight when the tracer went off (the function tracer's fast
# path marks no grace period: it is done within ns, but a thread preempted inside it on a
# loaded machine completes it later) can land in the file after the command's last look:
# replay then has one line more at its end (1 of 262096 once, SAN build under CI).  The
# live lines must be replay's first ones, at most one short (the sample's one thread).
total=$(wc -l <replay.leaf)
check "record -p --live (a first attach): exit 0, $shown leaf lines = replay's $total (or its first, one short), tracer nop after" \
	fa.err test "$rc" = 0 -a "$shown" -gt 0 -a "$(cat fa.cur)" = nop \
	-a "$(head -n "$shown" replay.leaf | cmp -s - fa.leaf && echo same)" = same \
	-a $((total - shown)) -le 1
# A running session (the tracer set over the channel 0.2 s before): only what comes after.
"$PS" ctl $lp set_ftrace_filter leaf && "$PS" ctl $lp current_tracer function
sleep 0.2
before=$("$PS" replay --no-sched -d fa 2>/dev/null | grep -c ': leaf <-')
record -p $lp --live --tracer=function -F leaf --duration=0.3 >fn.out 2>fn.err
rc=$?
kill $lp; wait $lp 2>/dev/null
"$PS" replay --no-sched -d fa | untimed >replay.leaf
untimed <fn.out >fn.leaf
shown=$(wc -l <fn.leaf)
total=$(wc -l <replay.leaf)
check "record -p --live on a running session: from now, $shown of $total lines (not the $before there before)" \
	fn.err test "$rc" = 0 -a "$shown" -gt 0 -a "$before" -gt 0 -a "$shown" -le $((total - before)) \
	-a "$(comm -23 fn.leaf replay.leaf | wc -l)" = 0 -a "$(grep -c LOST fn.out)" = 0
# The process ends while followed (2 s at least): the follower ends with it, every line shown.
LD_PRELOAD="$SANPRE $PATCHSITE_LIB" ./livemark 1 2000000 >le.out 2>le.err &
lp=$!
n=0
until "$PS" ctl $lp current_tracer >/dev/null 2>&1 || [ $n -ge 500 ]; do sleep 0.01; n=$((n + 1)); done
record -p $lp -d le --live --tracer=function -F leaf >le.live 2>le.rerr
rc=$?
wait $lp
"$PS" replay --no-sched -d le | untimed >replay.leaf
untimed <le.live >le.leaf
check "record -p --live, the process ends: exit 0, said, $(wc -l <le.leaf) lines = replay's" le.rerr \
	sh -c "test $rc = 0 && grep -q 'ended; recorded up to then' le.rerr && test -s le.leaf &&
	       cmp -s le.leaf replay.leaf"

# A forked child is followed too (threads.c: two threads, then a child, then the
# parent again): --live shows what replay shows, the child's lines included.
$CC -O2 -g -pg -mfentry -mrecord-mcount -c "$TOP/testdata/patchsite/threads.c" -o threads.o &&
	$CC -o threads threads.o -pthread 2>/dev/null
record -d th --live --tracer=function -- ./threads >th.out 2>th.err
"$PS" replay --no-sched -d th | grep ' <-' | sed 's/^ *//; s/\] *[0-9.]*:/]/' | sort >th.want
grep ' <-' th.out | sed 's/^ *//; s/\] *[0-9.]*:/]/' | sort >th.got
check "record --live with fork: $(wc -l <th.got) lines, replay's $(wc -l <th.want), 2 processes" th.err \
	sh -c "cmp -s th.want th.got && test \$(sed 's/ .*//; s/.*-//' th.got | sort -u | wc -l) -ge 4 &&
	       test \$(ls -d th/[0-9]* | wc -l) = 2"

# Loss: a file size limit stops both workers' recording (store.c counts what they
# drop in their headers); pipe says each thread's count, as info does.
(ulimit -f 3000; record -d L --tracer=function -F leaf -- ./livemark 2 200000 >/dev/null 2>&1)
"$PS" info -d L | sed -n 's/^ *\([0-9]*\) livemark *events [0-9]* lost \([1-9][0-9]*\) .*/livemark-\1 [LOST \2 EVENTS]/p' |
	sort >L.want
"$PS" pipe -d L | grep 'LOST' | sort >L.got
check "pipe: a [LOST N EVENTS] line per thread that lost, N as info counts ($(wc -l <L.want) threads)" L.got \
	sh -c "test -s L.want && cmp -s L.want L.got"

# Markers in every format (function tracer run above: d).
"$PS" replay --no-sched -d d >replay.out
check "replay (function): tracing_mark_write: start / via ctl / end" replay.out \
	sh -c "grep -q ' tracing_mark_write: start\$' replay.out &&
	       grep -q ' tracing_mark_write: via ctl\$' replay.out &&
	       grep -q ' tracing_mark_write: end\$' replay.out"
check "a marker over 1024 bytes: cut, and said" replay.out \
	grep -q "tracing_mark_write: $(printf '%01024d' 0 | tr 0 x) \[cut: 1024 of 1100 bytes\]\$" replay.out
check "pipe shows the markers too" pipe.out \
	sh -c "grep -q ' tracing_mark_write: start\$' pipe.out && grep -q ' tracing_mark_write: end\$' pipe.out"
"$PS" dump --chrome -d d >chrome.json
check "Chrome JSON: markers as instant events" chrome.json python3 -c '
import json, sys
ev = json.load(open("chrome.json"))["traceEvents"]
names = [e["name"] for e in ev if e.get("ph") == "i" and e["name"] in ("start", "via ctl", "end")]
sys.exit(names != ["start", "via ctl", "end"])'
"$PS" info -d d >info.out
check "info counts 4 markers" info.out grep -q '^# markers: 4 ' info.out
record -d g -- ./livemark 2 2000 >g.out 2>&1
"$PS" replay --no-sched -d g >g.replay
check "function_graph: markers as /* comments */ in main" g.replay \
	sh -c "grep -q '^ [0-9]*) *livemark-[0-9]* | *|   /\* start \*/\$' g.replay &&
	       grep -q '|   /\* end \*/\$' g.replay"
"$PS" dump --folded -d g >g.folded
check "folded stacks: markers left out" g.folded \
	sh -c "! grep -q 'start\|via ctl' g.folded && grep -q '^livemark;worker;leaf ' g.folded"

# Snapshot while 4 threads run: its count lies between the sample's before and after counts.
record -d s --tracer=function -F leaf -- ./livemark 4 50000 snap >snap.out 2>snap.err
set -- $(said snapshot snap.out)
k=${1:-0}; before=${2:-0}; after=${3:-0}
"$PS" replay --no-sched -d s --snapshot="$k" >snap.replay 2>snap.rerr
got=$(grep -c ': leaf <-' snap.replay)
check "snapshot $k: $got leaf lines, between $before and $after, no damage said" snap.rerr \
	test "$k" = 1 -a "$got" -ge "$before" -a "$got" -le "$after" -a ! -s snap.rerr
"$PS" replay --no-sched -d s --snapshot >latest.replay 2>&1
check "replay --snapshot: the latest" latest.replay cmp -s snap.replay latest.replay
check "the snapshot file says how many and where" snap.out \
	grep -q '^snapfile # snapshots taken: 1$' snap.out
"$PS" info -d s --snapshot=1 >snap.info 2>&1
check "info --snapshot=1: a clean end (the snapshot's time)" snap.info grep -q 'end: *normal exit' snap.info
"$PS" replay --no-sched -d s --snapshot=2 >none.out 2>&1
check "replay --snapshot=2 (none): said, exit 1" none.out sh -c "test $? = 1 && grep -q 'snapshot.2' none.out"

# Overwrite mode: a snapshot of the rings; pipe refuses by name.
record -d o --overwrite --buffer-kb=64 --tracer=function -F leaf -- ./livemark 2 20000 snap >o.out 2>&1
rc=$?
"$PS" replay --no-sched -d o --snapshot=1 >o.replay 2>o.rerr
set -- $(said snapshot o.out)
got=$(grep -c ': leaf <-' o.replay)
{ echo "record: exit $rc"; cat o.out o.rerr; ls -R o; } >o.why 2>&1
check "overwrite: snapshot 1 read back, $got leaf lines (at most ${3:-0})" o.why \
	test "$got" -gt 0 -a "$got" -le "${3:-0}" -a ! -s o.rerr
"$PS" pipe -d o >o.pipe 2>&1
check "pipe on an overwrite record: refused by name" o.pipe grep -q 'overwrite mode' o.pipe

# trace_options (ftrace.rst: "echo noprint-parent > trace_options" ... "print-parent:
#   bash-4000  [01]  1477.606694: simple_strtoul <-kstrtoul", "noprint-parent: ...
#   simple_strtoul", "sym-offset: ... simple_strtoul+0x6/0xa0"; funcgraph-abstime:
# "360.774522 |   1)   0.541 us    |"; funcgraph-proc: the TASK/PID column).
# The sample reads the file, has overwrite refused, sets sym-offset at run time.
record -d op --tracer=function -F leaf -- ./livemark 1 100 opts >op.out 2>op.err
check "trace_options read: ftrace's defaults here, no before the ones off" op.out \
	grep -qx 'options print-parent,nosym-offset,funcgraph-proc,nofuncgraph-abstime,sleep-time,funcgraph-cpu,funcgraph-duration,funcgraph-overhead,nofuncgraph-tail,nooverwrite' op.out
check "trace_options: overwrite refused while recording (EBUSY), said why" op.err \
	sh -c "grep -qx 'overwrite -16' op.out && grep -q 'fixed when the trace directory is opened' op.err"
size=$(printf '0x%x' "0x$(nm -S livemark | awk '$4 == "leaf" { print $2 }')")
"$PS" replay --no-sched -d op >op.replay
check "sym-offset set at run time: leaf+0x0/$size <-worker+0x... (size: nm -S)" op.replay \
	grep -q ": leaf+0x0/$size <-worker+0x[0-9a-f]*/0x[0-9a-f]*\$" op.replay
"$PS" replay --no-sched -d op --options=nosym-offset,noprint-parent >op2.replay
check "replay --options=nosym-offset,noprint-parent: the name alone" op2.replay \
	sh -c "test \$(grep -c ': leaf\$' op2.replay) = 100"
"$PS" pipe -d op --from-start --options=nosym-offset >op.pipe
check "pipe --options=nosym-offset: leaf <-worker" op.pipe \
	sh -c "test \$(grep -c ': leaf <-worker\$' op.pipe) = 100"
"$PS" replay --no-sched -d g --options=funcgraph-abstime >g.abs
check "funcgraph-abstime: TIME | before the CPU column" g.abs \
	grep -q '^ *[0-9]*\.[0-9]\{6\} |   [0-9]) *livemark-[0-9]* | .*leaf();$' g.abs
"$PS" replay --no-sched -d g --options=nofuncgraph-proc >g.noproc
check "nofuncgraph-proc: no TASK/PID column" g.noproc \
	sh -c "grep -q '^ [0-9]) *[0-9.]* us | *leaf();\$' g.noproc && ! grep -q '^ [0-9]) *livemark-.*leaf' g.noproc"
PATCHSITE_OPTIONS="noprint-parent overwrite" record -d eo --tracer=function -F leaf -- \
	./livemark 1 100 >eo.out 2>eo.err
"$PS" info -d eo >eo.info
"$PS" replay --no-sched -d eo >eo.replay
check "PATCHSITE_OPTIONS=\"noprint-parent overwrite\": the ring mode, and leaf lines without <-" eo.err \
	sh -c "grep -q 'tracer: *function (overwrite)' eo.info && test \$(grep -c ': leaf\$' eo.replay) = 100"
PATCHSITE_OPTIONS=print-parnet record -d eb --tracer=function -- ./livemark 1 10 >eb.out 2>eb.err
check "PATCHSITE_OPTIONS with an unknown word: refused by name, nothing recorded" eb.err \
	sh -c "grep -q \"PATCHSITE_OPTIONS: trace_options: 'print-parnet': no such option\" eb.err && test ! -d eb/[0-9]*"
"$PS" replay --no-sched -d g --options=bogus >bad.out 2>&1
check "--options with an unknown word: named, exit 2" bad.out \
	sh -c "test $? = 2 && grep -q \"'bogus'\" bad.out"
# Every name --options takes (read from its refusal) changes the text: NAME against noNAME,
# the function tracer's record for print-parent and sym-offset, function_graph's for the
# rest (sleep-time, against its flag, and funcgraph-overhead, on calls long enough to be
# marked: sched.sh); a name ftrace has and nothing here means (graph-time: trace_stat/function
# has both Time and Self) is refused in one line naming the accepted set.
names=$(sed -n "s/.*expected \(.*\) (ftrace's trace_options names).*/\1/p" bad.out | tr -d ,)
: >names.why
for n in $names; do
	case $n in print-parent|sym-offset) d=op ;; sleep-time|funcgraph-overhead) continue ;; *) d=g ;; esac
	"$PS" replay --no-sched -d $d --options=$n >n.on 2>>names.why
	"$PS" replay --no-sched -d $d --options=no$n >n.off 2>>names.why
	cmp -s n.on n.off && echo "$n: the same text as no$n" >>names.why
done
"$PS" replay --no-sched -d g --options=nograph-time >gt.out 2>&1
rc=$?
check "--options: each of $(echo $names | wc -w) names changes the text; nograph-time refused (exit $rc): $(head -1 gt.out)" names.why \
	sh -c "test -n '$names' -a ! -s names.why -a $rc = 2 && test \$(grep -c . gt.out) = 2 &&
	       grep -q \"'nograph-time': expected print-parent, sym-offset, funcgraph-proc, funcgraph-abstime, sleep-time, funcgraph-cpu, funcgraph-duration, funcgraph-overhead, funcgraph-tail (ftrace\" gt.out"
"$PS" pipe -d op --from-start --options=nosleep-time >ps.out 2>&1
rc=$?
check "pipe --options=nosleep-time: replay's, refused in one line (exit $rc)" ps.out \
	sh -c "test $rc = 2 && grep -q \"^patchsite: --options: nosleep-time: replay's\" ps.out"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
