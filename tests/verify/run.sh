#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# patchverify's tests:   sh tests/verify/run.sh BUILD_DIR
#
# The inputs are committed in testdata/verify (build.sh there made them and
# lists every command and compiler version in VERSIONS), so no cross
# compiler is needed here.
#  clean    files made by independent producers (gcc, the kernel's
#           recordmcount, ld) give exactly their known findings (mostly none)
#  defect   pv-defect makes one defect in a copy; patchverify must report
#           exactly that check on top of the clean file's findings
#  twins    a defect ld makes (stale-weak: an overridden weak function's
#           dead copy) against the same link without it
#  asm      hand-written objects for not-at-entry, orphan-site, zero-entry
#  oracle   the sites patchverify calls good are exactly the relocation
#           oracle's (the kernel's ftrace_make_nop view of a correct site)
#  hostile  bad input: exit 2 with one line, never a crash (plus a fuzz loop)
#  cli      options and exit statuses
# Ends with "N passed, M failed"; exit 1 if anything failed.
set -u
B=${1:-build}
P=$(cd "$B" && pwd)/patchverify
D=$(cd "$B" && pwd)/pv-defect
R=$(cd "$B" && pwd)/recordmcount
HERE=$(cd "$(dirname "$0")" && pwd)
. tests/patchsite/lib.sh	# suite_init, pass (named by nothing: counted, not printed), fail, summary
suite_init verify "$B"

TD=$(cd "$HERE/../../testdata/verify" && pwd)
mkdir "$T/in"
cp -R "$TD"/*.o "$TD"/*-exe "$TD"/*-exe-plain "$TD"/*-pie "$TD"/*.so "$TD/asm" "$TD/events" "$T/in/"
cd "$T/in"

# The sorted, unique check names patchverify reports for a file.
checks() {
	"$P" "$@" 2>&1 > /dev/null |
		awk -F': ' '$3 ~ /^(error|warning|note)$/ { print $5 }' | sort -u | tr '\n' ' ' |
		sed 's/ $//'
}

# expect NAME "CHECKS" FILE [options]
expect() {
	name=$1 want=$2
	shift 2
	got=$(checks "$@")
	if [ "$got" = "$want" ]; then pass; last=ok; else fail "$name: expected [$want], got [$got]"; last=no; fi
}

# covered CHECK FILE: the expect just before was a defect test of CHECK that
# passed; the matrix printed at the end counts it for FILE's arch.
covered() {
	[ "$last" = ok ] || return 0
	case ${2##*/} in
	x64-*|x86_64-*) a=x86_64 ;;
	i386-*) a=i386 ;;
	a64-*|aarch64-*) a=aarch64 ;;
	arm-*|thumb-*) a=arm ;;
	rv64*|riscv64-*) a=riscv64 ;;
	*) a=${2##*/}; a=${a%%-*} ;;
	esac
	echo "$1 $a" >> "$T/covered"
}
: > "$T/covered"

# --- clean: "file:known checks"
# (*-exe, *-pie and *-pfe-exe link main.c's wfun over sites.c's weak one:
# stale-weak is ld's doing there, see "twins".)
CLEAN="x64-cc.o: x64-mcount.o: x64-nop.o: x64-cet.o: x64-rmc.o: x64-pfe.o: x64-pfe31.o:
x64-pfecet.o: x64-exe:stale-weak x64-exe-plain: x64-pie:stale-weak x64-lib.so:
x64-pfe-exe:stale-weak x64-lib-stripped.so:
i386-cc.o: i386-rmc.o:untraced-call i386-pfe.o: i386-exe:stale-weak i386-exe-plain:
i386-pie:stale-weak i386-lib.so: i386-pfe-exe:stale-weak i386-lib-stripped.so:
a64-rmc.o: a64-rmcpac.o: a64-pfe.o: a64-pfebti.o: a64-exe:stale-weak a64-exe-plain:
a64-pie:stale-weak a64-lib.so: a64-pfe-exe:stale-weak a64-lib-stripped.so:
arm-rmc.o: thumb-rmc.o: arm-pfe.o: thumb-pfe.o: arm-exe:stale-weak arm-exe-plain:
arm-pie:stale-weak arm-lib.so: arm-lib-arm.so: arm-pfe-exe:stale-weak arm-lib-stripped.so:
ppc64le-rmc.o:untraced-call
x64-weak-pfe.o:stale-weak x64-weak-pad.o:stale-weak x64-weak-cc.o:stale-weak
x64-weak-fs.o:stale-weak a64-weak-pfe.o:stale-weak a64-weak-fs.o:stale-weak
a64-weak-rmc.o:stale-weak a64-prologue.o: x64-prologue.o: x64-pad.o: x64-padcet.o:
x64-weak-kpad.o:stale-weak x64-weak-kpadcet.o:stale-weak x64-weak-cet.o:stale-weak
a64-weak-bti.o:stale-weak
rv64-pfealign.o: rv64g-pfe.o:
rv64-exe:stale-weak rv64-exe-plain: rv64-pie:stale-weak rv64-lib.so: rv64-lib-stripped.so:
rv64g-pfe-exe:stale-weak rv64-rmc-exe:stale-weak,untraced-call
rv64-norelax-exe:stale-weak,untraced-call rv64-weak-pfe.o:stale-weak
rv64-rmc-pie:stale-weak,untraced-call rv64-rmc-lib.so: rv64-prologue.o:"
for c in $CLEAN; do
	f=${c%%:*}
	want=$(echo "${c#*:}" | tr ',' ' ')
	if [ ! -f "$f" ]; then
		fail "clean $f: not in testdata/verify (run its build.sh)"
		continue
	fi
	expect "clean $f" "$want" "$f"
	"$P" "$f" > /dev/null 2>&1
	rc=$?
	[ $rc = 0 ] && pass || fail "clean $f: exit $rc"
done
# riscv64 compressed code built without -falign-functions=4: gcc aligns its
# functions to 2 only, so no site is sure to be 4-aligned once linked (no
# R_RISCV_ALIGN ends at it); each is misaligned for libpatchsite, with the fix.
expect "rv64-pfe.o: 2-aligned sites" "misaligned" rv64-pfe.o
n=$("$P" rv64-pfe.o 2>&1 | grep -c 'misaligned: .* is only 2-byte aligned once linked (compressed code): .*; build with -falign-functions=4$')
[ "$n" = 6 ] && pass || fail "rv64-pfe.o: expected 6 misaligned sites naming -falign-functions=4, got $n"
# Linked, the address says: rv64-pfe-exe (=4 without -falign-functions=4) is
# misaligned exactly at the table entries that are 2 mod 4 (oracle: readelf -x
# of the table, 64-bit little-endian words; -no-pie, so no dynamic relocation).
expect "rv64-pfe-exe: linked 2-aligned sites" "misaligned stale-weak" rv64-pfe-exe
want=$(readelf -x __patchable_function_entries rv64-pfe-exe | awk '$1 ~ /^0x/ {
	for (i = 2; i <= 5; i += 2) { w = $i; v = substr(w, 7, 2) substr(w, 5, 2) substr(w, 3, 2) substr(w, 1, 2)
		if (w != "" && index("26ae", substr(v, 8, 1))) print "0x" v } }' | sed 's/^0x0*/0x/' | sort | tr '\n' ' ')
