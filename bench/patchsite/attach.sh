#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Attach costs against issue #26's goals: usage  attach.sh BUILD_DIR [NFUNCS]
# (after run.sh made the objects, x86-64).  The target, attachtarget.c, is
# started without the runtime: 2 threads call NFUNCS functions round robin,
# a canary thread stamps the clock in a tight loop.
#   - to the first recorded event (goal 100 ms): from the command's exec
#     (a CLOCK_MONOTONIC stamp taken just before it) to the first event's
#     time stamp in the trace (CLOCK_MONOTONIC too), for `record -p -F f0`
#     and, side by side, for the same program started under `record`
#     (preloaded).  f0 is called every NFUNCS calls, a fraction of a ms;
#   - the CPU that cost, by phase: the loader thread's (dlopen and the
#     runtime's start-up, which NOPs every site: it reads its own clock before
#     it ends), the control channel thread's (schedstat: the settings and the
#     first tracer) and the command's (schedstat: checks, ptrace); the
#     preloaded process's CPU when its main starts (the runtime's start-up);
#   - the longest ptrace stop of a thread as record -p saw it (from
#     PTRACE_INTERRUPT to its release, PATCHSITE_ATTACH_TIME), and the
#     longest stall of a calling thread and of the canary (goal 1 ms), all
#     gaps and those in which the thread was not preempted (attachtarget.c),
#     the canary SCHED_FIFO during the windows when root (the machine's
#     other jobs then do not preempt it)
#     and their context switches, voluntary (a wait) and preempted,
#     during the attach (to "recording") and during the detach (SIGTERM to
#     the command's end), next to an untraced window of the same kind (the
#     machine's own noise: a shared 2-vCPU VM preempts threads for ms);
#   - after detach, per call (goal: the untraced build's): CPU ns per call
#     of 10,000,000 calls made by the main thread alone (THREADS 0) in a
#     process never attached, in one attached and detached, and in the same
#     program built without -pg; best of 5, taken in turn.  Instructions
#     are not counted: this VM has no hardware counters for perf, and
#     valgrind cannot run a process that is attached to.
set -eu
B=${1:-build}
N=${2:-100000}
T=$B/bench/patchsite/n$N
CC=${CC:-gcc}
[ "$(uname -m)" = x86_64 ] || { echo "attach.sh: attach is x86-64 only"; exit 0; }
[ -e "$T/table.o" ] || { echo "attach.sh: run bench/patchsite/run.sh first (it makes $T)"; exit 1; }
$CC -O2 -fno-pie -c bench/patchsite/attachtarget.c -o "$T/attachtarget.o"
$CC -no-pie -o "$T/attachtarget" "$T/attachtarget.o" "$T/table.o" "$T"/gen*.o -pthread
# The untraced build: the same functions without -pg (kept, like the traced objects).
mkdir -p "$T/nopg"
for f in "$T"/gen*.c; do
	o=$T/nopg/$(basename "${f%.c}").o
	[ -e "$o" ] || $CC -O1 -fno-pie -c "$f" -o "$o"
done
$CC -no-pie -o "$T/attachtarget-nopg" "$T/attachtarget.o" "$T/table.o" "$T"/nopg/gen*.o -pthread
W=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-attachbench.XXXXXX")
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$W"' EXIT
P=$B/patchsite
export PATCHSITE_ATTACH_TIME=1	# record -p says where the time went

