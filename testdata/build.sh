#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the golden objects and their expected tables.
#
#   sh testdata/build.sh            rebuild every small case; the two big
#                                   objects only if missing
#   BIG=1 sh testdata/build.sh      rebuild the big ones too (several minutes;
#                                   BIG=mips or BIG=x86_64 rebuilds just one)
#
# Writes testdata/obj/<arch>/<case>.o (big ones as .o.xz), the expected
# tables testdata/expected/<arch>/<case>.sites (big ones as .sites.xz) and
# .nops, and testdata/obj/VERSIONS (every command and compiler version).
# Needs the Debian cross compilers, clang 14 and linux-kbuild-6.1; `make
# check` needs none of them, only the committed results.
#
# The expected tables come from independent oracles only, never from our
# recordmcount:
#   gcc   gcc's own table: the same compile plus -mrecord-mcount, read with
#         tests/mcloc.py and restricted to the traced sections
#   rel   the relocation list (testdata/relsites.py): relocations against
#         the hook with the call relocation type, mapped to the first byte
#         of the call by the documented encoding
# Each case also runs the other oracle where it exists, and the kernel's
# recordmcount (linux-kbuild-6.1) on a copy: an oracle that disagrees
# without a recorded reason stops the build.  The header of every expected
# file says which oracle made it and how the others compared.
# Flag lists ($X86, $MIPS...) are split into words on purpose.
# shellcheck disable=SC2086
set -eu
cd "$(dirname "$0")"

RMC=${KERNEL_RECORDMCOUNT:-/usr/lib/linux-kbuild-6.1/scripts/recordmcount}
PY=${PYTHON:-python3}
export LC_ALL=C
# No __pycache__ next to the sources.
export PYTHONDONTWRITEBYTECODE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

TRACED='^(\.text|\.init\.text\+|\.ref\.text\+|\.sched\.text\+|\.spinlock\.text\+|\.irqentry\.text\+|\.softirqentry\.text\+|\.kprobes\.text\+|\.cpuidle\.text\+)'
KVER=$(dpkg-query -W -f '${Version}' linux-kbuild-6.1 2>/dev/null || echo unknown)
NOP_ARCHES=" x86_64 i386 arm aarch64 "

mkdir -p obj expected
versions=$tmp/VERSIONS
compilers=$tmp/compilers
: >"$compilers"
cat >"$versions" <<EOF
# Made by testdata/build.sh on $(date -u +%Y-%m-%d).  Every golden object,
# the command that made it (run in testdata/), and the tools involved.
# readelf: $(readelf --version | head -n1)
# kernel recordmcount oracle: $RMC (linux-kbuild-6.1 $KVER)
# python: $($PY --version 2>&1)
EOF

die() {
	echo "build.sh: $*" >&2
	exit 1
}

note_compiler() {
	grep -qx "$1" "$compilers" || echo "$1" >>"$compilers"
}

# Sorted site list of a file, without comment lines.
sites_of() {
	grep -v '^#' "$1" | sort
}

# mk ARCH CASE SRC ORACLE CCREC KNOTE CC FLAGS...
#   ORACLE  gcc or rel: which oracle writes the expected table
#   CCREC   "-" not available; "agree": gcc's table must equal the relocation
#           oracle; any other text: the reason the two differ
#   KNOTE   "agree": the kernel's recordmcount must give the same table and
#           NOPs; any other text: the known reason it does not
# With EXPECT set, the tool must refuse the object (exit status non-zero,
# file unchanged); the table still lists the sites the oracle sees.
EXPECT=
mk() {
	arch=$1 case=$2 src=$3 oracle=$4 ccrec=$5 knote=$6
	shift 6
	cc=$1
	shift
	o=obj/$arch/$case.o
	mkdir -p "obj/$arch" "expected/$arch"
	"$cc" "$@" -c "src/$src" -o "$o" || die "$arch/$case: compile failed"
	note_compiler "$cc"
	echo "$arch/$case: $cc $* -c src/$src -o $o" >>"$versions"
	oracles "$arch" "$case" "$o" "$oracle" "$ccrec" "$knote" "$cc $* -c src/$src -o $o" \
		"$cc" "src/$src" "$@"
}

