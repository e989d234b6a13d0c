#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/tree/paths.sh catches each kind of line it is for, planted in a clean copy of a
# small tree, and passes the clean tree (make check-tree runs this first).
set -u
. tests/patchsite/lib.sh	# suite_init, pass, fail, summary
suite_init tree-selftest
mkdir -p "$T/clean/tests" "$T/clean/build"
printf 'make check\ncc -O2 /usr/src/binutils/x.c\n' >"$T/clean/tests/a.sh"
echo "/wo""rk/x in build/ is not the tree's" >"$T/clean/build/log"
if sh tests/tree/paths.sh "$T/clean" >"$T/out" 2>&1; then
	pass
else
	fail "selftest: a clean tree fails" "$T/out"
fi
n=0
for bad in "LUA=/wo""rk/.mir""ror/lua/repo" "cd /ro""ot/src" "ls /ho""me/u/x" "D=/srv/.mir""ror/x" \
	"git clo""ne --depth 1 https://github.com/x/y" "git clo""ne git@github.com:x/y" \
	'GTEST''_GIT=${G:-x}' 'x="$VALKEY''_GIT"'; do
	n=$((n + 1))
	rm -rf "$T/t" && cp -r "$T/clean" "$T/t"
	printf 'ok\n%s\n' "$bad" >>"$T/t/tests/a.sh"
	if sh tests/tree/paths.sh "$T/t" >"$T/out" 2>&1; then
		fail "selftest: not caught: $bad"
	elif grep -q "^FAIL tree: ./tests/a.sh:4:" "$T/out"; then
		pass
	else
		fail "selftest: $bad: not named by file and line" "$T/out"
	fi
done
summary "tests/tree/selftest.sh (a clean tree, $n planted lines)"
