#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Attach costs: usage  attach.sh BUILD_DIR [NFUNCS]  (after run.sh made the objects, x86-64)
#   - attach to the first recorded event: `patchsite record -p` on a process
#     started without the runtime (2 threads calling NFUNCS functions round
#     robin), until the function tracer is on (one function, f0);
#   - the longest stall of a calling thread and of a canary thread (a tight
#     clock loop) over the attach and the detach, next to the same window
#     without an attach (the machine's own noise: a shared 2-vCPU VM
#     preempts threads for milliseconds).
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
att=$(window sh -c "PATCHSITE_ATTACH_TIME=1 $P record -p $PID -d $W/data --tracer=function -F f0 --duration=0.2 2>$W/rec.err")
ms=$(sed -n 's/.*attached in \([0-9]*\) ms.*/\1/p' "$W/rec.err")
on=$(sed -n 's/.*tracer on \([0-9]*\) ms after the start.*/\1/p' "$W/rec.err")
again=$(window sh -c "$P record -p $PID -d $W/data --tracer=function -F f0 --duration=0.2 2>$W/rec2.err")
echo "attach to $N functions (2 threads calling, started without the runtime):"
echo "  runtime loaded and its channel answering   ${ms:-?} ms"
sed -n 's/.*attached in [0-9]* ms (\(.*\))$/    (\1)/p' "$W/rec.err"
echo "  first attach to tracer on (first event)    ${on:-?} ms"
echo "  longest stall, callers / canary (us):"
echo "    no attach (noise)                        $base"
echo "    attach + 0.2 s trace + detach            $att"
echo "    second attach (runtime there) + detach   $again"
exec 3>&-
wait $PID || true
PID=
