#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# record -a on a program nobody here wrote: Lua (its git HEAD, LUA_GIT: by default the mirror
# /work/.mirror/lua+lua/repo; skipped without it), built gcc -O2 -g -pg -mfentry -z lazy,
# running testdata/patchsite/libc_args.lua (tables, sorting, strings, a file written and read).
# usage: libc_args_lua.sh BUILD_DIR  (make check-realprobes runs it; it builds Lua: a minute)
#
# Oracles: the untraced run's output (the traced one prints the same); an rtld-audit
# la_x86_64_gnu_pltenter library (tests/patchsite/libc_args.sh's) run twice untraced: each
# library function the trace gives arguments has the same multiset of argument values as the
# audit's (strings, integers, pointers as NULL or not), but those whose calls follow the memory
# layout: Lua's cache of C strings is indexed by their address, so strcmp, strlen and memcmp
# are called more or less often from run to run; a function is compared when its 4 untraced
# runs agree and its traced calls are as many; at least 12 are.
set -u

B=${1:-build}
T=$(mktemp -d "${TMPDIR:-/tmp}/patchsite-libc_args_lua.XXXXXX")
trap 'rm -rf "$T"' EXIT
PASS=0
FAIL=0
PS="$PWD/$B/patchsite"
export PATCHSITE_LIB="$PWD/$B/libpatchsite.so"
TESTS="$PWD/tests/patchsite"
SCRIPT="$PWD/testdata/patchsite/libc_args.lua"
LUA_GIT=${LUA_GIT:-/work/.mirror/lua+lua/repo}
pass() { PASS=$((PASS + 1)); echo "PASS $1"; }
fail() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ $# -gt 1 ] && sed 's/^/    /' "$2" | head -30; }

if [ "$(uname -m)" != x86_64 ]; then
	echo "libc_args_lua.sh: the audit oracle is x86-64's: skipped"
	exit 0
fi
if ! git --git-dir="$LUA_GIT" rev-parse HEAD >/dev/null 2>&1; then
	echo "SKIP libc_args_lua.sh: no Lua git repository at $LUA_GIT (LUA_GIT=DIR names one)"
	exit 0
fi
# The audit library, as libc_args.sh writes it.
sed -n "/^cat > audit.c <<'AUDIT'/,/^AUDIT/p" "$TESTS/libc_args.sh" | sed '1d;$d' > "$T/audit.c"
gcc -shared -fPIC -O1 -o "$T/audit.so" "$T/audit.c" >"$T/build.log" 2>&1 ||
	{ fail "build audit.so" "$T/build.log"; exit 1; }
mkdir -p "$T/lua" "$T/o"
git --git-dir="$LUA_GIT" archive HEAD | tar -x -C "$T/lua" || { fail "lua sources"; exit 1; }
for src in "$T"/lua/l*.c; do
	case $src in */ltests.c | */onelua.c) continue ;; esac
	gcc -O2 -g -pg -mfentry -mrecord-mcount -std=c99 -DLUA_USE_LINUX '-Dluai_makeseed()=0U' \
		-c "$src" -o "$T/o/$(basename "$src" .c).o" 2>>"$T/build.log" ||
		{ fail "build Lua" "$T/build.log"; exit 1; }
done
gcc "$T"/o/*.o -o "$T/lua-bin" -Wl,-z,lazy -lm 2>>"$T/build.log" || { fail "link Lua" "$T/build.log"; exit 1; }

cd "$T" || exit 1
export OUT="$T/lines.txt"
./lua-bin "$SCRIPT" > plain.out 2>&1
for i in 1 2 3 4; do
	AUDIT_OUT="$T/a$i.txt" LD_AUDIT="$T/audit.so" ./lua-bin "$SCRIPT" > /dev/null 2>&1
done
if ! "$PS" record -d d -a ./lua-bin "$SCRIPT" > traced.out 2>err; then
	fail "record -a lua" err
elif ! cmp -s plain.out traced.out; then
	diff plain.out traced.out > diff.txt
	fail "record -a lua: output differs from the untraced run's" diff.txt
else
	pass "record -a lua: the output of the untraced run ($(wc -l < plain.out) lines)"
	"$PS" replay --no-sched -d d > trace 2>&1
	if python3 "$TESTS/libc_args_compare.py" --bag a1.txt a2.txt a3.txt a4.txt trace 12 > cmp.txt; then
		pass "record -a lua: $(tail -1 cmp.txt)"
	else
		fail "record -a lua: library calls' arguments differ from the audit's" cmp.txt
	fi
fi
echo "libc_args_lua.sh: $PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
