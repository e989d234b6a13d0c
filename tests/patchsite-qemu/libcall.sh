#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Library calls through GOT slots on aarch64 or riscv64, under qemu-user:
# usage  libcall.sh BUILD_DIR [ARCH]   (ARCH aarch64, the default, or riscv64)
#
# testdata/patchsite/libcall_regs.c calls the C library (malloc, memcpy,
# puts, qsort with a callback that calls strcmp, printf and snprintf with
# doubles, free) and libcall_regs_lib.c (every integer and vector argument
# register and the stack after them, x8's indirect result, an HFA in d0-d3,
# varargs doubles, a callback), built as
#   pie    PIE (Debian's default)
#   nopie  -fno-pie, linked -no-pie
#   bti    PIE, -mbranch-protection=standard (bti c and paciasp in every
#          function), the library linked -z force-bti without start files:
#          the dynamic linker maps its text BTI-guarded (PROT_BTI, enforced by
#          qemu: an indirect branch to a word that is not a landing pad traps),
#          so the thunk's jump must be one `bti c` accepts; function_graph's
#          hooked returns are signed by the library functions' paciasp.  (The
#          executable itself cannot be guarded here: Debian's crt1.o has no
#          BTI property, and a -z force-bti executable traps at _start.)
# each linked -z lazy and -z now, and pie also -fno-plt (its GLOB_DAT slots,
# PATCHSITE_LIBCALL=got; by default they are not taken, and that is said by name).  riscv64: pie and nopie (rv64gc), the same links.
# Oracles:
#   - an rtld-audit library (la_aarch64_gnu_pltenter, written here, built
#     with the cross compiler and loaded by the guest's dynamic linker under
#     qemu): the sequence of PLT calls the executable makes; it needs lazy
#     binding, so it runs on each form's -z lazy build, and that sequence is
#     what every binding mode of the form must show, in the function
#     tracer's trace and in function_graph's (whose return hooks the
#     functions' paciasp signs);
#   - riscv64's dynamic linker calls no la_pltenter (glibc has no profiling
#     trampoline there), so gdb counts instead: a breakpoint on each of the
#     executable's PLT entries (objdump names them), through qemu's gdbstub
#     (its breakpoints write no guest code), in the traced -z lazy and -z now
#     runs; the trace must name each function as often.  -fno-plt has no PLT
#     entries: its trace must count what gdb counted on the -z now build;
#   - the program itself: a traced run prints what an untraced run prints
#     (every register the calls use kept).
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary, qemu_init, form_flags (plt-FORM)
# qemu-user has no perf_event_open: no scheduler switches asked for (run.sh says why).
export PATCHSITE_SCHED=0
ARCH=${2:-aarch64}
suite_init $ARCH-libcall "${1:-build/aarch64}" plain
LABEL="$ARCH libcall"
case $ARCH in
aarch64) FORMS="pie nopie bti" ;;
riscv64) FORMS="pie" ;;	# nopie: refused by name (below)
esac
SRC="$PWD/testdata/patchsite"
PRELOAD="$PWD/$B/libpatchsite.so"
if ! qemu_init $ARCH || [ ! -f "$PRELOAD" ]; then
	echo "FAIL $ARCH libcall: needs $NEED and $PRELOAD"
	exit 1
fi
cd "$T" || exit 1

if [ $ARCH = aarch64 ] && ! $CC -shared -fPIC -O1 -o audit.so "$SRC/pltaudit.c" >build.log 2>&1; then
	fail "build audit.so" build.log
	exit 1
fi

