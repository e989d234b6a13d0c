#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Probes on library calls on aarch64 under qemu-user: the prototype list's definitions
# (patchsite/cmd/dwarf/libc_protos.c, which record -a gives each library call, as "f:auto/NAME NAME
# ARGS" and "NAME%return $retval:TYPE") for the 28 functions testdata/patchsite/libc_args.c
# calls, run through the aarch64 runtime's GOT-slot thunks (PATCHSITE_LIBCALL=plt).
# usage: libc_args.sh AARCH64_BUILD_DIR HOST_BUILD_DIR
#
# Oracles, as tests/patchsite/libc_args.sh's on x86-64: an rtld-audit library
# (la_aarch64_gnu_pltenter: x0-x5 and the strings they point to) for the arguments, the
# program's own printout for the return values.
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary, qemu_init
export PATCHSITE_SCHED=0
A=${1:-build/aarch64}
suite_init a64libc_args "${2:-build}" plain
LABEL="aarch64 libc_args"
PROTO="$PWD/patchsite/cmd/dwarf/libc_protos.c"
if ! qemu_init aarch64 || [ ! -f "$A/libpatchsite.so" ]; then
	echo "SKIP aarch64 libc_args: needs $NEED and $A/libpatchsite.so"
	exit 0
fi
sed -n "/^cat > audit.c <<'AUDIT'/,/^AUDIT/p" "$TESTS/libc_args.sh" | sed '1d;$d' > "$T/audit.c"
$CC -shared -fPIC -O1 -o "$T/audit.so" "$T/audit.c" >"$T/build.log" 2>&1 ||
	{ fail "build audit.so" "$T/build.log"; exit 1; }
$CC -O1 -g -fpatchable-function-entry=2 -fno-builtin -no-pie -Wl,-z,lazy -pthread -o "$T/la" \
	testdata/patchsite/libc_args.c >"$T/build.log" 2>&1 || { fail "build" "$T/build.log"; exit 1; }

WANT="malloc calloc realloc free memcpy memset memcmp strlen strcmp strchr strstr strtol open read
close write fopen fclose puts snprintf printf pthread_mutex_lock pthread_mutex_unlock nanosleep
pthread_create pthread_join qsort fflush"
# The list's entries, C's adjacent string literals joined.
python3 - "$PROTO" $WANT > "$T/probes" <<'PY'
import re, sys
text = re.sub(r'"\s*\n\s*"', '', open(sys.argv[1]).read())
protos = {m.group(1): (m.group(2), m.group(4)) for m in
          re.finditer(r'\{ "(\w+)", "([^"]*)", (NULL|"(\w+)") \}', text)}
for n in sys.argv[2:]:
    args, ret = protos[n]
    print('f:auto/%s %s %s' % (n, n, args))
    if ret:
        print('f:auto/%s_ret %s%%return $retval:%s' % (n, n, ret))
PY

cd "$T" || exit 1
"$QEMU" -L "$SYSROOT" -E AUDIT_OUT="$T/audit.txt" -E LD_AUDIT="$T/audit.so" ./la > audit.out
"$QEMU" -L "$SYSROOT" -E LD_PRELOAD="$OLDPWD/$A/libpatchsite.so" -E PATCHSITE_LIBCALL=plt \
	-E PATCHSITE_PROBES="$(cat probes)" -E PATCHSITE_DATA="$T/d" ./la > out 2>err
if ! "$PS" replay -d d > trace 2>>err; then
	fail "replay" err
# qemu-user maps the guest's stack and libraries from 0x5500000000.
elif python3 "$TESTS/oracles/libc_args_compare.py" audit.txt trace out "$WANT" "$WANT" --exe=la \
	--high=0x5500000000 > cmp.txt; then
	pass "the prototype list's probes on library calls equal the audit's registers and the program's returns: $(tail -1 cmp.txt)"
else
	fail "library calls' arguments differ from the oracles" cmp.txt
fi
summary "aarch64 libc_args.sh"
