#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Library calls through GOT slots (record --libcall) next to uftrace's PLT hooks, on
# one workload: lc_leaf() of a shared library called through the PLT in a loop
# (bench/patchsite/libcall.c times its own loop; best of 5).  usage: libcall.sh BUILD_DIR
#   ns/call   CPU time per call above the untraced program, function_graph
#             (entry + exit of each call recorded)
#   idle      the runtime loaded with library calls on but none traced
#   toggle    ms to switch the program's 2000 lc* slots on, then off (ctl)
set -u
B=${1:-build}
T=$B/bench/patchsite/libcall
mkdir -p "$T"
PS="$PWD/$B/patchsite"
LIB="$PWD/$B/libpatchsite.so"
N=2000000
python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
with open(f"{t}/lclib.c", "w") as o:
    o.write("int lc_leaf(int x) { return x + 1; }\n")
    for k in range(2000):
        o.write(f"int lc{k}(int x) {{ return x + {k}; }}\n")
with open(f"{t}/lcall.c", "w") as o:
    for k in range(2000):
        o.write(f"int lc{k}(int);\n")
    o.write("int lc_call_all(int x) {\n\tint s = 0;\n")
    for k in range(2000):
        o.write(f"\ts += lc{k}(x);\n")
    o.write("\treturn s;\n}\n")
PY
gcc -O2 -shared -fPIC -o "$T/liblc.so" "$T/lclib.c" || exit 2
gcc -O2 -o "$T/lc" bench/patchsite/libcall.c "$T/lcall.c" -L"$T" -llc -Wl,-rpath,"$PWD/$T" -ldl ||
	exit 2
gcc -O2 -pg -o "$T/lc_pg" bench/patchsite/libcall.c "$T/lcall.c" -L"$T" -llc \
	-Wl,-rpath,"$PWD/$T" -ldl || exit 2
best() { for i in 1 2 3 4 5; do "$@"; done | sort -n | head -1; }
base=$(best "$T/lc" loop $N)
idle=$(best env LD_PRELOAD="$LIB" PATCHSITE_LIBCALL=plt "$T/lc" loop $N)
ps=$(best sh -c "rm -rf '$T/d'; '$PS' record -d '$T/d' --libcall -F lc_leaf '$T/lc' loop $N")
printf "library call, untraced            %6.2f ns\n" "$base"
printf "  slots switchable, none traced   %6.2f ns (+%.2f)\n" "$idle" "$(echo "$idle - $base" | bc -l)"
printf "  patchsite function_graph        %6.2f ns (+%.2f per call, entry + exit)\n" "$ps" \
	"$(echo "$ps - $base" | bc -l)"
if command -v uftrace >/dev/null; then
	basepg=$(best "$T/lc_pg" loop $N)
	uf=$(best sh -c "rm -rf '$T/uf'; uftrace record -d '$T/uf' '$T/lc_pg' loop $N 2>/dev/null")
	printf "  uftrace record (-pg binary)     %6.2f ns (+%.2f per call; untraced -pg %.2f)\n" \
		"$uf" "$(echo "$uf - $basepg" | bc -l)" "$basepg"
else
	echo "  uftrace: not installed, skipped"
fi
rm -rf "$T/d"
PATCHSITE_LIBCALL=plt PATCHSITE_TRACER=function PATCHSITE_FILTER=lc_leaf \
	PATCHSITE_DATA="$PWD/$T/d" LD_PRELOAD="$LIB" "$T/lc" toggle |
	awk '{ printf "toggle 2000 slots %-3s            %6.3f ms\n", $1, $2 }'
rm -rf "$T/d" "$T/uf"