# oracles ARCH CASE OBJ ORACLE CCREC KNOTE CMDLINE CC SRC FLAGS...
oracles() {
	arch=$1 case=$2 o=$3 oracle=$4 ccrec=$5 knote=$6 cmdline=$7 cc=$8 src=$9
	shift 9
	d=$tmp/$arch-$case
	mkdir -p "$d"
	exp=expected/$arch/$case.sites

	$PY relsites.py --all "$o" >"$d/relall" || die "$arch/$case: relsites failed"
	sed -n 's/^T //p' "$d/relall" >"$d/rel"
	sed -n 's/^U //p' "$d/relall" >"$d/rel.untraced"
	sed -n 's/^N //p' "$d/relall" >"$d/nops"
	untraced=$(sed 's/+0x.*//' "$d/rel.untraced" | sort -u | tr '\n' ' ' | sed 's/ $//')

	ccline=
	if [ "$ccrec" != - ]; then
		"$cc" "$@" -mrecord-mcount -c "$src" -o "$d/cc.o" ||
			die "$arch/$case: -mrecord-mcount compile failed"
		$PY ../tests/mcloc.py "$d/cc.o" >"$d/cc.all"
		grep -E "$TRACED" "$d/cc.all" >"$d/cc" || true
		grep -vE "$TRACED" "$d/cc.all" >"$d/cc.untraced" || true
		if cmp -s "$d/cc" "$d/rel" && cmp -s "$d/cc.untraced" "$d/rel.untraced"; then
			ccstate=agrees
		elif [ "$ccrec" = agree ]; then
			diff -u "$d/rel" "$d/cc" >&2 || true
			die "$arch/$case: gcc -mrecord-mcount and the relocation list disagree"
		else
			ccstate="differs: $ccrec"
		fi
		ccline="# gcc -mrecord-mcount (same command plus -mrecord-mcount): $ccstate"
	fi
	case $oracle in
	gcc)
		cp "$d/cc" "$d/expected"
		tag=gcc-mrecord-mcount
		what="gcc's own table: the same command plus -mrecord-mcount, read with tests/mcloc.py, traced sections only"
		;;
	rel)
		cp "$d/rel" "$d/expected"
		tag=relocations
		what="the relocation list: testdata/relsites.py --traced (readelf -rW, hook symbol, call relocation type, documented encoding)"
		;;
	*) die "$arch/$case: unknown oracle $oracle" ;;
	esac
	[ -s "$d/expected" ] || die "$arch/$case: no traced site at all"

	kernel_run "$d" "$o"

	{
		echo "# golden case $arch/$case: testdata/$o"
		echo "# compiled (in testdata/): $cmdline"
		echo "# oracle: $what"
		echo "# tag: $tag"
		if [ "$oracle" = gcc ]; then
			echo "# relocation list (testdata/relsites.py --traced): agrees"
		elif [ -n "$ccline" ]; then
			echo "$ccline"
			[ "$ccstate" = agrees ] || sed 's/^/#   gcc> /' "$d/cc"
		fi
		kernel_lines "$arch/$case" "$d" "$knote"
		[ -z "$EXPECT" ] || echo "# expect: failure: $EXPECT"
		echo "# untraced: $untraced"
		cat "$d/expected"
	} >"$exp"

	nops=expected/$arch/$case.nops
	rm -f "$nops"
	case $NOP_ARCHES in
	*" $arch "*)
		if [ -s "$d/nops" ]; then
			{
				echo "# golden NOP sites $arch/$case: calls in untraced sections that the tool"
				echo "# must turn into NOPs: section+0xstart, the bytes in file order, and the"
				echo "# type its relocation (at section+r_offset) must have afterwards."
				echo "# oracle: testdata/relsites.py --nops (relocation list + documented NOP encodings)"
				echo "# kernel recordmcount $KVER: $knop"
				cat "$d/nops"
			} >"$nops"
		fi
		;;
	esac
	echo "  $arch/$case: $tag, kernel: $kstate"
}

# Run the kernel's tool on a copy; sets kstate, knop and $d/kernel*.
kernel_run() {
	cp "$2" "$1/k.o"
	set +e
	"$RMC" "$1/k.o" >"$1/kernel.out" 2>&1
	krc=$?
	set -e
	$PY ../tests/mcloc.py "$1/k.o" >"$1/kernel" 2>/dev/null || true
	knop=agrees
	if [ -s "$1/nops" ] && ! $PY ../tests/golden/check.py nops "$1/k.o" "$1/nops" \
		>"$1/kernel.nops"; then
		knop="differs: $(head -n1 "$1/kernel.nops")"
	fi
	if [ $krc -eq 0 ] && cmp -s "$1/kernel" "$1/expected" && [ "$knop" = agrees ]; then
		kstate=agrees
	else
		kstate=differs
	fi
}

