#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Issue #27's resolve goal, "10 probes named from DWARF on a 100,000-function
# program with full DWARF: under 1 s": usage  probe_resolve.sh BUILD_DIR [NFUNCS]
# The program: NFUNCS functions f0..fN-1(struct msg *m, int len, const char
# *host) built -O2 -g -pg -mfentry (kept: they take minutes to compile), whose
# main returns at once when given an argument.  Timed, wall and the command's
# CPU (best of 3 each, taken in turn):
#   base      patchsite record --tracer=nop -- prog quit      (no probe)
#   named     the same with 10 probes by name: fK len m->len host
#             (spread over the program's units), resolved by the command
#   uftrace   uftrace record -A fK@arg1/i32 ... for the same 10 (by position:
#             uftrace reads the program's debug info for its names)
# The resolve cost is named minus base.
set -eu
B=${1:-build}
N=${2:-100000}
T=$B/bench/patchsite/resolve$N
PS=$B/patchsite
mkdir -p "$T"
CC=${CC:-gcc}
[ -e "$T/main.c" ] || python3 - "$N" "$T" <<'PY'
import sys
n, t = int(sys.argv[1]), sys.argv[2]
per = 10000
hdr = "struct msg { int len; const char *host; };\n"
for f in range((n + per - 1) // per):
    with open(f"{t}/gen{f}.c", "w") as out:
        out.write(hdr)
        for k in range(f * per, min(n, (f + 1) * per)):
            out.write(f"__attribute__((noinline)) int f{k}(struct msg *m, int len, const char *host)"
                      f" {{ return m->len + len + host[0] + {k}; }}\n")
with open(f"{t}/main.c", "w") as out:
    out.write(hdr)
    out.write(f"int f{n - 1}(struct msg *, int, const char *);\n")
    out.write("int main(int argc, char **argv) {\n"
              "  struct msg m = { 3, \"a.b\" };\n"
              "  (void)argv;\n"
              "  if (argc > 1) return 0;\n"
              f"  return f{n - 1}(&m, 1, m.host) == 0;\n}}\n")
PY
for f in "$T"/gen*.c "$T/main.c"; do
	[ -e "${f%.c}.o" ] || $CC -O2 -g -pg -mfentry -mrecord-mcount -fno-pie -c "$f" -o "${f%.c}.o"
done
$CC -no-pie -o "$T/prog" "$T"/gen*.o "$T/main.o"
set --
step=$((N / 10))
for i in 0 1 2 3 4 5 6 7 8 9; do
	k=$((i * step + 7))
	set -- "$@" "--probe=f:r/p$i f$k len m->len host"
done

# cpu CMD...: "wall_ms cpu_ms" of CMD (its children's CPU: the command and the program)
cpu() {
	python3 - "$@" <<'PY'
import os, resource, subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
w = (time.monotonic() - t) * 1000
u = resource.getrusage(resource.RUSAGE_CHILDREN)
if r.returncode:
    sys.stderr.write(r.stderr.decode(errors="replace"))
    sys.exit(r.returncode)
print(f"{w:.0f} {(u.ru_utime + u.ru_stime) * 1000:.0f}")
PY
}
best() { sort -n | head -1; }
base= named= uf=
for round in 1 2 3; do
	rm -rf "$T/d"
	base="$base$(cpu "$PS" record -d "$T/d" --tracer=nop -- "$T/prog" quit)
"
	rm -rf "$T/d"
	named="$named$(cpu "$PS" record -d "$T/d" --tracer=nop "$@" -- "$T/prog" quit)
"
	if command -v uftrace >/dev/null 2>&1; then
		rm -rf "$T/u"
		args=
		for i in 0 1 2 3 4 5 6 7 8 9; do args="$args -A f$((i * step + 7))@arg1"; done
		# shellcheck disable=SC2086
		uf="$uf$(cpu uftrace record -d "$T/u" $args "$T/prog" quit)
"
	fi
done
row() { printf '%-58s %8s ms wall %8s ms CPU\n' "$1" "$(echo "$2" | awk 'NF' | sort -n | head -1 | cut -d' ' -f1)" \
	"$(echo "$2" | awk 'NF { print $2 }' | sort -n | head -1)"; }
echo "10 probes named from DWARF, $N functions (-O2 -g), best of 3; load average $(cut -d' ' -f1-3 /proc/loadavg)"
row "patchsite record, no probe" "$base"
row "patchsite record, 10 probes by name (len m->len host)" "$named"
[ -n "$uf" ] && row "uftrace record -A fK@arg1 for the same 10" "$uf"
bw=$(echo "$base" | awk 'NF' | sort -n | head -1 | cut -d' ' -f1)
nw=$(echo "$named" | awk 'NF' | sort -n | head -1 | cut -d' ' -f1)
echo "resolve cost (named - none): $((nw - bw)) ms wall (goal: under 1000)"
