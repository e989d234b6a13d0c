#!/bin/bash
# make check-kernel: our recordmcount and patchverify on a real Linux 6.1 build.
#
# For each arch in KERNEL_ARCHES (default: arm powerpc mips x86_64) the Debian
# linux-source-6.1 tree is configured with FUNCTION_TRACER + DYNAMIC_FTRACE
# and the directories in KERNEL_DIRS (default: kernel mm lib) are built out of
# tree under BUILD/kernel/out/ARCH.
#   arm, powerpc, mips: Kbuild runs $(objtree)/scripts/recordmcount on each C
#     object.  After `make prepare` that binary is kept aside as
#     scripts/recordmcount.kernel and replaced by wrapper.sh, which runs the
#     kernel's tool on a copy and ours on the real object (the build goes on
#     with ours); compare.py then matches the two outputs object by object.
#   x86_64: gcc makes the table (-mrecord-mcount); compare.py strips it from a
#     copy, runs ours and checks the same sites within the traced sections.
# patchverify runs on every object we produced.  A per-arch summary is printed;
# the exit status is 1 on any unexplained mismatch or failed build.
#
#   usage: bash tests/kernel/run.sh [BUILD_DIR]
#   env:   KERNEL_ARCHES, KERNEL_DIRS, KERNEL_JOBS (default 2), KERNEL_NICE (19)
# Not on lib.sh's suite_init: a bash build driver whose kernel trees and per-arch tables
# (compare.py's) outlive the run in BUILD/kernel; it counts mismatches per arch, not checks.
set -u
main() {
TOP=$(pwd)
B=$(mkdir -p "${1:-build}" && cd "${1:-build}" && pwd)
ARCHES=${KERNEL_ARCHES:-arm powerpc mips x86_64}
DIRS=${KERNEL_DIRS:-kernel mm lib}
JOBS=${KERNEL_JOBS:-2}
NICE="nice -n ${KERNEL_NICE:-19}"
W=$B/kernel
SRC=$W/linux-source-6.1
TARBALL=/usr/src/linux-source-6.1.tar.xz
KTOOL=/usr/lib/linux-kbuild-6.1/scripts/recordmcount
OURS=$W/bin/recordmcount
PV=$W/bin/patchverify

say() { printf '%s\n' "$*"; }
die() { say "check-kernel: error: $*" >&2; exit 2; }

[ -x "$B/recordmcount" ] || die "$B/recordmcount missing (run make first)"

# Snapshot the tools under test: the build tree may be rebuilt while the
# kernel builds.  cp -p keeps the mtime, by which compare.py tells an output
# made by an older recordmcount (it runs ours again on the saved input).
mkdir -p "$W/bin"
for t in recordmcount patchverify; do
	rm -f "$W/bin/$t"
	[ -x "$B/$t" ] && cp -p "$B/$t" "$W/bin/$t.tmp" && mv "$W/bin/$t.tmp" "$W/bin/$t"
done
say "recordmcount under test: $("$OURS" --version 2>&1 | head -1), sha256 $(sha256sum <"$OURS" | cut -c1-16)"
[ -x "$PV" ] && say "patchverify under test: sha256 $(sha256sum <"$PV" | cut -c1-16)" ||
	say "patchverify not built: its column stays 0"

# --- source and reference tools ----------------------------------------------
if [ ! -f "$TARBALL" ] || [ ! -x "$KTOOL" ]; then
	say "installing linux-source-6.1 linux-kbuild-6.1"
	apt-get install -y linux-source-6.1 linux-kbuild-6.1 >"$W.apt.log" 2>&1 ||
		{ apt-get update >/dev/null 2>&1 &&
		  apt-get install -y linux-source-6.1 linux-kbuild-6.1 >"$W.apt.log" 2>&1; } ||
		die "apt-get install failed, see $W.apt.log"
fi
mkdir -p "$W"
if [ ! -f "$W/.unpacked" ] || [ "$TARBALL" -nt "$W/.unpacked" ]; then
	say "unpacking $TARBALL into $W"
	rm -rf "$SRC"
	(cd "$W" && $NICE tar -xJf "$TARBALL") || die "cannot unpack $TARBALL"
	touch "$W/.unpacked"
fi
[ -f "$SRC/Makefile" ] || die "$SRC/Makefile missing"

# --- per-arch settings ---------------------------------------------------------
# karch cross defconfig mode extra-config
arch_settings() {
	case $1 in
	arm)     echo "arm arm-linux-gnueabihf- multi_v7_defconfig wrap" ;;
	powerpc) echo "powerpc powerpc64le-linux-gnu- ppc64le_defconfig wrap" ;;
	# 64r2el: the generic board, MIPS64 R2, 64-bit, little endian.  Dead-code
	# elimination gives -ffunction-sections, where the kernel's fake-reloc
	# rule goes wrong across sections (a known difference to classify).
	mips)    echo "mips mips64el-linux-gnuabi64- 64r2el_defconfig wrap -e EXPERT -e LD_DEAD_CODE_DATA_ELIMINATION" ;;
	x86_64)  echo "x86_64 - defconfig cc" ;;
	*)       return 1 ;;
	esac
}

