#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Dynamic probes on aarch64 under qemu-user: usage  probes.sh A64_BUILD_DIR HOST_BUILD_DIR
#
# The oracle is the x86-64 run of the same sample (testdata/patchsite/probes.c),
# whose values tests/patchsite/probes.sh checks against gdb: the same probes
# (integer arguments in registers and past them, a struct member, a string,
# a global, a float and a double from d0) must give the same values, call by
# call, from aarch64's register map (patchsite/arch/aarch64/regs.c) run
# under qemu-aarch64.  The host's patchsite command reads both directories.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary, qemu_init
# qemu-user has no perf_event_open (ENOSYS): the runtime would say once that
# off-CPU time is unknown and mark each trace so (tests/patchsite/sched.sh
# checks that); these suites compare traces, so they ask for no switches.
export PATCHSITE_SCHED=0
A=${1:-build/aarch64}
H=${2:-build}
suite_init a64probes "$H" plain
LABEL=aarch64
if ! qemu_init aarch64 || [ ! -f "$A/libpatchsite.so" ]; then
	echo "SKIP aarch64 probes: needs $NEED and $A/libpatchsite.so"
	exit 0
fi
# probes ARCH_FLOAT_REG: the definitions, the float register named as the arch names it.
probes() {
	cat <<EOF2
f:t/u8 f_u8 a=\$arg1:u8
f:t/s8 f_s8 a=\$arg1:s8
f:t/s16 f_s16 a=\$arg1:s16
f:t/x32 f_x32 a=\$arg1:x32
f:t/s64 f_s64 a=\$arg1:s64
f:t/char f_char c=\$arg1:char
f:t/str f_str s=+0(\$arg1):string
f:t/float f_float x=%${1}0:float
f:t/double f_double x=%${1}0:double
f:t/many f_many a1=\$arg1:s64 a6=\$arg6:s64 a7=\$arg7:s64 a8=\$arg8:s64
f:t/send send_msg port=+0(\$arg1):s32 host=+0(+8(\$arg1)):string len=\$arg2:u32 counter=@counter:s64
EOF2
}
gcc -O2 -g -pg -mfentry -mrecord-mcount -rdynamic testdata/patchsite/probes.c -o "$T/x86" 2>/dev/null
$CC -O2 -g -fpatchable-function-entry=2 -rdynamic testdata/patchsite/probes.c -o "$T/a64" 2>"$T/err"
PATCHSITE_PROBES="$(probes xmm)" PATCHSITE_DATA="$T/x86.d" LD_PRELOAD="$PWD/$H/libpatchsite.so" \
	"$T/x86" >/dev/null 2>>"$T/err"
"$QEMU" -L "$SYSROOT" -E LD_PRELOAD="$PWD/$A/libpatchsite.so" \
	-E PATCHSITE_PROBES="$(probes d)" -E PATCHSITE_DATA="$T/a64.d" "$T/a64" >/dev/null 2>>"$T/err"
for arch in x86 a64; do
	"$H/patchsite" replay -d "$T/$arch.d" 2>>"$T/err" | grep -o ' t:[a-z0-9]*: .*' >"$T/$arch.txt"
done
n=$(wc -l <"$T/x86.txt")
if [ "$n" -gt 100 ] && diff -u "$T/x86.txt" "$T/a64.txt" >"$T/diff"; then
	pass "probes: $n events, the same values as x86-64's"
else
	fail "probes differ from x86-64's ($n events)" "$T/err" "$T/diff"
fi
summary
