#!/bin/sh
# recordmcount's command-line behaviour.  Each case runs in its own
# temporary directory.  Oracles: binutils (readelf, objdump, ld), the
# kernel's documented behaviour, and byte comparison with cmp; never our
# own earlier output.
#   usage: sh tests/recordmcount/run.sh BUILD_DIR
B=$(cd "${1:-build}" && pwd)
RMC=$B/recordmcount
TOP=$(pwd)
OBJ=$TOP/testdata/obj
DATA=$TOP/testdata/recordmcount
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary
suite_init recordmcount "$B"

check() {	# name, then a command that must succeed
	name=$1; shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}
fresh() { W=$(mktemp -d "$T/case.XXXXXX"); cd "$W" || exit 2; }
done_case() { cd "$TOP" || exit 2; [ -n "${KEEP:-}" ] || rm -rf "$W"; }
# The table as "symbol+addend" lines, from readelf (RELA objects).
table() { readelf -rW "$1" | sed -n '/__mcount_loc/,$p' | awk '/R_/ {print $5, $6, $7}'; }
no_temp_left() { [ -z "$(ls -A . | grep '^\.')" ]; }

# --- usage -----------------------------------------------------------------
fresh
"$RMC" >out 2>err; rc=$?
check "no argument: exit 2 and says why" sh -c "[ $rc = 2 ] && grep -q 'no input file' err"
"$RMC" --bogus x.o >out 2>err; rc=$?
check "unknown option: exit 2" [ $rc = 2 ]
"$RMC" --help >out 2>err; rc=$?
check "--help: exit 0, usage on stdout" sh -c "[ $rc = 0 ] && grep -q '^usage: recordmcount' out"
"$RMC" --version >out; rc=$?
check "--version names every arch" sh -c "[ $rc = 0 ] && grep -q 'x86_64 .*riscv64' out"
cp "$OBJ/x86_64/fentry.o" a.o; cp a.o b.o
"$RMC" -o c.o a.o b.o 2>err; rc=$?
check "-o with two inputs: exit 2, nothing written" sh -c "[ $rc = 2 ] && [ ! -e c.o ] && cmp -s a.o b.o"
done_case

# --- kbuild compatibility --------------------------------------------------
fresh
mkdir -p kernel/trace && cp "$OBJ/x86_64/fentry.o" kernel/trace/ftrace.o && cp kernel/trace/ftrace.o orig.o
"$RMC" kernel/trace/ftrace.o; rc=$?
check "path ending in /ftrace.o is skipped" sh -c "[ $rc = 0 ] && cmp -s orig.o kernel/trace/ftrace.o"
cp "$OBJ/x86_64/fentry.o" a.o && "$RMC" a.o && cp a.o once.o
touch -d 2001-01-01 a.o
"$RMC" a.o 2>err; rc=$?
check "second run: exit 0, warning, file untouched" \
	sh -c "[ $rc = 0 ] && grep -q 'already exists' err && cmp -s a.o once.o && [ \$(stat -c %Y a.o) = 978307200 ]"
done_case

# --- no state carried from one file to the next (the kernel tool's bug) ----
fresh
cp "$OBJ/x86_64/fentry.o" x.o; cp "$OBJ/aarch64/pg.o" a.o; cp "$OBJ/ppc64le/pg.o" p.o
cp x.o x1.o; cp a.o a1.o; cp p.o p1.o
"$RMC" x.o a.o p.o && "$RMC" x1.o && "$RMC" a1.o && "$RMC" p1.o
check "x86_64 + aarch64 + ppc64le in one call = each alone" \
	sh -c "cmp -s x.o x1.o && cmp -s a.o a1.o && cmp -s p.o p1.o"
check "  and each has its table" [ -n "$(table x.o)" -a -n "$(table a.o)" -a -n "$(table p.o)" ]
done_case

# --- writing ---------------------------------------------------------------
fresh
cp "$OBJ/x86_64/fentry.o" a.o && cp a.o orig.o && chmod 640 a.o
"$RMC" -o out.o a.o; rc=$?
t=$(table out.o)
check "-o: input untouched, output has the table" \
	sh -c "[ $rc = 0 ] && cmp -s a.o orig.o && [ -n '$t' ]"
cp orig.o b.o && chmod 640 b.o && "$RMC" b.o
check "-o and in place give the same bytes" cmp -s out.o b.o
check "mode kept" [ "$(stat -c %a b.o)" = 640 ]
if [ "$(id -u)" = 0 ]; then
	cp orig.o own.o && chown nobody:nogroup own.o && "$RMC" own.o
	check "owner kept (root rewriting a user's object)" [ "$(stat -c %U:%G own.o)" = nobody:nogroup ]
