#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What start-up found in a binary without a site table, and what not and why:
# usage  notfound.sh BUILD_DIR plain|san
#
# testdata/patchsite/notfound.c, built with plain -pg (no table), prints the
# runtime's unfound_functions control file; patchsite info shows the same from
# the trace directory.  Oracles (binutils, not our output):
#   - objdump -d: the functions with a call to mcount are the ones found;
#   - every other function symbol of the program is listed, and its reason
#     is what readelf -s and objdump say: no size -> no-size-or-code; else
#     "push %rbp; mov %rsp,%rbp" first (after an endbr64) ->
#     no-call-after-prologue; else no-frame-pointer-prologue.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init notfound "${1:-build}" "${2:-plain}"
LIB="$PWD/$B"

if ! gcc -O2 -pg -Iinclude -o "$T/nf" testdata/patchsite/notfound.c -L"$LIB" -lpatchsite \
	-Wl,-rpath,"$LIB" >"$T/build.log" 2>&1; then
	fail "build" "$T/build.log"
	echo "$PASS passed, $FAIL failed"
	exit 1
fi
(cd "$T" && LD_PRELOAD="$SANPRE" "$OLDPWD/$B/patchsite" record -d d ./nf >out 2>err &&
 "$OLDPWD/$B/patchsite" info -d d >info 2>>err)

# The oracle: each function symbol of nf with its expected fate.
objdump -d --no-show-raw-insn "$T/nf" | awk '
	/^[0-9a-f]+ <.*>:$/ { f = $2; gsub(/[<>:]/, "", f); n = 0; next }
	f != "" && /^ +[0-9a-f]+:/ {
		sub(/^ +[0-9a-f]+:[ \t]+/, ""); if ($0 ~ /^endbr64/) next
		n++; if (n == 1) first[f] = $0; if (n == 2) second[f] = $0
		if ($0 ~ /call.*<mcount(@plt|@GLIBC[^>]*)?>/) calls[f] = 1 }
	END { for (f in first) print f "\t" (f in calls) "\t" first[f] "\t" second[f] }' |
	sort >"$T/insns"
readelf -sW "$T/nf" | awk '/^Symbol table .\.symtab/ { s = 1; next }
	s && $4 == "FUNC" && $7 != "UND" { sub(/@.*/, "", $8); print $8, ($3 != 0) }' |
	sort -u >"$T/sized"
awk 'NR == FNR { split($0, a, "\t"); call[a[1]] = a[2]; ins[a[1]] = a[3] "|" a[4]; next }
	{ f = $1; if ($2 == 0 || !(f in ins)) { print f, "no-size-or-code"; next }
	  if (call[f]) next
	  if (ins[f] ~ /^push +%rbp\|mov +%rsp,%rbp/) print f, "no-call-after-prologue"
	  else print f, "no-frame-pointer-prologue" }' "$T/insns" "$T/sized" | sort >"$T/want"
awk '$1 != 0 && / \[nf\] / { print $1, $3 }' "$T/out" | sort >"$T/got"
nfound=$(awk -F'\t' '$2 == 1' "$T/insns" | wc -l)
if grep -qx 'sum=86' "$T/out" && [ -s "$T/want" ] && cmp -s "$T/want" "$T/got" &&
   grep -q 'framed no-call-after-prologue' "$T/got" && grep -q 'quiet no-frame-pointer-prologue' "$T/got" &&
   grep -q 'bare no-size-or-code' "$T/got"; then
	pass "unfound_functions: $(wc -l <"$T/got") functions with the reason objdump/readelf give (framed, quiet, bare among them)"
else
	{ echo "want < > got:"; diff "$T/want" "$T/got"; cat "$T/err"; } >"$T/why"
	fail "unfound_functions against objdump and readelf" "$T/why"
fi
# info: the count found (objdump's calls to mcount) and each reason's list.
if grep -q "no table, -pg: $nfound functions found calling mcount after their prologue; $(wc -l <"$T/want") not:" "$T/info" &&
   grep -q "no-call-after-prologue (1): framed$" "$T/info" &&
   [ "$(grep -c '^        no-' "$T/info")" = 3 ]; then
	pass "info: $nfound found (objdump), $(wc -l <"$T/want") not, grouped by why"
else
	fail "info's no-table lines" "$T/info"
fi

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
