#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# patchverify --noflag (issue 37): sites in code built without any flag, each proven or refused
# by name.  usage  noflag.sh BUILD_DIR [plain|san]
#
# Oracles (independent of the code under test):
#   - objdump -d: instruction addresses, lengths, bytes and branch targets (the site of a
#     form a or b is the instruction objdump shows there; its proof bytes are objdump's);
#   - readelf --debug-dump=frames: FDE starts and their count; readelf -s: function symbols
#     (work.cold's address); readelf -S: the PLT sections that hold no entry
#     (tests/verify/noflag_oracle.py does the comparing);
#   - the mutation pairs of testdata/noflag/hazards.S: the same function with and without one
#     hazard, where only the mutated build may be refused;
#   - the proof file read back by the runtime's reader (nfproof-read) and written again: the
#     same bytes.
# Debian's own binaries (ls, sqlite3, xz, libc.so.6, as installed: scripts/deps.sh) are proven
# as shipped.  The commands man/patchverify.1 prints under NO-FLAG SITES are run as printed.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail
suite_init noflag "${1:-build}" "${2:-plain}"	# san: ASan reports leaks too
PV="$PWD/$B/patchverify"
RD="$PWD/$B/nfproof-read"
SRC="$PWD/testdata/noflag"
ORACLE="python3 $PWD/tests/verify/noflag_oracle.py"
MAN="$PWD/man/patchverify.1"

if [ "$(uname -m)" != x86_64 ]; then
	echo "noflag.sh: the no-flag prover reads x86-64 files; built here for $(uname -m): skipped"
	exit 0
fi
cd "$T" || exit 1

# The list's line of entry ADDR (hex, no 0x) in LIST: "result detail".
at() { awk -F'\t' -v a="0x$2" '$2 == a { print $4, $5 }' "$1"; }
# The address (hex, no 0x) of symbol NAME in FILE, from readelf -s.
sym() { readelf -sW "$1" | awk -v n="$2" '$8 == n { sub(/^0+/, "", $2); print $2; exit }'; }
# The address of the first instruction objdump shows in FUNC of FILE whose text matches RE.
insn_at() {
	objdump -d "$1" | awk -v f="<$2>:" -v re="$3" '
		$2 == f { on = 1; next } on && /^$/ { exit }
		on && $0 ~ re { sub(/:$/, "", $1); print $1; exit }'
}
# The length objdump gives the instruction at ADDR (hex, no 0x) of FILE.
len_at() {
	objdump -d -w --insn-width=16 --start-address=0x$2 --stop-address=$((0x$2 + 16)) "$1" |
		awk -F'\t' '/^ *[0-9a-f]+:/ { gsub(/ /, "", $2); print length($2) / 2; exit }'
}
# expect NAME GOT WANT
expect() {
	if [ "$2" = "$3" ]; then pass "$1"; else echo "    got [$2], want [$3]"; fail "$1"; fi
}

