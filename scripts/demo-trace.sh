#!/bin/sh
# make demo, second part: the whole path after recordmcount on a threaded program:
# build it traceable, audit its site table, record it, replay and report it.
set -e
B=$(cd "${1:-build}" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cp testdata/demo/workers.c "$out/"
cd "$out"
run() { echo "\$ $*"; "$@"; echo; }
echo "--- tracing a program: compile with -pg, link without it"
run gcc -O1 -g -fno-pie -pg -mfentry -mrecord-mcount -fno-inline -c workers.c
run gcc -no-pie workers.o -o workers -pthread
echo "\$ patchverify --summary workers        # every site where it should be"
"$B/patchverify" --summary workers
echo
echo "\$ patchsite record -- ./workers         # into ./patchsite.data as it runs"
PATCHSITE_LIB="$B/libpatchsite.so" "$B/patchsite" record -- ./workers
echo
echo "\$ patchsite replay | head -24"
"$B/patchsite" replay | head -24
echo
echo "\$ patchsite report"
"$B/patchsite" report
echo
echo "\$ patchsite info | tail -6"
"$B/patchsite" info | tail -6