run() {	# OUT PROG [qemu -E settings...]
	out=$1 prog=$2
	shift 2
	"$QEMU" -L "$SYSROOT" "$@" "./$prog" >"$out" 2>>err
}
traced() {	# OUT PROG TRACER LIBCALL [qemu -E settings...]
	o=$1 p=$2 tr=$3 lc=$4
	shift 4
	rm -f trace
	run "$o" "$p" -E LD_PRELOAD="$PRELOAD" -E PATCHSITE_TRACER="$tr" -E PATCHSITE_LIBCALL="$lc" \
		-E PATCHSITE_OUTPUT="$T/trace" "$@"
}
# The calls a trace shows, one name a line, in order (function: "name <-parent";
# function_graph: "name();" or "name() {").
names() {
	sed -n -e 's/.*: \([^ ]*\) <-.*/\1/p' \
	       -e 's/^.*| *\([A-Za-z_][A-Za-z0-9_]*\)() [{]$/\1/p' \
	       -e 's/^.*| *\([A-Za-z_][A-Za-z0-9_]*\)();$/\1/p' trace
}

# gdb_traced OUT PROG TRACER LIBCALL: traced, under gdb through qemu's gdbstub, a
# breakpoint on each PLT entry of PROG (as objdump names them); gdb.counts gets
# "COUNT NAME" for each entry hit, by name (as run.sh's gdb_case waits for qemu).
gdb_traced() {
	o=$1 p=$2
	{
		printf '%s\n' 'set pagination off' 'set confirm off'
		$OBJDUMP -d "$p" | sed -n 's/^[0-9a-f]* <\(.*\)@plt>:$/\1/p' | while read -r f; do
			printf '%s\n' "break *'$f@plt'" commands silent continue end
		done
		printf '%s\n' continue 'info breakpoints'
	} > cmds
	port=$((20000 + ($$ + PASS + FAIL) % 20000))
	rm -f trace
	"$QEMU" -L "$SYSROOT" -g $port -E LD_PRELOAD="$PRELOAD" -E PATCHSITE_TRACER="$3" \
		-E PATCHSITE_LIBCALL="$4" -E PATCHSITE_OUTPUT="$T/trace" "./$p" >"$o" 2>>err &
	qpid=$!
	hexport=$(printf '%04X' $port)
	for _ in $(seq 600); do
		grep -q ":$hexport 00000000:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 0.1
	done
	timeout 300 gdb-multiarch -batch -nx -ex "set sysroot $SYSROOT" -ex "file $p" \
		-ex "target remote 127.0.0.1:$port" -x cmds >gdb.txt 2>&1
	for _ in $(seq 100); do kill -0 $qpid 2>/dev/null || break; sleep 0.1; done
	kill -9 $qpid 2>/dev/null && echo "qemu still waiting 10 s after gdb ended: killed" >>err
	wait $qpid
	awk '/<.*@plt>$/ { n = $NF; sub(/^</, "", n); sub(/@plt>$/, "", n); next }
	     n != "" && /already hit/ { print $4, n } { n = "" }' gdb.txt |
		grep -v -e ' __cxa_finalize$' -e ' __libc_start_main$' | sort -k2 > gdb.counts
}