# --- the mutation corpus: hand-written hazards, each with its unmutated twin ---------------
if $CC -shared -nostdlib -o haz.so "$SRC/hazards.S" 2>build.log &&
   $CC -shared -nostdlib -DMUTATE -o haz-mut.so "$SRC/hazards.S" 2>>build.log &&
   "$PV" --noflag --list haz.so >haz.list && "$PV" --noflag --list haz-mut.so >haz-mut.list; then
	v=$(sym haz.so victim) l=$(sym haz.so loophead) s=$(sym haz.so switcher)
	expect "victim: the 5-byte entry instruction is form a" "$(at haz.list "$v")" "a site=0x$v depth=0 bytes=5"
	v=$(sym haz-mut.so victim)
	expect "victim: a jump into its first instruction refuses it" "$(at haz-mut.list "$v")" \
		"refused direct-target-in-window"
	b=$(sym haz.so backin)
	expect "backin: form a" "$(at haz.list "$b")" "a site=0x$b depth=0 bytes=5"
	b=$(sym haz-mut.so backin)
	expect "backin: a back-edge into its entry instruction's bytes refuses it" \
		"$(at haz-mut.list "$b")" "refused direct-target-in-window"
	c=$(insn_at haz.so loophead 'cmp ')
	expect "loophead: form b at the 5-byte cmp (objdump's address), not a" "$(at haz.list "$l")" \
		"b site=0x$c depth=0 bytes=5"
	l=$(sym haz-mut.so loophead)
	expect "loophead: a loop back-edge between entry and site refuses it" \
		"$(at haz-mut.list "$l")" "refused direct-target-in-window"
	m=$(insn_at haz.so switcher 'mov +\$0x5,')
	expect "switcher: form b after a push, depth 8" "$(at haz.list "$s")" "b site=0x$m depth=8 bytes=5"
	s=$(sym haz-mut.so switcher)
	expect "switcher: a table jump refuses form b by name" "$(at haz-mut.list "$s")" \
		"refused unbounded-jump-table"
	w=$(sym haz.so switch2) m=$(insn_at haz.so switch2 'mov +\$0x5,')
	expect "switch2: its switch table read, form b at depth 8" "$(at haz.list "$w")" \
		"b site=0x$m depth=8 bytes=5"
	w=$(sym haz-mut.so switch2)
	expect "switch2: a table entry on the site refuses it" "$(at haz-mut.list "$w")" \
		"refused table-target-in-window"
	w=$(sym haz.so hoist) m=$(insn_at haz.so hoist 'lea ')
	expect "hoist: a switch base set before a jump, its table found by the lea, form b" \
		"$(at haz.list "$w")" "b site=0x$m depth=8 bytes=7"
	w=$(sym haz-mut.so hoist)
	expect "hoist: another write of the base refuses it" "$(at haz-mut.list "$w")" \
		"refused unbounded-jump-table"
	w=$(sym haz.so ptrjump) m=$(insn_at haz.so ptrjump 'mov +\$0x5,')
	expect "ptrjump: a tail call through a loaded pointer is no switch, form b" \
		"$(at haz.list "$w")" "b site=0x$m depth=8 bytes=5"
	w=$(sym haz-mut.so ptrjump)
	expect "ptrjump: a jump to a sum is table-like, refused" "$(at haz-mut.list "$w")" \
		"refused unbounded-jump-table"
	for fn in bounded nodom; do
		w=$(sym haz.so $fn) m=$(insn_at haz.so $fn 'mov +\$0x5,')
		expect "$fn: a switch bounded by cmp + ja reads its 2 entries, not the word after: form b" \
			"$(at haz.list "$w")" "b site=0x$m depth=8 bytes=5"
	done
	w=$(sym haz-mut.so bounded)
	expect "bounded: without the compare the word after the table is read, on the site: refused" \
		"$(at haz-mut.list "$w")" "refused table-target-in-window"
	w=$(sym haz-mut.so nodom)
	expect "nodom: a path past the compare drops the bound, the word after is read: refused" \
		"$(at haz-mut.list "$w")" "refused table-target-in-window"
	w=$(sym haz.so sched) m=$(insn_at haz.so sched 'mov +\$0x5,')
	expect "sched: a switch with instructions scheduled between load, add and jump: form b" \
		"$(at haz.list "$w")" "b site=0x$m depth=8 bytes=5"
	w=$(sym haz-mut.so sched)
	expect "sched: the base written between the load and the add: refused" \
		"$(at haz-mut.list "$w")" "refused unbounded-jump-table"
	w=$(sym haz.so hoistfar) m=$(insn_at haz.so hoistfar 'lea ')
	expect "hoistfar: only the base's lea reaches the switch (not its mov): table read, form b at the lea" \
		"$(at haz.list "$w")" "b site=0x$m depth=8 bytes=7"
	w=$(sym haz-mut.so hoistfar)
	expect "hoistfar: a path from the mov past the lea to the switch: refused" \
		"$(at haz-mut.list "$w")" "refused unbounded-jump-table"
	w=$(sym haz.so ptrcond) m=$(insn_at haz.so ptrcond 'mov +\$0x5,')
	expect "ptrcond: a loaded pointer tested, then jumped through: form b" \
		"$(at haz.list "$w")" "b site=0x$m depth=8 bytes=5"
	w=$(sym haz-mut.so ptrcond)
	expect "ptrcond: a jump into the run with a sum in the register: refused" \
		"$(at haz-mut.list "$w")" "refused unbounded-jump-table"
	w=$(sym haz.so devirt) m=$(insn_at haz.so devirt 'mov +\$0x5,')
	expect "devirt: a jump through a loaded pointer after the return, entered by jne: form b" \
		"$(at haz.list "$w")" "b site=0x$m depth=8 bytes=5"
	w=$(sym haz-mut.so devirt)
	expect "devirt: the jne leaving with a sum in the register: refused" "$(at haz-mut.list "$w")" \
		"refused unbounded-jump-table"
	w=$(sym haz.so tiny)
	pad=$(len_at haz.so "$(printf '%x' $((0x$w + 3)))")
	expect "tiny: a 3-byte function, form p over the nop padding after it (objdump: $pad bytes)" \
		"$(at haz.list "$w")" "p site=0x$w depth=0 bytes=$((3 + pad))"
	w=$(sym haz-mut.so tiny)
	expect "tiny: another function right after it refuses it" "$(at haz-mut.list "$w")" \
		"refused short-no-padding"
	w=$(sym haz.so midpad)
	pad=$(len_at haz.so "$(printf '%x' $((0x$w + 4)))")
	expect "midpad: xor, jmp, then form p over the loop head's nop padding (objdump: $pad bytes)" \
		"$(at haz.list "$w")" "p site=0x$w depth=0 bytes=$((4 + pad))"
	w=$(sym haz-mut.so midpad)
	expect "midpad: a jump into that padding refuses it" "$(at haz-mut.list "$w")" \
		"refused direct-target-in-window"
	w=$(sym haz.so window)
	expect "window: xor, test, je is form c, 6 bytes" "$(at haz.list "$w")" "c site=0x$w depth=0 bytes=6"
	"$PV" --noflag --proof haz.proof haz.so
	expect "window: its proof record (INSNS: objdump's lengths; je's rel8 at offset 1)" \
		"$(awk -v w="$w" '$1 == "site" && $2 == w { print $3, $6, $7 }' haz.proof)" \
		"c $(objdump -d haz.so | awk -v f="<window>:" '$2 == f { on = 1; next }
			on && n < 3 { for (i = 2; i <= NF && $i ~ /^[0-9a-f][0-9a-f]$/; i++) printf "%s", $i; n++ }') 2,2,2:jcc8@1"
	w=$(sym haz-mut.so window)
	expect "window: a jump to its second instruction refuses it" "$(at haz-mut.list "$w")" \
		"refused direct-target-in-window"
	c=$(sym haz.so callwin)
	expect "callwin: a call as the window's last instruction is form c" "$(at haz.list "$c")" \
		"c site=0x$c depth=0 bytes=6"
	c=$(sym haz-mut.so callwin)
	expect "callwin: a call inside the window refuses it" "$(at haz-mut.list "$c")" \
		"refused call-in-window"
	p=$(sym haz.so pointed)
	expect "pointed: form a" "$(at haz.list "$p")" "a site=0x$p depth=0 bytes=5"
	p=$(sym haz-mut.so pointed)
	expect "pointed: a RELATIVE relocation's addend inside it refuses it" "$(at haz-mut.list "$p")" \
		"refused code-address-in-window"