# Debug info only slows the build down; the tables do not depend on it.
COMMON_CONFIG="-e FTRACE -e FUNCTION_TRACER -e DYNAMIC_FTRACE
	-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5
	-e DEBUG_INFO_NONE"

status=0
summaries=()
for arch in $ARCHES; do
	set -- $(arch_settings "$arch") || die "unknown arch $arch (arm powerpc mips x86_64)"
	karch=$1 cross=$2 defconfig=$3 mode=$4
	shift 4
	extra="$*"
	[ "$cross" = - ] && cross=
	O=$W/out/$arch
	SAVE=$W/save/$arch
	LOG=$W/log/$arch
	mkdir -p "$O" "$SAVE" "$LOG"
	t0=$(date +%s)
	MK=($NICE make -C "$SRC" O="$O" ARCH="$karch" CROSS_COMPILE="$cross" -j"$JOBS")
	say "== $arch: $defconfig, dirs: $DIRS (logs in $LOG)"

	# Configure only when the recipe changed, so a re-run rebuilds nothing.
	recipe="$defconfig $COMMON_CONFIG $extra"
	if [ ! -f "$O/.config" ] || [ "$(cat "$O/.recipe" 2>/dev/null)" != "$recipe" ]; then
		"${MK[@]}" "$defconfig" >"$LOG/config.log" 2>&1 &&
			"$SRC/scripts/config" --file "$O/.config" $COMMON_CONFIG $extra &&
			"${MK[@]}" olddefconfig >>"$LOG/config.log" 2>&1 ||
			{ say "$arch: configuration failed, see $LOG/config.log"; status=1; continue; }
		echo "$recipe" >"$O/.recipe"
	fi
	for opt in FUNCTION_TRACER DYNAMIC_FTRACE; do
		grep -q "^CONFIG_$opt=y" "$O/.config" ||
			{ say "$arch: CONFIG_$opt is not set after olddefconfig"; status=1; continue 2; }
	done

	"${MK[@]}" prepare >"$LOG/prepare.log" 2>&1 ||
		{ say "$arch: make prepare failed, see $LOG/prepare.log"; status=1; continue; }

	if [ "$mode" = wrap ]; then
		grep -q '^CONFIG_FTRACE_MCOUNT_USE_RECORDMCOUNT=y' "$O/.config" ||
			{ say "$arch: config does not use recordmcount"; status=1; continue; }
		"${MK[@]}" scripts >>"$LOG/prepare.log" 2>&1 ||
			{ say "$arch: make scripts failed"; status=1; continue; }
		rm_bin=$O/scripts/recordmcount
		if ! grep -q 'tests/kernel/run.sh' "$rm_bin" 2>/dev/null; then
			[ -x "$rm_bin" ] || { say "$arch: $rm_bin was not built"; status=1; continue; }
			mv "$rm_bin" "$O/scripts/recordmcount.kernel"
		fi
		sed -e "s|@REF@|$O/scripts/recordmcount.kernel|" -e "s|@OURS@|$OURS|" \
			-e "s|@SAVE@|$SAVE|" -e "s|@OBJTREE@|$O|" \
			"$TOP/tests/kernel/wrapper.sh.in" >"$rm_bin.tmp"
		chmod +x "$rm_bin.tmp"
		mv "$rm_bin.tmp" "$rm_bin"
	fi

	targets=()
	for d in $DIRS; do targets+=("${d%/}/"); done
	say "   building ${targets[*]} ($(date +%T))"
	"${MK[@]}" -k "${targets[@]}" >"$LOG/build.log" 2>&1
	build_rc=$?
	[ $build_rc = 0 ] || { say "$arch: make ${targets[*]} failed (rc $build_rc), see $LOG/build.log"; status=1; }
	t1=$(date +%s)

	say "   comparing ($(date +%T))"
	$NICE python3 "$TOP/tests/kernel/compare.py" --mode "$mode" --arch "$arch" \
		--objtree "$O" --save "$SAVE" --ours "$OURS" --patchverify "$PV" \
		--jobs "$JOBS" --report "$LOG/compare.txt" --summary "$LOG/summary" $DIRS
	rc=$?
	t2=$(date +%s)
	[ $rc = 0 ] || status=1
	summaries+=("$(cat "$LOG/summary") $((t1 - t0)) $((t2 - t1)) $build_rc")
	say "   details: $LOG/compare.txt"
done

say ""
say "check-kernel summary (dirs: $DIRS)"
printf '%-8s %7s %6s %6s %6s %6s %8s %6s %7s %7s %7s %4s\n' arch objects sites nops match known mismatch pv-err pv-warn build-s check-s make
for s in "${summaries[@]}"; do
	printf '%-8s %7s %6s %6s %6s %6s %8s %6s %7s %7s %7s %4s\n' $s
done
return $status
}

main "$@"
exit $?