# aarch64: the audit sequence of each form's -z lazy build, every binding mode's traces.
audit_cases() {
	for form in $FORMS; do
		fl=$(form_flags plt-$form)
		bf=
		[ $form = bti ] && bf="-mbranch-protection=standard -nostartfiles -Wl,-z,force-bti"
		if ! $CC -O2 -fPIC -shared $bf -o libcall_regs_lib.so "$SRC/libcall_regs_lib.c" \
			>build.log 2>&1 ||
		   ! $CC -O2 $fl -Wl,-z,lazy -o ref "$SRC/libcall_regs.c" -L. -lcall_regs_lib \
			-Wl,-rpath,"$T" >build.log 2>&1; then
			fail "$form: build the audit reference" build.log
			continue
		fi
		: >err
		run plain.out ref
		run audit.out ref -E LD_AUDIT="$T/audit.so" -E AUDIT_OUT="$T/audit.raw"
		# __cxa_finalize: crtbegin's destructor in a PIE, through the PLT or not
		# (as the linker relaxed it); neither sequence keeps it.  __libc_start_main:
		# a non-PIE _start calls it through the PLT; it never returns, so its slot
		# is refused (sites/got_families.c) and the runtime says so.
		grep -vx -e __cxa_finalize -e __libc_start_main audit.raw > audit.txt 2>/dev/null
		if ! cmp -s audit.out plain.out || ! grep -qx lr_big audit.txt || ! grep -qx memcpy audit.txt
		then
			fail "$form: the audit oracle saw no lr_big or memcpy, or changed the output" err
			continue
		fi
		for bind in lazy now noplt; do
			case $bind in
			lazy) b="-Wl,-z,lazy"; lc=plt ;;
			now) b="-Wl,-z,now"; lc=plt ;;
			noplt) [ $form = pie ] || continue; b="-fno-plt -Wl,-z,now"; lc=got ;;
			esac
			exe="p_${form}_$bind"
			if ! $CC -O2 $fl $b -o "$exe" "$SRC/libcall_regs.c" -L. -lcall_regs_lib \
				-Wl,-rpath,"$T" >build.log 2>&1; then
				fail "$form $bind: build" build.log
				continue
			fi
			for tracer in function function_graph; do
				name="$form -z $bind, $tracer"
				[ $bind = noplt ] && name="$form -fno-plt -z now (PATCHSITE_LIBCALL=got), $tracer"
				: >err
				traced out "$exe" $tracer $lc
				if ! cmp -s out plain.out; then
					fail "$name: traced output differs from untraced" out
					continue
				fi
				names | grep -vx __cxa_finalize > seq
				if diff -u audit.txt seq > diff.txt; then
					pass "$name: $(wc -l < seq) library calls as the audit oracle"
				else
					fail "$name: library calls differ from the audit oracle" diff.txt
				fi
			done
		done
	done
}

# riscv64: gdb's counts per PLT entry in the traced runs themselves.
gdb_cases() {
	for form in $FORMS; do
		fl=$(form_flags plt-$form)
		if ! $CC -O2 -fPIC -shared -o libcall_regs_lib.so "$SRC/libcall_regs_lib.c" >build.log 2>&1
		then
			fail "$form: build the library" build.log
			continue
		fi
		for bind in lazy now noplt; do
			case $bind in
			lazy) b="-Wl,-z,lazy"; lc=plt ;;
			now) b="-Wl,-z,now"; lc=plt ;;
			noplt) [ $form = pie ] || continue; b="-fno-plt -Wl,-z,now"; lc=got ;;
			esac
			exe="p_${form}_$bind"
			if ! $CC -O2 $fl $b -o "$exe" "$SRC/libcall_regs.c" -L. -lcall_regs_lib \
				-Wl,-rpath,"$T" >build.log 2>&1; then
				fail "$form $bind: build" build.log
				continue
			fi
			: >err
			run plain.out "$exe"
			for tracer in function function_graph; do
				name="$form -z $bind, $tracer"
				[ $bind = noplt ] && name="$form -fno-plt -z now (PATCHSITE_LIBCALL=got), $tracer"
				: >err
				if [ $bind = noplt ]; then
					traced out "$exe" $tracer $lc	# the -z now build's counts stay
				else
					gdb_traced out "$exe" $tracer $lc
				fi
				if ! cmp -s out plain.out; then
					fail "$name: traced output differs from untraced" out
					continue
				fi
				names | grep -vx __cxa_finalize | sort | uniq -c |
					awk '{ print $1, $2 }' | sort -k2 > counts
				if grep -q ' lr_big$' gdb.counts && diff -u gdb.counts counts > diff.txt; then
					pass "$name: $(awk '{ n += $1 } END { print n }' counts) library calls, per function as gdb counts them"
				else
					fail "$name: library calls differ from gdb's counts" diff.txt
				fi
			done
		done
	done
}

if [ $ARCH = aarch64 ]; then
	audit_cases
elif command -v gdb-multiarch >/dev/null; then
	gdb_cases
else
	fail "needs gdb-multiarch for its oracle (apt-get install gdb-multiarch)"
fi