kernel_lines() {
	if [ "$kstate" = agrees ]; then
		[ "$3" = agree ] || echo "build.sh: warning: $1: kernel tool agrees, but the case says: $3" >&2
		echo "# kernel recordmcount $KVER: agrees"
		return
	fi
	[ "$3" != agree ] || {
		cat "$2/kernel.out" >&2
		diff -u "$2/expected" "$2/kernel" >&2 || true
		die "$1: the kernel's recordmcount disagrees and no reason is recorded"
	}
	echo "# kernel recordmcount $KVER: differs: $3"
	echo "#   kernel exit status $krc$( [ -s "$2/kernel.out" ] &&
		printf '; said: %s' "$(head -n2 "$2/kernel.out" | sed "s|$2/||g" | tr '\n' ' ')")"
	if ! cmp -s "$2/kernel" "$2/expected"; then
		if [ -s "$2/kernel" ]; then
			sed 's/^/#   kernel> /' "$2/kernel"
		else
			echo "#   kernel> (no table)"
		fi
	fi
	[ "$knop" = agrees ] || echo "#   kernel NOPs: $knop"
}

X86="-O2 -fno-pie -mcmodel=kernel -mno-red-zone"
NOUNW=-fno-asynchronous-unwind-tables
PIEK="records site+1 for the 6-byte ff 15 GOT call (its -1 adjust assumes e8) and cannot NOP it"
I386K="cannot NOP on i386: its make_nop wants e8 00 00 00 00, but REL objects hold the addend (e8 fc ff ff ff)"
WEAKK="no non-weak symbol and no section symbol in .text: Cannot find symbol for section"
MIPSFS="its MIPS fake-call filter keeps the previous r_offset across sections and drops a real call at previous+4"
S390K="subtracts 14 from every r_offset, which fits no gcc-12 code"
S390CC="gcc records the start of the stg/brasl/lg profiling block, 6 bytes before the brasl"

echo "x86_64"
mk x86_64 fentry t.c gcc agree agree gcc $X86 -pg -mfentry
mk x86_64 pg t.c gcc agree agree gcc $X86 -pg
mk x86_64 ffs t.c gcc agree agree gcc $X86 -ffunction-sections -pg -mfentry
mk x86_64 cet t.c gcc agree agree gcc $X86 -fcf-protection=branch -pg -mfentry
mk x86_64 nounwind t.c gcc agree agree gcc $X86 $NOUNW -pg -mfentry
mk x86_64 sections sections.c gcc agree agree gcc $X86 -pg -mfentry
mk x86_64 pie t.c gcc agree "$PIEK" gcc -O2 -mno-red-zone -pg -mfentry
mk x86_64 clang t.c rel - agree clang $X86 $NOUNW -pg -mfentry
mk x86_64 weakonly weakonly.c gcc agree "$WEAKK" gcc $X86 $NOUNW -pg -mfentry

# An object gcc already gave a table: the tool must leave it as it is.
o=obj/x86_64/gccrec.o
gcc $X86 -pg -mfentry -mrecord-mcount -c src/t.c -o $o
echo "x86_64/gccrec: gcc $X86 -pg -mfentry -mrecord-mcount -c src/t.c -o $o" >>"$versions"
{
	echo "# golden case x86_64/gccrec: testdata/$o"
	echo "# compiled (in testdata/): gcc $X86 -pg -mfentry -mrecord-mcount -c src/t.c -o $o"
	echo "# oracle: the table gcc put in the object itself (all sections), read with tests/mcloc.py;"
	echo "# the tool must exit 0 and leave the file byte for byte as it is."
	echo "# tag: gcc-mrecord-mcount"
	echo "# untouched: yes"
	cp $o "$tmp/g.o"
	"$RMC" "$tmp/g.o" >/dev/null 2>&1 && cmp -s $o "$tmp/g.o" &&
		echo "# kernel recordmcount $KVER: agrees (warning: __mcount_loc already exists, rc 0)"
	$PY ../tests/mcloc.py $o
} >expected/x86_64/gccrec.sites
echo "  x86_64/gccrec: untouched"

echo "i386"
I386="-O2 -m32 -fno-pie"
mk i386 fentry t.c gcc agree "$I386K" i686-linux-gnu-gcc $I386 -pg -mfentry
mk i386 pg t.c gcc agree "$I386K" i686-linux-gnu-gcc $I386 -pg
mk i386 pie t.c gcc agree "records site+1 for the 6-byte ff 93 GOT call (its -1 adjust assumes e8) and cannot NOP it" \
	i686-linux-gnu-gcc -O2 -m32 -pg
mk i386 weakonly weakonly.c gcc agree "$WEAKK" i686-linux-gnu-gcc $I386 $NOUNW -pg -mfentry

echo "aarch64"
A64="-O2 -fno-pie $NOUNW -mbranch-protection=none"
mk aarch64 pg t.c rel - agree aarch64-linux-gnu-gcc $A64 -pg
mk aarch64 sections sections.c rel - agree aarch64-linux-gnu-gcc $A64 -pg
mk aarch64 weakonly weakonly.c rel - agree aarch64-linux-gnu-gcc $A64 -pg

echo "arm"
ARM="-O2 -fno-pie $NOUNW"
mk arm arm t.c rel - agree arm-linux-gnueabihf-gcc $ARM -marm -pg
mk arm thumb t.c rel - agree arm-linux-gnueabihf-gcc $ARM -mthumb -pg