got=$("$P" rv64-pfe-exe 2>&1 | sed -n 's/.*, \(0x[0-9a-f]*\)): misaligned: .*only 2-byte aligned (compressed code).*-falign-functions=4$/\1/p' |
	sort | tr '\n' ' ')
[ -n "$want" ] && [ "$got" = "$want" ] && pass ||
	fail "rv64-pfe-exe: misaligned at [$got], readelf's 2-mod-4 entries [$want]"
# riscv64 -pg, linked, no table (gcc has no -mrecord-mcount there): every
# "jal _mcount@plt" objdump shows is a call patchverify finds, through the PLT
# entry (auipc t3; ld t3; jalr t1, t3; nop) and R_RISCV_JUMP_SLOT; .text and
# .init.text ones are missing-site, the others untraced-call.  Oracle:
# riscv64-linux-gnu-objdump -d when installed, else its list recorded here.
rvcalls="0x104ba 0x105a6 0x105c4 0x105e2 0x105fc 0x10582 0x10616"
if command -v riscv64-linux-gnu-objdump > /dev/null 2>&1; then
	rvcalls=$(riscv64-linux-gnu-objdump -d rv64-pg-exe |
		awk '$3 == "jal" && $5 == "<_mcount@plt>" { sub(":", "", $1); print "0x" $1 }' | tr '\n' ' ')
fi
want=$(printf '%s\n' $rvcalls | sort | tr '\n' ' ')
got=$("$P" rv64-pg-exe 2>&1 | sed -n 's/.*[(, ]\(0x[0-9a-f]*\)): \(missing-site\|untraced-call\): .*call to _mcount.*/\1/p' |
	sort | tr '\n' ' ')
[ "$got" = "$want" ] && [ "$(echo $want | wc -w)" = 7 ] && pass ||
	fail "rv64-pg-exe: calls found at [$got], objdump's jal _mcount@plt at [$want]"
expect "rv64-pg-exe: calls, no table" "missing-site no-table untraced-call" rv64-pg-exe
"$P" rv64-pg-exe 2>&1 | grep -q 'no-table: 7 calls to _mcount but no __mcount_loc' && pass ||
	fail "rv64-pg-exe: no-table does not count 7 calls"
# The sites of rv64-rmc-* (tables by this project's recordmcount: not an
# independent producer) are objdump's "jal _mcount@plt" less the two in
# untraced sections, which recordmcount leaves live on riscv64 (no build-time NOP).
"$P" --list rv64-rmc-exe 2> /dev/null | awk -F'\t' '{ print $3 }' | sed 's/^0x0*/0x/' | sort > "$T/rvl"
printf '%s\n' $rvcalls | grep -v -e 0x105fc -e 0x10616 | sort | cmp -s - "$T/rvl" && pass ||
	fail "rv64-rmc-exe: sites [$(tr '\n' ' ' < "$T/rvl")] are not objdump's traced calls"

# Linked with --no-relax the calls stay auipc ra + jalr ra: the sites are the
# auipc objdump shows before each "jalr ...(ra) # <_mcount@plt>" (the traced ones).
rvpairs="0x104ba 0x105b8 0x105e4 0x10606 0x10628"
if command -v riscv64-linux-gnu-objdump > /dev/null 2>&1; then
	rvpairs=$(riscv64-linux-gnu-objdump -d rv64-norelax-exe | awk '
		$3 == "auipc" && $4 == "ra,0x0" { a = $1 }
		$3 == "jalr" && /<_mcount@plt>/ { sub(":", "", a); print "0x" a }' |
		grep -v -e 0x10646 -e 0x10664 | tr '\n' ' ')
fi
"$P" --list rv64-norelax-exe 2> /dev/null | awk -F'\t' '$6 == "call" { print $3 }' |
	sed 's/^0x0*/0x/' | sort > "$T/rvn"
printf '%s\n' $rvpairs | sort | cmp -s - "$T/rvn" && [ "$(wc -l < "$T/rvn")" = 5 ] && pass ||
	fail "rv64-norelax-exe: call sites [$(tr '\n' ' ' < "$T/rvn")], objdump's auipc+jalr [$rvpairs]"

