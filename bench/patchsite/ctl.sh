#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The control channel's costs: usage  ctl.sh BUILD_DIR [NFUNCS]  (after run.sh made the objects)
#   - a write to set_ftrace_filter that switches NFUNCS sites (all -> one ->
#     all) while 2 threads call them, with the function tracer recording
#     (flight-recorder rings, so the disk is not the bench);
#   - tracing_on 0 / 1 round trips, with one site and with every site enabled;
#   - the per-call costs of bench.c with the channel off (PATCHSITE_CTL=0) and on.
# Round trips are those of `patchsite ctl`'s client: connect, request,
# the runtime's work, reply; the reply is sent once the change took effect.
set -eu
B=${1:-build}
N=${2:-100000}
T=$B/bench/patchsite/n$N
CC=${CC:-gcc}
[ -e "$T/table.o" ] || { echo "ctl.sh: run bench/patchsite/run.sh first (it makes $T)"; exit 1; }
$CC -O2 -fno-pie -c bench/patchsite/ctltarget.c -o "$T/ctltarget.o"
$CC -no-pie -o "$T/ctltarget" "$T/ctltarget.o" "$T/table.o" "$T"/gen*.o "$B/patchsite.o" -pthread
$CC -O2 -D_GNU_SOURCE -Ipatchsite/cmd -o "$T/ctltime" bench/patchsite/ctltime.c \
	patchsite/cmd/ctlclient.c patchsite/ctl/proto.c
W=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-ctlbench.XXXXXX")
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$W"' EXIT
mkfifo "$W/in"
PATCHSITE_OVERWRITE=1 PATCHSITE_BUFFER_KB=1024 "$T/ctltarget" 2 <"$W/in" >"$W/out" &
PID=$!
exec 3>"$W/in"
for _ in $(seq 100); do grep -q ready "$W/out" && break; sleep 0.1; done
P=$B/patchsite
$P ctl $PID trace_dir "$W/data"
$P ctl $PID set_ftrace_filter f0
$P ctl $PID current_tracer function
# ms: min median max for A, then for B
set -- $("$T/ctltime" $PID 10 set_ftrace_filter '' f0)
printf 'filter f0 -> all %d sites (2 threads calling)  %.1f ms median (min %.1f, max %.1f)\n' "$N" "$2" "$1" "$3"
printf 'filter all -> f0                       %.1f ms median (min %.1f, max %.1f)\n' "$5" "$4" "$6"
set -- $("$T/ctltime" $PID 50 tracing_on 0 1)
printf 'tracing_on 0, one site enabled         %.3f ms median (min %.3f, max %.3f); 1: %.3f ms\n' "$2" "$1" "$3" "$5"
$P ctl $PID set_ftrace_filter ''
set -- $("$T/ctltime" $PID 10 tracing_on 0 1)
printf 'tracing_on 0, all %d sites enabled  %.1f ms median (min %.1f, max %.1f); 1: %.1f ms\n' "$N" "$2" "$1" "$3" "$5"
set -- $("$T/ctltime" $PID 50 max_graph_depth 5 0)
printf 'a write that patches nothing           %.3f ms median (the round trip alone)\n' "$2"
$P ctl $PID current_tracer nop
exec 3>&-
wait $PID || true
PID=
echo
echo "per call, control channel off (PATCHSITE_CTL=0) and on (idle):"
off=$(PATCHSITE_CTL=0 taskset -c 1 "$T/bench" 2>/dev/null | grep '^call,' || true)
on=$(taskset -c 1 "$T/bench" 2>/dev/null | grep '^call,' || true)
echo "$off" | sed 's/^/  off  /'
echo "$on" | sed 's/^/  on   /'
