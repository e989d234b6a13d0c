#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Attach costs: usage  attach.sh BUILD_DIR [NFUNCS]  (after run.sh made the objects, x86-64)
#   - attach to the first recorded event: `patchsite record -p` on a process
#     started without the runtime (2 threads calling NFUNCS functions round
#     robin), until the function tracer is on (one function, f0);
#   - the longest stall of a calling thread and of a canary thread (a tight
#     clock loop) over the attach and the detach, next to the same window
#     without an attach (the machine's own noise: a shared 2-vCPU VM
#     preempts threads for milliseconds);
#   - the CPU time the attach cost, next to the wall time (on a loaded machine
#     the wall time is mostly the loader thread waiting for a CPU): the loader
#     thread's (it reads its own clock before it ends: dlopen and the runtime's
#     start-up), the control channel thread's (schedstat: the settings and the
#     first tracer) and the command's (user + sys, the 0.2 s trace included).
set -eu
B=${1:-build}
N=${2:-100000}
T=$B/bench/patchsite/n$N
CC=${CC:-gcc}
[ "$(uname -m)" = x86_64 ] || { echo "attach.sh: attach is x86-64 only"; exit 0; }
[ -e "$T/table.o" ] || { echo "attach.sh: run bench/patchsite/run.sh first (it makes $T)"; exit 1; }
$CC -O2 -fno-pie -c bench/patchsite/attachtarget.c -o "$T/attachtarget.o"
$CC -no-pie -o "$T/attachtarget" "$T/attachtarget.o" "$T/table.o" "$T"/gen*.o -pthread
W=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-attachbench.XXXXXX")
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$W"' EXIT
P=$B/patchsite

# channel_us PID: CPU time (us) of the runtime's control channel thread, from its schedstat (ns)
channel_us() {
	for t in /proc/$1/task/*; do
		if [ "$(cat "$t/comm" 2>/dev/null)" = patchsite-ctl ]; then
			awk '{ printf "%d", $1 / 1000 }' "$t/schedstat"
			return
		fi
	done
	echo 0
}
# attach_once: record -p in the background; the channel thread's CPU once it says "recording"
attach_once() {
	PATCHSITE_ATTACH_TIME=1 /usr/bin/time -f 'cmd %U %S' "$P" record -p "$PID" -d "$W/data" \
		--tracer=function -F f0 --duration=0.2 2>"$W/rec.err" &
	r=$!
	for _ in $(seq 3000); do grep -q recording "$W/rec.err" && break; sleep 0.001; done
	channel_us "$PID" >"$W/chan"
	wait $r
}

# window CMD...: the longest gaps (us) while CMD runs: "callers canary"
window() {
	n=$(grep -c '^ok' "$W/out" || true)
	echo reset >&3
	for _ in $(seq 100); do [ "$(grep -c '^ok' "$W/out")" -gt "$n" ] && break; sleep 0.01; done
	"$@"
	n=$(grep -c '^gap' "$W/out" || true)
	echo gap >&3
	for _ in $(seq 100); do [ "$(grep -c '^gap' "$W/out")" -gt "$n" ] && break; sleep 0.01; done
	grep '^gap' "$W/out" | tail -1 | cut -d' ' -f2-
}

mkfifo "$W/in"
env -i "$T/attachtarget" 2 <"$W/in" >"$W/out" &
PID=$!
exec 3>"$W/in"
for _ in $(seq 100); do grep -q ready "$W/out" && break; sleep 0.1; done
base=$(window sleep 0.3)
att=$(window attach_once)
ms=$(sed -n 's/.*attached in \([0-9]*\) ms.*/\1/p' "$W/rec.err")
on=$(sed -n 's/.*tracer on \([0-9]*\) ms after the start.*/\1/p' "$W/rec.err")
again=$(window sh -c "$P record -p $PID -d $W/data --tracer=function -F f0 --duration=0.2 2>$W/rec2.err")
echo "attach to $N functions (2 threads calling, started without the runtime; load average $(cut -d' ' -f1-3 /proc/loadavg)):"
echo "  runtime loaded and its channel answering   ${ms:-?} ms"
sed -n 's/.*attached in [0-9]* ms (\(.*\))$/    (\1)/p' "$W/rec.err"
echo "  first attach to tracer on (first event)    ${on:-?} ms"
loader=$(sed -n 's/.*start-up [0-9]* ms, \([0-9]*\) ms of CPU.*/\1/p' "$W/rec.err")
cmd=$(awk '$1 == "cmd" { printf "%d", ($2 + $3) * 1000 }' "$W/rec.err")
echo "  CPU to the first event: the loader thread ${loader:-?} ms, the channel $(($(cat "$W/chan") / 1000)) ms"
echo "    (the command, with the 0.2 s trace and the detach: ${cmd:-?} ms)"
echo "  longest stall, callers / canary (us):"
echo "    no attach (noise)                        $base"
echo "    attach + 0.2 s trace + detach            $att"
echo "    second attach (runtime there) + detach   $again"
exec 3>&-
wait $PID || true
PID=