MIPS="-O2 -fno-pic -mno-abicalls -G 0"
for m in mips:mips-linux-gnu mipsel:mipsel-linux-gnu mips64:mips64-linux-gnuabi64 \
	mips64el:mips64el-linux-gnuabi64; do
	arch=${m%%:*}
	mcc=${m#*:}-gcc
	echo "$arch"
	mk "$arch" pg t.c rel - agree "$mcc" $MIPS -pg
	mk "$arch" longcalls t.c rel - agree "$mcc" $MIPS -mlong-calls -pg
	mk "$arch" ffs shapes.c rel - "$MIPSFS" "$mcc" $MIPS -ffunction-sections -pg
	case $arch in
	mips64*) lk=agree ;;	# HIGHEST..LO16 spans 12 bytes: no section's call is at previous+4
	*) lk=$MIPSFS ;;
	esac
	mk "$arch" ffs-longcalls shapes.c rel - "$lk" "$mcc" $MIPS -ffunction-sections -mlong-calls -pg
done

echo "powerpc"
mk ppc32 pg t.c rel - agree powerpc-linux-gnu-gcc -O2 -fno-pie -pg
mk ppc64 pg t.c rel - agree powerpc64-linux-gnu-gcc -O2 -fno-pie -pg
mk ppc64le pg t.c rel - agree powerpc64le-linux-gnu-gcc -O2 -fno-pie -pg
mk ppc64le mprofile t.c rel - agree powerpc64le-linux-gnu-gcc -O2 -fno-pie -pg -mprofile-kernel

echo "others"
mk sparc64 pg t.c rel - agree sparc64-linux-gnu-gcc -O2 -fno-pie -pg
mk s390x fentry t.c gcc agree "$S390K" s390x-linux-gnu-gcc -O2 -pg -mfentry
mk s390x pg t.c rel "$S390CC" "$S390K" s390x-linux-gnu-gcc -O2 -pg
mk sh4 pg t.c rel - agree sh4-linux-gnu-gcc -O2 -fno-pie -pg
RVK="refuses the machine: unrecognized e_machine 243"
mk riscv64 pg t.c rel - "$RVK" riscv64-linux-gnu-gcc -O2 -fno-pie -mno-relax -pg
# With linker relaxation (the default) code may shrink between a symbol and
# a call after it, so symbol+offset is only safe from a symbol with no
# relaxable code before the call (the runner checks this); weak wfun may not
# serve, and the section symbol spans relaxable calls.
mk riscv64 relax t.c rel - "$RVK" riscv64-linux-gnu-gcc -O2 -fno-pie -pg

# Two objects of 34 000 one-line functions, each in its own section: 68 000+
# sections, so SHN_XINDEX everywhere.  Kept compressed.
big() {
	arch=$1 cc=$2 oracle=$3 ccrec=$4 knote=$5
	shift 5
	o=obj/$arch/big.o
	cmdline="sh src/genbig.sh 34000 >big.c && $cc $* -c big.c -o $o && xz -9 -T1 $o"
	echo "$arch/big: $cmdline" >>"$versions"
	note_compiler "$cc"
	if [ -f "$o.xz" ] && [ "${BIG:-0}" != 1 ] && [ "${BIG:-0}" != "$arch" ]; then
		echo "  $arch/big: kept (BIG=1 rebuilds it)"
		return
	fi
	sh src/genbig.sh 34000 >"$tmp/big.c"
	(cd "$tmp" && "$cc" "$@" -c big.c -o big.o) || die "$arch/big: compile failed"
	cp "$tmp/big.o" "$o"
	oracles "$arch" big "$o" "$oracle" "$ccrec" "$knote" "$cmdline" "$cc" "$tmp/big.c" "$@"
	xz -9 -T1 -c "$o" >"$o.xz"
	xz -9 -T1 -c expected/$arch/big.sites >expected/$arch/big.sites.xz
	rm -f "$o" expected/$arch/big.sites
}
big x86_64 gcc gcc agree agree -O1 -fno-pie -mcmodel=kernel $NOUNW -ffunction-sections -pg -mfentry
big mips mips-linux-gnu-gcc rel - "crashes (SIGSEGV) on a big-endian object with SHN_XINDEX symbols" \
	-O1 -fno-pic -mno-abicalls -G 0 -ffunction-sections -pg

{
	echo "#"
	echo "# compilers:"
	while read -r c; do
		echo "#   $c: $("$c" --version | head -n1)"
	done <"$compilers"
} >>"$versions"
cp "$versions" obj/VERSIONS
echo "done: $(find obj -name "*.o" -o -name "*.o.xz" | wc -l) objects, $(du -sh obj | cut -f1)"
