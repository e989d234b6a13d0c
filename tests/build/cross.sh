#!/bin/sh
# README's cross builds (issue 40, defect 1), each run exactly as README prints it
# (`make CROSS_COMPILE=aarch64-linux-gnu-`, `make CROSS_COMPILE=riscv64-linux-gnu-`, taken
# from README itself) in a copy of the source tree, as a user with no make around it: each
# must exit 0, say in one line what it left out (the programs that link the target's libdw,
# libelf, capstone, not installed for it by scripts/deps.sh) and leave the runtime, the
# wrappers and the test programs built for the target.  The oracle of "built for the target"
# is readelf -h's Machine field.  The copy has its own build/, so make check's own cross
# builds in build/aarch64 and build/riscv64 are not touched.
#
#   sh tests/build/cross.sh
set -u
. tests/patchsite/lib.sh	# suite_init, user_shell, pass, fail, summary
suite_init cross
user_shell
FAIL_LINES=20 FAIL_END=1	# a build log's error is at its end

# The source tree without its build outputs.
mkdir "$T/src" && for f in * .[!.]*; do
	case $f in build|.git|'.[!.]*') ;; *) cp -a "$f" "$T/src/" ;; esac
done
cd "$T/src" || exit 2

# machine ARCH: readelf -h's name of ARCH's machine
machine() { case $1 in aarch64) echo AArch64 ;; riscv64) echo RISC-V ;; esac; }

for arch in aarch64 riscv64; do
	cmd=$(grep -o "\`make CROSS_COMPILE=$arch-linux-gnu-\`" README.md | head -1 | tr -d '`')
	if [ -z "$cmd" ]; then
		echo "README prints no \`make CROSS_COMPILE=$arch-linux-gnu-\`" >"$T/why"
		fail "$arch: the command README prints" "$T/why"
		continue
	fi
	sh -c "$cmd" >"$T/out.$arch" 2>"$T/err.$arch"
	rc=$?
	cat "$T/err.$arch" >>"$T/out.$arch"
	if [ $rc -eq 0 ]; then
		pass "$cmd: exit 0"
	else
		fail "$cmd: exit $rc" "$T/out.$arch"
		continue
	fi
	notes=$(grep -c '^note: ' "$T/out.$arch")
	note=$(grep '^note: ' "$T/out.$arch")
	case $notes:$note in
	1:*"patchsite(libdw libelf)"*recordmcount*patchverify* | \
	1:*recordmcount*patchverify*"patchsite(libdw libelf)"*)
		pass "$arch: one line says what is left out: ${note%%,*}" ;;
	*)	fail "$arch: one 'note:' line naming patchsite, recordmcount, patchverify and their libraries ($notes)" \
			"$T/out.$arch" ;;
	esac
	want=$(machine $arch)
	b=build/$arch
	: >"$T/bad"
	for f in $b/libpatchsite.so $b/libpatchsite.a $b/patchsite.o $b/tests/patchsite/api \
		 $b/tests/patchsite/stress $b/tests/patchsite/basic; do
		m=$(readelf -h "$f" 2>>"$T/bad" | sed -n 's/^ *Machine: *//p' | sort -u)
		case $m in
		"$want"*) case $m in *"
"*) echo "$f: machines $m" >>"$T/bad" ;; esac ;;
		*) echo "$f: machine '$m', expected $want" >>"$T/bad" ;;
		esac
	done
	for f in $b/patchsite-cc $b/patchsite-c++; do
		[ -x "$f" ] || echo "$f: not built" >>"$T/bad"
	done
	for f in $b/patchsite $b/recordmcount $b/patchverify; do
		[ ! -e "$f" ] || echo "$f: built, though the note says it is left out" >>"$T/bad"
	done
	if [ -s "$T/bad" ]; then
		fail "$arch: the runtime, the wrappers and the test programs, for $want" "$T/bad"
	else
		pass "$arch: libpatchsite.so, .a, patchsite.o, api, stress, basic are $want ELF (readelf -h); patchsite-cc, patchsite-c++ built"
	fi
done
summary