else
	fail "hazards.S built and proven" build.log
fi
# The same hazards in an ET_EXEC file (no relocations: data words and immediates are addresses).
if $CC -nostdlib -static -no-pie -DEXEC -Wl,-e,jumper -o haz.exe "$SRC/hazards.S" 2>build.log &&
   $CC -nostdlib -static -no-pie -DEXEC -DMUTATE -Wl,-e,jumper -o haz-mut.exe "$SRC/hazards.S" 2>>build.log &&
   "$PV" --noflag --list haz.exe >hazx.list && "$PV" --noflag --list haz-mut.exe >hazx-mut.list; then
	for fn in pointed immed victim; do
		p=$(sym haz.exe $fn)
		expect "ET_EXEC $fn: form a" "$(at hazx.list "$p")" "a site=0x$p depth=0 bytes=5"
	done
	p=$(sym haz-mut.exe pointed)
	expect "ET_EXEC pointed: a data word inside it refuses it" "$(at hazx-mut.list "$p")" \
		"refused code-address-in-window"
	p=$(sym haz-mut.exe immed)
	expect "ET_EXEC immed: an immediate inside it refuses it" "$(at hazx-mut.list "$p")" \
		"refused code-address-in-window"
	p=$(sym haz-mut.exe victim)
	expect "ET_EXEC victim: a jump inside it refuses it" "$(at hazx-mut.list "$p")" \
		"refused direct-target-in-window"
else
	fail "hazards.S built as ET_EXEC and proven" build.log
fi