# --- defects: "file:defects"; each defect adds exactly its check.  What
# makes each one a defect (the oracle): the clean file's table is its
# producer's (gcc -mrecord-mcount or -fpatchable-function-entry, the
# kernel's recordmcount, then ld), every entry on a call start that the
# relocation list (readelf -r) or, linked, the documented encoding of the
# call names; pv-defect then moves exactly one thing:
#   shift, misalign  entry +1 / +2 bytes: inside the documented call
#                    encoding (x86 e8/ff 15, 5-6 bytes; 4-byte bl/BL)
#   drop             one entry removed: its call is still in the relocations
#                    (objects) or the code (linked)
#   dup              entry k names entry k+1's site (its own call NOPed with
#                    the arch's documented NOP, as recordmcount does)
#   data             entry k names .data (readelf -S: no X flag)
#   nocall           the call at a site overwritten by the next instruction
#   live             a call recordmcount NOPed (R_*_NONE) put back
#   reltype          the table relocation gets a call relocation type; linked:
#                    its R_*_RELATIVE becomes R_*_NONE (readelf -r)
#   sled             entry k moved one sled NOP on (gcc's sled is N NOPs)
#   swap             two ascending entries of a sorted linked table (readelf:
#                    the .so tables are in address order) trade places
check_of() {
	case $1 in
	shift|misalign) echo misaligned ;;
	drop) echo missing-site ;;
	dup) echo duplicate ;;
	data) echo site-not-exec ;;
	nocall) echo site-not-call ;;
	live) echo untraced-call ;;
	reltype) echo bad-reloc ;;
	sled) echo patchable-sled ;;
	swap) echo unsorted ;;
	esac
}
# The table is checked for order only when asked to be sorted.
opts_of() {
	case $1 in swap) echo --expect-sorted ;; esac
}
# Thumb: bit 0 of an entry is the Thumb state, which ftrace clears, so
# "shift" is no defect in Thumb files (tested below); misalign is.
MATRIX="x64-cc.o:shift,misalign,drop,dup,data,nocall,reltype
x64-rmc.o:shift,drop,dup,data,nocall,reltype,live
x64-exe:shift,misalign,drop,dup,data,nocall
x64-pie:shift,misalign,drop,dup,data,nocall,reltype
x64-lib.so:shift,misalign,drop,dup,data,nocall,reltype,swap
x64-pfe.o:sled x64-pfe-exe:sled x64-lib-stripped.so:misalign,drop,nocall
i386-cc.o:shift,misalign,drop,dup,data,nocall,reltype
i386-rmc.o:shift,misalign,drop,dup,data,nocall,reltype
i386-pfe.o:sled i386-pfe-exe:sled
i386-exe:shift,misalign,drop,dup,data,nocall
i386-pie:shift,misalign,drop,dup,data,nocall,reltype
i386-lib.so:shift,misalign,drop,dup,data,nocall,reltype,swap
i386-lib-stripped.so:misalign,drop,nocall
a64-rmc.o:shift,misalign,drop,dup,data,nocall,reltype,live
a64-rmcpac.o:shift,drop,nocall
a64-pfe.o:sled,misalign a64-pfebti.o:sled
a64-exe:shift,misalign,drop,dup,data,nocall
a64-pie:shift,misalign,drop,dup,data,nocall,reltype
a64-lib.so:shift,misalign,drop,dup,data,nocall,reltype,swap
a64-pfe-exe:sled a64-lib-stripped.so:misalign,drop,nocall
arm-rmc.o:shift,misalign,drop,dup,data,nocall,reltype,live
thumb-rmc.o:misalign,drop,dup,data,nocall,reltype,live
arm-pfe.o:sled thumb-pfe.o:sled
arm-exe:misalign,drop,dup,data,nocall
arm-pie:misalign,drop,dup,data,nocall,reltype
arm-lib.so:misalign,drop,dup,data,nocall,reltype,swap
arm-lib-arm.so:shift,misalign,drop,dup,data,nocall,reltype,swap
arm-pfe-exe:sled arm-lib-stripped.so:misalign,drop,nocall
ppc64le-rmc.o:shift,misalign,drop,nocall,reltype
rv64-exe:shift,drop,sled rv64-pie:shift,drop,sled,reltype
rv64-lib.so:shift,drop,sled,reltype,swap rv64-lib-stripped.so:shift,drop,sled
rv64g-pfe-exe:shift,drop,sled
rv64-rmc-exe:shift,misalign,drop,nocall rv64-norelax-exe:shift,misalign,drop,nocall
rv64-rmc-pie:shift,misalign,drop,nocall,reltype
rv64-rmc-lib.so:shift,misalign,nocall,reltype"
for m in $MATRIX; do
	f=${m%%:*}
	plain=$(checks "$f")
	for d in $(echo "${m#*:}" | tr ',' ' '); do
		out=$T/$d-$f
		base=$plain
		[ -z "$(opts_of "$d")" ] || base=$(checks "$f" $(opts_of "$d"))
		if ! "$D" "$d" "$f" "$out" 2> "$T/err"; then
			fail "defect $d on $f: pv-defect: $(cat "$T/err")"
			continue
		fi
		want=$(printf '%s\n' $base $(check_of "$d") | sort -u | tr '\n' ' ' | sed 's/ $//')
		expect "defect $d on $f" "$want" "$out" $(opts_of "$d")
		covered "$(check_of "$d")" "$f"
	done
done

# --- untraced-call where no tool NOPs: gcc -mrecord-mcount records every
# section, so dropping the entry of efun (.exit.text, which the kernel does
# not trace: scripts/recordmcount.c's list) leaves its call live there.
for f in x64-cc.o i386-cc.o; do
	last=no
	k=$("$P" --list $f | awk -F'\t' '$5 ~ /^\.exit\.text\+/ { print NR - 1; exit }')
	"$D" drop $f "$T/untraced-$f" "$k" && expect "untraced entry of $f dropped" \
		"untraced-call" "$T/untraced-$f"
	covered untraced-call $f
done