fi
cp orig.o c.o && "$RMC" c.o
check "deterministic: same input, same bytes" cmp -s b.o c.o
check "no temporary file left" no_temp_left
ino=$(stat -c %i orig.o); "$RMC" -n orig.o
check "--dry-run writes nothing" [ "$(stat -c %i orig.o)" = "$ino" -a -z "$(table orig.o)" ]
check "output links (ld -r)" ld -r b.o -o linked.o
done_case

# --- --list and --json -----------------------------------------------------
fresh
cp "$OBJ/x86_64/sections.o" a.o
"$RMC" --list a.o >list; rc=$?
cp a.o r.o && "$RMC" r.o
check "--list: one 'recorded' line per table entry" \
	[ $rc = 0 -a "$(grep -c 'recorded$' list)" = "$(table r.o | wc -l)" ]
check "--list: untraced calls listed too" grep -q 'untraced$' list
"$RMC" --json a.o r.o >json 2>/dev/null
check "--json is one valid document" python3 -c "
import json, sys
d = json.load(open('json'))
assert d['files'][0]['recorded'] == len([s for s in d['files'][0]['sites'] if s['recorded']])
assert d['files'][0]['arch'] == 'x86_64'
"
done_case

# --- --nop-all -------------------------------------------------------------
fresh
cp "$OBJ/x86_64/fentry.o" a.o
"$RMC" --nop-all a.o; rc=$?
check "--nop-all (x86_64): no call to __fentry__ left, table kept" \
	sh -c "[ $rc = 0 ] && ! objdump -dr a.o | grep -q 'R_X86_64_PLT32.*__fentry__'" 
check "  table kept, every site is nopl 0x0(%rax,%rax,1) (0f 1f 44 00 00)" \
	[ -n "$(table a.o)" -a "$(objdump -d a.o | grep -c '0f 1f 44 00 00')" -ge "$(table a.o | wc -l)" ]
cp "$OBJ/ppc64le/pg.o" p.o && cp p.o porig.o
"$RMC" --nop-all p.o 2>err; rc=$?
check "--nop-all on ppc64: refused by name, file untouched" \
	sh -c "[ $rc = 1 ] && grep -q 'not supported on ppc64' err && cmp -s p.o porig.o"
done_case

# --- user-space links (oracle: ld) -----------------------------------------
fresh
printf '%s\n' '__attribute__((section("mysec"))) int u1(int x) { return x + 1; }' \
	'int main(void) { return u1(0); }' > u.c
gcc -O2 -pg -mfentry -c u.c -o u.o && "$RMC" u.o
check "PIE links after an untraced call became a NOP (R_X86_64_NONE, no symbol)" \
	sh -c "gcc u.o -o u 2>/dev/null && readelf -rW u.o | grep -q 'R_X86_64_NONE  *-4'"
gcc -O2 -fno-pie -pg -mfentry -c u.c -o n.o && "$RMC" --nop-all n.o
check "--nop-all output links" sh -c "gcc -no-pie n.o -o n 2>/dev/null && ./n; [ \$? = 1 ]"
done_case

# C++: an inline template compiled into two objects is a COMDAT group in
# each; ld keeps one copy and discards the other group.  A table entry
# outside the group would point into the discarded copy ("defined in
# discarded section", as gcc's own -mrecord-mcount fails today), so its
# entries get a __mcount_loc of their own inside the group.  Oracles: ld,
# readelf -g, and objdump -d of the program (one table word per function
# that calls __fentry__).
fresh
printf '%s\n' 'template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }' \
	'int fa(int x) { return twice(x); }' > a.cc
printf '%s\n' 'template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }' \
	'int fa(int); int fb(int x) { return twice(x) + 1; }' \
	'int main() { return fa(1) + fb(2) - 7; }' > b.cc
g++ -O1 -fno-pie -pg -mfentry -c a.cc b.cc && cp b.o b0.o && "$RMC" a.o b.o
check "C++ COMDAT: the group's table is a member of the group" \
	sh -c "readelf -gW b.o | sed -n '/_Z5twiceIiET_S0_/,/^\$/p' | grep -q '__mcount_loc'"
check "C++ COMDAT: a section outside any group keeps its one table" \
	sh -c "[ \$(readelf -SW b.o | grep -c ' __mcount_loc .* A  ') = 1 ]"
if g++ -no-pie a.o b.o -o ab 2>err && ./ab; then
	words=$(($(readelf -SW ab | awk '$2 == "__mcount_loc" { print "0x" $6 }') / 8))
	calls=$(objdump -d ab | grep -c 'call.*<__fentry__')
	check "C++ COMDAT: links, runs, one entry per traced function ($words = $calls)" \
		[ "$words" = "$calls" ]
else
	fail "C++ COMDAT: the recorded objects link and run: $(head -1 err)"