# stamp FILE CMD...: exec CMD after writing to FILE CLOCK_MONOTONIC ns and
# the CPU us python took (CMD's schedstat counts it: CMD keeps the pid); the
# shell's process becomes CMD: run it in the background or in a subshell
stamp_cpu() { cut -d' ' -f2 "$1"; }
stamp() {
	exec python3 -c 'import os, signal, sys, time
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
open(sys.argv[1], "w").write("%d %d\n" % (time.monotonic_ns(), time.thread_time_ns() // 1000))
os.execvp(sys.argv[2], sys.argv[2:])' "$@"
}
# first_ms DIR STAMPFILE: ms from the stamp to DIR's first event
first_ms() {
	"$P" replay -d "$1" 2>/dev/null | awk -v t0="$(cut -d' ' -f1 "$2")" '
		match($0, /[0-9]+\.[0-9]+: /) {
			t = substr($0, RSTART, RLENGTH - 2) * 1e9
			if (min == "" || t < min) min = t
		}
		END { if (min == "") print "?"; else printf "%.0f", (min - t0) / 1e6 }'
}
# run_us PID [COMM]: CPU time (us) of the thread named COMM of PID (or of PID's main thread)
run_us() {
	for t in /proc/$1/task/*; do
		if [ -z "${2:-}" ] || [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ]; then
			awk '{ printf "%d", $1 / 1000 }' "$t/schedstat"
			return
		fi
	done
	echo 0
}
# ask FD OUT REPLY LINE: send LINE, wait for a new line starting with REPLY, print its other fields
ask() {
	n=$(grep -c "^$3" "$2" || true)
	echo "$4" >&$1
	for _ in $(seq 3000); do [ "$(grep -c "^$3" "$2")" -gt "$n" ] && break; sleep 0.01; done
	grep "^$3" "$2" | tail -1 | cut -d' ' -f2-
}
# switches: "VOLUNTARY PREEMPTED" context switches of the threads in $SPIN
# (the callers and the canary: the runtime's threads, made later, block by design)
switches() {
	for t in $SPIN; do
		awk '/^voluntary_ctxt/ { v = $2 } /^nonvoluntary_ctxt/ { n = $2 }
			END { print v + 0, n + 0 }' "/proc/$PID/task/$t/status" 2>/dev/null
	done | awk '{ v += $1; n += $2 } END { print v + 0, n + 0 }'
}
# since BEFORE AFTER: "V voluntary, N preempted"
since() { echo "$1 $2" | awk '{ printf "%d voluntary, %d preempted", $3 - $1, $4 - $2 }'; }
gaps() { ask 3 "$W/out" gap gap; }
reset() { ask 3 "$W/out" ok reset >/dev/null; }
wait_for() {	# FILE PATTERN
	for _ in $(seq 3000); do grep -q "$2" "$1" && return 0; sleep 0.01; done
	return 1
}

# ---- attach, and its stalls ----
mkfifo "$W/in"
env -i "$T/attachtarget" 2 <"$W/in" >"$W/out" &
PID=$!
PIDS=$PID
exec 3>"$W/in"
wait_for "$W/out" ready
sleep 0.3
SPIN=$(ls /proc/$PID/task | grep -vx "$PID")
CANARY=$(for t in $SPIN; do [ "$(cat /proc/$PID/task/$t/comm)" = canary ] && echo $t; done)
# The canary SCHED_FIFO during each window when we may (root): the machine's
# other jobs then no longer preempt it, and what stops it is the attach's own
# doing (IPIs, page faults, a ptrace stop).  Only during the windows: a
# spinning FIFO thread is throttled after 0.95 s of each second.
FIFO=
[ "$(id -u)" = 0 ] && [ -n "$CANARY" ] && chrt -f -p 1 "$CANARY" 2>/dev/null &&
	chrt -o -p 0 "$CANARY" && FIFO=1
fifo() { [ -z "$FIFO" ] || chrt -f -p 1 "$CANARY"; }
unfifo() { [ -z "$FIFO" ] || chrt -o -p 0 "$CANARY"; }
fifo
reset
s0=$(switches)
sleep 0.3
base=$(gaps)
sw_base=$(since "$s0" "$(switches)")
unfifo
sleep 0.1
reset
s0=$(switches)
stamp "$W/t.att" "$P" record -p "$PID" -d "$W/data" --tracer=function -F f0 \
	2>"$W/rec.err" &
r=$!
wait_for "$W/rec.err" recording
att=$(gaps)
sw_att=$(since "$s0" "$(switches)")
unfifo
chan=$(run_us "$PID" patchsite-ctl)
cmd=$(($(run_us $r) - $(stamp_cpu "$W/t.att")))
sleep 0.2
fifo
reset
s0=$(switches)
kill -TERM $r
wait $r || true
det=$(gaps)
sw_det=$(since "$s0" "$(switches)")
unfifo
sleep 0.1
fifo
reset
(stamp "$W/t.again" "$P" record -p "$PID" -d "$W/data" --tracer=function -F f0 \
	--duration=0.2 2>"$W/rec2.err")
again=$(gaps)
unfifo
on2=$(sed -n 's/.*tracer on \([0-9]*\) ms after the start.*/\1/p' "$W/rec2.err")
exec 3>&-
wait $PID || true
# ---- a fresh process attached again, the canary SCHED_FIFO throughout (the
# first attach above ran it SCHED_OTHER, as the times to the first event
# are measured: a FIFO spinner would take a CPU from the attach) ----
fatt=- fdet=- fstop=-
if [ -n "$FIFO" ]; then
	mkfifo "$W/in3"
	env -i "$T/attachtarget" 2 <"$W/in3" >"$W/out" &
	PID=$!
	PIDS="$PIDS $PID"
	exec 3>"$W/in3"
	wait_for "$W/out" ready
	sleep 0.3
	CANARY=$(for t in $(ls /proc/$PID/task); do
		[ "$(cat /proc/$PID/task/$t/comm)" = canary ] && echo $t; done)
	fifo
	reset
	"$P" record -p "$PID" -d "$W/data3" --tracer=function -F f0 2>"$W/rec4.err" &
	r=$!
	wait_for "$W/rec4.err" recording
	fatt=$(gaps | cut -d' ' -f2)
	sleep 0.2
	reset
	kill -TERM $r
	wait $r || true
	fdet=$(gaps | cut -d' ' -f2)
	unfifo
	fstop=$(sed -n 's/.* threads stopped, the longest \([0-9]*\) us.*/\1/p' "$W/rec4.err")
	exec 3>&-
	wait $PID || true
fi
first=$(first_ms "$W/data" "$W/t.att")
ms=$(sed -n 's/.*attached in \([0-9]*\) ms.*/\1/p' "$W/rec.err")
on=$(sed -n 's/.*tracer on \([0-9]*\) ms after the start.*/\1/p' "$W/rec.err")
loader=$(sed -n 's/.*start-up [0-9]* ms, \([0-9]*\) ms of CPU.*/\1/p' "$W/rec.err")
stopped=$(sed -n 's/.* \([0-9]*\) threads stopped, the longest \([0-9]*\) us.*/\1 \2/p' "$W/rec.err")

# ---- the same program started under record (preloaded) ----
mkfifo "$W/in2"
stamp "$W/t.pre" "$P" record -d "$W/pre" --tracer=function -F f0 -- "$T/attachtarget" 2 \
	<"$W/in2" >"$W/out2" 2>"$W/pre.err" &
r=$!
PIDS="$PIDS $r"
exec 4>"$W/in2"
wait_for "$W/out2" ready
sleep 0.2
exec 4>&-
wait $r || true
pre=$(first_ms "$W/pre" "$W/t.pre")
precpu=$(awk '/^ready/ { printf "%d", $2 / 1000 }' "$W/out2")

goal() {	# MEASURED GOAL: met / missed
	case $1 in ''|*[!0-9]*) echo "?";; *) [ "$1" -le "$2" ] && echo met || echo missed;; esac
}
big() { echo "$1" | awk '{ print ($1 > $2 ? $1 : $2) }'; }

echo "attach to $N functions (2 threads calling and a canary, started without the runtime; load average $(cut -d' ' -f1-3 /proc/loadavg)):"
echo "                                               measured    goal"
printf '  exec to the first recorded event, record -p  %5s ms    100 ms  %s\n' "$first" "$(goal "$first" 100)"
printf '    same program started under record          %5s ms    (preloaded: its start-up)\n' "$pre"
echo "    record -p: runtime loaded and answering ${ms:-?} ms, tracer on ${on:-?} ms"
sed -n 's/.*attached in [0-9]* ms (\(.*\))$/      (\1)/p' "$W/rec.err"
echo "    second record -p (runtime there): tracer on ${on2:-?} ms"
tot=$(( ${loader:-0} + chan / 1000 + cmd / 1000 ))
echo "  CPU to the first event, record -p            $(printf %5s "$tot") ms    100 ms  $(goal "$tot" 100) (the loader thread: dlopen + NOPing $N sites ${loader:-?} ms;"
echo "                                                          the channel: settings + first tracer $((chan / 1000)) ms; the command $((cmd / 1000)) ms)"
printf '    same program started under record          %5s ms    (process CPU when main starts)\n' "$precpu"
echo "  longest stall of any thread (goal 1000 us):"
printf '    ptrace stop of a thread (interrupt to release, as record -p saw it; %s threads stopped)  %s us  %s\n' \
	"${stopped%% *}" "${stopped#* }" "$(goal "${stopped#* }" 1000)"
[ -z "$FIFO" ] || printf '    the canary SCHED_FIFO (a fresh process): attach %s us, detach %s us; ptrace stop %s us  %s\n' \
	"$fatt" "$fdet" "$fstop" "$(goal "$(big "$fatt $fdet")" 1000)"
echo "    seen by the threads: canary / callers, us (canary $( [ -n "$FIFO" ] && echo "SCHED_FIFO but in the first attach" || echo "SCHED_OTHER: not root"); callers SCHED_OTHER, they take the int3 traps):"
printf '    attach (exec to recording)                 %s  %s\n' "$(echo $att | awk '{ print $2 " / " $1 }')" "$(goal "$(big "$att")" 1000)"
printf '    detach (SIGTERM to the command'"'"'s end)        %s  %s\n' "$(echo $det | awk '{ print $2 " / " $1 }')" "$(goal "$(big "$det")" 1000)"
printf '    second attach + 0.2 s trace + detach       %s\n' "$(echo $again | awk '{ print $2 " / " $1 }')"
printf '    no attach, 0.3 s (the machine'"'"'s noise)      %s\n' "$(echo $base | awk '{ print $2 " / " $1 }')"
own() { echo "$1" | awk '{ print ($3 > $4 ? $3 : $4) }'; }
echo "    the same, gaps in which the thread was not preempted (no involuntary context switch: its own"
echo "    stall, a trap, a fault or a wait; what the attach cost it, whatever the machine's load):"
printf '    attach (exec to recording)                 %s  %s\n' "$(echo $att | awk '{ print $4 " / " $3 }')" "$(goal "$(own "$att")" 1000)"
printf '    detach (SIGTERM to the command'"'"'s end)        %s  %s\n' "$(echo $det | awk '{ print $4 " / " $3 }')" "$(goal "$(own "$det")" 1000)"
printf '    second attach + 0.2 s trace + detach       %s  %s\n' "$(echo $again | awk '{ print $4 " / " $3 }')" "$(goal "$(own "$again")" 1000)"
printf '    no attach, 0.3 s                           %s\n' "$(echo $base | awk '{ print $4 " / " $3 }')"
echo "  context switches of the 2 callers and the canary (voluntary: they waited for something; preempted: the scheduler):"
echo "    attach $sw_att; detach $sw_det; no attach $sw_base"

# ---- after detach: the per-call cost ----
percall_start() {	# NAME BINARY: a process with no other thread, its input on a fifo
	mkfifo "$W/p.$1"
	env -i "$2" 0 <"$W/p.$1" >"$W/o.$1" &
	PIDS="$PIDS $!"
	eval "pid_$1=$!"
}
percall_start never "$T/attachtarget"
percall_start detached "$T/attachtarget"
percall_start nopg "$T/attachtarget-nopg"
exec 5>"$W/p.never" 6>"$W/p.detached" 7>"$W/p.nopg"
wait_for "$W/o.never" ready && wait_for "$W/o.detached" ready && wait_for "$W/o.nopg" ready
"$P" record -p "$pid_detached" -d "$W/data2" --tracer=function -F f0 --duration=0.2 2>"$W/rec3.err" ||
	{ cat "$W/rec3.err"; exit 1; }
best_never= best_detached= best_nopg=
for _ in 1 2 3 4 5; do
	for p in never detached nopg; do
		fd=$(case $p in never) echo 5;; detached) echo 6;; nopg) echo 7;; esac)
		ns=$(ask $fd "$W/o.$p" calls "calls 10000000" | cut -d' ' -f1)
		eval "b=\$best_$p"
		[ -n "$b" ] && [ "$b" -le "$ns" ] || eval "best_$p=$ns"
	done
done
exec 5>&- 6>&- 7>&-
wait
PIDS=
echo "  after detach, CPU per call (best of 5 x 10,000,000 calls round robin, the main thread alone):"
echo "$best_never $best_detached $best_nopg" | awk '{
	printf "    never attached (call __fentry__, glibc'"'"'s ret)  %.2f ns\n", $1 / 1e7
	printf "    attached, traced, detached (a NOP)          %.2f ns   %.3fx never attached\n", $2 / 1e7, $2 / $1
	printf "    built without -pg                           %.2f ns   goal: after detach <= this (%.3fx)\n", $3 / 1e7, $2 / $3 }'
