#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Time off the CPU (issue 25): usage  sched.sh BUILD_DIR plain|san
#
# Oracles, all from the kernel and never from patchsite's own output:
#  - switches: /proc/self/task/TID/status (voluntary_ctxt_switches,
#    nonvoluntary_ctxt_switches), read by testdata/patchsite/offcpu.c itself
#    before and after its work in each of 5 threads; the sched files, parsed
#    from patchsite-data(5) by check_sched.py, must hold exactly the switches
#    between the two reads (bounds for a switch during a read: see there).
#  - nosleep-time: CLOCK_THREAD_CPUTIME_ID around sleeper(), read by the
#    program; the tolerance is derived below.
#  - pipe and record --live: the same files, and replay of the finished directory (9.).
#  - denied: a seccomp filter in the program makes perf_event_open return
#    EACCES, as perf_event_paranoid 3 would (the sysctl is not ours to set).
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail; only_switches_lost
suite_init sched "${1:-build}" "${2:-plain}"
CHECK="$PWD/tests/patchsite/oracles/check_sched.py"
TOP=$PWD
# The program's own functions and their time off the CPU are this suite's subject: recorded
# with --no-libcall (library calls, on by default, add nanosleep() and clock_gettime() calls,
# and would be traced before the seccomp filter of 7. is installed).  2b. records with the
# defaults.
record() { LD_PRELOAD="$SANPRE" "$PS" record --no-libcall "$@"; }

$CC -O2 -g -pg -mfentry -mrecord-mcount -c testdata/patchsite/offcpu.c -o "$T/offcpu.o" \
	>"$T/build.log" 2>&1 && $CC -o "$T/offcpu" "$T/offcpu.o" -pthread >>"$T/build.log" 2>&1 ||
	{ fail "build offcpu" "$T/build.log"; echo "0 passed, 1 failed"; exit 1; }
cd "$T" || exit 1

# perf events may be refused on this machine (perf_event_paranoid 3, a container's seccomp
# profile): then only the refusal is tested, and that is said.
record -d probe -- ./offcpu sleep >/dev/null 2>probe.err
if grep -q 'scheduler switches not recorded' probe.err; then
	echo "SKIP switches recorded: perf events are refused here: $(cat probe.err)"
	PERF=no
else
	PERF=yes
fi

