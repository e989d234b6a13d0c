#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The runtime's function symbols by address (sites/symbols.c sort_syms):
# usage  symsort.sh BUILD_DIR plain|san
#
# A -pg -mfentry program of 3,000 global functions in three objects, with
# aliases (two names at one address) and statics: GNU ld writes the globals
# of .symtab in its hash table's order, not by address, so the runtime must
# sort them (the test checks that the table is out of order first).  The
# trace directory's mod.N lists them as "func ADDRESS SIZE NAME"; the
# oracle is readelf -s: the defined function symbols with a non-zero value,
# sorted by value, aliases in their table order (a stable sort of the table).
# A second build adds a function symbol at an absolute address near the top
# of the address space (too wide a span for the one-word radix sort: the
# other sort), and must list the same way.
set -u

. tests/patchsite/lib.sh
suite_init symsort "$@"
P=$PS

python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
for f in range(3):
    with open(f"{t}/g{f}.c", "w") as o:
        for k in range(f * 1000, (f + 1) * 1000):
            o.write(f"__attribute__((noinline)) int f{k}(int x) {{ return x + {k}; }}\n")
        o.write(f"static int s{f}(int x) {{ return x * 3; }}\nint (*keep{f})(int) = s{f};\n")
        o.write(f'int a{f}(int) __attribute__((alias("f{f * 1000 + 5}")));\n')
with open(f"{t}/m.c", "w") as o:
    o.write("int f0(int);\nint main(void) { return f0(0) + f0(1) - 1; }\n")
with open(f"{t}/far.c", "w") as o:
    o.write('__asm__(".globl far_away\\n.type far_away, @function\\n'
            '.set far_away, 0xffffffffff000000");\n')
PY

# check NAME EXTRA_SOURCE...: build, record, compare mod.N's func lines with readelf
check() {
	name=$1
	shift
	if ! (cd "$T" && gcc -O1 -pg -mfentry -mrecord-mcount -fno-pie -no-pie -o "$name" m.c \
		g0.c g1.c g2.c "$@") >"$T/$name.log" 2>&1; then
		fail "$name: build" "$T/$name.log"
		return
	fi
	readelf -sW "$T/$name" | awk '/^Symbol table .\.symtab/ { s = 1; next }
		s && $4 == "FUNC" && $7 != "UND" && $2 !~ /^0+$/ { print $2, $3, $8 }' >"$T/$name.table"
	if sort -c -k1,1 "$T/$name.table" 2>/dev/null; then
		fail "$name: readelf lists the symbols by address already: nothing to sort here"
		return
	fi
	# The oracle: a stable sort by address; addresses as printf's %#lx.
	sort -s -k1,1 "$T/$name.table" | sed 's/^0*/0x/' >"$T/$name.want"
	(cd "$T" && LD_PRELOAD="$SANPRE" "$P" record -d "d.$name" --tracer=function "./$name") \
		>"$T/$name.out" 2>&1
	mod=$(grep -l "^path $T/$name\$" "$T/d.$name"/*/mod.* 2>/dev/null | head -1)
	if [ -z "$mod" ]; then
		fail "$name: no mod.N for the program" "$T/$name.out"
		return
	fi
	awk '$1 == "func" { print $2, $3, $4 }' "$mod" >"$T/$name.got"
	if [ "$(wc -l <"$T/$name.want")" -ge 3000 ] && cmp -s "$T/$name.want" "$T/$name.got"; then
		pass "$name: $(wc -l <"$T/$name.got") function symbols by address, aliases in table order, as readelf"
	else
		diff "$T/$name.want" "$T/$name.got" >"$T/$name.diff"
		fail "$name: mod.N's functions differ from readelf's sorted table" "$T/$name.diff"
	fi
}

check near
check far far.c
tail -1 "$T/far.got" 2>/dev/null | grep -qx "0xffffffffff000000 0 far_away" &&
	pass "far: the symbol at 0xffffffffff000000 listed last" ||
	fail "far: the symbol at 0xffffffffff000000 not listed" "$T/far.got"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" = 0 ]