# --- twins: ld makes stale-weak.  The oracle is readelf: in the twin that
# links main.c's wfun over sites.c's weak one, the site patchverify calls
# stale lies in no function symbol (the dead copy's wfun is gone), and the
# -DNO_OVERRIDE twin has no such finding.
uncovered() {	# FILE ADDR: no FUNC symbol of FILE covers ADDR (hex, no 0x)
	readelf -sW "$1" | awk -v a="$2" '
		function hex(x,   i, v) { v = 0; x = tolower(x); sub(/^0x/, "", x)
			for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
			return v }
		BEGIN { at = hex(a); bad = 0 }
		$4 == "FUNC" && $7 != "UND" { v = hex($2); v -= v % 2
			if (at >= v && at < v + $3) bad = 1 }
		END { exit bad }'
}
for p in x64 i386 a64 arm rv64; do
	expect "twin $p-exe-plain" "" $p-exe-plain
	expect "twin $p-exe (ld: weak wfun overridden)" "stale-weak" $p-exe
	covered stale-weak $p-exe
	addr=$("$P" --json $p-exe 2> /dev/null | python3 -c 'import json,sys
f = [x for x in json.load(sys.stdin)["files"][0]["findings"] if x["check"] == "stale-weak"]
print(f[0]["address"] if len(f) == 1 else "none")')
	if [ "$addr" != none ] && uncovered $p-exe "$addr"; then pass
	else fail "twin $p-exe: stale-weak site $addr is inside a function per readelf -s"; fi
done
# ld -r of a weak and a strong hook() (a module's in-module override): the
# dead copy is stale-weak on every table kind, in objects as in linked
# files.  Oracle: readelf -s, no function symbol covers the site named; with
# -ffunction-sections the dead copy's section is .text.hook and readelf puts
# the strong hook at the place the message names.
for f in x64-weak-pfe.o x64-weak-pad.o x64-weak-cc.o x64-weak-cet.o a64-weak-pfe.o \
	 a64-weak-bti.o a64-weak-rmc.o rv64-weak-pfe.o; do
	off=$("$P" $f 2>&1 | sed -n 's/.*warning: \.text+0x\([0-9a-f]*\): stale-weak: .*/\1/p')
	if [ -n "$off" ] && [ "$(echo "$off" | wc -l)" = 1 ] && uncovered $f "$off"; then pass
	else fail "dead copy in $f: site [$off] is not one uncovered place per readelf -s"; fi
	covered stale-weak $f
done
# Call padding beside __mcount_loc (as 6.12 modules): the dead copy's entry
# in each table is one stale-weak (readelf -r: weak.o gave one to each).
for f in x64-weak-kpad.o x64-weak-kpadcet.o; do
	got=$("$P" $f 2>&1 | sed -n 's/.*stale-weak: \([_a-z]*\) entry.*/\1/p' | sort | tr '\n' ' ')
	[ "$got" = "__mcount_loc __patchable_function_entries " ] && pass ||
		fail "dead copy in $f: stale-weak in [$got], expected one per table"
done
for f in x64-weak-fs.o a64-weak-fs.o; do
	val=$(readelf -sW $f | awk '$8 == "hook" && $4 == "FUNC" { print "0x" $2 }')
	sec=$(readelf -SW $f | awk -v n="$(readelf -sW $f | awk '$8 == "hook" { print $7 }')" \
		'{ sub(/^ *\[ */, ""); sub(/\]/, " ") } $1 == n { print $2 }')
	want=$(printf 'dead copy of weak `hook`, overridden at hook+0x0 (%s+0x%x)' "$sec" "$val")
	"$P" $f 2>&1 | grep -qF "$want" && pass || fail "dead copy in $f: not [$want]: $("$P" $f 2>&1)"
done

# Thumb: bit 0 of an entry is the Thumb bit, which ftrace clears: not a defect.
"$D" shift thumb-rmc.o "$T/tshift.o" && expect "thumb entry with bit 0 set" "" "$T/tshift.o"
"$D" shift arm-lib.so "$T/tshift.so" && expect "linked thumb entry with bit 0 set" "" "$T/tshift.so"
# A missing site in a file whose sites are NOPs, and a sled with the wrong length.
# Patchable tables: a function whose entry holds the sled but that no entry
# names is missing-site (oracle: gcc put one entry per sled; pv-defect drops
# one, the function's NOPs stay, as objdump -d shows).
for f in x64-pfe.o i386-pfe.o a64-pfe.o a64-pfebti.o arm-pfe.o thumb-pfe.o x64-pfecet.o \
	 x64-pfe31.o x64-pfe-exe i386-pfe-exe a64-pfe-exe arm-pfe-exe; do
	last=no
	base=$(checks $f)
	want=$(printf '%s\n' $base missing-site | sort -u | tr '\n' ' ' | sed 's/ $//')
	"$D" drop $f "$T/pfedrop-$f" 2> /dev/null && expect "pfe drop on $f" "$want" "$T/pfedrop-$f"
	covered missing-site $f
done
# A C++ link that drops an object's table with a COMDAT group (build.sh,
# src/cxx-a.cpp): missing-site names exactly the functions nm lists that no
# table word (readelf -x) holds and whose first bytes objdump shows are NOPs:
# fb and main.
f=x64-cxx-pfe-exe
words=$(readelf -x __patchable_function_entries $f | python3 -c 'import re, sys
b = bytes.fromhex("".join("".join(re.findall(r"\b[0-9a-f]{8}\b", l[12:48]))
			  for l in sys.stdin if l.startswith("  0x")))
for i in range(0, len(b), 8):
	print("%x" % int.from_bytes(b[i:i + 8], "little"))')
oracle=$(nm $f | awk '$2 == "T" { print $1, $3 }' | while read -r a n; do
	a=$(printf '%x' "0x$a")
	echo "$words" | grep -qx "$a" && continue
	objdump -d --start-address=0x$a --stop-address=$((0x$a + 5)) $f |
		grep -q '^ *[0-9a-f]*:.*nop' && echo "$n"
done | sort | tr '\n' ' ')
got=$("$P" $f 2>&1 | sed -n 's/.*missing-site: \([^ ]*\)'"'"'s entry holds.*/\1/p' | sort | tr '\n' ' ')
[ "$got" = "$oracle" ] && [ "$got" = "_Z2fbi main " ] && pass ||
	fail "C++ link losing a table: missing-site for [$got], nm/readelf/objdump say [$oracle]"
covered missing-site $f

# x86 call padding beside -mrecord-mcount (Linux 6.12's CALL_PADDING): ftrace
# reads __mcount_loc (gcc's own table of the fentry calls); the 16,16 table
# is padding: its sleds are checked (a shifted entry: patchable-sled), a
# dropped entry is no missing-site, and --json names its kind.
for f in x64-pad.o x64-padcet.o; do
	kinds=$("$P" --json $f 2> /dev/null | python3 -c 'import json,sys
print(" ".join(sorted(t["section"] + ":" + t["kind"] for t in json.load(sys.stdin)["files"][0]["tables"])))')
	[ "$kinds" = "__mcount_loc:mcount __patchable_function_entries:padding" ] && pass ||
		fail "$f: table kinds [$kinds]"
	PV_DEFECT_TABLE=__patchable_function_entries "$D" sled $f "$T/padsled-$f" &&
		expect "padding entry of $f one NOP on" "patchable-sled" "$T/padsled-$f"
	PV_DEFECT_TABLE=__patchable_function_entries "$D" drop $f "$T/paddrop-$f" &&
		expect "padding entry of $f dropped: not ftrace's table" "" "$T/paddrop-$f"
done

# All of the sled before the entry (x86 call padding): nothing to tell at the entry.
"$D" drop x64-weak-pad.o "$T/paddrop.o" 0 2> /dev/null &&
	expect "pfe=16,16: entry 0 (use) dropped, not judged" "stale-weak" "$T/paddrop.o"
expect "--sled=3 on a 2-NOP sled" "patchable-sled" x64-pfe.o --sled=3
expect "--sled=3,1 on a 3,1 sled" "" x64-pfe31.o --sled=3,1
expect "--sled=3,2 on a 3,1 sled" "not-at-entry" x64-pfe31.o --sled=3,2
covered not-at-entry x64-pfe31.o

# --- asm: not-at-entry, orphan-site, zero-entry on every arch (oracle: the
# hand-written source in testdata/verify/asm.sh says where each entry points).
for a in x86_64 i386 aarch64 arm riscv64; do
	expect "asm $a-late.o" "not-at-entry" asm/$a-late.o
	covered not-at-entry $a-late.o
	expect "asm $a-orphan.o" "orphan-site" asm/$a-orphan.o
	covered orphan-site $a-orphan.o
	expect "asm $a-zero.o" "zero-entry" asm/$a-zero.o
	covered zero-entry $a-zero.o
done

# riscv64's late call follows a 2-byte c.beqz (objdump -d: "89 c1  beqz a1,...")
"$P" asm/riscv64-late.o 2>&1 | grep -q 'after 89 c1 at other+0x6: only frame set-up, and no branch' &&
	pass || fail "asm riscv64-late.o: the c.beqz is not named by its 2 bytes"

# --- hook_calls counts each call once: a call after "mov $0xf2,%al" is not
# also a bnd call (oracle: objdump -d's calls to __fentry__).
want=$(objdump -d asm/x86_64-f2 | grep -c 'call.*<__fentry__>')
got=$("$P" --json asm/x86_64-f2 2> /dev/null | python3 -c 'import json,sys
print(json.load(sys.stdin)["files"][0]["summary"]["hook_calls"])')
[ "$got" = "$want" ] && [ "$want" = 2 ] && pass || fail "hook_calls of asm/x86_64-f2: $got, objdump: $want"
expect "asm x86_64-f2" "" asm/x86_64-f2

# --- events: static trace events' table and descriptors (events.sh plants one
# defect per file; oracle: its source, and objdump -d for the site's bytes).
for f in ev-good.o ev-good.so ev-jmp.o ev-cold.o ev-a64-good.o; do
	expect "events $f" "" events/$f
done
for f in ev-notnop ev-jmpelse ev-foreign ev-a64-notnop; do
	expect "events $f.o" "event-site" events/$f.o
done
for f in ev-magic ev-text ev-kind ev-far; do
	expect "events $f.o" "event-desc" events/$f.o
done
objdump -d events/ev-notnop.o | grep -q '^ *0:[[:space:]]*90 *[[:space:]]nop' &&
	"$P" events/ev-notnop.o 2>&1 | grep -q 'found 90 90 90 90 90' && pass ||
	fail "events ev-notnop.o: the bytes objdump shows are not the ones reported"
objdump -d events/ev-good.so | grep -q '0f 1f 44 00 00 *[[:space:]]nopl' && pass ||
	fail "events ev-good.so: objdump shows no nopl at the site"
n=$("$P" events/ev-good.so 2>&1 | wc -l)
[ "$n" = 0 ] && pass || fail "events ev-good.so: $n lines"

# Linux 6.12's shape (asm.sh x86_64-kpfx.o): objtool's __pfx_ symbols over
# the call padding, two dead weak copies in a row.  Oracle: the source
# places every entry (padding entries end at entries; two copies, each in
# both tables).
expect "asm x86_64-kpfx.o" "stale-weak" asm/x86_64-kpfx.o
n=$("$P" asm/x86_64-kpfx.o 2>&1 | grep -c 'stale-weak')
[ "$n" = 4 ] && pass || fail "asm x86_64-kpfx.o: $n stale-weak warnings, want 4 (2 copies x 2 tables)"

# Linux 6.1's shape (asm.sh x86_64-kdead.o): two dead copies in a row, only
# alignment NOPs between them.  Oracle: the source.
expect "asm x86_64-kdead.o" "stale-weak" asm/x86_64-kdead.o
n=$("$P" asm/x86_64-kdead.o 2>&1 | grep -c 'stale-weak')
[ "$n" = 2 ] && pass || fail "asm x86_64-kdead.o: $n stale-weak warnings, want 2"

# x86_64 -pg without -mfentry (issue 12): the mcount call must follow the
# frame set-up (asm.sh: good's does, other's follows an argument move).
expect "asm x86_64-mlate.o" "not-at-entry" asm/x86_64-mlate.o
covered not-at-entry x86_64-mlate.o
"$P" asm/x86_64-mlate.o 2>&1 | grep -q 'other+0x6 .*mcount call is 6 bytes into other, after 89 f8 (mov eax, edi) at' &&
	pass || fail "asm x86_64-mlate.o: not the move before other's call: $("$P" asm/x86_64-mlate.o 2>&1)"

# --- oracle: good sites == the call relocations in traced sections (the bytes
# the kernel's ftrace_make_nop expects are at exactly those places).
relsites() {	# FILE TYPE HOOK DELTA: section+offset of each call relocation
	readelf -rW "$1" | awk -v t="$2" -v h="$3" -v d="$4" '
		function hex(x,   i, v) { v = 0; x = tolower(x)
			for (i = 1; i <= length(x); i++) v = v * 16 + index("0123456789abcdef", substr(x, i, 1)) - 1
			return v }
		/^Relocation section/ { s = $3; gsub(/\047/, "", s); sub(/^\.rela?/, "", s) }
		$3 == t && $5 == h { printf "%s+0x%x\n", s, hex($1) - d }' |
		grep -E '^\.(text|init\.text|sched\.text)' | sort
}
listed() {
	"$P" --list "$1" | awk -F'\t' '$6 == "call" || $6 == "nop" { print $5 }' | sort
}
oracle() {	# FILE TYPE HOOK DELTA
	[ -f "$1" ] || return 0
	if [ "$(relsites "$@")" = "$(listed "$1")" ] && [ -n "$(listed "$1")" ]; then pass
	else fail "oracle $1: $(relsites "$@" | tr '\n' ' ') vs $(listed "$1" | tr '\n' ' ')"; fi
}
oracle x64-rmc.o R_X86_64_PLT32 __fentry__ 1
oracle a64-rmc.o R_AARCH64_CALL26 _mcount 0
oracle arm-rmc.o R_ARM_CALL __gnu_mcount_nc 0
oracle thumb-rmc.o R_ARM_THM_CALL __gnu_mcount_nc 0
# gcc's table and the relocations agree, in every section.
n=$("$P" --list x64-cc.o | awk -F'\t' '$6 == "call"' | wc -l)
r=$(readelf -rW x64-cc.o | grep -c 'R_X86_64_PLT32.*__fentry__')
[ "$n" = "$r" ] && [ "$n" -gt 0 ] && pass || fail "x64-cc.o: $n call sites listed, $r relocations"

# --- every golden object of the recordmcount tests (testdata/obj), after our
# recordmcount: no error-level finding (untraced calls left live are warnings).
if [ -x "$R" ] && [ -d "$HERE/../../testdata/obj" ]; then
	for f in "$HERE"/../../testdata/obj/*/*.o; do
		a=$(basename "$(dirname "$f")")
		cp "$f" "$T/g.o"
		"$R" "$T/g.o" > /dev/null 2>&1 || continue	# it refused: nothing to audit
		"$P" "$T/g.o" > /dev/null 2> "$T/gerr"
		rc=$?
		[ $rc = 0 ] && pass || fail "golden $a/$(basename "$f") after recordmcount: $(head -2 "$T/gerr")"
	done
	# --pie-table: the same sites (the default table's are the kernel tool's,
	# per check-golden), audited clean from the place-relative table.
	for f in "$HERE"/../../testdata/obj/x86_64/*.o "$HERE"/../../testdata/obj/aarch64/*.o; do
		cp "$f" "$T/g.o" && cp "$f" "$T/p.o"
		"$R" "$T/g.o" > /dev/null 2>&1 && "$R" --pie-table "$T/p.o" > /dev/null 2>&1 || continue
		"$P" --list "$T/g.o" | awk '{ print $3, $4, $5 }' > "$T/g.list"
		"$P" --list "$T/p.o" | awk '{ print $3, $4, $5 }' > "$T/p.list"
		if "$P" "$T/p.o" > /dev/null 2>&1 && [ -s "$T/p.list" ] && cmp -s "$T/g.list" "$T/p.list"
		then pass; else fail "--pie-table on $(basename "$(dirname "$f")")/$(basename "$f"): sites differ"; fi
	done
fi

# --- several files in one run: no state carried from one to the next.
for f in x64-cc.o a64-rmc.o ppc64le-rmc.o arm-rmc.o x64-pie a64-pie arm-exe arm-lib-arm.so i386-pie; do
	[ -f "$f" ] && "$P" --list "$f" 2>> "$T/one.err"
done > "$T/one"
for f in x64-cc.o a64-rmc.o ppc64le-rmc.o arm-rmc.o x64-pie a64-pie arm-exe arm-lib-arm.so i386-pie; do
	[ -f "$f" ] && echo "$f"
done | xargs "$P" --list > "$T/all" 2> "$T/all.err"
cmp -s "$T/one" "$T/all" && cmp -s "$T/one.err" "$T/all.err" && pass ||
	fail "several files in one run differ from one at a time"

# --- hostile input: exit 2 and exactly one line.
hostile() {	# NAME FILE
	"$P" "$2" > /dev/null 2> "$T/herr"
	rc=$?
	lines=$(wc -l < "$T/herr")
	if [ $rc = 2 ] && [ "$lines" = 1 ]; then pass
	else fail "hostile $1: exit $rc, $lines lines: $(head -3 "$T/herr")"; fi
}
: > "$T/empty"
echo 'int main(void) { return 0; }' > "$T/text.c"
head -c 100 x64-cc.o > "$T/trunc.o"
head -c 1000 x64-exe > "$T/trunc-exe"
cp x64-cc.o "$T/machine.o" && printf '\064\022' | dd of="$T/machine.o" bs=1 seek=18 conv=notrunc 2> /dev/null
cp x64-cc.o "$T/core.o" && printf '\004' | dd of="$T/core.o" bs=1 seek=16 conv=notrunc 2> /dev/null
cp x64-cc.o "$T/shoff.o" && printf '\377\377\377\177' | dd of="$T/shoff.o" bs=1 seek=40 conv=notrunc 2> /dev/null
hostile empty "$T/empty"
hostile text "$T/text.c"
hostile truncated-object "$T/trunc.o"
hostile truncated-executable "$T/trunc-exe"
hostile missing "$T/nonexistent.o"
hostile unknown-machine "$T/machine.o"
hostile core-file "$T/core.o"
hostile section-table-past-eof "$T/shoff.o"
# Linked files of an arch whose linked call forms are not decoded: refused by name.
hostile linked-ppc64le "$TD/ppc64le-exe"
grep -q 'linked ppc64 files are not supported' "$T/herr" && pass ||
	fail "linked ppc64le: not refused by name: $(cat "$T/herr")"

# Fuzz: flip bytes in copies of clean files; any exit but a crash is fine.
crashes=0
for f in x64-cc.o a64-rmc.o arm-rmc.o x64-pie x64-pfe.o a64-pie arm-exe arm-lib-arm.so i386-pie \
	 rv64-pie rv64-pg-exe rv64-norelax-exe rv64-lib.so; do
	[ -f "$f" ] || continue
	# One copy per seed, 8 random bytes changed in each (seeded: repeatable).
	python3 -c 'import random, sys
data = open(sys.argv[1], "rb").read()
for seed in range(1, int(sys.argv[3]) + 1):
	r = random.Random(seed); b = bytearray(data)
	for _ in range(8):
		b[r.randrange(len(b))] = r.randrange(256)
	open("%s-%d" % (sys.argv[2], seed), "wb").write(b)' "$f" "$T/fz" "${FUZZ:-25}"
	for seed in $(seq 1 ${FUZZ:-25}); do
		mv "$T/fz-$seed" "$T/fz"
		"$P" --list "$T/fz" > /dev/null 2> "$T/ferr"
		rc=$?
		if [ $rc -gt 2 ] || grep -q -e Sanitizer -e 'runtime error' "$T/ferr"; then
			crashes=$((crashes + 1))
			cp "$T/fz" "/tmp/patchverify-crash-$f-$seed"
			echo "fuzz crash: $f seed $seed (kept in /tmp/patchverify-crash-$f-$seed)"
		fi
	done
done
[ $crashes = 0 ] && pass || fail "fuzz: $crashes crashes"

# --- inputs: compressed files, trees, @lists, standard input, archives, --jobs.
# Oracles: xz, zstd and gzip (the bytes they compress are the committed
# objects), ar and "ar t" (the members), readelf -r and -S (the counts the
# --summary totals must add up to), and the sequential run (--jobs).
mkdir -p "$T/tree/sub/deeper"
OBJS="x64-cc.o i386-cc.o a64-rmc.o arm-rmc.o thumb-rmc.o x64-pfe.o a64-pfe.o"
for f in $OBJS; do cp "$f" "$T/tree/$f"; done
xz -c x64-cc.o > "$T/tree/sub/x64-cc.ko.xz"
zstd -q -c a64-rmc.o > "$T/tree/sub/a64-rmc.ko.zst"
gzip -c arm-rmc.o > "$T/tree/sub/deeper/arm-rmc.ko.gz"
xz -c x64-pfe.o > "$T/tree/sub/deeper/no-suffix"	# found by magic, not name
echo 'not an object' > "$T/tree/README"
printf 'modules.dep: text\n' | gzip -c > "$T/tree/sub/modules.dep.gz"	# gzip, not ELF inside
ar rc "$T/tree/sub/lib.a" i386-cc.o thumb-rmc.o
# Each compressed file lists exactly what its original lists.
same_list() {	# COMPRESSED ORIGINAL
	"$P" --list "$1" | cut -f2- > "$T/l1"
	"$P" --list "$2" | cut -f2- > "$T/l2"
	if [ -s "$T/l2" ] && cmp -s "$T/l1" "$T/l2" &&
	   [ "$("$P" --list "$1" | cut -f1 | sort -u)" = "$1" ]; then pass
	else fail "--list $1 differs from --list $2"; fi
}
same_list "$T/tree/sub/x64-cc.ko.xz" x64-cc.o
same_list "$T/tree/sub/a64-rmc.ko.zst" a64-rmc.o
same_list "$T/tree/sub/deeper/arm-rmc.ko.gz" arm-rmc.o
same_list "$T/tree/sub/deeper/no-suffix" x64-pfe.o
# An archive: each member as the file itself, named lib.a(member) in ar t order.
"$P" --list "$T/tree/sub/lib.a" > "$T/la"
{ "$P" --list i386-cc.o | sed "s|^i386-cc.o|$T/tree/sub/lib.a(i386-cc.o)|"
  "$P" --list thumb-rmc.o | sed "s|^thumb-rmc.o|$T/tree/sub/lib.a(thumb-rmc.o)|"; } > "$T/lb"
[ "$(ar t "$T/tree/sub/lib.a" | tr '\n' ' ')" = "i386-cc.o thumb-rmc.o " ] &&
	cmp -s "$T/la" "$T/lb" && pass || fail "--list lib.a is not its members' lists"
# Standard input, raw and compressed.
"$P" --list - < x64-cc.o | sed 's|^<stdin>|x64-cc.o|' > "$T/ls"
"$P" --list x64-cc.o > "$T/lf"
xz -c x64-cc.o | "$P" --list - | sed 's|^<stdin>|x64-cc.o|' > "$T/lsx"
cmp -s "$T/ls" "$T/lf" && cmp -s "$T/lsx" "$T/lf" && pass || fail "--list - differs from the file's"
# The tree: every ELF file (11, with the 2 members), README and the
# gzipped text skipped, totals from readelf.
"$P" --summary "$T/tree" > "$T/sum" 2> "$T/sum.err"
rc=$?
[ $rc = 0 ] && [ ! -s "$T/sum.err" ] && pass || fail "tree: exit $rc, stderr: $(head -2 "$T/sum.err")"
tabs=0 sites=0 calls=0
for f in $OBJS x64-cc.o a64-rmc.o arm-rmc.o x64-pfe.o i386-cc.o thumb-rmc.o; do
	t=$(readelf -SW "$f" | grep -cE ' (__mcount_loc|__patchable_function_entries) ')
	n=$(readelf -rW "$f" | awk '/^Relocation section .\.rela?(__mcount_loc|__patchable_function_entries)/ { n += $(NF-1) } END { print n + 0 }')
	# calls: relocations against a hook, less those recordmcount NOPed (R_*_NONE)
	c=$(readelf -rW "$f" | grep -E ' (__fentry__|mcount|_mcount|__gnu_mcount_nc)([+ ]|$)' |
		grep -vc '_NONE ')
	tabs=$((tabs + t)) sites=$((sites + n)) calls=$((calls + c))
done
want="total: 13 files audited (0 not audited, 2 skipped: not ELF), $tabs tables, $sites sites, $calls hook calls; 0 errors, 0 warnings, 0 notes"
[ "$(tail -1 "$T/sum")" = "$want" ] && pass || fail "tree totals: [$(tail -1 "$T/sum")], readelf says [$want]"
[ "$(grep -vc '^total: ' "$T/sum")" = 13 ] && pass || fail "tree: not 13 per-file lines"
# Per check: a duplicate made by pv-defect is one error in the totals; exit 1.
"$D" dup x64-cc.o "$T/tree/sub/dup.o"
"$P" --summary "$T/tree" > "$T/sum" 2> /dev/null
rc=$?
[ $rc = 1 ] && grep -qx 'total: duplicate: 1 error, 0 warnings, 0 notes' "$T/sum" && pass ||
	fail "tree with a duplicate: exit $rc, $(grep '^total' "$T/sum" | head -1)"
"$P" --json "$T/tree" 2> /dev/null | python3 -c 'import json, sys
d = json.load(sys.stdin); s = d["summary"]
assert len(d["files"]) == s["files"] == 14, s
assert s["skipped"] == 2 and s["errors"] == 1 and s["checks"]["duplicate"]["errors"] == 1, s' &&
	pass || fail "--json tree summary"
# --jobs: byte-identical output (stdout and stderr) to the sequential run.
for opts in "--summary" "--list" "--json --list"; do
	"$P" $opts "$T/tree" x64-pie a64-exe > "$T/j1" 2> "$T/j1.err"
	r1=$?
	"$P" --jobs 2 $opts "$T/tree" x64-pie a64-exe > "$T/j2" 2> "$T/j2.err"
	r2=$?
	"$P" -J 0 $opts "$T/tree" x64-pie a64-exe > "$T/j3" 2> "$T/j3.err"
	r3=$?
	[ -s "$T/j1" ] && cmp -s "$T/j1" "$T/j2" && cmp -s "$T/j1.err" "$T/j2.err" &&
		cmp -s "$T/j1" "$T/j3" && [ $r1 = $r2 ] && [ $r1 = $r3 ] && pass ||
		fail "--jobs $opts: output differs from the sequential run"
done
# @list and --files-from: the same as the names on the command line.
printf '%s\n' x64-cc.o "$T/tree/sub" a64-pie > "$T/list"
"$P" --summary x64-cc.o "$T/tree/sub" a64-pie > "$T/a1" 2>&1
"$P" --summary @"$T/list" > "$T/a2" 2>&1
"$P" --summary --files-from "$T/list" > "$T/a3" 2>&1
"$P" --summary @- < "$T/list" > "$T/a4" 2>&1
cmp -s "$T/a1" "$T/a2" && cmp -s "$T/a1" "$T/a3" && cmp -s "$T/a1" "$T/a4" && pass ||
	fail "@list differs from the same names as arguments"
# A pipe given by name (not a regular file) is read too.
mkfifo "$T/fifo"
cat x64-cc.o > "$T/fifo" &
"$P" --list "$T/fifo" 2> /dev/null | cut -f2- > "$T/lp"
wait
"$P" --list x64-cc.o | cut -f2- > "$T/lf"
cmp -s "$T/lp" "$T/lf" && pass || fail "a pipe given by name"
# Bad compressed data and archives: one line naming the file, exit 2.
head -c 200 "$T/tree/sub/x64-cc.ko.xz" > "$T/trunc.ko.xz"
head -c 200 "$T/tree/sub/a64-rmc.ko.zst" > "$T/trunc.ko.zst"
head -c 200 "$T/tree/sub/deeper/arm-rmc.ko.gz" > "$T/trunc.ko.gz"
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 0x55
open(sys.argv[2], "wb").write(b)' "$T/tree/sub/x64-cc.ko.xz" "$T/flip.ko.xz"
head -c 1000 "$T/tree/sub/lib.a" > "$T/trunc.a"
(cd "$T" && ar rcT thin.a "$TD/x64-cc.o" 2> /dev/null)
printf 'hello\n' | xz -c > "$T/text.xz"
hostile truncated-xz "$T/trunc.ko.xz"
grep -q 'cannot decompress xz data' "$T/herr" && pass || fail "truncated xz: $(cat "$T/herr")"
hostile truncated-zstd "$T/trunc.ko.zst"
hostile truncated-gzip "$T/trunc.ko.gz"
hostile corrupt-xz "$T/flip.ko.xz"
hostile truncated-archive "$T/trunc.a"
[ -f "$T/thin.a" ] && hostile thin-archive "$T/thin.a"
hostile xz-of-text "$T/text.xz"
hostile stdin-empty - < /dev/null
# In a tree a bad file is one line, the rest is audited, exit 2.
rm "$T/tree/sub/dup.o"
cp "$T/trunc.ko.xz" "$T/tree/sub/"
"$P" --summary "$T/tree" > "$T/sum" 2> "$T/sum.err"
rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$T/sum.err")" = 1 ] &&
	tail -1 "$T/sum" | grep -q '^total: 13 files audited (1 not audited, 2 skipped' && pass ||
	fail "tree with a truncated .xz: exit $rc, $(tail -1 "$T/sum"), $(cat "$T/sum.err")"
# An empty directory: nothing to audit is said, exit 0.
mkdir "$T/emptydir"
"$P" "$T/emptydir" > /dev/null 2> "$T/herr"
[ $? = 0 ] && grep -q 'no files found' "$T/herr" && pass || fail "empty directory: $(cat "$T/herr")"

# --- a kernel-like image: the table between __start_mcount_loc and
# __stop_mcount_loc in .init.data, linked by ld from x64-cc.o and a
# __fentry__ made by as; then stripped (objcopy), with its System.map made
# by nm -n (as the kernel's scripts/mksysmap does).  Oracles: readelf -r
# (x64-cc.o's table relocations: the sites) and the unstripped image.
mkdir "$T/kimg"
printf '.text\n.globl __fentry__\n__fentry__:\n ret\n.section .note.GNU-stack,"",@progbits\n' > "$T/kimg/hook.s"
printf 'SECTIONS {\n . = 0xffffffff81000000;\n .text : { *(.text .text.* .init.text .exit.text) }
 .init.data : { __start_mcount_loc = .; KEEP(*(__mcount_loc)) __stop_mcount_loc = .; }
 .data : { *(.data .data.* .bss .rodata*) }\n /DISCARD/ : { *(.note.* .comment .eh_frame) }\n}\n' > "$T/kimg/k.lds"
sed 's|KEEP(\*(__mcount_loc))||; s|/DISCARD/ : { |/DISCARD/ : { *(__mcount_loc) |' "$T/kimg/k.lds" > "$T/kimg/notable.lds"
if as --64 -o "$T/kimg/hook.o" "$T/kimg/hook.s" 2> /dev/null &&
   ld -m elf_x86_64 -T "$T/kimg/k.lds" -e 0 -o "$T/kimg/vmlinux" x64-cc.o "$T/kimg/hook.o" 2> /dev/null &&
   ld -m elf_x86_64 -T "$T/kimg/notable.lds" -e 0 -o "$T/kimg/notable" x64-cc.o "$T/kimg/hook.o" 2> /dev/null; then
	nm -n "$T/kimg/vmlinux" > "$T/kimg/System.map"
	objcopy --strip-all "$T/kimg/vmlinux" "$T/kimg/vmlinux.stripped"
	n=$(readelf -rW x64-cc.o | awk '/^Relocation section .\.rela__mcount_loc/ { print $(NF-1) }')
	"$P" --list "$T/kimg/vmlinux" | cut -f3,6 > "$T/kimg/l1"
	"$P" --list --system-map "$T/kimg/System.map" "$T/kimg/vmlinux.stripped" 2> "$T/kimg/err" |
		cut -f3,6 > "$T/kimg/l2"
	[ "$(grep -c '	call$' "$T/kimg/l1")" = "$n" ] && cmp -s "$T/kimg/l1" "$T/kimg/l2" &&
		[ ! -s "$T/kimg/err" ] && pass || fail "--system-map: the stripped image's sites differ"
	# Without the map: a note says why nothing was found.
	"$P" "$T/kimg/vmlinux.stripped" > /dev/null 2> "$T/kimg/err"
	[ $? = 0 ] && grep -q 'note: -: no-table: .*--system-map' "$T/kimg/err" && pass ||
		fail "stripped image without a map: $(cat "$T/kimg/err")"
	# Calls to __fentry__ and no table: a no-table warning, not silence.
	# (mfun in .mytext, which ftrace does not trace: untraced-call)
	expect "linked, table discarded" "missing-site no-table untraced-call" "$T/kimg/notable"
	# Messages about a linked file carry the absolute address (nm -n: gfun's).
	g=$(awk '$3 == "gfun" { print $1 }' "$T/kimg/System.map" | sed 's/^0*//')
	"$P" "$T/kimg/notable" 2>&1 | grep -q "gfun+0x0 (.text+0x0, 0x$g): missing-site" && pass ||
		fail "no absolute address 0x$g in the linked file's message"
	# The map of another build (the table's bounds outside this image): said, not silent.
	sed 's/^ffffffff81/ffffffff99/' "$T/kimg/System.map" | grep -v __fentry__ > "$T/kimg/other.map"
	expect "--system-map of another build" "no-table" "$T/kimg/vmlinux.stripped" \
		--system-map "$T/kimg/other.map"
	printf 'not a map\n' > "$T/kimg/bad.map"
	"$P" --system-map "$T/kimg/bad.map" x64-cc.o > /dev/null 2>&1
	[ $? = 2 ] && pass || fail "--system-map of a file that is not one: exit not 2"
else
	fail "as/ld could not make the kernel-like image"
fi

# --- cli
"$P" > /dev/null 2>&1; [ $? = 2 ] && pass || fail "no arguments: exit not 2"
"$P" --bogus x64-cc.o > /dev/null 2>&1; [ $? = 2 ] && pass || fail "bad option: exit not 2"
"$P" --disable=nosuch x64-cc.o > /dev/null 2>&1; [ $? = 2 ] && pass || fail "unknown check: exit not 2"
"$P" x64-cc.o "$T/empty" > /dev/null 2>&1; [ $? = 2 ] && pass || fail "one unreadable file: exit not 2"
"$P" i386-rmc.o > /dev/null 2>&1; [ $? = 0 ] && pass || fail "warnings only: exit not 0"
"$P" --error=untraced-call i386-rmc.o > /dev/null 2>&1; [ $? = 1 ] && pass ||
	fail "--error=untraced-call: exit not 1"
expect "--disable" "" i386-rmc.o --disable=untraced-call
"$D" dup x64-cc.o "$T/dup.o" && "$P" "$T/dup.o" > /dev/null 2>&1
[ $? = 1 ] && pass || fail "error finding: exit not 1"
"$P" --expect-sorted x64-exe > /dev/null 2>&1; [ $? = 1 ] && pass ||
	fail "--expect-sorted on a linked table in link order (.text, .init.text, .text): exit not 1"
expect "--expect-sorted, unsorted table" "stale-weak unsorted" x64-exe --expect-sorted
"$P" --expect-sorted x64-lib.so > /dev/null 2>&1; [ $? = 0 ] && pass || fail "--expect-sorted on a sorted table"
"$P" --expect-sorted x64-cc.o > /dev/null 2>&1; [ $? = 0 ] && pass || fail "--expect-sorted on an object"
"$P" --json x64-cc.o x64-pie "$T/dup.o" "$T/empty" > "$T/j.json" 2> /dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["files"]) == 4
assert d["files"][2]["findings"][0]["check"] == "duplicate"; assert "error" in d["files"][3]' \
	"$T/j.json" && pass || fail "--json is not the expected document"
# table-align: off by default (a good gcc -mrecord-mcount program has it), a note when asked for,
# exactly where readelf (the oracle) shows the table off its word; host gcc builds the program.
printf 'void f(void){}\nint main(void){f();return 0;}\n' > "$T/al.c"
if cc -O1 -pg -mfentry -mrecord-mcount "$T/al.c" -o "$T/al" 2>/dev/null; then
	aladdr=$(readelf -SW "$T/al" | awk '/ __mcount_loc /{ print $4 }')
	alwant=; [ $((0x$aladdr % 8)) -ne 0 ] && alwant=table-align
	expect "table-align off by default ($aladdr)" "" "$T/al"
	expect "table-align asked for ($aladdr)" "$alwant" "$T/al" --disable=all --note=table-align
	for f in x64-exe x64-pie x64-lib.so a64-pie; do expect "table-align, aligned $f" "" $f --disable=all --note=table-align; done
else
	fail "table-align: host cc cannot build a -mrecord-mcount program"
fi
"$P" --json --list x64-exe > "$T/jl.json" 2> /dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["files"][0]["sites"]) == 7' \
	"$T/jl.json" && pass || fail "--json --list"
"$P" --summary x64-cc.o | grep -q '5 sites (5 call, 0 nop, 0 other)' && pass || fail "--summary"
"$P" --version | grep -q 'riscv64.*own call/NOP decoder' && pass || fail "--version names riscv64's decoder"

# The defect matrix: how many passing defect tests each check has per arch.
ARCHES="x86_64 i386 aarch64 arm ppc64le riscv64"
printf '%-15s' "defect tests"
for a in $ARCHES; do printf ' %8s' "$a"; done
echo
for c in site-not-exec site-not-call misaligned not-at-entry missing-site untraced-call \
	 duplicate unsorted zero-entry orphan-site stale-weak bad-reloc patchable-sled; do
	printf '%-15s' "$c"
	for a in $ARCHES; do
		printf ' %8s' "$(grep -c "^$c $a\$" "$T/covered")"
	done
	echo
done
summary
