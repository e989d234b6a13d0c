#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# patchsite record --live keeping up with one thread making 1M traced calls a
# second (the function tracer, filter leaf): usage  pipe.sh BUILD_DIR [RATE] [SECONDS]
#   shown/made   leaf lines printed by --live (to a file) over the calls the
#                program made (bench/patchsite/rate.c counts them): 1 is keeping up
#   lag          seconds from the program's exit to --live's (what was left to print)
#   pipe CPU     the --live process's CPU time (user + system) per second of run,
#                (GNU time, when installed)
# The program's own rate is printed: on a loaded machine it may fall short of RATE.
set -u
B=${1:-build}
RATE=${2:-1000000}
SECS=${3:-3}
T=$B/bench/patchsite/pipe
rm -rf "$T"
mkdir -p "$T"
PS="$PWD/$B/patchsite"
export PATCHSITE_LIB="$PWD/$B/libpatchsite.so"
gcc -O2 -pg -mfentry -mrecord-mcount -fno-pie -c bench/patchsite/rate.c -o "$T/rate.o" &&
	gcc -no-pie -o "$T/rate" "$T/rate.o" || exit 2
now() { date +%s%N; }
t0=$(now)
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%U %S' -o "$T/cpu" "$PS" record -d "$T/d" --live --tracer=function -F leaf \
		-- "$T/rate" "$RATE" "$SECS" "$T/rate.out" >"$T/live.out"
else
	"$PS" record -d "$T/d" --live --tracer=function -F leaf \
		-- "$T/rate" "$RATE" "$SECS" "$T/rate.out" >"$T/live.out"
fi
t1=$(now)
made=$(sed -n 's/^calls //p' "$T/rate.out")
shown=$(grep -c ': leaf <-' "$T/live.out")
awk -v made="$made" -v shown="$shown" -v rate="$(sed -n 's/^rate //p' "$T/rate.out")" \
    -v lag="$(( (t1 - $(sed -n 's/^exit_ns //p' "$T/rate.out")) / 1000 ))" -v secs="$SECS" \
    -v cpu="$(cat "$T/cpu" 2>/dev/null || echo '- -')" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
	split(cpu, c, " ")
	printf "pipe: record --live, 1 thread at %s (asked %s/s for %s s)\n", rate, ENVIRON["RATE"], secs
	printf "  shown/made      %d / %d = %.6f\n", shown, made, made ? shown / made : 0
	printf "  lag at the end  %.3f s\n", lag / 1e6
	if (c[1] != "-")
		printf "  --live CPU      %.2f s user + %.2f s system over %s s\n", c[1], c[2], secs
	printf "  load average    %s\n", load
}'