# 1. The switches recorded = the kernel's counts of each thread's switches.
if [ $PERF = yes ]; then
	record -d sw -- ./offcpu switches >out.sw 2>err.sw
	if python3 "$CHECK" sw/*/ out.sw >out 2>&1 && [ ! -s err.sw ]; then
		pass "switches recorded = /proc counts: $(cat out)"
	else
		cat err.sw >>out
		fail "switches recorded = /proc counts" out
	fi
fi

# 2. replay --sched: the switches in place.  Oracle: nanosleep(3 ms) blocks (a voluntary
# switch in the kernel's counts), spinning on the vDSO's clock never does; so each of the
# 10 nap() calls holds a `/* sched-out */` and spin() only `/* sched-out (preempted) */`.
# naps FILE: checks replay text FILE as said, prints what it found.
naps() {
	awk '/\| +nap\(\) \{$/ { in_nap = 1; naps++; vol_here = 0; next }
	     /\| +spin\(\) \{$/ { in_spin = 1; next }
	     in_nap && /\/\* sched-out \*\/$/ { vol_here = 1 }
	     in_spin && /\/\* sched-out \*\/$/ { bad = bad " voluntary switch in spin()" }
	     /\| +}$/ && in_nap { if (vol_here) good++; in_nap = 0 }
	     /\| +}$/ && in_spin { in_spin = 0 }
	     /sched-(out|in)/ { sw++ }
	     END { printf "%d of %d nap() calls hold a voluntary sched-out, %d switch lines%s\n",
		   good, naps, sw, bad; exit !(good == 10 && naps == 10 && bad == "") }' "$1"
}
if [ $PERF = yes ]; then
	record -d sl -- ./offcpu sleep >out.sl 2>err.sl
	"$PS" replay -d sl --sched >rep.sl 2>>err.sl
	naps rep.sl >out 2>&1
	if [ $? -eq 0 ] && [ ! -s err.sl ]; then
		pass "replay --sched: $(cat out)"
	else
		cat err.sl rep.sl >>out
		fail "replay --sched" out
	fi

	# 2b. The defaults, as uftrace's: a plain record (library calls on: nap()'s nanosleep()
	# holds the switch) and a plain replay show the switches, the same oracle as 2.;
	# replay --no-sched shows none of them, and the 10 nap() calls still.
	LD_PRELOAD="$SANPRE" "$PS" record -d df -- ./offcpu sleep >/dev/null 2>err.df
	"$PS" replay -d df >rep.df 2>>err.df
	"$PS" replay -d df --no-sched >rep.nos 2>>err.df
	naps rep.df >out 2>&1
	if [ $? -eq 0 ] && [ ! -s err.df ] && ! grep -q 'sched-' rep.nos &&
	   [ "$(grep -c '| *nap() {$' rep.nos)" -eq 10 ] &&
	   [ "$(grep -c '| *nanosleep() {$' rep.df)" -ge 10 ]; then
		pass "defaults: replay: $(cat out), nanosleep() traced; replay --no-sched: none"
	else
		cat err.df rep.df >>out
		fail "defaults: record + replay show the switches" out
	fi

	# 3. --nosleep-time: sleeper()'s duration without its time off the CPU against an
	# oracle taken at the same instants: the program's CLOCK_MONOTONIC reads either side of
	# the call less the kernel's switch stamps between them (check_sched.py --nosleep says
	# why the bound holds on a busy machine, and why the thread's CPU clock can only be a
	# coarse check).  A switch lost or misplaced moves it by a whole sleep (3 ms or more)
	# or a slice.
	"$PS" replay -d sl --nosleep-time >rep.ns 2>>err.sl
	"$PS" dump --chrome -d sl >sl.json 2>err.ch
	# (sleeper()'s closing line: another call of main() preempted inside has one too)
	nosleep=$(awk '/\| +sleeper\(\) \{$/ { on = 1 } on && /\|   }$/ { print; exit }' rep.ns |
		sed 's/.*| [^0-9]*\([0-9]*\)\.\([0-9]*\) us |.*/\1\2/')
	if python3 "$CHECK" --nosleep sl/*/ sl.json out.sl "${nosleep:-x}" >out 2>&1 &&
	   [ ! -s err.sl ] && [ ! -s err.ch ]; then
		pass "--nosleep-time: $(cat out)"
	else
		cat err.sl err.ch >>out
		grep -E 'sleeper|\|   }$' rep.ns >>out
		fail "--nosleep-time" out
	fi

	# 3b. sleep-time is ftrace's trace option (Documentation/trace/ftrace.rst, "sleep-time");
	# --nosleep-time and --sleep-time are its flags.  The option, by --options or set in the
	# process (PATCHSITE_OPTIONS, the trace_options control file's parser), does what the
	# flag does: the same text, byte for byte; and it changes the text (sleeper()'s sleeps).
	"$PS" replay -d sl --options=nosleep-time >rep.ons 2>err.o
	"$PS" replay -d sl --options=sleep-time >rep.os 2>>err.o
	"$PS" replay -d sl --sleep-time >rep.s 2>>err.o
	"$PS" replay -d sl --options=nosleep-time --sleep-time >rep.last 2>>err.o
	PATCHSITE_OPTIONS=nosleep-time record -d sn -- ./offcpu sleep >/dev/null 2>>err.o
	"$PS" replay -d sn >rep.sn 2>>err.o
	"$PS" replay -d sn --nosleep-time >rep.snf 2>>err.o
	"$PS" replay -d sn --sleep-time >rep.sns 2>>err.o
	if [ ! -s err.o ] && cmp -s rep.ons rep.ns && cmp -s rep.os rep.s && ! cmp -s rep.ns rep.s &&
	   cmp -s rep.last rep.s && cmp -s rep.sn rep.snf && ! cmp -s rep.sn rep.sns &&
	   grep -qx 'sleep-time 0' sn/*/options; then
		pass "--options=nosleep-time and sleep-time: the same text as --nosleep-time and --sleep-time (the last word wins); PATCHSITE_OPTIONS=nosleep-time: recorded, replayed as --nosleep-time"
	else
		{ cat err.o; diff rep.ons rep.ns | head -5; cat sn/*/options; } >>out
		fail "the sleep-time option" out
	fi
	# funcgraph-overhead (ftrace.rst; on by default): the duration's mark, ftrace's
	# trace_find_mark (+ > 10 us ... $ > 1 s); cleared, a space in its place, nothing else.
	"$PS" replay -d sl --options=nofuncgraph-overhead >rep.nov 2>err.o
	sed -E 's/\| [-+!#*@$] ( *[0-9]+\.[0-9]{3} us \|)/|   \1/' rep.s >rep.unmarked
	marks=$(grep -cE '\| [-+!#*@$]  *[0-9]+\.[0-9]{3} us \|' rep.s)
	if [ ! -s err.o ] && [ "$marks" -gt 0 ] && cmp -s rep.nov rep.unmarked; then
		pass "--options=nofuncgraph-overhead: the $marks marks of calls over 10 us gone, nothing else changed"
	else
		{ cat err.o; diff rep.nov rep.unmarked | head -5; } >>out
		fail "funcgraph-overhead ($marks marks)" out
	fi
fi

# 4. report's On-CPU and Off-CPU columns.  Oracles: nanosleep suspends for at least the time
# asked (POSIX), so nap()'s 10 calls are >= 30 ms off the CPU; sleeper()'s on-CPU time is
# the oracle of 3.; on + off = total for every row.
if [ $PERF = yes ]; then
	"$PS" report -d sl --json >rep.json 2>err.rep
	"$PS" report -d sl >rep.txt 2>>err.rep
	if python3 - rep.json >out 2>&1 <<'PY' && [ ! -s err.rep ] &&
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
for r in rows.values():
    assert r["oncpu_ns"] + r["offcpu_ns"] == r["total_ns"], r
nap, sl = rows["nap"], rows["sleeper"]
assert nap["calls"] == 10 and nap["offcpu_ns"] >= 10 * 3000000, nap
print("nap() %.3f ms off the CPU in 10 calls; sleeper() %d" % (nap["offcpu_ns"] / 1e6, sl["oncpu_ns"]))
PY
	   python3 "$CHECK" --nosleep sl/*/ sl.json out.sl "$(sed 's/.* //' out)" >>out 2>&1 &&
	   head -1 rep.txt | grep -q 'Self time        On-CPU       Off-CPU       Calls'; then
		pass "report on/off-CPU: $(cat out)"
	else
		cat err.rep rep.txt >>out
		fail "report on/off-CPU" out
	fi
fi

# 5. dump --chrome: the off-CPU slices, against the sched file and nanosleep; nested as
# Perfetto's JSON importer needs.
if [ $PERF = yes ]; then
	if python3 "$CHECK" --chrome sl/*/ sl.json >out 2>&1 && [ ! -s err.ch ]; then
		pass "dump --chrome: $(head -1 out)"
	else
		cat err.ch >>out
		fail "dump --chrome" out
	fi
fi

# 5b. dump --perfetto: the same stretches as slices (or instant pairs), nested (the
# protobuf decoded by check_perfetto.py from the encoding rules, not by our code).
if [ $PERF = yes ]; then
	"$PS" dump --perfetto -d sl >sl.pftrace 2>err.pf
	pairs=$(python3 -c 'import glob, struct, sys
d = open(glob.glob("sl/*/sched.*")[0], "rb").read()
r = [struct.unpack_from("<QIi", d, 256 + 16 * k) for k in range((len(d) - 256) // 16)]
print(sum(1 for a, b in zip(r, r[1:]) if a[1] in (1, 2) and b[1] == 3))')
	python3 "$TOP/tests/patchsite/oracles/check_perfetto.py" sl.pftrace nap=10 sleeper=1 >out 2>&1
	slices=$(sed -n 's/.* offcpu=\([0-9]*\) .*/\1/p' out)
	inst=$(sed -n 's/.* sched_instants=\([0-9]*\).*/\1/p' out)
	if [ -n "$slices" ] && [ $((slices + inst / 2)) -eq "$pairs" ] && grep -q ' open=0 ' out &&
	   [ ! -s err.pf ]; then
		pass "dump --perfetto: $slices off-CPU slices and $((inst / 2)) instant pairs for $pairs switch pairs"
	else
		cat err.pf >>out
		fail "dump --perfetto ($pairs switch pairs)" out
	fi
fi

# 6. --no-sched: no sched files, the info file says so; --nosleep-time is refused by name.
record --no-sched -d off -- ./offcpu sleep >/dev/null 2>err.off
"$PS" replay -d off --nosleep-time >/dev/null 2>err.ns
rc=$?
if ! ls off/*/sched.* >/dev/null 2>&1 && grep -qx 'sched off' off/*/info && [ ! -s err.off ] &&
   [ $rc -eq 1 ] && [ "$(wc -l <err.ns)" -eq 1 ] && grep -q 'off-CPU time unknown (recorded with --no-sched)' err.ns &&
   ! "$PS" report -d off | grep -q On-CPU; then
	pass "--no-sched: no switch files, info says sched off, no report columns; $(cat err.ns)"
else
	ls off/*/ >>err.off
	cat err.ns >>err.off
	fail "--no-sched" err.off
fi

# 7. Perf events refused (a seccomp filter in the program: perf_event_open gives EACCES, as
# perf_event_paranoid 3 would): the program runs as before, one line on its stderr says so,
# the switch file says unknown and why, and info, report and replay say it; --nosleep-time
# is refused in one line.
OFFCPU_DENY_PERF=1 record -d dn -- ./offcpu sleep >out.dn 2>err.dn
rc=$?
"$PS" info -d dn >info.dn 2>err.rd
"$PS" report -d dn >rep.dn 2>>err.rd
"$PS" report -d dn --json >rep.dn.json 2>err.rj
"$PS" replay -d dn >replay.dn 2>>err.rd
"$PS" replay -d dn --nosleep-time >/dev/null 2>err.ns
rcn=$?
why='perf_event_open: Permission denied'
if [ $rc -eq 0 ] && grep -q '^cpu_ns=[0-9]* wall_ns=' out.dn && [ "$(wc -l <err.dn)" -eq 1 ] &&
   grep -qx "patchsite: scheduler switches not recorded ($why): off-CPU time is unknown in this trace" err.dn &&
   python3 -c 'import struct, sys, glob
d = open(glob.glob("dn/*/sched.*")[0], "rb").read()
assert d[:8] == b"PSSCHD1\0" and struct.unpack_from("<I", d, 24)[0] == 2, d[:64]
assert d[56:56 + 34] == b"perf_event_open: Permission denied", d[56:96]' 2>>err.rd &&
   grep -q ": off-CPU time unknown: $why\$" info.dn &&
   grep -q "\[OFF-CPU TIME UNKNOWN: $why\]" rep.dn && grep -q ' ? .* ? .* main$' rep.dn &&
   grep -q '"name":"main".*"oncpu_ns":null,"offcpu_ns":null' rep.dn.json &&
   grep -q "\[OFF-CPU TIME UNKNOWN: $why\]" err.rj &&
   grep -q "^# offcpu-[0-9]* \[OFF-CPU TIME UNKNOWN: $why\]" replay.dn && [ ! -s err.rd ] &&
   [ $rcn -eq 1 ] && [ "$(wc -l <err.ns)" -eq 1 ] && grep -q "off-CPU time unknown ($why)" err.ns; then
	pass "perf refused: $(cat err.dn); info, report, replay say it; $(cat err.ns)"
else
	cat err.dn err.rd err.ns info.dn rep.dn >>out.dn
	fail "perf refused (exit $rc, --nosleep-time $rcn)" out.dn
fi

# 8. A damaged switch file: one line naming the file and the reason, the rest shown, that
# thread's off-CPU time unknown.  Damage: a record of an unknown kind; half a record.
if [ $PERF = yes ]; then
	for dmg in kind half; do
		rm -rf dd
		cp -r sl dd
		f=$(ls dd/*/sched.*)
		if [ $dmg = kind ]; then
			printf '\011' | dd of="$f" bs=1 seek=$((256 + 16 + 8)) conv=notrunc 2>/dev/null
			want="damaged: record 1: unknown switch 9: off-CPU time unknown"
		else
			head -c 8 /dev/zero >>"$f"
			want="damaged: 8 bytes after the last whole record: off-CPU time unknown"
		fi
		"$PS" report -d dd >rep.dd 2>err.dd
		rc=$?
		if [ $rc -eq 0 ] && [ "$(wc -l <err.dd)" -eq 1 ] && grep -qx "patchsite: $f: $want" err.dd &&
		   grep -q ' sleeper$' rep.dd && grep -q 'OFF-CPU TIME UNKNOWN: damaged switch file' rep.dd; then
			pass "damaged switch file ($dmg): $(cat err.dd)"
		else
			cat err.dd rep.dd >>err.dd
			fail "damaged switch file ($dmg, exit $rc)" err.dd
		fi
	done
fi

# 9. The streaming readers (pipe, record --live) show the switches as replay does.  Oracles:
# the /proc counts for the files (check_sched.py), the files parsed from patchsite-data(5) for
# the switch lines shown (each once, its kind and time: check_pipe_sched.py), and replay of the
# finished directory for their place among the calls and returns of their thread.
if [ $PERF = yes ]; then
	record --live -d lv -- ./offcpu switches >out.lv 2>err.lv
	"$PS" replay -d lv >rep.lv 2>>err.lv
	if python3 "$CHECK" lv/*/ out.lv >out 2>&1 &&
	   python3 "$TOP/tests/patchsite/oracles/check_pipe_sched.py" lv/*/ out.lv rep.lv >>out 2>&1 &&
	   [ ! -s err.lv ]; then
		pass "record --live shows the switches: $(tr '\n' ';' <out)"
	else
		cat err.lv >>out
		fail "record --live shows the switches" out
	fi
	# pipe stopped (SIGINT) once it showed 200 lines, while the program naps on (3 threads
	# napping 3 ms until their standard input, a fifo held open here, ends), and run again:
	# from its saved position (pipe.pos), together once each.
	mkfifo go
	sleep 300 &	# held for the end-file check below: started before np's process
	hold=$!
	record -d np -- ./offcpu naps <go >/dev/null 2>err.np &
	rpid=$!
	exec 3>go
	n=0
	while [ ! -s np/session ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
	"$PS" pipe -d np --options=funcgraph-abstime >p1.np 2>>err.np 3>&- &
	fpid=$!
	n=0
	# (p1.np may not be there yet: the background pipe makes it; 200 lines shown means
	# its handler is set, so the SIGINT is not lost before it)
	while l=$(wc -l <p1.np 2>/dev/null); [ "${l:-0}" -lt 200 ] && [ $n -lt 3000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	kill -INT $fpid
	n=0
	while kill -0 $fpid 2>/dev/null && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
	kill -KILL $fpid 2>/dev/null && echo "pipe still running 30 s after SIGINT: killed" >>err.np
	wait $fpid
	rc1=$?
	running=$(kill -0 $rpid 2>/dev/null && echo yes || echo no)
	"$PS" pipe -d np --options=funcgraph-abstime >p2.np 2>>err.np 3>&- &
	fpid=$!
	exec 3>&-
	wait $fpid
	rc2=$?
	wait $rpid
	"$PS" replay -d np --options=funcgraph-abstime >rep.np 2>>err.np
	cat p1.np p2.np >both.np
	if python3 "$TOP/tests/patchsite/oracles/check_pipe_sched.py" np/*/ both.np rep.np >out 2>&1 &&
	   [ "$rc1$rc2$running" = 00yes ] && [ -s p2.np ] && [ ! -s err.np ]; then
		pass "pipe stopped half way ($(grep -c sched- p1.np) switches) and again: $(cat out)"
	else
		echo "exit $rc1 then $rc2, the program still running at the stop: $running" >>out
		cat err.np >>out
		fail "pipe stopped half way and again" out
	fi
	# pipe takes its last look at a process once it is gone, not at its end file, which the
	# runtime writes while the process still runs (its main thread is switched out after it,
	# and those switches reach its sched file later).  Made sure of here: the finished np
	# copied, its info naming a process this test holds (sleep, started before np's: not taken
	# for a pid reused, pipe_ended.c), pipe started, and only once
	# it showed lines two switches of the main thread stamped after its end are appended
	# (records, then the header's count, as the writer does); then the process let go.
	# Oracles as above: the files (with the two) and replay of the finished directory.
	rm -rf ne
	cp -r np ne
	rm -f ne/*/pipe*.pos
	d=$(basename ne/*/)
	sed "s/^pid .*/pid $hold/" "ne/$d/info" >info.ne && cp info.ne "ne/$d/info"
	"$PS" pipe -d ne --options=funcgraph-abstime >p.ne 2>err.ne &
	fpid=$!
	n=0
	while [ ! -s p.ne ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
	python3 - "ne/$d/sched.$d" "ne/$d/end" <<-'EOF_PY' >>err.ne 2>&1
	import struct, sys
	f = open(sys.argv[1], "r+b")
	hdr = f.read(256)
	n = struct.unpack_from("<Q", hdr, 40)[0]
	f.seek(256 + 16 * (n - 1))
	last = struct.unpack("<QIi", f.read(16))[0]
	end = int(open(sys.argv[2]).read().split("\nns ")[1].split()[0])
	t = max(last, end) + 1000000
	f.seek(256 + 16 * n)
	f.write(struct.pack("<QIi", t, 1, 0) + struct.pack("<QIi", t + 1000000, 3, 0))
	f.flush()
	f.seek(40)
	f.write(struct.pack("<Q", n + 2))
	EOF_PY
	kill $hold
	wait $hold 2>/dev/null
	n=0
	while kill -0 $fpid 2>/dev/null && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
	kill -KILL $fpid 2>/dev/null && echo "pipe still running 30 s after its process ended: killed" >>err.ne
	wait $fpid
	rc=$?
	"$PS" replay -d ne --options=funcgraph-abstime >rep.ne 2>>err.ne
	if python3 "$TOP/tests/patchsite/oracles/check_pipe_sched.py" ne/*/ p.ne rep.ne >out 2>&1 &&
	   [ $rc = 0 ] && [ ! -s err.ne ] && grep -q "sched-in" rep.ne; then
		pass "pipe: the last look once the process is gone, not at its end file: $(cat out)"
	else
		echo "exit $rc" >>out
		cat err.ne >>out
		fail "pipe: the last look once the process is gone, not at its end file" out
	fi
	# A directory whose pid now names a process started after it (the pid reused) is not
	# waited for: ne again, its info naming a sleep started now.
	sleep 300 &
	late=$!
	sed "s/^pid .*/pid $late/" "ne/$d/info" >info.ne && cp info.ne "ne/$d/info"
	"$PS" pipe -d ne --from-start --options=funcgraph-abstime >p2.ne 2>err.ne &
	fpid=$!
	n=0
	while kill -0 $fpid 2>/dev/null && [ $n -lt 3000 ]; do sleep 0.01; n=$((n + 1)); done
	kill -KILL $fpid 2>/dev/null && echo "pipe still running after 30 s: killed" >>err.ne
	wait $fpid
	rc=$?
	kill $late
	wait $late 2>/dev/null
	if python3 "$TOP/tests/patchsite/oracles/check_pipe_sched.py" ne/*/ p2.ne rep.ne >out 2>&1 &&
	   [ $rc = 0 ] && [ ! -s err.ne ]; then
		pass "pipe: a finished directory whose pid a later process has now: not waited for"
	else
		echo "exit $rc" >>out
		cat err.ne >>out
		fail "pipe: a finished directory whose pid a later process has now" out
	fi
	"$PS" pipe -d np --from-start --no-sched >ns.np 2>&1
	if [ $? = 0 ] && [ -s ns.np ] && ! grep -q 'sched-' ns.np; then
		pass "pipe --no-sched: $(wc -l <ns.np) lines, no switch among them"
	else
		fail "pipe --no-sched" ns.np
	fi
fi

# 10. Ring sizes (sched_switch.c: a burst of switches outruns a drain thread on a loaded
# machine, so a process's first 32 threads get 16 data pages, the rest 4).  Oracle: the
# kernel's /proc/self/maps, read by testdata/patchsite/schedrings.c while 40 threads and
# main hold theirs, then while 10 more do after those 40 ended (their large places return);
# and the one-page ring of the event the session's opener keeps (ps_sched_warm), throughout.
# As root the budget is not spent; unprivileged, RLIMIT_MEMLOCK could make them smaller.
if [ $PERF = yes ] && [ "$(id -u)" = 0 ]; then
	$CC -O2 -g -pg -mfentry -mrecord-mcount -o schedrings "$TOP/testdata/patchsite/schedrings.c" \
		-pthread >rings.log 2>&1
	record -d rg -- ./schedrings 40 10 >rings.out 2>rings.err
	if [ "$(sort rings.out | tr '\n' ' ')" = "again 1 1 again 16 11 rings 1 1 rings 16 32 rings 4 9 " ] &&
	   only_switches_lost rings.err; then
		pass "perf rings as mapped: 32 of 16 data pages and 9 of 4 for 41 threads, then 11 of 16; and the session's one of 1"
	else
		cat rings.log rings.err >>rings.out
		fail "perf rings as mapped (want 32 x 16 + 9 x 4, then 11 x 16 data pages, and one of 1 throughout)" rings.out
	fi
elif [ $PERF = yes ]; then
	echo "SKIP perf rings as mapped: not root (perf's locked-memory budget may make them smaller)"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
