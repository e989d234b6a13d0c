#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Library calls through GOT slots on aarch64, under qemu-user: usage  libcall.sh A64_BUILD_DIR
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
# PATCHSITE_LIBCALL=got).  Oracles:
#   - an rtld-audit library (la_aarch64_gnu_pltenter, written here, built
#     with the cross compiler and loaded by the guest's dynamic linker under
#     qemu): the sequence of PLT calls the executable makes; it needs lazy
#     binding, so it runs on each form's -z lazy build, and that sequence is
#     what every binding mode of the form must show, in the function
#     tracer's trace and in function_graph's (whose return hooks the
#     functions' paciasp signs);
#   - the program itself: a traced run prints what an untraced run prints
#     (every register the calls use kept).
set -u
# qemu-user has no perf_event_open: no scheduler switches asked for (run.sh says why).
export PATCHSITE_SCHED=0
B=${1:-build/aarch64}
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-a64libcall.XXXXXX")
trap 'rm -rf "$T"' EXIT
QEMU=${QEMU_AARCH64:-$(command -v qemu-aarch64-static || command -v qemu-aarch64)}
CC=${A64_CC:-aarch64-linux-gnu-gcc}
SYSROOT=${A64_SYSROOT:-/usr/aarch64-linux-gnu}
SRC="$PWD/testdata/patchsite"
PRELOAD="$PWD/$B/libpatchsite.so"
PASS=0
FAIL=0
pass() { PASS=$((PASS + 1)); echo "PASS aarch64 libcall $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL aarch64 libcall $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }

if [ -z "$QEMU" ] || ! command -v "$CC" >/dev/null 2>&1 || [ ! -f "$PRELOAD" ]; then
	echo "FAIL aarch64 libcall: needs $CC, qemu-aarch64 and $PRELOAD"
	exit 1
fi
cd "$T" || exit 1

cat > audit.c <<'EOF2'
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int out = -1;

unsigned int la_version(unsigned int v)
{
	const char *p = getenv("AUDIT_OUT");

	if (p)
		out = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	return v < LAV_CURRENT ? v : LAV_CURRENT;
}

/* The executable's calls only (its l_name is ""). */
unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	(void)lmid;
	*cookie = (uintptr_t)map;
	return map->l_name[0] == '\0' ? LA_FLG_BINDFROM | LA_FLG_BINDTO : LA_FLG_BINDTO;
}

ElfW(Addr) la_aarch64_gnu_pltenter(ElfW(Sym) *sym, unsigned int ndx, uintptr_t *refcook,
				   uintptr_t *defcook, La_aarch64_regs *regs, unsigned int *flags,
				   const char *symname, long int *framesizep)
{
	(void)ndx, (void)refcook, (void)defcook, (void)regs, (void)flags, (void)framesizep;
	if (out >= 0 && write(out, symname, strlen(symname)) > 0)
		(void)!write(out, "\n", 1);
	return sym->st_value;
}
EOF2
$CC -shared -fPIC -O1 -o audit.so audit.c >build.log 2>&1 || { fail "build audit.so" build.log; exit 1; }

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

form_flags() {
	case $1 in
	pie) echo "-fPIE -pie" ;;
	nopie) echo "-fno-pie -no-pie" ;;
	bti) echo "-fPIE -pie -mbranch-protection=standard" ;;
	esac
}

for form in pie nopie bti; do
	fl=$(form_flags $form)
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

# A variant-PCS function (testdata/patchsite/libcall_vpcs.c): the symbols readelf
# marks [VARIANT_PCS] are the slots refused by name; the call runs as untraced.
if $CC -O2 -fPIC -shared -DVPCS_LIB -o libcall_vpcs.so "$SRC/libcall_vpcs.c" >build.log 2>&1 &&
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

echo "$PASS passed, $FAIL failed"
[ $FAIL = 0 ]
