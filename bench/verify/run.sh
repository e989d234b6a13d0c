#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# patchverify on an executable with N functions (default 100000), every
# site recorded by gcc -mrecord-mcount, against the alternative a user
# would script: objdump -d piped into awk, collecting the calls to
# __fentry__ and comparing them with the table's words.
#
#   sh bench/verify/run.sh BUILD_DIR        (N=... to change the size)
#
# The generated executable is kept in BUILD_DIR/bench/verify/ between runs.
set -eu
B=$1
N=${N:-100000}
P=$(cd "$B" && pwd)/patchverify
W=$B/bench/verify
mkdir -p "$W"
EXE=$W/fn$N

if [ ! -x "$EXE" ]; then
	echo "building $EXE ($N functions; takes a while once)"
	awk -v n="$N" 'BEGIN {
		for (i = 0; i < n; i++) printf "int f%d(int x) { return x * %d + 1; }\n", i, i
		printf "int main(int argc, char **argv) { (void)argv; return f0(argc) & 1; }\n" }' \
		> "$W/fn$N.c"
	gcc -O1 -fno-pie -pg -mfentry -mrecord-mcount -fno-asynchronous-unwind-tables \
		-c "$W/fn$N.c" -o "$W/fn$N.o"
	gcc -no-pie "$W/fn$N.o" -o "$EXE"
fi

# Best of 3 wall-clock seconds of a command.
best() {
	b=
	for i in 1 2 3; do
		s=$(date +%s.%N)
		"$@" > /dev/null 2>&1 || true
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
	done
	echo "$b"
}

# The scripted alternative: every call to __fentry__ from the disassembly,
# every word of __mcount_loc from a hex dump, and the difference.
scripted() {
	{ objdump -s -j __mcount_loc "$1" | awk 'NR > 4 { for (i = 2; i <= 5; i++) print "w", $i }'
	  objdump -d --no-show-raw-insn "$1" | awk '/call.*<__fentry__/ { sub(":", "", $1); print "c", $1 }'
	} | awk '$1 == "c" { c[$2] = 1; n++ } $1 == "w" { w++ } END { print n, w }'
}

"$P" --summary "$EXE" || true
text=$(readelf -SW "$EXE" | awk '$2 == ".text" { print strtonum("0x" $6) }' 2> /dev/null ||
	true)
[ -n "$text" ] || text=$(size -A "$EXE" | awk '$1 == ".text" { print $2 }')
tp=$(best "$P" "$EXE")
ts=$(best scripted "$EXE")
echo "patchverify: $tp s for $N functions, .text $text bytes:" \
	"$(echo "scale=1; $text / 1000000 / $tp" | bc) MB/s"
echo "objdump -d | awk: $ts s;  ratio $(echo "scale=1; $ts / $tp" | bc)x"
echo "target: < 0.5 s -> $( [ "$(echo "$tp < 0.5" | bc)" = 1 ] && echo met || echo MISSED)"