fi
cp "$DATA/comdat-x86_64.o" c.o && "$RMC" c.o
check "C++ COMDAT: two groups, two group tables, one plain table (readelf -g)" \
	sh -c "[ \$(readelf -gW c.o | grep -c '__mcount_loc') = 4 ] && \
	       [ \$(readelf -SW c.o | grep -c ' __mcount_loc ') = 3 ]"
done_case

# --- rejected input --------------------------------------------------------
fresh
as "$DATA/badcalls.s" -o bad.o && cp bad.o orig.o
"$RMC" bad.o 2>err; rc=$?
check "jmp/mov of the hook: exit 1, each place named, file untouched" \
	sh -c "[ $rc = 1 ] && grep -q 'tail+0x0 (.text+0x0): R_X86_64_PLT32 against __fentry__ is a jump (tail call), not a call' err && grep -q 'addr+0x3 (.text+0x8): R_X86_64_32S against __fentry__ is a relocation type that no call uses' err && cmp -s bad.o orig.o"
cp "$OBJ/x86_64/fentry.o" good.o
"$RMC" bad.o good.o 2>/dev/null; rc=$?
check "a bad file does not stop the next one" [ $rc = 1 -a -n "$(table good.o)" ]
printf 'int main(void){return 0;}\n' > m.c && gcc -pg -mfentry -c m.c -o m.o && gcc m.o -o m
"$RMC" m 2>err; rc=$?
check "executable: exit 1, 'not a relocatable object'" sh -c "[ $rc = 1 ] && grep -q 'not a relocatable object' err"
cp "$OBJ/x86_64/fentry.o" la.o
printf '\002\001' | dd of=la.o bs=1 seek=18 conv=notrunc 2>/dev/null	# e_machine = 258
"$RMC" la.o 2>err; rc=$?
check "unsupported arch named: loongarch" sh -c "[ $rc = 1 ] && grep -q 'unsupported architecture: loongarch (e_machine 258, 64-bit)' err"
"$RMC" missing.o 2>err; rc=$?
check "missing file: exit 2, one line" sh -c "[ $rc = 2 ] && [ \$(wc -l < err) = 1 ] && grep -q 'missing.o: error: No such file' err"
done_case

# --- where the kernel's tool is wrong ---------------------------------------
fresh
cp "$DATA/relax-riscv64.o" r.o
"$RMC" r.o && riscv64-linux-gnu-ld -o r.elf r.o -e _start
python3 - r.elf >cmp.out <<'PY'
# Oracle: the calls to _mcount in riscv64-linux-gnu-objdump's disassembly of
# the linked file, against the table readelf shows there.
import re, subprocess, sys
f = sys.argv[1]
dump = subprocess.run(['readelf', '-x', '__mcount_loc', f], capture_output=True, text=True).stdout
words = []
for line in dump.splitlines():
    m = re.match(r'\s+0x[0-9a-f]+ ((?:[0-9a-f]{8} ){1,4})', line + ' ')
    if m:
        hx = m.group(1).replace(' ', '')
        words += [int.from_bytes(bytes.fromhex(hx[i:i + 16]), 'little') for i in range(0, len(hx), 16)]
dis = subprocess.run(['riscv64-linux-gnu-objdump', '-d', f], capture_output=True, text=True).stdout
calls = [int(l.split(':')[0], 16) for l in dis.splitlines() if l.rstrip().endswith('<_mcount>')]
print(sorted(words) == sorted(calls) and len(calls) > 3)
PY
check "riscv64 after linker relaxation: every entry is a call" grep -q True cmp.out
done_case

# --- --pie-table ------------------------------------------------------------
# A PIE and a shared library whose objects get a place-relative table link
# with -z text (ld refuses the default table there: "read-only segment has
# dynamic relocations", the oracle that the test can fail); readelf -d shows
# no TEXTREL and readelf -r no dynamic relocation on the table; patchverify
# finds every site (as many as the objects' __fentry__ relocations, readelf
# -r) and libpatchsite traces them (the same trace as tests/patchsite's
# uselib, testdata/patchsite/expected/uselib.function).
fresh
PSRC=$TOP/testdata/patchsite
PV=$B/patchverify
PRELOAD=$B/libpatchsite.so
if readelf -d "$PRELOAD" 2>/dev/null | grep -q libasan; then	# SAN=1 build
	PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so) $PRELOAD"
fi
gcc -O2 -pg -mfentry -fPIC -c "$PSRC/libwork.c" -o libwork.o &&
gcc -O2 -pg -mfentry -fpie -c "$PSRC/uselib.c" -o uselib.o &&
cp libwork.o libwork-abs.o && cp uselib.o uselib-abs.o &&
"$RMC" libwork-abs.o uselib-abs.o && "$RMC" --pie-table libwork.o uselib.o; rc=$?
check "--pie-table: exit 0" [ $rc = 0 ]
check "--pie-table: 32-bit place-relative entries against local symbols" sh -c \
	"readelf -rW libwork.o | sed -n '/__mcount_loc_pcrel/,/^\$/p' |
	 awk '/R_X86_64/ { n++; if (\$3 != \"R_X86_64_PC32\" || \$5 !~ /^\\./) bad = 1 }
	      END { exit !(n == 2 && !bad) }'"