# --- a .cold fragment, with symbols and stripped --------------------------------------------
if $CC -O2 -freorder-blocks-and-partition -o cold "$SRC/cold.c" 2>build.log &&
   strip -o cold-stripped cold && "$PV" --noflag --list cold >cold.list &&
   "$PV" --noflag --list cold-stripped >cold-stripped.list; then
	k=$(sym cold work.cold)
	if [ -n "$k" ] && [ "$(at cold.list "$k" | cut -d' ' -f1)" = fragment ]; then
		pass "work.cold (readelf -s) is a fragment"
	else
		fail "work.cold at [$k] is a fragment" cold.list
	fi
	if [ -n "$k" ] && [ "$(at cold-stripped.list "$k")" = "fragment frame-at-entry" ]; then
		pass "stripped: work.cold's FDE is a fragment (its frame is set up at entry)"
	else
		fail "stripped: work.cold's FDE is a fragment" cold-stripped.list
	fi
	if [ -z "$(readelf -sW cold-stripped | grep ' FUNC ' | grep -v ' UND ')" ] &&
	   $ORACLE entries cold-stripped cold-stripped.list >oracle.out 2>&1 &&
	   ! cut -f3 cold-stripped.list | grep -qv '^cold-stripped+0x'; then
		pass "stripped: entries are .eh_frame's FDE starts (readelf), named OBJECT+0xOFF"
	else
		fail "stripped: entries are .eh_frame's FDE starts" oracle.out
	fi
	w=$(sym cold work) ws=$(insn_at cold work 'call ')
	expect "work: form b at its call (objdump), below its frame" "$(at cold.list "$w" | cut -d' ' -f1-2)" \
		"b site=0x$ws"
else
	fail "cold.c built and proven" build.log
fi