# A variant-PCS function (testdata/patchsite/libcall_vpcs.c): the symbols readelf
# marks [VARIANT_PCS] are the slots refused by name; the call runs as untraced.
# (gcc 12 has no attribute for riscv's variant calling convention.)
# riscv64 non-PIE: the linker gives every PLT function's undefined symbol a value,
# its PLT entry, which is then that function's address in every object (readelf
# shows it): the other objects' calls, the tracer's own, would come through the
# slot, so each such slot is refused by name and the program runs as untraced.
if [ $ARCH = riscv64 ] &&
   $CC -O2 -fPIC -shared -o libcall_regs_lib.so "$SRC/libcall_regs_lib.c" >build.log 2>&1 &&
   $CC -O2 -fno-pie -no-pie -o nopie "$SRC/libcall_regs.c" -L. -lcall_regs_lib \
	-Wl,-rpath,"$T" >build.log 2>&1; then
	: >err
	run plain.out nopie
	traced out nopie function plt -E PATCHSITE_LOG=1
	readelf -W --dyn-syms nopie | awk '$4 == "FUNC" && $7 == "UND" && $2 !~ /^0+$/ {
		sub(/@.*/, "", $8); print $8 }' | sort > marked
	sed -n 's/^patchsite: note: nopie: \([^:]*\): library calls not traced: .*/\1/p' err |
		sort > refused
	if [ -s marked ] && cmp -s marked refused && cmp -s out plain.out && [ -z "$(names)" ]; then
		pass "nopie: the $(wc -l < marked) slots whose PLT entry readelf shows as the function's address refused by name"
	else
		fail "nopie: canonical PLT entries not refused as readelf shows them" err
	fi
fi
if [ $ARCH = riscv64 ]; then
	:
elif $CC -O2 -fPIC -shared -DVPCS_LIB -o libcall_vpcs.so "$SRC/libcall_vpcs.c" >build.log 2>&1 &&
   $CC -O2 -o vpcs "$SRC/libcall_vpcs.c" -L. -lcall_vpcs -Wl,-rpath,"$T" >build.log 2>&1; then
	: >err
	run plain.out vpcs
	traced out vpcs function_graph plt -E PATCHSITE_LOG=1
	readelf -W --dyn-syms vpcs | awk '/\[VARIANT_PCS\]/ { print $NF }' > marked
	sed -n 's/^patchsite: note: vpcs: \([^:]*\): library calls not traced: a variant-PCS .*/\1/p' \
		err > refused
	if [ -s marked ] && cmp -s marked refused && cmp -s out plain.out && names | grep -qx printf &&
	   ! names | grep -qx lr_vector_pcs; then
		pass "variant PCS: $(cat refused) refused by name, as readelf marks it; printf traced"
	else
		fail "variant PCS: not refused as readelf marks it ($(cat marked))" err
	fi
else
	fail "variant PCS: build" build.log
fi

# -fno-plt by default (PATCHSITE_LIBCALL=plt): the code loads a function's address from its
# GLOB_DAT slot into a register before calling it (objdump: no call through a slot), which
# cannot be told from &func, so those slots are not taken, and the runtime says so by name
# for the executable.  (riscv64's gcc calls through the PLT even with -fno-plt: the lazy
# and -z now cases cover it.)
if [ $ARCH = riscv64 ]; then
	:
elif $CC -O2 -fPIC -shared -o libcall_regs_lib.so "$SRC/libcall_regs_lib.c" >build.log 2>&1 &&
   $CC -O2 -fPIE -pie -fno-plt -Wl,-z,now -o np "$SRC/libcall_regs.c" -L. -lcall_regs_lib \
	-Wl,-rpath,"$T" >build.log 2>&1; then
	: >err
	run plain.out np
	traced out np function plt -E PATCHSITE_LOG=1
	if grep -q "^patchsite: note: np: calls through its GLOB_DAT slots (-fno-plt) not traced: -fno-plt code loads the function's address from the slot into a register" err &&
	   cmp -s out plain.out && ! names | grep -qx -e malloc -e lr_big; then
		pass "-fno-plt by default: its GLOB_DAT calls not taken, said by name"
	else
		fail "-fno-plt by default: not said by name" err
	fi
else
	fail "-fno-plt by default: build" build.log
fi

summary