check "--pie-table: the entries name the sites the default table does" sh -c \
	"[ \"\$(readelf -rW libwork.o | sed -n '/__mcount_loc_pcrel/,/^\$/p' | awk '/R_X86/ {print \$5, \$6, \$7}')\" = \
	   \"\$(readelf -rW libwork-abs.o | sed -n '/__mcount_loc/,/^\$/p' | awk '/R_X86/ {print \$5, \$6, \$7}')\" ]"
gcc -shared -Wl,-z,text libwork-abs.o -o libabs.so 2>ld-abs.err; rc=$?
check "default table: ld -z text refuses the shared library" sh -c \
	"[ $rc != 0 ] && grep -q 'read-only segment has dynamic relocations' ld-abs.err"
gcc -shared -Wl,-z,text libwork.o -o libwork.so 2>ld.err &&
gcc -pie -Wl,-z,text uselib.o ./libwork.so -Wl,-rpath,"$PWD" -o uselib 2>>ld.err; rc=$?
check "--pie-table: ld -z text links the shared library and the PIE, no warning" \
	sh -c "[ $rc = 0 ] && [ ! -s ld.err ]"
check "--pie-table: no TEXTREL, no dynamic relocation on the table" sh -c '
	for f in libwork.so uselib; do
		readelf -dW $f | grep -q TEXTREL && exit 1
		set -- $(readelf -SW $f | awk "/__mcount_loc_pcrel/ { print \$4, \$6 }")
		lo=$((0x$1)) hi=$((0x$1 + 0x$2))
		readelf -rW $f | awk -v lo=$lo -v hi=$hi "/^[0-9a-f]+ / {
			v = 0; for (i = 1; i <= length(\$1); i++)
				v = v * 16 + index(\"0123456789abcdef\", substr(\$1, i, 1)) - 1
			if (v >= lo && v < hi) bad = 1 } END { exit bad }" || exit 1
	done'
check "patchverify: both clean, every call relocation a site" sh -c \
	"\"$PV\" libwork.so uselib >pv.out 2>pv.err &&
	 [ ! -s pv.err ] &&
	 [ \$(\"$PV\" --list libwork.so uselib | awk -F'\t' '\$6 == \"call\"' | wc -l) = \
	   \$(readelf -rW libwork.o uselib.o | grep -c 'R_X86_64_.*__fentry__') ]"
LD_PRELOAD="$PRELOAD" PATCHSITE_TRACER=function PATCHSITE_OUTPUT=trace ./uselib >out 2>err; rc=$?
sed -E -e 's/^ *[^ ]+-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]+:/TASK-PID [CPU] TIME:/' \
	-e 's/0x[0-9a-f]+/ADDR/g' -e 's/#P:[0-9]+/#P:N/' trace > trace.norm 2>/dev/null
check "libpatchsite traces the --pie-table PIE and library" sh -c \
	"[ $rc = 0 ] && [ ! -s err ] && diff -u \"$PSRC/expected/uselib.function\" trace.norm"
# Arches without a place-relative data relocation here: refused by name.
cp "$OBJ/i386/fentry.o" i.o && cp i.o i0.o
"$RMC" --pie-table i.o 2>err; rc=$?
check "--pie-table on i386: exit 1, says why, file untouched" \
	sh -c "[ $rc = 1 ] && grep -q 'pie-table is not supported on i386' err && cmp -s i.o i0.o"
# aarch64 (no cross linker needed): R_AARCH64_PREL32 entries, audited clean.
cp "$OBJ/aarch64/pg.o" a.o && cp a.o a-abs.o && "$RMC" --pie-table a.o && "$RMC" a-abs.o; rc=$?
check "--pie-table on aarch64: R_AARCH64_PREL32, same sites, patchverify clean" sh -c \
	"[ $rc = 0 ] && [ \"\$(readelf -rW a.o | sed -n '/__mcount_loc_pcrel/,/^\$/p' | awk '/R_AARCH64_PREL32/ {print \$5, \$6, \$7}')\" = \
	   \"\$(readelf -rW a-abs.o | sed -n '/__mcount_loc/,/^\$/p' | awk '/R_AARCH64_ABS64/ {print \$5, \$6, \$7}')\" ] &&
	 \"$PV\" a.o && [ -z \"\$(\"$PV\" a.o 2>&1)\" ]"
done_case

summary
