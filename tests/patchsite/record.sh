#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The trace directory and the patchsite command: usage  record.sh BUILD_DIR plain|san
#
# The oracle is the sample program (testdata/patchsite/ending.c): it knows
# how many traced calls it made (N calls of leaf() from main(), fib(n)
# counting its own calls) and how it ends.  function_graph records two
# events per completed call and one for a call left open, so after
# `ending N HOW` the file holds exactly 1 + 2N events (2 + 2N when main
# returned), and `patchsite report --json` must count leaf N times.
set -u
. tests/patchsite/lib.sh	# suite_init (SANPRE: the sanitizers' runtimes first), on_exit, pass, fail
suite_init record "${1:-build}" "${2:-plain}"
SMALL=
on_exit '[ -n "$SMALL" ] && umount "$SMALL" 2>/dev/null'
TOP=$PWD
SANFLAGS=
SEGV_RC=139
if [ "$MODE" = san ]; then
	SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all"
	SEGV_RC=1	# ASan reports the SEGV and exits 1
fi
# The program's own calls are the oracle: library calls (on by default) are not counted, and
# /bin/true below is a program without sites of its own (libcall.sh tests them).
record() { LD_PRELOAD="$SANPRE" "$PS" record --no-libcall "$@"; }

# calls NAME [PID]: the calls report --json counts for NAME (in process PID), or 0.
calls() {
	python3 - "$T/report.json" "$1" "${2:-}" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
n = sum(r["calls"] for r in rows if r["name"] == sys.argv[2] and
        (not sys.argv[3] or r.get("pid") == int(sys.argv[3])))
print(n)
EOF
}

