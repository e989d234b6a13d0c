#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# libpatchsite benchmark: usage  run.sh BUILD_DIR [NFUNCS]
# Generates NFUNCS traced functions (gcc -pg -mfentry -mrecord-mcount,
# non-PIE), links bench.c and libpatchsite.a, prints the figures.
set -eu
B=${1:-build}
N=${2:-100000}
T=$B/bench/patchsite/n$N	# kept: 100,000 generated functions take minutes to compile
mkdir -p "$T"
CC=${CC:-gcc}
[ -e "$T/table.o" ] || python3 - "$N" "$T" <<'PY'
import sys
n, t = int(sys.argv[1]), sys.argv[2]
per = 10000
files = (n + per - 1) // per
for f in range(files):
    with open(f"{t}/gen{f}.c", "w") as out:
        for k in range(f * per, min(n, (f + 1) * per)):
            out.write(f"__attribute__((noinline, noipa)) int f{k}(int x) {{ return x + {k}; }}\n")
with open(f"{t}/table.c", "w") as out:
    for k in range(n):
        out.write(f"int f{k}(int);\n")
    out.write("int (*const bench_funcs[])(int) = {\n")
    out.write(",\n".join(f"f{k}" for k in range(n)))
    out.write("};\nconst int bench_nfuncs = %d;\n" % n)
PY
for f in "$T"/gen*.c; do
	[ -e "${f%.c}.o" ] || $CC -O1 -pg -mfentry -mrecord-mcount -fno-pie -c "$f" -o "${f%.c}.o"
done
[ -e "$T/table.o" ] || $CC -O0 -fno-pie -c "$T/table.c" -o "$T/table.o"
$CC -O2 -Iinclude -fno-pie -c bench/patchsite/bench.c -o "$T/bench.o"
$CC -no-pie -o "$T/bench" "$T/bench.o" "$T/table.o" "$T"/gen*.o "$B/libpatchsite.a" -pthread -lm
for i in 1 2 3 4 5; do
	"$T/bench" startup
done | sort -n | awk 'NR == 1 { printf "start-up, best of 5            %.2f ms CPU (%.2f ms wall)\n", $1 / 1e6, $2 / 1e6 }'
taskset -c 1 "$T/bench" 2>/dev/null || "$T/bench"
echo
sh bench/patchsite/compare.sh "$B"
echo
sh bench/patchsite/cyg.sh "$B"
echo
sh bench/patchsite/libcall.sh "$B"
echo
sh bench/patchsite/record.sh "$B"
echo
sh bench/patchsite/sched.sh "$B"
echo
sh bench/patchsite/ctl.sh "$B" "$N"
echo
sh bench/patchsite/attach.sh "$B" "$N"
RATE=1000000 sh bench/patchsite/pipe.sh "$B"
echo
sh bench/patchsite/probes.sh "$B"
echo
sh bench/patchsite/probe_resolve.sh "$B" "$N"