# --- endbr64 and a rip-relative first instruction --------------------------------------------
for prot in full none; do
	if $CC -O2 -fcf-protection=$prot -o entry-$prot "$SRC/entry.c" 2>build.log &&
	   "$PV" --noflag --list entry-$prot >entry.list &&
	   "$PV" --noflag --proof entry.proof entry-$prot; then
		expect "entry ($prot): the proof names the object by its absolute path" \
			"$(awk '$1 == "object" { print $4 }' entry.proof)" "$(pwd -P)/entry-$prot"
		g=$(sym entry-$prot get_counter)
		first=$(objdump -d entry-$prot | awk '/<get_counter>:/ { getline; print $NF; exit }')
		if [ $prot = full ]; then
			expect "-fcf-protection: get_counter starts with endbr64 (objdump)" "$first" endbr64
			site=$(printf '%x' $((0x$g + 4)))
		else
			site=$g
		fi
		# The disp32 of `mov counter(%rip),%eax` is its last 4 bytes (no immediate): rip@LEN-4.
		ob=$(objdump -d --start-address=0x$site --stop-address=$((0x$site + 16)) entry-$prot |
			awk -F'\t' '/^ *[0-9a-f]+:/ { gsub(/ /, "", $2); print $2; exit }')
		len=$((${#ob} / 2))
		expect "entry ($prot): get_counter form a at 0x$site, bytes and rip@OFF as objdump" \
			"$(awk -v g="$g" '$1 == "site" && $2 == g { print $3, $4, $6, $7 }' entry.proof)" \
			"a $site $ob $len:rip@$((len - 4))"
	else
		fail "entry.c -fcf-protection=$prot built and proven" build.log
	fi
done

# --- Debian's binaries as shipped -------------------------------------------------------------
libc=$(ldd /bin/ls | awk '$1 == "libc.so.6" { print $3 }')
for f in /usr/bin/ls /usr/bin/sqlite3 /usr/bin/xz "$libc"; do
	n=${f##*/}
	if [ ! -f "$f" ]; then
		fail "$n: not installed (scripts/deps.sh installs it)"
		continue
	fi
	"$PV" --noflag --list "$f" >"$n.list" 2>"$n.err" || { fail "$n: --list" "$n.err"; continue; }
	if $ORACLE results "$n.list" >"$n.res" 2>&1; then
		pass "$n: every entry a site, a fragment or a named refusal ($(cat "$n.res"))"
	else
		fail "$n: every entry a site or named" "$n.res"
	fi
	if $ORACLE entries "$f" "$n.list" >"$n.ent" 2>&1; then
		pass "$n: entries are readelf's FDE starts and function symbols ($(cat "$n.ent"))"
	else
		fail "$n: entries as readelf" "$n.ent"
	fi
	fdes=$(readelf --debug-dump=frames "$f" 2>/dev/null | grep -c ' FDE cie=')
	"$PV" --noflag --summary "$f" >"$n.sum"
	expect "$n: FDE count equals readelf's" "$(sed -n 's/.* \([0-9]*\) FDEs;.*/\1/p' "$n.sum")" "$fdes"
	if "$PV" --noflag --proof "$n.proof" "$f" && "$RD" "$n.proof" >"$n.back" 2>"$n.rderr" &&
	   cmp -s "$n.proof" "$n.back"; then
		pass "$n: the proof file reads back whole (nf_read_*) and writes the same bytes"
	else
		fail "$n: proof read back" "$n.rderr"
	fi
	if $ORACLE bytes "$f" "$n.proof" >"$n.bytes" 2>&1; then
		pass "$n: $(cat "$n.bytes")"
	else
		fail "$n: site bytes as objdump" "$n.bytes"
	fi
	"$PV" --noflag --json "$f" >"$n.json"
	if python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["files"][0]
s = open(sys.argv[2]).read()
want = "%d entries, %d fragments, %d FDEs; form a %d, form b %d, form c %d, form p %d, refused %d" % (
    d["entries"], d["fragments"], d["fdes"], d["a"], d["b"], d["c"], d["p"], d["refused"])
sys.exit(0 if want in s and sum(d["checks"].values()) == d["refused"] else 1)' "$n.json" "$n.sum"; then
		pass "$n: --json says what --summary says"
	else
		fail "$n: --json and --summary" "$n.json"
	fi
done

# --- files it does not prove: one line, exit 2 ------------------------------------------------
# refuses NAME WANT-RE FILE...: exit 2 and one line on stderr naming the file and matching WANT-RE.
refuses() {
	name=$1 want=$2
	shift 2
	"$PV" --noflag "$@" >out.txt 2>err.txt
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q "$want" err.txt; then
		pass "$name"
	else
		echo "    exit $rc"
		fail "$name" err.txt
	fi
}
TV="$OLDPWD/testdata/verify"
refuses "aarch64 refused by name" "a64-exe: error: aarch64: not yet" "$TV/a64-exe"
refuses "i386 refused by name" "i386-exe: error: i386: not yet" "$TV/i386-exe"
refuses "a relocatable object refused by name" "x64-pfe.o: error: not an executable or shared object" \
	"$TV/x64-pfe.o"
head -c 200 /usr/bin/ls >truncated
refuses "a truncated ELF: one line, exit 2" "truncated: error:" truncated
echo 'not ELF' >text.txt
refuses "not ELF: one line, exit 2" "text.txt: error:" text.txt
refuses "--proof with two files refused" "give exactly one FILE" --proof x.proof /usr/bin/ls /usr/bin/xz
refuses "the other files are still proven" "text.txt: error:" text.txt /usr/bin/ls
if [ -s out.txt ] && grep -q '^/usr/bin/ls: ' out.txt; then pass "after a bad file, ls is proven"; else fail "after a bad file" out.txt; fi

# --- the sweep's quick decoder answers as Capstone does -----------------------------------------
# Oracle: Capstone itself (the decoder the sweep asks whenever the quick one declines), over every
# opcode of the one-byte and 0F maps, every ModRM byte and the prefix runs (nfquick_check.c).
if "$(dirname "$PV")/nfquick-check" >quick.out 2>&1; then
	pass "the quick decoder: $(tail -n 1 quick.out | sed 's/^nfquick-check: //')"
else
	fail "the quick decoder answers as Capstone does" quick.out
fi

# --- the commands man/patchverify.1 prints under NO-FLAG SITES, as printed --------------------
sed -n '/^\.SH NO-FLAG SITES/,/^\.SH [^N]/p' "$MAN" | sed -n 's/^\$ \(patchverify \\-\\-noflag\)/\1/p' |
	sed 's/\\-/-/g' >man.cmds
if [ "$(wc -l <man.cmds)" -ge 3 ]; then
	PATH="$(dirname "$PV"):$PATH"
	export PATH
	while read -r cmd; do
		if sh -c "$cmd" >man.out 2>&1; then pass "man: $cmd"; else fail "man: $cmd" man.out; fi
	done <man.cmds
else
	fail "man/patchverify.1 has its NO-FLAG SITES commands" man.cmds
fi

echo "noflag.sh: $PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