# The PIE form (-pg -mfentry -mrecord-mcount), linked without -pg.
$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/ending.c -o "$T/ending.o" \
	>"$T/build.log" 2>&1 && $CC -o "$T/ending" "$T/ending.o" -pthread >>"$T/build.log" 2>&1 ||
	{ fail "build ending" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1

# How each ending leaves the directory: exit status, events, end.
N=1000
for case in normal:0:2002:clean segv:$SEGV_RC:2001:signal abort:134:2001:signal kill:137:2001:signal \
	    term:143:2001:signal _exit:3:2001:exit3; do
	how=${case%%:*} rest=${case#*:}
	rc_want=${rest%%:*} rest=${rest#*:}
	ev_want=${rest%%:*} end_want=${rest#*:}
	rm -rf d
	record -d d -- ./ending $N $how >out 2>err
	rc=$?
	"$PS" report -d d --json >report.json 2>rerr
	"$PS" info -d d >info 2>>rerr
	ev=$(sed -n 's/^# events: \([0-9]*\) recorded, 0 lost$/\1/p' info)
	case $end_want in
	clean) endok=$(grep -c '^  end:      exit 0$' info) ;;
	signal) endok=$(grep -c '^  end:      \(signal\|exit 1,\) .*abnormal: no clean end' info) ;;
	exit3) endok=$(grep -c '^  end:      exit 3$' info) ;;	# _exit(3): a clean end (issue 23)
	esac
	if [ $rc -eq "$rc_want" ] && [ "$(calls leaf)" -eq $N ] && [ "$ev" = "$ev_want" ] &&
	   [ "$endok" -eq 1 ] && [ ! -s rerr ] && grep -qx "calls=$N" out; then
		pass "$how: exit $rc, $ev events kept, leaf counted $N times, end: $(sed -n 's/^  end: *//p' info)"
	else
		fail "$how (exit $rc, events '$ev')" info
		cat rerr
	fi
done

# fork: the child records under its own pid, the parent's calls before and after stay its own.
rm -rf d
record -d d -- ./ending 1000 fork 300 >out 2>err
"$PS" report -d d --json >report.json 2>rerr
parent=$(awk 'NR == 1 { print $1 }' d/session) child=$(awk 'NR == 2 { print $1 }' d/session)
if [ "$(wc -l <d/session)" -eq 2 ] && [ -d "d/$parent" ] && [ -d "d/$child" ] &&
   [ "$(calls leaf "$parent")" -eq 1300 ] && [ "$(calls leaf "$child")" -eq 300 ] && [ ! -s rerr ]; then
	pass "fork: parent $parent 1300 calls, child $child 300 calls, each in its own directory"
else
	fail "fork" report.json
fi

# exec: the new image is a new process in the same directory, the old one's record intact.
rm -rf d
record -d d -- ./ending 1000 exec 300 >out 2>err
"$PS" report -d d --json >report.json 2>rerr
"$PS" info -d d >info 2>>rerr
pid=$(awk 'NR == 1 { print $1 }' d/session)
if [ -d "d/$pid" ] && [ -d "d/$pid.1" ] && [ "$(calls leaf)" -eq 1300 ] &&
   grep -q '^  end:      exec' info && [ "$(grep -c '^process' info)" -eq 2 ] && [ ! -s rerr ]; then
	pass "exec: $pid and $pid.1, 1000 + 300 calls, the first marked as ended by exec"
else
	fail "exec" info
fi

# Threads: each its own file, every call counted.
rm -rf d
record -d d -- ./ending 50000 threads >out 2>err
"$PS" report -d d --json >report.json 2>rerr
if [ "$(calls leaf)" -eq 200000 ] && [ "$(ls d/*/thread.* | wc -l)" -eq 5 ] && [ ! -s rerr ]; then
	pass "4 threads x 50000 calls: 200000 counted, 5 thread files"
else
	fail "threads" report.json
fi

# About a million calls with the defaults: nothing lost, every call counted.
rm -rf d
record -d d -- ./ending 28 fib >out 2>err
want=$(sed -n 's/^fib=[0-9]* calls=//p' out)
"$PS" report -d d --json >report.json 2>rerr
"$PS" info -d d >info 2>>rerr
# record's stderr: empty but for a lost-switch line (the events lost are 0 in info).
if [ -n "$want" ] && [ "$(calls fib)" -eq "$want" ] && grep -q ', 0 lost$' info && [ ! -s rerr ] &&
   only_switches_lost err; then
	pass "fib(28): $want calls recorded and counted, none lost"
else
	cat err rerr >>info	# what record and the readers said (a switch lost is said there)
	fail "fib(28): $(calls fib) of $want" info
fi

# Recursion: fib's total holds the outermost call's time only (as uftrace
# report counts it), so it is at most main's, which encloses it; the sum of
# every nested call's time would be about 20 times as much at depth 28.
tot() { python3 -c 'import json,sys
print(next(e["total_ns"] for e in json.load(open(sys.argv[1])) if e["name"] == sys.argv[2]))' report.json "$1"; }
if [ "$(tot fib)" -le "$(tot main)" ] && [ "$(tot fib)" -gt 0 ]; then
	pass "fib(28): total time $(tot fib) ns, within main's $(tot main) ns (nested calls not counted twice)"
else
	fail "fib(28): total $(tot fib) ns exceeds main's $(tot main) ns" report.json
fi

# A command that cannot be run: the shell's exit status for it (127, as sh -c gives)
# and exec's reason in one line, not a guess at why nothing was recorded.
"$PS" record -d nocmd -- ./no-such-program >out 2>err
rc=$?
if [ $rc = 127 ] && [ "$(wc -l < err)" = 1 ] &&
   grep -q '^patchsite: ./no-such-program: No such file or directory$' err; then
	pass "a command that does not exist: exit 127, one line naming it and the reason"
else
	fail "a command that does not exist: exit $rc" err
fi

# A file size limit (RLIMIT_FSIZE, 2 MB): said on stderr, the program runs on, and
# every event is either recorded or counted lost.
rm -rf d
(ulimit -f 4096 && record -d d -- ./ending 300000 normal >out 2>err)
rc=$?
"$PS" report -d d --json >report.json 2>rerr
"$PS" info -d d >info 2>>rerr
lost=$(sed -n 's/^# events: [0-9]* recorded, \([0-9]*\) lost$/\1/p' info)
kept=$(calls leaf)
# Two lines: the runtime's when it stops, record's total at the end (a switch the kernel
# could not record is said on a line of its own, not counted here).
grep -v 'scheduler switches lost' err >err2
if [ $rc -eq 0 ] && grep -qx 'calls=300000' out && [ "$(wc -l <err2)" -eq 2 ] &&
   grep -q 'File too large: recording stopped' err && grep -q ": $lost events lost" err &&
   [ $((kept + lost)) -eq 300000 ] &&
   [ "$kept" -gt 0 ] && grep -q 'stopped: File too large' info; then
	pass "RLIMIT_FSIZE: $kept calls kept + $lost counted lost = 300000; $(cat err)"
else
	fail "RLIMIT_FSIZE (exit $rc, kept $kept, lost $lost)" err
fi
"$PS" replay --no-sched -d d >replay 2>/dev/null
if grep -q "^# ending-[0-9]* \[LOST $lost EVENTS\]" replay &&
   grep -q "RECORDING STOPPED: File too large" replay; then
	pass "RLIMIT_FSIZE: replay says what was lost"
else
	fail "RLIMIT_FSIZE: replay" replay
fi

# A full file system: a 3 MB tmpfs (root only).
mkdir small
if mount -t tmpfs -o size=3m tmpfs small 2>/dev/null; then
	SMALL=$T/small
	record -d small/d -- ./ending 600000 normal >out 2>err
	rc=$?
	"$PS" report -d small/d --json >report.json 2>rerr
	"$PS" info -d small/d >info 2>>rerr
	lost=$(sed -n 's/^# events: [0-9]* recorded, \([0-9]*\) lost$/\1/p' info)
	kept=$(calls leaf)
	grep -v 'scheduler switches lost' err >err2
	if [ $rc -eq 0 ] && [ "$(wc -l <err2)" -eq 2 ] && grep -q 'No space left on device' err &&
	   grep -q ": $lost events lost" err &&
	   [ $((kept + lost)) -eq 600000 ] && [ "$kept" -gt 0 ]; then
		pass "full tmpfs: $kept calls kept + $lost counted lost = 600000"
	else
		fail "full tmpfs (exit $rc, kept $kept, lost $lost)" err
	fi
	umount small && SMALL=
	# The same on a file system without fallocate (ext2, some FUSE ones), made by
	# a preloaded fallocate that answers EOPNOTSUPP as theirs do: the chunks'
	# blocks must still be taken before they are mapped (zeros written), or the
	# full disk is SIGBUS in the program.  Oracle: the program's exit status and
	# its own count of calls: every call kept or counted lost (the lost events
	# may hold a few of its other calls too: at least 600000, not exactly).
	cat >nofalloc.c <<'EOF'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
int fallocate(int fd, int mode, off_t off, off_t len)
{
	(void)fd; (void)mode; (void)off; (void)len;
	errno = EOPNOTSUPP;
	return -1;
}
int fallocate64(int fd, int mode, off_t off, off_t len) { return fallocate(fd, mode, off, len); }
EOF
	if $CC -shared -fPIC -o nofalloc.so nofalloc.c 2>nfb.log && mount -t tmpfs -o size=3m tmpfs small; then
		SMALL=$T/small
		LD_PRELOAD="$SANPRE $T/nofalloc.so" "$PS" record -d small/d -- ./ending 600000 normal >out 2>err
		rc=$?
		"$PS" report -d small/d --json >report.json 2>rerr
		"$PS" info -d small/d >info 2>>rerr
		lost=$(sed -n 's/^# events: [0-9]* recorded, \([0-9]*\) lost$/\1/p' info)
		kept=$(calls leaf)
		if [ $rc -eq 0 ] && grep -q 'No space left on device' err && [ -n "$lost" ] &&
		   [ $((kept + lost)) -ge 600000 ] && [ "$kept" -gt 0 ]; then
			pass "full tmpfs without fallocate: exit 0, $kept calls kept + $lost events counted lost >= 600000"
		else
			fail "full tmpfs without fallocate (exit $rc, kept $kept, lost $lost)" err
		fi
		umount small && SMALL=
	else
		fail "nofalloc shim or tmpfs" nfb.log
	fi
else
	echo "SKIP full file system: cannot mount a tmpfs here (not root?)"
fi

# Flight recorder: a 64 KB ring per thread (4 chunks of 2048 words, one of them being
# reused) keeps the newest 3 to 4 chunks of calls, main's exit among them; what reuse
# overwrote is counted: kept + overwritten = 2 * 100000 + 2 events exactly.
rm -rf d
record -d d --overwrite --buffer-kb=64 -- ./ending 100000 normal >out 2>err
"$PS" report -d d --json >report.json 2>rerr
"$PS" replay --no-sched -d d >replay 2>>rerr
"$PS" info -d d >info 2>>rerr
kept=$(calls leaf)
set -- $(sed -n 's/^ *[0-9]* ending *events \([0-9]*\) lost 0 overwritten \([0-9]*\)$/\1 \2/p' info)
if [ "$kept" -gt 3000 ] && [ "$kept" -lt 4096 ] && [ "$(tail -1 replay | grep -c '| } /\* main \*/$')" -eq 1 ] &&
   [ $(($1 + $2)) -eq 200002 ] && grep -q "^# ending-[0-9]* \[OVERWRITTEN $2 EVENTS\]" replay &&
   [ "$(cat rerr)" = "$(sed -n 's/^# /patchsite: /p' replay | grep OVERWRITTEN)" ] &&
   [ "$(stat -c %s d/*/thread.*)" -eq $((4096 + 65536)) ]; then
	pass "overwrite: a 64 KB ring kept the newest $kept of 100000 calls and main's return; $1 kept + $2 overwritten events = 200002"
else
	fail "overwrite: kept $kept, events ${1:-?} + ${2:-?}" replay
fi

# Flight recorder disk use (issue 23): rings grow a chunk at a time up to their size. A 32 MiB
# ring (1 MiB chunks): 4 threads of 7 calls and main cost the header and one chunk each (was the
# whole ring each); 3M calls (6M events, 48 MB) fill the ring, and take the ring and no more.
rm -rf d
record -d d --overwrite --buffer-kb=32768 -- ./ending 7 threads >out 2>err
"$PS" info -d d >info 2>rerr
sizes=$(for f in d/*/thread.*; do stat -c '%b %B' "$f" | awk '{ print $1 * $2 }'; done | sort -u | tr '\n' ' ')
big=$(for f in d/*/thread.*; do stat -c '%b %B' "$f" | awk '{ print $1 * $2 }'; done | sort -n | tail -1)
rm -rf d2
record -d d2 --overwrite --buffer-kb=32768 -- ./ending 3000000 normal >out2 2>>err
full=$(stat -c '%b %B' d2/*/thread.* | awk '{ print $1 * $2 }')
if [ "$big" -le $((4096 + 1048576)) ] && [ "$full" -ge 33554432 ] &&
   [ "$full" -le $((4096 + 33554432 + 65536)) ] &&
   [ "$(ls d/*/thread.* | wc -l)" -eq 5 ] && [ ! -s rerr ] && only_switches_lost err; then
	pass "flight recorder, 32 MiB rings: 5 threads of 7 calls take ${sizes}bytes each on disk; a full ring $full"
else
	fail "flight recorder disk: ${sizes}each; largest $big; full $full" err
fi
rm -rf d2

# Damage: one line naming the file and the reason, partial results, never a crash.
rm -rf d
record -d d -- ./ending 300000 normal >out 2>err
f=$(ls d/*/thread.*)
truncate -s $((4096 + 1048576 + 4096)) "$f"
"$PS" report -d d --json >report.json 2>rerr
rc=$?
kept=$(calls leaf)
if [ $rc -eq 0 ] && [ "$(wc -l <rerr)" -eq 1 ] && grep -q "^patchsite: $f: truncated in chunk 1" rerr &&
   [ "$kept" -gt 65000 ] && [ "$kept" -lt 66000 ]; then
	pass "truncated thread file: $(cat rerr); $kept calls of the first chunk and a page read"
else
	fail "truncated thread file (exit $rc, $kept calls)" rerr
fi
printf 'garbage' | dd of="$f" conv=notrunc 2>/dev/null
"$PS" info -d d >info 2>rerr
rc=$?
if [ $rc -eq 1 ] && grep -q "^patchsite: $f: not a thread file of format version 1 to 2 (bad header): skipped" rerr &&
   grep -q '^# events: 0 recorded' info; then
	pass "damaged header: $(cat rerr)"
else
	fail "damaged header (exit $rc)" rerr
fi
# A text file of the directory replaced by a link to /dev/zero: said, not read for ever
# (timeout bounds the old behaviour, which read until memory ran out).
rm -rf d
record -d d -- ./ending 1000 normal >out 2>err
e=$(ls d/*/end)
rm -f "$e" && ln -s /dev/zero "$e"
timeout 120 "$PS" replay -d d >replay.txt 2>rerr
rc=$?
if [ $rc -ne 124 ] && grep -q "^patchsite: $e: not a regular file of at most 256 MB: not read$" rerr &&
   grep -q 'leaf' replay.txt; then
	pass "end file a link to /dev/zero: said in one line, the calls shown (exit $rc)"
else
	fail "end file a link to /dev/zero (exit $rc)" rerr
fi
rm -rf d
record -d d -- ./ending 1000 normal >out 2>err
rm d/*/modules
"$PS" report -d d --json >report.json 2>rerr
if [ "$(wc -l <rerr)" -eq 1 ] && grep -q 'modules: missing: events are shown by site number' rerr &&
   [ "$(python3 -c 'import json,sys; print(sorted(r["calls"] for r in json.load(open("report.json"))))')" = "[1, 1000]" ]; then
	pass "modules log missing: $(cat rerr); still 1 + 1000 calls"
else
	fail "modules log missing" rerr
fi
rm d/session
"$PS" info -d d >info 2>rerr
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <rerr)" -eq 1 ] && grep -q '^patchsite: d: not a trace directory' rerr; then
	pass "no session list: $(cat rerr)"
else
	fail "no session list (exit $rc)" rerr
fi

# Output errors are not silent.
rm -rf d
record -d d -- ./ending 10 normal >out 2>err
"$PS" replay --no-sched -d d >/dev/full 2>rerr
rc=$?
if [ $rc -eq 1 ] && grep -q 'No space left on device' rerr; then
	pass "replay into /dev/full: exit 1, $(cat rerr)"
else
	fail "replay into /dev/full (exit $rc)" rerr
fi
PATCHSITE_TRACER=function PATCHSITE_OUTPUT=/dev/full LD_PRELOAD="$SANPRE $PATCHSITE_LIB" \
	./ending 10 >out 2>err
if [ "$(wc -l <err)" -eq 1 ] && grep -q '^patchsite: /dev/full: writing the trace: No space left on device: it is incomplete$' err; then
	pass "PATCHSITE_OUTPUT=/dev/full: $(cat err)"
else
	fail "PATCHSITE_OUTPUT=/dev/full" err
fi

# A process with no sites: its line in the session list, nothing else.
rm -rf d
record -d d -- /bin/true >out 2>err
if [ "$(cat d/session | cut -d' ' -f3)" = "-" ] && [ "$(ls d)" = session ] &&
   grep -qx 'patchsite: /bin/true: nothing recorded: no traceable functions (build with -pg (x86-64, aarch64) or -finstrument-functions (x86-64, aarch64), -pg -mfentry -mrecord-mcount or -fpatchable-function-entry=5)' err; then
	pass "a program without sites: one session line, no process directory"
else
	fail "no sites" d/session
fi

# Thread files made at a bad moment (issue 23): every thread file has a header, or there is none.
# Threads whose first event comes as the process ends (exit_group after a clean end, or a kill)
# were killed between making their file and writing its header: files of zeros (the ring
# reserved, 4 MiB here) or of no bytes. A clone(2) child, which runs no fork handler, made a
# file in its parent's directory.
headers() {	# DIR: the thread files without a header, one a line
	python3 - "$1" <<'EOF'
import glob, os, sys
for f in sorted(glob.glob(sys.argv[1] + "/*/thread.*")):
    b = open(f, "rb").read(8)
    if os.path.getsize(f) < 4096 or b != b"PSTHRD1\0":
        print(f, os.path.getsize(f))
EOF
}
$CC -O1 -pg -mfentry -mrecord-mcount -c "$TOP/testdata/patchsite/threadfiles.c" -o threadfiles.o \
	2>/dev/null && $CC -o threadfiles threadfiles.o -pthread 2>/dev/null || fail "threadfiles: build"
# Under ASan too: a child forked while other threads allocate inherits ASan's allocator lock
# held (gcc 12's libasan does not guard fork; glibc's malloc does), and the control channel
# thread the child starts blocks on it at its start-up.  The child must go on regardless
# (ctl/channel.c: a forked child does not wait for its channel thread); it hung before.
for how in shutdown killed fork clone; do
	: >tf.bad
	files=0
	for i in 1 2 3 4 5; do
		rm -rf d
		# (a hang is a failure, not a stuck suite: 120 s is far beyond any run)
		PATCHSITE_OVERWRITE=1 PATCHSITE_BUFFER_KB=4096 LD_PRELOAD="$SANPRE" timeout 120 \
			"$PS" record -d d -- ./threadfiles $how >out 2>/dev/null
		rc=$?
		[ $rc = 0 ] || [ $how = killed ] || echo "run $i: exit $rc" >>tf.bad
		headers d >>tf.bad
		"$PS" info -d d 2>>tf.bad | grep -q '^process' || echo "no process" >>tf.bad
		files=$((files + $(ls d/*/ | grep -c '^thread\.')))
		if [ $how = clone ]; then
			c=$(sed -n 's/^clone=//p' out)
			ls d/*/thread.$c* >/dev/null 2>&1 && echo "clone child $c: a file in its parent's directory" >>tf.bad
		fi
		[ $how = fork ] && [ -n "$(awk '$3 == "-"' d/session)" ] && echo "fork child without directory" >>tf.bad
	done
	if [ ! -s tf.bad ]; then
		pass "thread files ($how, 5 runs, flight recorder): $files files, each with its header"
	else
		fail "thread files ($how)" tf.bad
	fi
done

# A forked child that ends with _exit(0) (a server's RDB/AOF child) ends cleanly with its status;
# only signals and kills are abnormal (issue 23).
rm -rf d
LD_PRELOAD="$SANPRE" timeout 120 "$PS" record -d d -- ./threadfiles fork >out 2>err
"$PS" info -d d >info 2>rerr
if [ "$(grep -c '^  end:      exit 0$' info)" -eq 21 ] && ! grep -q abnormal info && [ ! -s rerr ]; then
	pass "20 forked children ending with _exit(0): each 'end: exit 0', none abnormal"
else
	fail "_exit children: $(grep -c '^  end:      exit 0$' info) clean ends" info
fi

# Settings: a misspelt variable, a glob that is not one, dump formats, bad options.
PATCHSITE_TRACER=function PATCHSITE_DATA=d2 PATCHSITE_FILTR=leaf LD_PRELOAD="$SANPRE $PATCHSITE_LIB" \
	./ending 10 >out 2>err
if grep -qx 'patchsite: warning: PATCHSITE_FILTR: not a variable patchsite reads (did you mean PATCHSITE_FILTER?)' err; then
	pass "misspelt variable: $(cat err)"
else
	fail "misspelt variable" err
fi
# Every PATCHSITE_* name patchsite reads, found in the sources (so that a new one is not missed):
# the runtime's and the command's quoted names, the compiler wrapper's variables. A preloaded
# process that traces nothing prints nothing with any of them set (issue 23); a misspelt one is
# named once, by the process that traces, or by record on its own stderr.
names=$( (grep -rhoE '"PATCHSITE_[A-Z0-9_]+"' "$TOP/patchsite" --include='*.c' | tr -d '"'
	  grep -hoE 'PATCHSITE_[A-Z0-9_]+' "$TOP/scripts/patchsite-cc") | sort -u)
quiet_bad=
for v in $names; do
	env "$v=1" LD_PRELOAD="$SANPRE $PATCHSITE_LIB" /bin/true 2>err.$v
	env "$v=1" LD_PRELOAD="$SANPRE $PATCHSITE_LIB" ./ending 3 >/dev/null 2>>err.$v
	# These start tracing (and may say why not), or ask for messages (PATCHSITE_LOG).
	case $v in PATCHSITE_TRACER|PATCHSITE_DATA|PATCHSITE_EVENTS|PATCHSITE_PROBES|PATCHSITE_BRANCHES|PATCHSITE_OUTPUT|PATCHSITE_LOG)
		rm -rf patchsite.data 1; continue;; esac
	[ -s err.$v ] && quiet_bad="$quiet_bad $v"
done
env PATCHSITE_TRACR=function LD_PRELOAD="$SANPRE $PATCHSITE_LIB" ./ending 3 >/dev/null 2>>err.none
[ -s err.none ] && quiet_bad="$quiet_bad PATCHSITE_TRACR"
if [ -z "$quiet_bad" ] && [ "$(echo "$names" | wc -w)" -ge 25 ]; then
	pass "no tracer, $(echo "$names" | wc -w) PATCHSITE_* names each set (and one misspelt): nothing on stderr"
else
	fail "stderr of untraced processes:$quiet_bad" "$(ls err.* | head -1)"
fi
rm -rf d2
for i in 1 2; do
	PATCHSITE_TRACER=function PATCHSITE_DATA=d2 PATCHSITE_FILTR=leaf PATCHSITE_CC=gcc \
		LD_PRELOAD="$SANPRE $PATCHSITE_LIB" ./ending 10 >out 2>>err2
done
rm -rf d
PATCHSITE_FILTR=leaf PATCHSITE_CXX=g++ record -d d -- sh -c './ending 3; ./ending 4' >out 2>err3
if [ "$(grep -c PATCHSITE_ err2)" = 1 ] && [ "$(grep -c PATCHSITE_ err3)" = 1 ] &&
   grep -qx 'patchsite: warning: PATCHSITE_FILTR: not a variable patchsite reads (did you mean PATCHSITE_FILTER?)' err3; then
	pass "a misspelt variable named once per trace directory: two traced runs, record with two processes"
else
	fail "misspelt variable once" err2; cat err3
fi
record -d d -F 'le[af' -- ./ending 10 >out 2>err
if grep -q "PATCHSITE_FILTER: filter: 'le\[af' is not a valid glob: a '\[' is never closed: not tracing" err &&
   grep -qx 'calls=10' out; then
	pass "invalid glob: $(head -1 err)"
else
	fail "invalid glob" err
fi
# Said once, also with PATCHSITE_LOG=1 (the log said it too, issue 23).
PATCHSITE_LOG=1 PATCHSITE_TRACER=function PATCHSITE_FILTER='le[af' LD_PRELOAD="$SANPRE $PATCHSITE_LIB" \
	./ending 10 >out 2>err
if [ "$(grep -c "is not a valid glob" err)" = 1 ] &&
   grep -q "^patchsite: error: PATCHSITE_FILTER: filter: 'le\[af' is not a valid glob" err; then
	pass "a refused setting with PATCHSITE_LOG=1: said once"
else
	fail "refused setting said once" err
fi
rm -rf d
record -d d -- ./ending 20 threads >out 2>err
"$PS" dump -d d --chrome >trace.json 2>rerr && "$PS" dump -d d --folded >folded 2>>rerr
if python3 -c '
import json, sys
ev = json.load(open("trace.json"))["traceEvents"]
x = [e for e in ev if e["ph"] == "X" and e["name"] == "leaf"]
assert len(x) == 80, len(x)
assert len({e["tid"] for e in x}) == 4
' 2>>rerr && grep -q '^ending;thread;leaf [0-9]*$' folded && [ ! -s rerr ]; then
	pass "dump --chrome: 80 leaf calls on 4 threads; --folded: $(wc -l <folded) stacks"
else
	fail "dump" rerr
fi
tid=$(ls d/*/thread.* | sed -n '2s/.*thread\.//p')
"$PS" replay --no-sched -d d --tid="$tid" >replay 2>rerr
if [ "$(grep -c "| *leaf();\$" replay)" -eq 20 ] && ! grep -q "=>" replay &&
   [ "$(grep -c "ending-$tid |" replay)" -eq "$(grep -cE '^ *[0-9]+\) ' replay)" ] && [ ! -s rerr ]; then
	pass "replay --tid=$tid: that thread's 20 calls alone"
else
	fail "replay --tid" replay
fi
# The function tracer: one line per call, its caller named.
rm -rf d
record -d d --tracer=function -F leaf -- ./ending 100 >out 2>err
"$PS" replay --no-sched -d d >replay 2>rerr
if [ "$(grep -c ': leaf <-main$' replay)" -eq 100 ] && [ "$(grep -c ' <-' replay)" -eq 100 ] &&
   grep -q '^# entries-in-buffer/entries-written: 100/100 ' replay && [ ! -s rerr ]; then
	pass "function tracer, -F leaf: 100 'leaf <-main' lines"
else
	fail "function tracer" replay
fi
# A bad setting does not leave an earlier run's trace looking current: the file says why.
echo "# tracer: function (an earlier run)" >old-trace
PATCHSITE_TRACER=function PATCHSITE_FILTER=no_such_function PATCHSITE_OUTPUT="$T/old-trace" \
	LD_PRELOAD="$SANPRE $PATCHSITE_LIB" ./ending 5 >out 2>err
if [ "$(wc -l <old-trace)" -eq 1 ] &&
   grep -qx "# patchsite: error: PATCHSITE_FILTER: filter: no traceable function matches 'no_such_function': not tracing" old-trace; then
	pass "bad setting over an old PATCHSITE_OUTPUT file: $(cat old-trace)"
else
	fail "bad setting over an old trace file" old-trace
fi

# Graph depth and graph function through record: -D 1 keeps main alone; -G leaf keeps leaf alone.
rm -rf d
record -d d -D 1 -- ./ending 50 >out 2>err
"$PS" report -d d --json >report.json 2>rerr
d1="$(calls main) $(calls leaf)"
rm -rf d
record -d d -G leaf -- ./ending 50 >out 2>err
"$PS" report -d d --json >report.json 2>>rerr
g1="$(calls main) $(calls leaf)"
if [ "$d1" = "1 0" ] && [ "$g1" = "0 50" ] && [ ! -s rerr ]; then
	pass "record -D 1: main 1, leaf 0; -G leaf: main 0, leaf 50"
else
	fail "record -D/-G: '$d1' '$g1'" rerr
fi
"$PS" report -d d --sort=bogus >out 2>err
rc=$?
if [ $rc -eq 2 ] && grep -q '^patchsite: --sort=bogus: expected total, self, call (calls), func,' err; then
	pass "bad --sort: exit 2, $(head -1 err)"
else
	fail "bad --sort (exit $rc)" err
fi
# dlopen/dlclose twice (testdata/patchsite/dlopen.c): each load and unload in the modules
# log, and the calls into code unloaded since still named (2 rounds: top_call -> dyn_outer
# -> dyn_inner once each).
SRC=$OLDPWD/testdata/patchsite
fl="-O2 -g -fPIC -pg -mfentry -mrecord-mcount"
if { $CC $fl -c "$SRC/libdyn.c" -o dyn.o && $CC -shared -o libdyn-pie.so dyn.o &&
     $CC $fl -c "$SRC/libdyntop.c" -o dyntop.o &&
     $CC -shared -o libdyntop-pie.so dyntop.o -L. -ldyn-pie -Wl,-rpath,"$T" &&
     $CC -O2 -g -pg -mfentry -mrecord-mcount -c "$SRC/dlopen.c" -o dlopen.o &&
     $CC -o dlopen-prog dlopen.o -ldl -Wl,-rpath,"$T"; } >>build.log 2>&1; then
	rm -rf d
	LD_LIBRARY_PATH=$T record -d d -- ./dlopen-prog pie >out 2>err
	"$PS" report -d d --json >report.json 2>rerr
	loads=$(grep -c '^load [0-9]* [0-9]* 0x[0-9a-f]* mod\.[0-9.]* .*/libdyntop-pie.so$' d/*/modules)
	unloads=$(grep -c '^unload ' d/*/modules)
	if grep -qx 'sum=213' out && [ "$loads" -eq 2 ] && [ "$unloads" -eq 4 ] &&
	   [ "$(calls top_call)" -eq 2 ] && [ "$(calls dyn_outer)" -eq 2 ] &&
	   [ "$(calls dyn_inner)" -eq 2 ] && [ "$(calls prog_run)" -eq 2 ] && [ ! -s rerr ]; then
		pass "dlopen/dlclose twice: 2 loads and 4 unloads logged, calls into unloaded code named"
	else
		fail "dlopen/dlclose (loads $loads, unloads $unloads)" report.json
		cat d/*/modules
	fi
else
	fail "dlopen: build" build.log
fi

# Names of any length, whole in every output (a C++ template's can run to kilobytes).
long=f_$(printf '%0700d' 0)
printf '__attribute__((noinline)) void %s(void) { __asm__ volatile(""); }\nint main(void) { %s(); return 0; }\n' \
	"$long" "$long" >long.c
if $CC -O2 -pg -mfentry -mrecord-mcount -c long.c -o long.o 2>/dev/null && $CC -o long long.o 2>/dev/null; then
	rm -rf d
	record -d d -- ./long >out 2>err
	"$PS" replay --no-sched -d d >replay 2>rerr
	PATCHSITE_TRACER=function_graph PATCHSITE_OUTPUT="$T/trace" LD_PRELOAD="$SANPRE $PATCHSITE_LIB" ./long 2>err
	if grep -q "| *$long();\$" replay && grep -q "| *$long();\$" trace; then
		pass "a 702-character name whole in replay and in PATCHSITE_OUTPUT"
	else
		fail "long names" rerr
	fi
else
	fail "long names: build"
fi
# Extended records (testdata/patchsite/drivers/ext.c): written by the runtime, read back by the reader.
$CC -O2 -g -pg -mfentry -mrecord-mcount -c "$TOP/testdata/patchsite/work.c" -o work.o 2>/dev/null &&
$CC -O2 -g -I"$TOP/include" -I"$TOP/testdata/patchsite/drivers" $SANFLAGS -c "$TOP/testdata/patchsite/drivers/ext.c" -o ext.o &&
$CC -o ext ext.o work.o "$TOP/$B/libpatchsite.a" $SANFLAGS -pthread 2>/dev/null
if [ -x ext ]; then
	rm -rf d
	if PATCHSITE_TRACER=function PATCHSITE_FILTER=work_count PATCHSITE_DATA=d ./ext write d >out 2>&1 &&
	   ./ext read d >>out 2>&1 && ! grep -q '^FAIL' out; then
		pass "extended records: $(grep -c '^PASS' out) checks"
	else
		fail "extended records" out
	fi
else
	fail "extended records: build"
fi
# The public headers compile as C++ (g++ is the oracle); patchsite.h's `private` is private_ there.
if printf '#include "patchsite.h"\n#include "patchsite_event.h"\nint main() { patchsite_ops o{}; o.private_ = nullptr; return o.private_ != nullptr; }\n' |
   ${CXX:-g++} -fsyntax-only -Wall -Werror -I"$TOP/include" -x c++ - 2>cxx.err; then
	pass "patchsite.h and patchsite_event.h compile as C++"
else
	fail "public headers in C++" cxx.err
fi
# Children started with an explicit environment that lacks LD_PRELOAD and PATCHSITE_*
# (posix_spawn, posix_spawnp, execve after fork, execvpe; envp = { PATH=/usr/bin }) are
# followed as uftrace follows them.  Oracle: each child's own count of its leaf() calls (3, 4,
# 5, 6) and the output of the untraced run.
if $CC -O2 -pg -mfentry -mrecord-mcount "$TOP/testdata/patchsite/spawnenv.c" -o spawnenv \
	2>build.log; then
	./spawnenv >want 2>&1
	rm -rf d
	record -d d ./spawnenv >got 2>err
	rc=$?
	"$PS" report --json -d d >"$T/report.json" 2>>err
	got=$(python3 - "$T/report.json" <<'EOF2'
import json, sys
print(" ".join(str(n) for n in sorted(r["calls"] for r in json.load(open(sys.argv[1]))
                                      if r["name"] == "leaf")))
EOF2
)
	want=$(sed -n 's/^child calls=//p' want | sort -n | tr '\n' ' ' | sed 's/ $//')
	if [ $rc -eq 0 ] && cmp -s want got && [ "$got" = "$want" ] && [ "$want" = "3 4 5 6" ]; then
		pass "explicit envp (posix_spawn, posix_spawnp, execve, execvpe): leaf per child $got"
	else
		echo "exit $rc; leaf per process: $got; the children said: $want" >>err
		fail "explicit envp followed" err
	fi
else
	fail "build spawnenv" build.log
fi
# -fpatchable-function-entry=N,M with M > 0 (gcc and clang) puts M NOPs before the function's
# label: a site written at the table's address would cross the entry (gcc's =5,2 and =7,2 died of
# SIGILL/SIGSEGV).  Refused, said once; the oracle is the program run untraced: the same output
# and exit status.
for cc in gcc clang; do
	command -v $cc >/dev/null || { echo "SKIP $cc -fpatchable-function-entry=N,M: no $cc"; continue; }
	for nm in 5,2 7,2; do
		what="$cc -fpatchable-function-entry=$nm"
		if ! $cc -O2 -fpatchable-function-entry=$nm "$TOP/testdata/patchsite/ending.c" \
			-o pfe -pthread 2>build.log; then
			fail "$what: build" build.log
			continue
		fi
		./pfe 3 _exit >want 2>&1
		want_rc=$?
		rm -rf d
		record -d d ./pfe 3 _exit >got 2>err
		got_rc=$?
		n=$(grep -c "^patchsite: warning: pfe: [0-9]* sites start before the function's entry (-fpatchable-function-entry=N,M with M > 0: .*): a site there would cross the entry: not traced$" err)
		if [ "$got_rc" = "$want_rc" ] && cmp -s want got && [ "$n" = 1 ]; then
			pass "$what: refused in one line, the program's output and exit $got_rc as untraced"
		else
			echo "exit $got_rc (untraced $want_rc), refusal lines $n" >>err
			fail "$what: refused, output and exit as untraced" err
		fi
	done
done
# Threads started and ended one after another under a limit of 64 open files: each ended
# thread's file is finished and its descriptor closed when the thread ends (one was kept per
# ended thread until exit: 200 threads ran the program out of descriptors).  Oracle: the
# program's own count of its descriptors and threads, as in an untraced run; and every
# thread's call recorded (200 calls of work).
if $CC -O2 -g -pg -mfentry -mrecord-mcount "$TOP/testdata/patchsite/threadfds.c" -o threadfds \
	-pthread 2>build.log; then
	./threadfds 200 >want 2>wgrew
	want_rc=$?
	rm -rf d
	record -d d ./threadfds 200 >got 2>err
	got_rc=$?
	calls=$("$PS" replay -d d --no-sched 2>>err | grep -c ' work();$')
	wg=$(sed -n 's/^grew //p' wgrew) gg=$(sed -n 's/^grew //p' err)
	# The runtime may open a descriptor or two of its own as it goes, not one a thread.
	if [ "$got_rc" = "$want_rc" ] && cmp -s want got && [ "$calls" = 200 ] &&
	   [ -n "$gg" ] && [ "$gg" -le $((wg + 2)) ]; then
		pass "200 threads ended one after another, 64 files open at most: $(cat got); descriptors +$gg (untraced +$wg); 200 calls of work recorded"
	else
		{ echo "exit $got_rc (untraced $want_rc), work calls '$calls', grew '$gg' (untraced '$wg')"; cat want got; } >>err
		fail "200 threads under a limit of 64 open files: as untraced" err
	fi
else
	fail "threadfds: build" build.log
fi
"$PS" --help >out && grep -q '^usage: patchsite record' out && pass "--help" || fail "--help" out

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
